"""stablehlo-wrap-in-composite: ops become composites calling a private `.impl` copy."""

from __future__ import annotations

import numpy as np

from shlo_cli import interpret
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes

PROGRAM = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = stablehlo.add %0, %b : tensor<2xf32>
  %2 = stablehlo.multiply %1, %a : tensor<2xf32>
  return %2 : tensor<2xf32>
}
"""


def _wrap(text: str, options: str) -> str:
    module = parse_source(text)
    run_passes(module, [("stablehlo-wrap-in-composite", options)])
    return print_module(module)


def test_each_op_gets_its_own_uniquely_named_function() -> None:
    out = _wrap(PROGRAM, "op-names=stablehlo.add version=3")
    assert out.count('stablehlo.composite "stablehlo.add"') == 2
    # Visited from the last op back, as MLIR's greedy driver does.
    assert "decomposition = @stablehlo.add.impl_0, version = 3 : i32" in out.split("\n")[2]
    assert "decomposition = @stablehlo.add.impl, version = 3 : i32" in out.split("\n")[3]
    assert "func.func private @stablehlo.add.impl(" in out
    assert "func.func private @stablehlo.add.impl_0(" in out
    assert "stablehlo.multiply %1, %arg0" in out
    a, b = np.array([1.0, 2.0], np.float32), np.array([0.5, -4.0], np.float32)
    np.testing.assert_array_equal(interpret(out, a, b)[0], interpret(PROGRAM, a, b)[0])


def test_version_zero_and_unknown_names(capsys) -> None:  # type: ignore[no-untyped-def]
    out = _wrap(PROGRAM, "op-names=stablehlo.multiply,foo.bar")
    assert 'stablehlo.composite "stablehlo.multiply" %1, %arg0 {decomposition = ' \
           "@stablehlo.multiply.impl}" in out
    assert "'foo.bar' is not a registered operation" in capsys.readouterr().err


def test_nested_ops_go_with_their_wrapped_parent_and_copies_are_not_rewrapped() -> None:
    text = """func.func @main(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %dead = stablehlo.add %cst, %cst : tensor<f32>
  %r = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [1]
    : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
    out = _wrap(text, "op-names=stablehlo.add,stablehlo.reduce")
    assert out.count("stablehlo.composite") == 1
    assert 'stablehlo.composite "stablehlo.reduce"' in out
    assert "applies stablehlo.add across dimensions = [1]" in out
    assert "stablehlo.add.impl" not in out  # the unused add was erased, as the driver does
    assert out.count("func.func") == 2
