"""`--stablehlo-legalize-qdq-to-quantized-op` and `--stablehlo-legalize-quantized-op-to-qdq`:
the rewritten programs compute the same values on random inputs, and the rewrites happen
(or not) where upstream's patterns say."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from quant_helpers import assert_same_values

Q = "!quant.uniform<i8:f32, 5.000000e-02:-3>"
QA = "!quant.uniform<i8:f32:1, {0.1:-30, 0.5:-20, 0.02:4}>"
RNG = np.random.default_rng(12)


def _floats(*shape: int) -> np.ndarray:
    return RNG.uniform(-4, 4, shape).astype(np.float32)


def _storage(*shape: int) -> np.ndarray:
    return RNG.integers(-128, 128, shape).astype(np.int8)


@pytest.mark.parametrize("op", ["abs", "negate", "tanh", "sine", "exponential"])
def test_qdq_unary_fuses_and_keeps_values(op: str) -> None:
    text = f"""func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4x{Q}> {{
  %q = stablehlo.uniform_quantize %x : (tensor<3x4xf32>) -> tensor<3x4x{Q}>
  %d = stablehlo.uniform_dequantize %q : (tensor<3x4x{Q}>) -> tensor<3x4xf32>
  %r = stablehlo.{op} %d : tensor<3x4xf32>
  %o = stablehlo.uniform_quantize %r : (tensor<3x4xf32>) -> tensor<3x4x{Q}>
  return %o : tensor<3x4x{Q}>
}}"""
    after = assert_same_values(text, "stablehlo-legalize-qdq-to-quantized-op", [_floats(3, 4)])
    assert f"stablehlo.{op} %0 : tensor<3x4x{Q}>" in after
    assert "uniform_dequantize" not in after


def test_qdq_binary_fuses_and_chains() -> None:
    text = f"""func.func @main(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5x{Q}> {{
  %qx = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x{Q}>
  %qy = stablehlo.uniform_quantize %y : (tensor<5xf32>) -> tensor<5x{Q}>
  %dx = stablehlo.uniform_dequantize %qx : (tensor<5x{Q}>) -> tensor<5xf32>
  %dy = stablehlo.uniform_dequantize %qy : (tensor<5x{Q}>) -> tensor<5xf32>
  %s = stablehlo.add %dx, %dy : tensor<5xf32>
  %qs = stablehlo.uniform_quantize %s : (tensor<5xf32>) -> tensor<5x{Q}>
  %ds = stablehlo.uniform_dequantize %qs : (tensor<5x{Q}>) -> tensor<5xf32>
  %m = stablehlo.multiply %ds, %dx : tensor<5xf32>
  %o = stablehlo.uniform_quantize %m : (tensor<5xf32>) -> tensor<5x{Q}>
  return %o : tensor<5x{Q}>
}}"""
    after = assert_same_values(text, "stablehlo-legalize-qdq-to-quantized-op",
                               [_floats(5), _floats(5)])
    assert "uniform_dequantize" not in after
    assert "stablehlo.multiply" in after and "stablehlo.add" in after


def test_qdq_leaves_float_operand_alone() -> None:
    text = f"""func.func @main(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5x{Q}> {{
  %qx = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x{Q}>
  %dx = stablehlo.uniform_dequantize %qx : (tensor<5x{Q}>) -> tensor<5xf32>
  %s = stablehlo.add %dx, %y : tensor<5xf32>
  %o = stablehlo.uniform_quantize %s : (tensor<5xf32>) -> tensor<5x{Q}>
  return %o : tensor<5x{Q}>
}}"""
    after = assert_same_values(text, "stablehlo-legalize-qdq-to-quantized-op",
                               [_floats(5), _floats(5)])
    assert "stablehlo.add %1, %arg1 : tensor<5xf32>" in after


def test_quantized_op_to_qdq_per_tensor_and_per_axis() -> None:
    text = f"""func.func @main(%a: tensor<2x3x{Q}>, %b: tensor<2x3x{Q}>, %c: tensor<2x3x{QA}>) -> (tensor<2x3x{Q}>, tensor<2x3xi1>, tensor<2x3x{QA}>, tensor<3x2x{Q}>) {{
  %0 = stablehlo.add %a, %b : tensor<2x3x{Q}>
  %1 = stablehlo.compare LT, %a, %b : (tensor<2x3x{Q}>, tensor<2x3x{Q}>) -> tensor<2x3xi1>
  %2 = stablehlo.negate %c : tensor<2x3x{QA}>
  %3 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3x{Q}>) -> tensor<3x2x{Q}>
  return %0, %1, %2, %3 : tensor<2x3x{Q}>, tensor<2x3xi1>, tensor<2x3x{QA}>, tensor<3x2x{Q}>
}}"""
    after = assert_same_values(text, "stablehlo-legalize-quantized-op-to-qdq",
                               [_storage(2, 3), _storage(2, 3), _storage(2, 3)])
    assert after.count("uniform_dequantize") == 5
    assert after.count("uniform_quantize") == 2
    assert f"stablehlo.transpose %3, dims = [1, 0] : (tensor<2x3x{Q}>)" in after


def test_quantized_op_to_qdq_inside_reduce_body() -> None:
    text = f"""func.func @main(%a: tensor<6x{Q}>, %init: tensor<{Q}>) -> tensor<{Q}> {{
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<6x{Q}>, tensor<{Q}>) -> tensor<{Q}>
  return %0 : tensor<{Q}>
}}"""
    after = assert_same_values(text, "stablehlo-legalize-quantized-op-to-qdq",
                               [_storage(6), _storage()])
    assert "stablehlo.maximum %1, %2 : tensor<f32>" in after
