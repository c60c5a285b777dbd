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
