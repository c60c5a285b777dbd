"""`--stablehlo-legalize-deprecated-ops`: upstream's pass (StablehloLegalizeDeprecatedOps.cpp)
rewrites broadcast, create_token, cross-replica-sum, dot and unary_einsum into their
long-term counterparts (the rewrites are `hlo-expand`'s `--legalize_*` expanders), and, with
its default `fail-on-unused=true`, fails on `rng` and `map`, deprecated ops without a
replacement, with upstream's conversion error. einsum and torch_index_select are kept, as
upstream keeps them (`hlo-expand --legalize_einsum/--legalize_torch_index_select` rewrite
them). `fail-on-unused=false` keeps rng and map, as upstream's option does."""

from __future__ import annotations

from ..ir.core import Module
from ..ir.diagnostics import Diagnostic
from . import PassOption, register_pass
from .expanders.build import expand_module
from .expanders.legalize_deprecated import DEPRECATED_OP_REWRITES

ILLEGAL_WITHOUT_REPLACEMENT = ("stablehlo.map", "stablehlo.rng")


@register_pass("stablehlo-legalize-deprecated-ops",
               "Legalize deprecated ops to well-supported ops.",
               options=(PassOption("fail-on-unused", "Fail on (mostly) unused ops that are "
                                   "deprecated without any fallback.", True, flag=True),))
def legalize_deprecated_ops(module: Module, fail_on_unused: bool = True) -> None:
    for op in module.op.walk():
        if fail_on_unused and op.name in ILLEGAL_WITHOUT_REPLACEMENT:
            raise Diagnostic(f"failed to legalize operation '{op.name}' that was explicitly "
                             "marked illegal", line=op.location.line or None,
                             col=op.location.col or None)
    expand_module(module, DEPRECATED_OP_REWRITES)
