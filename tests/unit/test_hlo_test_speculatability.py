"""`--hlo-test-speculatability` and the speculatability table behind it (upstream's
ConditionallySpeculatable facts for StableHLO ops)."""

from __future__ import annotations

import pytest

from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes
from shlo_cli.passes.speculatability import Speculatability, speculatability

NOT, YES, RECURSIVE = Speculatability.NOT, Speculatability.SPECULATABLE, Speculatability.RECURSIVE


def first_op(body: str, args: str) -> Speculatability | None:
    module = parse_source(f"func.func @f({args}) {{\n{body}\n  return\n}}", "t.mlir",
                          allow_unregistered=True)
    func = module.functions()[0]
    ops = [op for op in func.regions[0].entry.operations if op.name != "stablehlo.constant"]
    return speculatability(ops[0])


@pytest.mark.parametrize(("body", "expected"), [
    ("%0 = stablehlo.abs %s : (tensor<2xf64>) -> tensor<?xf64>", YES),
    ("%0 = stablehlo.abs %d : (tensor<?xf64>) -> tensor<2xf64>", NOT),
    ("%0 = stablehlo.abs %d : (tensor<?xf64>) -> tensor<?xf64>", YES),
    ("%0 = stablehlo.add %s, %s : (tensor<2xf64>, tensor<2xf64>) -> tensor<?xf64>", YES),
    ("%0 = stablehlo.add %d, %d : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>", NOT),
    ("%0 = stablehlo.reshape %d : (tensor<?xf64>) -> tensor<2xf64>", NOT),
    ("%0 = stablehlo.transpose %m, dims = [1, 0] : (tensor<?x2xf64>) -> tensor<2x?xf64>", YES),
    ("%0 = stablehlo.transpose %m, dims = [1, 0] : (tensor<?x2xf64>) -> tensor<?x?xf64>", YES),
    ("%0 = stablehlo.transpose %m, dims = [1, 0] : (tensor<?x2xf64>) -> tensor<2x3xf64>", NOT),
    ("%c = stablehlo.constant dense<2> : tensor<1xi64>\n"
     "%0 = stablehlo.dynamic_iota %c, dim = 0 : (tensor<1xi64>) -> tensor<2xf64>", YES),
    ("%0 = stablehlo.dynamic_iota %i, dim = 0 : (tensor<1xi64>) -> tensor<2xf64>", NOT),
    ("%0 = stablehlo.dynamic_iota %i, dim = 0 : (tensor<1xi64>) -> tensor<?xf64>", YES),
    ("%0 = stablehlo.concatenate %d, %s, dim = 0 : (tensor<?xf64>, tensor<2xf64>) "
     "-> tensor<?xf64>", YES),
    ("%0 = stablehlo.concatenate %d, %s, dim = 0 : (tensor<?xf64>, tensor<2xf64>) "
     "-> tensor<4xf64>", NOT),
    ("%0 = stablehlo.iota dim = 0 : tensor<2xf64>", YES),
    ('%0 = "stablehlo.if"(%p) ({\n  stablehlo.return %s : tensor<2xf64>\n}, {\n'
     "  stablehlo.return %s : tensor<2xf64>\n}) : (tensor<i1>) -> tensor<2xf64>", RECURSIVE),
    ("%0 = stablehlo.custom_call @foo(%s) : (tensor<2xf64>) -> tensor<2xf64>", None),
])
def test_speculatability_table(body: str, expected: Speculatability | None) -> None:
    args = ("%s: tensor<2xf64>, %d: tensor<?xf64>, %m: tensor<?x2xf64>, %i: tensor<1xi64>, "
            "%p: tensor<i1>")
    assert first_op(body, args) is expected


def run(text: str) -> str:
    module = parse_source(text, "t.mlir", allow_unregistered=True)
    run_passes(module, ["hlo-test-speculatability"])
    return print_module(module)


def test_pass_erases_checks_that_hold_and_keeps_the_rest() -> None:
    out = run("""func.func @f(%s: tensor<2xf64>, %d: tensor<?xf64>) {
  %0 = stablehlo.abs %d : (tensor<?xf64>) -> tensor<2xf64>
  "hlo_test_speculatability.is_not_speculatable"(%0) : (tensor<2xf64>) -> ()
  %1 = stablehlo.negate %s : (tensor<2xf64>) -> tensor<2xf64>
  "hlo_test_speculatability.is_not_speculatable"(%1) : (tensor<2xf64>) -> ()
  return
}""")
    assert "stablehlo.abs" not in out
    assert "stablehlo.negate" in out and "is_not_speculatable" in out


def test_pass_needs_a_single_use() -> None:
    out = run("""func.func @f(%s: tensor<2xf64>) -> tensor<2xf64> {
  %0 = stablehlo.negate %s : (tensor<2xf64>) -> tensor<2xf64>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<2xf64>) -> ()
  return %0 : tensor<2xf64>
}""")
    assert "stablehlo.negate" in out and "is_speculatable" in out


def test_multi_result_group_name_means_its_first_result() -> None:
    out = run("""func.func @f(%s: tensor<2xf64>, %i: tensor<f64>) {
  %0:2 = "stablehlo.reduce"(%s, %s, %i, %i) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>, %c: tensor<f64>, %e: tensor<f64>):
      stablehlo.return %a, %b : tensor<f64>, tensor<f64>
  }) {dimensions = array<i64: 0>}
     : (tensor<2xf64>, tensor<2xf64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
  "hlo_test_speculatability.is_recursively_speculatable"(%0) : (tensor<f64>) -> ()
  return
}""")
    assert "stablehlo.reduce" not in out
