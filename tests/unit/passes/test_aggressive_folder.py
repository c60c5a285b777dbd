"""--stablehlo-aggressive-folder (passes/fold): folded constants equal what the interpreter
computes for the unfolded program, bit for bit, and the ops upstream declines stay."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes

BINARY = ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and",
          "or", "xor"]


def _program(op: str, dtype: str, lhs: str, rhs: str) -> str:
    return f"""
func.func @main() -> tensor<3x{dtype}> {{
  %0 = stablehlo.constant dense<{lhs}> : tensor<3x{dtype}>
  %1 = stablehlo.constant dense<{rhs}> : tensor<3x{dtype}>
  %2 = stablehlo.{op} %0, %1 : tensor<3x{dtype}>
  return %2 : tensor<3x{dtype}>
}}"""


def fold(text: str, options: str = "") -> str:
    module = parse_source(text, "t.mlir")
    run_passes(module, [("stablehlo-aggressive-folder", options)])
    return print_module(module)


def same_result(text: str, options: str = "") -> str:
    folded = fold(text, options)
    before = shlo_cli.interpret(text)
    after = shlo_cli.interpret(folded)
    for a, b in zip(before, after, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return folded


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("dtype", ["i32", "ui8", "f32"])
def test_binary_folds_match_interpreter(op: str, dtype: str) -> None:
    if op in ("and", "or", "xor") and dtype == "f32":
        pytest.skip("no float bitwise ops")
    lhs, rhs = ("[7, 200, 3]", "[2, 3, 5]") if dtype != "f32" else ("[7.5, -2.0, 1.0e30]",
                                                                     "[0.1, 3.0, 1.0e10]")
    folded = same_result(_program(op, dtype, lhs, rhs))
    assert f"stablehlo.{op}" not in folded


def test_integer_division_by_zero_is_not_folded() -> None:
    folded = fold(_program("divide", "i32", "[1, 2, 3]", "[1, 0, 1]"))
    assert "stablehlo.divide" in folded


@pytest.mark.parametrize("op,value,folds", [
    ("log", "[1.0, 2.0, 0.5]", True), ("log", "[1.0, 0.0, 2.0]", False),
    ("sqrt", "[4.0, -1.0, 2.0]", False), ("rsqrt", "[4.0, 1.0, 2.0]", True),
    ("sine", "[0.5, 1.0, 3.0]", True), ("tanh", "[0.5, -1.0, 3.0]", True),
    ("sign", "[0.5, -1.0, 0x7FC00000]", False), ("round_nearest_even", "[0.5, 1.5, 2.5]", True),
])
def test_unary_folds(op: str, value: str, folds: bool) -> None:
    text = f"""
func.func @main() -> tensor<3xf32> {{
  %0 = stablehlo.constant dense<{value}> : tensor<3xf32>
  %1 = stablehlo.{op} %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}}"""
    folded = same_result(text)
    assert (f"stablehlo.{op}" not in folded) == folds


def test_convert_of_unrepresentable_float_is_kept() -> None:
    text = """
func.func @main() -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1.0, 3.0e9]> : tensor<2xf32>
  %1 = stablehlo.convert %0 : (tensor<2xf32>) -> tensor<2xi32>
  return %1 : tensor<2xi32>
}"""
    assert "stablehlo.convert" in fold(text)


def test_element_limit_stops_large_folds() -> None:
    text = """
func.func @main() -> tensor<4xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.concatenate %0, %0, dim = 0 : (tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>
  return %1 : tensor<4xi32>
}"""
    assert "stablehlo.concatenate" in fold(text, "fold-op-element-limit=3")
    assert "stablehlo.concatenate" not in same_result(text)


def test_case_with_constant_index_inlines_its_branch() -> None:
    text = """
func.func @main(%arg0: tensor<i32>, %arg1: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.constant dense<5> : tensor<i32>
  %1 = "stablehlo.case"(%0) ({
    stablehlo.return %arg0 : tensor<i32>
  }, {
    %2 = stablehlo.add %arg1, %arg1 : tensor<i32>
    stablehlo.return %2 : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %1 : tensor<i32>
}"""
    folded = fold(text)
    assert "stablehlo.case" not in folded and "stablehlo.add %arg1, %arg1" in folded
    x, y = np.array(3, np.int32), np.array(4, np.int32)
    assert shlo_cli.interpret(folded, x, y)[0] == 8


def test_compare_unsigned_on_signless_integers() -> None:
    text = """
func.func @main() -> tensor<i1> {
  %0 = stablehlo.constant dense<-1> : tensor<i32>
  %1 = stablehlo.constant dense<5> : tensor<i32>
  %2 = stablehlo.compare GT, %0, %1, UNSIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  return %2 : tensor<i1>
}"""
    assert "dense<true>" in fold(text)
