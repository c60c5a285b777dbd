"""Parser and printer basics: round trips and located diagnostics."""

from __future__ import annotations

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

GENERIC = """
func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""


def test_round_trip_is_fixed_point() -> None:
    once = print_module(parse_source(GENERIC))
    assert print_module(parse_source(once)) == once
    assert once.startswith("module {\n  func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {")


def test_undefined_value_is_located() -> None:
    with pytest.raises(Diagnostic) as info:
        parse_source("func.func @f() {\n  func.return %x : tensor<f32>\n}\n", "x.mlir")
    assert info.value.render().startswith("x.mlir:2:15: error: use of undeclared SSA value name")


@pytest.mark.parametrize(("literal", "type", "printed"), [
    ("[- 1.0, -  2.5]", "tensor<2xf32>", "dense<[-1.000000e+00, -2.500000e+00]>"),  # `-` token
    ("[-  1, - 0x2]", "tensor<2xi32>", "dense<[-1, -2]>"),
    ("(1, 2)", "tensor<2xi32>", "dense<[1, 2]>"),  # MLIR takes a pair's parts as elements
    ("[1, -1, 0x0]", "tensor<3xi1>", "dense<[true, true, false]>"),
])
def test_dense_literals_mlir_accepts(literal: str, type: str, printed: str) -> None:
    """Spellings MLIR's tensor literal parser reads, with the values it gives them (a
    regex pass once read `- 1` as 1)."""
    text = f'func.func @f() -> {type} {{\n  %0 = stablehlo.constant dense<{literal}> : {type}\n' \
           f'  func.return %0 : {type}\n}}\n'
    assert f"{printed} : {type}" in print_module(parse_source(text))
