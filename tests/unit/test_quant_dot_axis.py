"""Quantized dot_general with a per-axis rhs whose quantized dimension is a batching dimension
or a free dimension other than the last: the per-axis scales go to the result axis that
dimension becomes (they were broadcast along the last axis: an internal error or wrong scale)."""
# ruff: noqa: E501  (MLIR test programs)

from __future__ import annotations

import numpy as np

import shlo_cli

BATCH = """func.func @main(%a: tensor<2x5x6x!quant.uniform<i8:f32, 1.0:0>>, %b: tensor<6x8x2x!quant.uniform<i8:f32:2, {1.0:0, 2.0:0}>>) -> tensor<2x5x8x!quant.uniform<i8:f32, 4.0:7>> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [2], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<2x5x6x!quant.uniform<i8:f32, 1.0:0>>, tensor<6x8x2x!quant.uniform<i8:f32:2, {1.0:0, 2.0:0}>>) -> tensor<2x5x8x!quant.uniform<i8:f32, 4.0:7>>
  return %0 : tensor<2x5x8x!quant.uniform<i8:f32, 4.0:7>>
}"""

FREE = """func.func @main(%a: tensor<5x6x!quant.uniform<i8:f32, 1.0:0>>, %b: tensor<6x2x3x!quant.uniform<i8:f32:1, {1.0:0, 2.0:0}>>) -> tensor<5x2x3x!quant.uniform<i8:f32, 4.0:7>> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<5x6x!quant.uniform<i8:f32, 1.0:0>>, tensor<6x2x3x!quant.uniform<i8:f32:1, {1.0:0, 2.0:0}>>) -> tensor<5x2x3x!quant.uniform<i8:f32, 4.0:7>>
  return %0 : tensor<5x2x3x!quant.uniform<i8:f32, 4.0:7>>
}"""


def test_per_axis_rhs_on_a_batching_dimension() -> None:
    (out,) = shlo_cli.interpret(BATCH, np.ones((2, 5, 6), np.int8), np.ones((6, 8, 2), np.int8))
    # 6 * 1 / 4 = 1.5 -> 2 (+7) for batch 0; 6 * 2 / 4 = 3 (+7) for batch 1
    assert out.shape == (2, 5, 8)
    assert set(out[0].reshape(-1).tolist()) == {9} and set(out[1].reshape(-1).tolist()) == {10}


def test_per_axis_rhs_on_a_middle_free_dimension() -> None:
    (out,) = shlo_cli.interpret(FREE, np.ones((5, 6), np.int8), np.ones((6, 2, 3), np.int8))
    assert out.shape == (5, 2, 3)
    assert set(out[:, 0].reshape(-1).tolist()) == {9} and set(out[:, 1].reshape(-1).tolist()) == {10}
