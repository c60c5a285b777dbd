"""A scan's per-step output written from a Python scalar (codegen.py's scalar mode).

`ys = ys.at[t].set(h)` exports as a broadcast (or reshape) of the 0-d `h` to a one-element
vector and a dynamic_update_slice of it into the carried stack. In a generated loop where
`h` is a Python float, that was a conversion to a numpy scalar, a one-element array and
the update kernel: about a microsecond per step, more than the whole scalar step. Here the
pair is one call of the update kernel's `write_element` (specialize_dynamic_slice.py),
which assigns the Python scalar to the stack's element in place: numpy's item assignment
casts it as the conversion back to a numpy scalar would, so only values pyscalar.py may
convert back (clean ones) are written so.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..ir.core import Value
from .pyscalar import kind_of

_MAKERS = frozenset(("stablehlo.broadcast_in_dim", "stablehlo.reshape"))


def element_writes(steps: Sequence[Any], kept: Collection[Value], skipped: Collection[int]
                   ) -> dict[int, int]:
    """Broadcast or reshape step -> update step, for each 0-d value of a held kind made
    into a one-element vector only to be the update of a dynamic_update_slice whose kernel
    writes an element from a Python scalar (`in_place.write_element`). `kept` values (read
    after the block or by nested regions) and `skipped` steps are left alone."""
    uses: dict[Value, int] = {}
    for step in steps:
        for v in step.op.operands:
            uses[v] = uses.get(v, 0) + 1
    producer = {step.op.results[0]: i for i, step in enumerate(steps)
                if len(step.op.results) == 1 and step.op.name in _MAKERS
                and len(step.op.operands) == 1 and kind_of(step.op.operands[0]) is not None}
    writes: dict[int, int] = {}
    for j, step in enumerate(steps):
        write = getattr(getattr(step.fn, "in_place", None), "write_element", None)
        if write is None or len(step.op.operands) != 3 or j in skipped:
            continue
        update = step.op.operands[1]
        i = producer.get(update)
        if i is None or i in skipped or uses[update] != 1 or update in kept:
            continue
        writes[i] = j
    return writes
