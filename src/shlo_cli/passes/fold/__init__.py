"""`--stablehlo-aggressive-folder`: StableHLO's constant-folding patterns (upstream's
StablehloAggressiveFolder), applied per function by the greedy driver (bottom-up, with op
folders, like MLIR's default GreedyRewriteConfig)."""

from __future__ import annotations

from ...ir.core import Module, Operation
from .. import PassOption, register_pass
from ..rewrite import GreedyConfig, RewritePattern, apply_patterns_greedily
from .common import FoldOptions

__all__ = ["FOLD_OPTIONS", "FoldOptions", "folder_patterns", "functions"]
from .control import REDUCE_PATTERNS, inline_case_with_constant_index, while_patterns
from .elementwise import binary_patterns, convert_pattern, fold_unary, select_pattern
from .shape import shape_patterns


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"'{text}' value invalid for integer argument!") from None


FOLD_OPTIONS = (
    PassOption("assume-no-undeclared-side-effects", "Allow dead code to be eliminated in "
               "some situations (e.g. dead while loops) under the assumption that ops are "
               "pure unless declared with explicit MLIR `MemoryEffects`.", False, flag=True),
    PassOption("fold-op-element-limit", "Upper limit on how many elements an op's result may "
               "have before the op is no longer folded.", 65536, _int),
    PassOption("optimize-float", "Allow float optimizations that may change the quantization "
               "of floating-point values.", True, flag=True),
)


def folder_patterns(options: FoldOptions, benefit: int = 1) -> list[RewritePattern]:
    """Every folding pattern of the pass, in upstream's registration order."""
    found = [*binary_patterns(options), select_pattern(options), convert_pattern(options),
             *shape_patterns(options), fold_unary, *REDUCE_PATTERNS,
             *while_patterns(options), inline_case_with_constant_index]
    return [RewritePattern(p.fn, p.roots, benefit) for p in found]


def functions(module: Module) -> list[Operation]:
    """The func.func ops of the module (nested modules included): the passes' anchors."""
    return [op for op in module.op.walk() if op.name == "func.func"]


@register_pass("stablehlo-aggressive-folder", "Folds StableHLO operations",
               options=FOLD_OPTIONS)
def aggressive_folder(module: Module, assume_no_undeclared_side_effects: bool = False,
                      fold_op_element_limit: int = 65536, optimize_float: bool = True) -> None:
    options = FoldOptions(assume_no_undeclared_side_effects, fold_op_element_limit,
                          optimize_float)
    patterns = folder_patterns(options)
    for func in functions(module):
        apply_patterns_greedily(func, patterns, GreedyConfig())
