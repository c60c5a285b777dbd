"""The greedy pattern driver, --canonicalize and --cse (passes/rewrite.py, canonicalize.py,
cse.py): MLIR's constant hoisting order, folding, dead-op erasure and CSE scoping."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.ir import registry
from shlo_cli.ir.attributes import DenseElementsAttr
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes
from shlo_cli.passes.rewrite import GreedyConfig, apply_patterns_greedily, pattern

CONSTANTS = """
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<2xf32>
  %1 = stablehlo.add %arg0, %0 : tensor<2xf32>
  %2 = stablehlo.constant dense<2.0> : tensor<2xf32>
  %3 = stablehlo.add %1, %2 : tensor<2xf32>
  %4 = stablehlo.constant dense<1.0> : tensor<2xf32>
  %5 = stablehlo.add %3, %4 : tensor<2xf32>
  %6 = stablehlo.multiply %5, %5 : tensor<2xf32>
  return %5 : tensor<2xf32>
}
"""


def body(text: str) -> list[str]:
    printed = print_module(parse_and_run(text, []))
    return [line.strip() for line in printed.splitlines()[2:-2]]


def parse_and_run(text: str, passes: list) -> object:
    module = parse_source(text, "t.mlir")
    run_passes(module, passes)
    return module


def names(module: object) -> list[str]:
    return [op.name for op in module.functions()[0].regions[0].entry.operations]  # type: ignore


def test_canonicalize_hoists_and_uniques_constants_in_mlir_order() -> None:
    module = parse_and_run(CONSTANTS, ["canonicalize"])
    lines = print_module(module).splitlines()
    # The 2.0 constant is not right after a hoisted one, so it moves to the very front; the
    # second 1.0 merges into the first; the unused multiply is erased.
    assert "dense<2.000000e+00>" in lines[2] and "dense<1.000000e+00>" in lines[3]
    assert names(module) == ["stablehlo.constant", "stablehlo.constant", "stablehlo.add",
                             "stablehlo.add", "stablehlo.add", "func.return"]


def test_ops_with_effects_survive_dead_code_erasure() -> None:
    text = """
    func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
      %0 = stablehlo.custom_call @foo(%arg0) : (tensor<f32>) -> tensor<f32>
      %1 = stablehlo.custom_call @foo(%arg0) {has_side_effect = false}
        : (tensor<f32>) -> tensor<f32>
      return %arg0 : tensor<f32>
    }"""
    module = parse_and_run(text, ["canonicalize"])
    assert names(module) == ["stablehlo.custom_call", "func.return"]


def test_folder_result_becomes_a_hoisted_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    opdef = registry.lookup("stablehlo.add")
    assert opdef is not None

    def fold_add(op, constants):  # type: ignore[no-untyped-def]
        if all(isinstance(c, DenseElementsAttr) for c in constants):
            t = op.results[0].type
            return DenseElementsAttr(t, np.add(*(c.value for c in constants)))
        return None

    monkeypatch.setattr(opdef, "fold", fold_add)
    module = parse_and_run(CONSTANTS.replace("%arg0, %0", "%0, %0"), ["canonicalize"])
    printed = print_module(module)
    assert "dense<5.000000e+00>" in printed  # (1 + 1) + 2 + 1, folded along the chain
    assert names(module) == ["stablehlo.constant", "func.return"]


def test_driver_reports_non_convergence() -> None:
    module = parse_source(CONSTANTS, "t.mlir")

    @pattern("stablehlo.add")
    def flip(op, rewriter):  # type: ignore[no-untyped-def]
        rewriter.set_operands(op, list(reversed(op.operands)))
        return True

    config = GreedyConfig(max_iterations=3, max_num_rewrites=5)
    converged = apply_patterns_greedily(module.op, [flip], config)
    assert not converged


def test_pattern_replacement_queues_users() -> None:
    module = parse_source(CONSTANTS, "t.mlir")

    @pattern("stablehlo.multiply")
    def square_to_add(op, rewriter):  # type: ignore[no-untyped-def]
        if op.operands[0] is not op.operands[1]:
            return False
        rewriter.replace_op_with(op, "stablehlo.add", op.operands)
        return True

    # The multiply is dead: erased before the pattern could apply.
    assert apply_patterns_greedily(module.op, [square_to_add])
    assert "stablehlo.multiply" not in names(module)


def test_cse_merges_pure_ops_and_equal_regions_but_not_effects() -> None:
    text = """
    func.func @main(%arg0: tensor<4xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %z2 = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = stablehlo.reduce(%arg0 init: %z) applies stablehlo.add
        across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      %1 = stablehlo.reduce(%arg0 init: %z2) applies stablehlo.add
        across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      %2 = stablehlo.custom_call @foo(%0) : (tensor<f32>) -> tensor<f32>
      %3 = stablehlo.custom_call @foo(%1) : (tensor<f32>) -> tensor<f32>
      return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
    }"""
    module = parse_and_run(text, ["cse"])
    assert names(module) == ["stablehlo.constant", "stablehlo.reduce", "stablehlo.custom_call",
                             "stablehlo.custom_call", "func.return"]


def test_a_failing_pass_is_a_located_diagnostic(monkeypatch: pytest.MonkeyPatch) -> None:
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.passes import PASSES, Pass

    def broken(module):  # type: ignore[no-untyped-def]
        raise KeyError("oops")

    cse = PASSES["cse"]
    monkeypatch.setitem(PASSES, "cse", Pass(cse.name, broken, cse.help, cse.options))
    module = parse_source(CONSTANTS, "t.mlir")
    with pytest.raises(Diagnostic, match="internal error in pass 'cse'"):
        run_passes(module, ["cse"])


def test_inline_block_before_moves_ops_and_queues_them() -> None:
    """PatternRewriter.inline_block_before (MLIR's inlineBlockBefore, used to inline a `case`
    branch): the branch's ops move before the anchor and are revisited by the driver, so an
    op that became foldable there folds in the same run."""
    text = """
