"""`--canonicalize`: every op's folder and declared canonicalization patterns, applied by the
greedy driver with MLIR's Canonicalizer options (top-down by default)."""

from __future__ import annotations

from ..ir.core import Module
from ..ir.diagnostics import ShloError
from . import PassOption, register_pass
from .rewrite import GreedyConfig, apply_patterns_greedily


def _names(text: str) -> frozenset[str]:
    return frozenset(item.strip() for item in text.split(",") if item.strip())


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"'{text}' value invalid for integer argument!") from None


def _region_simplify(text: str) -> str:
    if text not in ("disabled", "normal", "aggressive"):
        raise ValueError(f"Cannot find option named '{text}'!")
    return text


@register_pass("canonicalize", "Canonicalize operations", options=(
    PassOption("top-down", "Seed the worklist in general top-down order", True, flag=True),
    PassOption("region-simplify", "Perform control flow optimizations to the region tree",
               "normal", _region_simplify),
    PassOption("max-iterations", "Max. iterations between applying patterns / simplifying "
               "regions", 10, _int),
    PassOption("max-num-rewrites", "Max. number of pattern rewrites within an iteration", -1,
               _int),
    PassOption("test-convergence", "Test only: Fail pass on non-convergence to detect cyclic "
               "pattern", False, flag=True),
    PassOption("disable-patterns", "Labels of patterns that should be filtered out during "
               "application", frozenset(), _names),
    PassOption("enable-patterns", "Labels of patterns that should be used during "
               "application, all other patterns are filtered out", None, _names),
))
def canonicalize(module: Module, top_down: bool = True, region_simplify: str = "normal",
                 max_iterations: int = 10, max_num_rewrites: int = -1,
                 test_convergence: bool = False, disable_patterns: frozenset[str] = frozenset(),
                 enable_patterns: frozenset[str] | None = None) -> None:
    config = GreedyConfig(top_down=top_down, max_iterations=max_iterations,
                          max_num_rewrites=max_num_rewrites)
    converged = apply_patterns_greedily(module.op, (), config, canonicalize=True,
                                        disabled=disable_patterns, enabled=enable_patterns)
    if test_convergence and not converged:
        raise ShloError(f"canonicalize did not converge within {max_iterations} iterations")
