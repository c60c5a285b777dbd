"""`--stablehlo-aggressive-simplification`: StableHLO's canonicalization patterns (upstream's
StablehloAggressiveSimplification) applied per function by the greedy driver, bottom-up with
op folding, like MLIR's default GreedyRewriteConfig."""

from __future__ import annotations

from ...ir.core import Module
from .. import PassOption, register_pass
from ..fold import _int, functions
from ..rewrite import GreedyConfig, RewritePattern, apply_patterns_greedily
from . import algebra, compare, dynamic, loops, reduce, shape, slicing, structural


def simplification_patterns(fold_op_element_limit: int = 65536) -> list[RewritePattern]:
    """Every simplification pattern (declarative ones first, as upstream registers them)."""
    return [*algebra.PATTERNS, *shape.PATTERNS, *dynamic.PATTERNS,
            shape.select_known(fold_op_element_limit), *compare.PATTERNS,
            *structural.PATTERNS, *slicing.PATTERNS, *reduce.PATTERNS, *loops.PATTERNS,
            *structural.GENERIC, *dynamic.LATE]


@register_pass("stablehlo-aggressive-simplification", "Canonicalizes StableHLO operations",
               options=(PassOption("fold-op-element-limit", "Upper limit on how many "
                                   "elements an op's result may have before the op is no "
                                   "longer folded.", 65536, _int),))
def aggressive_simplification(module: Module, fold_op_element_limit: int = 65536) -> None:
    patterns = simplification_patterns(fold_op_element_limit)
    for func in functions(module):
        apply_patterns_greedily(func, patterns, GreedyConfig())
