"""Window ops on f8 types: their strided views went through numpy's array interface, whose
`<f1` type string numpy does not understand (an internal error for reduce_window,
select_and_scatter and convolution on f8E5M2 / f8E4M3FN)."""
# ruff: noqa: E501  (MLIR test programs)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import shlo_cli

TYPES = {"f8E5M2": ml_dtypes.float8_e5m2, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
         "bf16": ml_dtypes.bfloat16}


@pytest.mark.parametrize("element", sorted(TYPES))
def test_reduce_window_sum(element: str) -> None:
    text = f"""func.func @main(%a0: tensor<3x{element}>, %a1: tensor<{element}>) -> tensor<2x{element}> {{
  %r = "stablehlo.reduce_window"(%a0, %a1) ({{
  ^bb0(%x: tensor<{element}>, %y: tensor<{element}>):
    %z = "stablehlo.add"(%x, %y) : (tensor<{element}>, tensor<{element}>) -> tensor<{element}>
    "stablehlo.return"(%z) : (tensor<{element}>) -> ()
  }}) {{window_dimensions = array<i64: 2>}} : (tensor<3x{element}>, tensor<{element}>) -> tensor<2x{element}>
  return %r : tensor<2x{element}>
}}"""
    dtype = TYPES[element]
    (got,) = shlo_cli.interpret(text, np.array([1, 2, 3], dtype), np.array(0, dtype))
    assert got.dtype == np.dtype(dtype) and got.astype(np.float32).tolist() == [3, 5]


@pytest.mark.parametrize("element", sorted(TYPES))
def test_convolution(element: str) -> None:
    text = f"""func.func @main(%a: tensor<1x4x1x{element}>, %b: tensor<2x1x1x{element}>) -> tensor<1x3x1x{element}> {{
  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {{}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x4x1x{element}>, tensor<2x1x1x{element}>) -> tensor<1x3x1x{element}>
  return %r : tensor<1x3x1x{element}>
}}"""
    dtype = TYPES[element]
    (got,) = shlo_cli.interpret(text, np.array([1, 2, 3, 4], dtype).reshape(1, 4, 1),
                                np.array([1, 2], dtype).reshape(2, 1, 1))
    expected = np.array([5, 8, 11], np.float32).astype(dtype).astype(np.float32)  # 11 -> 12 in f8E5M2
    assert got.dtype == np.dtype(dtype) and got.astype(np.float32).reshape(-1).tolist() == expected.tolist()


def test_select_and_scatter_f8() -> None:
    e = "f8E5M2"
    text = f"""func.func @main(%a0: tensor<4x{e}>, %a1: tensor<2x{e}>, %a2: tensor<{e}>) -> tensor<4x{e}> {{
  %r = "stablehlo.select_and_scatter"(%a0, %a1, %a2) ({{
  ^bb0(%x: tensor<{e}>, %y: tensor<{e}>):
    %c = "stablehlo.compare"(%x, %y) {{comparison_direction = #stablehlo<comparison_direction GE>}} : (tensor<{e}>, tensor<{e}>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }}, {{
  ^bb0(%x: tensor<{e}>, %y: tensor<{e}>):
    %z = "stablehlo.add"(%x, %y) : (tensor<{e}>, tensor<{e}>) -> tensor<{e}>
    "stablehlo.return"(%z) : (tensor<{e}>) -> ()
  }}) {{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}} : (tensor<4x{e}>, tensor<2x{e}>, tensor<{e}>) -> tensor<4x{e}>
  return %r : tensor<4x{e}>
}}"""
    d = ml_dtypes.float8_e5m2
    (got,) = shlo_cli.interpret(text, np.array([1, 3, 4, 2], d), np.array([5, 6], d), np.array(0, d))
    assert got.astype(np.float32).tolist() == [0, 5, 6, 0]
