"""`stablehlo-deserialize`: upstream's pipeline that turns a read portable artifact into
StableHLO: VHLO upgraded to the current version, then legalized to StableHLO."""

from __future__ import annotations

from ..dialects.vhlo.version import CURRENT
from ..ir.core import Module
from . import register_pass
from .vhlo_legalize_to_stablehlo import legalize_to_stablehlo
from .vhlo_to_version import vhlo_to_version


@register_pass("stablehlo-deserialize",
               "Upgrade VHLO to the current version and legalize it to StableHLO.")
def stablehlo_deserialize(module: Module) -> None:
    vhlo_to_version(module, CURRENT)
    legalize_to_stablehlo(module)