func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.constant dense<0> : tensor<i32>
  %1 = "stablehlo.case"(%0) ({
    %2 = stablehlo.constant dense<2> : tensor<i32>
    %3 = stablehlo.add %2, %2 : tensor<i32>
    stablehlo.return %3 : tensor<i32>
  }, {
    stablehlo.return %arg0 : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %1 : tensor<i32>
}"""
    out = print_module(parse_and_run(text, ["stablehlo-aggressive-folder"]))
    assert "stablehlo.case" not in out and "stablehlo.add" not in out
    assert "dense<4> : tensor<i32>" in out


def test_canonicalize_inlines_a_case_on_a_constant_index() -> None:
    import shlo_cli

    text = """
    func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
      %i = stablehlo.constant dense<1> : tensor<i32>
      %0 = "stablehlo.case"(%i) ({
        stablehlo.return %arg0 : tensor<2xf32>
      }, {
        %m = stablehlo.multiply %arg0, %arg0 : tensor<2xf32>
        stablehlo.return %m : tensor<2xf32>
      }) : (tensor<i32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }"""
    module = parse_and_run(text, ["canonicalize"])
    assert names(module) == ["stablehlo.multiply", "func.return"]
    x = np.array([3.0, -2.0], np.float32)
    [before] = shlo_cli.interpret(text, x)
    [after] = shlo_cli.interpret(print_module(module), x)
    np.testing.assert_array_equal(before, after)
    # An out-of-range index is left to the op's own semantics (the last branch runs).
    kept = parse_and_run(text.replace("dense<1>", "dense<7>"), ["canonicalize"])
    assert "stablehlo.case" in names(kept)


def test_bottom_up_walk_queues_an_op_with_regions_at_its_first_nested_op() -> None:
    """MLIR's addToWorklist queues each walked op's ancestors too: a while is queued when its
    condition's first op is, so its body's ops (queued later) pop before it."""
    text = """
    func.func @main(%arg0: tensor<i32>) -> tensor<i32> {
      %0 = stablehlo.while(%iterArg = %arg0) : tensor<i32>
       cond {
        %1 = stablehlo.compare LT, %iterArg, %iterArg : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %1 : tensor<i1>
      } do {
        %1 = stablehlo.add %iterArg, %iterArg : tensor<i32>
        stablehlo.return %1 : tensor<i32>
      }
      return %0 : tensor<i32>
    }"""
    module = parse_source(text, "t.mlir")
    seen: list[str] = []

    @pattern()
    def record(op, rewriter):  # type: ignore[no-untyped-def]
        seen.append(op.name)
        return False

    apply_patterns_greedily(module.functions()[0], [record])
    assert seen == ["func.return", "stablehlo.return", "stablehlo.add", "stablehlo.return",
                    "stablehlo.while", "stablehlo.compare"]
