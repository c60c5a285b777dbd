"""GreedyConfig.region_dce (passes/rewrite.py): MLIR's region simplification erases ops a
pattern left dead during the same iteration, so a driver limited to two iterations (as
upstream's shape passes are) still converges."""

from __future__ import annotations

from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes.rewrite import GreedyConfig, apply_patterns_greedily, pattern

TEXT = """
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %arg0 : tensor<2xf32>
  %1 = stablehlo.negate %0 : tensor<2xf32>
  %2 = stablehlo.custom_call @keep(%1) : (tensor<2xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
"""


@pattern("stablehlo.custom_call")
def bypass(op, rw) -> bool:  # noqa: ANN001 - the pattern signature
    """Point the call at the function argument, leaving abs/negate unused (not re-queued)."""
    arg = op.parent.parent.entry.arguments[0]
    if op.operands[0] is arg:
        return False
    rw.set_operands(op, [arg])
    return True


def run(config: GreedyConfig) -> tuple[bool, str]:
    module = parse_source(TEXT, "t.mlir")
    func = module.functions()[0]
    converged = apply_patterns_greedily(func, [bypass], config)
    return converged, print_module(module)


def test_dead_ops_are_erased_within_the_iteration() -> None:
    converged, out = run(GreedyConfig(top_down=True, max_iterations=1, region_dce=True))
    assert "stablehlo.abs" not in out and "stablehlo.negate" not in out
    assert "custom_call @keep(%arg0)" in out
    assert not converged  # the one iteration changed something


def test_without_region_dce_two_iterations_are_needed() -> None:
    converged, out = run(GreedyConfig(top_down=True, max_iterations=2))
    assert not converged  # iteration 2 still erases the dead ops
    assert "stablehlo.abs" not in out
    converged, _ = run(GreedyConfig(top_down=True, max_iterations=2, region_dce=True))
    assert converged
