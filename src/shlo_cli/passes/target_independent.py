"""`--stablehlo-target-independent-optimization`: the simplification and folding patterns in
one greedy run (folding patterns at benefit 2, so a fold wins over a rewrite), as upstream's
StablehloTargetIndependentOptimization does."""

from __future__ import annotations

from ..ir.core import Module
from . import register_pass
from .fold import FOLD_OPTIONS, FoldOptions, folder_patterns, functions
from .rewrite import GreedyConfig, apply_patterns_greedily
from .simplify import simplification_patterns


@register_pass("stablehlo-target-independent-optimization",
               "Runs canonicalizers, folders, and other target-independent optimizations.",
               options=FOLD_OPTIONS)
def target_independent_optimization(module: Module,
                                    assume_no_undeclared_side_effects: bool = False,
                                    fold_op_element_limit: int = 65536,
                                    optimize_float: bool = True) -> None:
    options = FoldOptions(assume_no_undeclared_side_effects, fold_op_element_limit,
                          optimize_float)
    patterns = [*folder_patterns(options, benefit=2),
                *simplification_patterns(fold_op_element_limit)]
    for func in functions(module):
        apply_patterns_greedily(func, patterns, GreedyConfig())
