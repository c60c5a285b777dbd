"""`--strip-debuginfo`: every op and block argument gets `loc(unknown)`, as MLIR's
StripDebugInfo pass does (portable artifacts are often written this way, so their bytes do
not depend on file names)."""

from __future__ import annotations

from ..ir.core import Location, Module
from ..ir.locations import UnknownLoc
from . import register_pass


@register_pass("strip-debuginfo", "Strip debug info from all operations.")
def strip_debuginfo(module: Module) -> None:
    unknown = UnknownLoc()
    for op in module.op.walk():
        # Keep where the op was parsed for our own diagnostics; MLIR's location is unknown.
        loc = op.location
        op.location = Location(loc.filename, loc.line, loc.col, unknown)
        for region in op.regions:
            for block in region.blocks:
                block.arg_locations = [unknown] * len(block.arguments)
