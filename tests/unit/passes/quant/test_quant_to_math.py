"""`--stablehlo-legalize-quant-to-math`: programs on quantized types compute the same values
after their quantized types and ops become integer/float math (random inputs; quantized
arguments and results are storage integers). Integer paths that requantize or rescale in f32
(add with different scales, dot, convolution) may differ by one storage step from the
interpreter's dequantize -> op -> quantize reading."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from quant_helpers import assert_same_values, rewrite

from shlo_cli.ir.diagnostics import Diagnostic

PASS = "stablehlo-legalize-quant-to-math"
RNG = np.random.default_rng(7)
QA = "!quant.uniform<i8:f32, 5.000000e-02:-3>"
QB = "!quant.uniform<i8:f32, 1.000000e-01:4>"
QC = "!quant.uniform<i8:f32, 2.000000e-01:1>"
QAXIS = "!quant.uniform<i8:f32:1, {1.000000e-01:-2,5.000000e-02:3,2.000000e-02:0}>"


def _floats(*shape: int, scale: float = 6.0) -> np.ndarray:
    return RNG.uniform(-scale, scale, shape).astype(np.float32)


def _storage(*shape: int, lo: int = -128, hi: int = 128) -> np.ndarray:
    return RNG.integers(lo, hi, shape).astype(np.int8)


def _no_quant_left(text: str) -> None:
    assert "!quant" not in text


@pytest.mark.parametrize("q", [QA, QAXIS])
def test_quantize_dequantize_round_trip(q: str) -> None:
    text = f"""func.func @main(%x: tensor<4x3xf32>) -> (tensor<4x3x{q}>, tensor<4x3xf32>) {{
  %0 = stablehlo.uniform_quantize %x : (tensor<4x3xf32>) -> tensor<4x3x{q}>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<4x3x{q}>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x3x{q}>, tensor<4x3xf32>
}}"""
    after = assert_same_values(text, PASS, [_floats(4, 3)])
    _no_quant_left(after)
    assert "chlo.broadcast_divide" in after


@pytest.mark.parametrize("source,target", [(QA, QB), (QAXIS, QB), (QB, QAXIS)])
def test_requantize(source: str, target: str) -> None:
    text = f"""func.func @main(%x: tensor<4x3x{source}>) -> tensor<4x3x{target}> {{
  %0 = stablehlo.uniform_quantize %x : (tensor<4x3x{source}>) -> tensor<4x3x{target}>
  return %0 : tensor<4x3x{target}>
}}"""
    _no_quant_left(assert_same_values(text, PASS, [_storage(4, 3)], atol=1))


def test_add_same_and_mixed_scales() -> None:
    text = f"""func.func @main(%a: tensor<6x{QA}>, %b: tensor<6x{QB}>, %c: tensor<6x{QC}>) -> (tensor<6x{QC}>, tensor<6x{QC}>) {{
  %0 = stablehlo.add %a, %b : (tensor<6x{QA}>, tensor<6x{QB}>) -> tensor<6x{QC}>
  %1 = stablehlo.add %c, %c : tensor<6x{QC}>
  return %0, %1 : tensor<6x{QC}>, tensor<6x{QC}>
}}"""
    after = assert_same_values(text, PASS, [_storage(6), _storage(6), _storage(6, lo=-60, hi=60)],
                               atol=1)
    _no_quant_left(after)


def test_float_fallback_and_type_only_ops() -> None:
    text = f"""func.func @main(%a: tensor<2x3x{QA}>, %b: tensor<2x3x{QA}>) -> (tensor<2x3x{QA}>, tensor<2x3xi1>, tensor<3x2x{QA}>, tensor<2x3x{QA}>) {{
  %0 = stablehlo.tanh %a : tensor<2x3x{QA}>
  %1 = stablehlo.compare GT, %a, %b : (tensor<2x3x{QA}>, tensor<2x3x{QA}>) -> tensor<2x3xi1>
  %2 = stablehlo.transpose %b, dims = [1, 0] : (tensor<2x3x{QA}>) -> tensor<3x2x{QA}>
  %3 = stablehlo.maximum %a, %b : tensor<2x3x{QA}>
  return %0, %1, %2, %3 : tensor<2x3x{QA}>, tensor<2x3xi1>, tensor<3x2x{QA}>, tensor<2x3x{QA}>
}}"""
    after = assert_same_values(text, PASS, [_storage(2, 3), _storage(2, 3)])
    _no_quant_left(after)
    assert "stablehlo.tanh %" in after and ": tensor<2x3xf32>" in after
    assert "stablehlo.maximum %arg0, %arg1 : tensor<2x3xi8>" in after


def test_reduce_window_body_takes_storage_types() -> None:
    text = f"""func.func @main(%a: tensor<4x6x{QA}>, %init: tensor<{QA}>) -> tensor<2x3x{QA}> {{
  %0 = "stablehlo.reduce_window"(%a, %init) ({{
  ^bb0(%x: tensor<{QA}>, %y: tensor<{QA}>):
    %m = stablehlo.maximum %x, %y : tensor<{QA}>
    stablehlo.return %m : tensor<{QA}>
  }}) {{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}} : (tensor<4x6x{QA}>, tensor<{QA}>) -> tensor<2x3x{QA}>
  return %0 : tensor<2x3x{QA}>
}}"""
    _no_quant_left(assert_same_values(text, PASS, [_storage(4, 6), _storage()]))


@pytest.mark.parametrize("rhs_q,out_q", [
    ("!quant.uniform<i8:f32, 2.000000e-02:5>", "!quant.uniform<i32:f32, 1.000000e-03:-7>"),
    ("!quant.uniform<i8:f32, 2.000000e-02>", "!quant.uniform<i8:f32, 5.000000e-01:3>"),
])
def test_dot_general_integer_path(rhs_q: str, out_q: str) -> None:
    text = f"""func.func @main(%a: tensor<2x3x4x{QB}>, %b: tensor<4x5x2x{rhs_q}>) -> tensor<2x3x5x{out_q}> {{
  %0 = "stablehlo.dot_general"(%a, %b) {{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [2], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>}} : (tensor<2x3x4x{QB}>, tensor<4x5x2x{rhs_q}>) -> tensor<2x3x5x{out_q}>
  return %0 : tensor<2x3x5x{out_q}>
}}"""
    after = assert_same_values(text, PASS, [_storage(2, 3, 4, lo=-40, hi=40),
                                            _storage(4, 5, 2, lo=-40, hi=40)], atol=2)
    _no_quant_left(after)
    assert "stablehlo.dot_general" in after and "tensor<2x3x5xi32>" in after


def test_dot_hybrid_dequantizes_weights() -> None:
    rq = "!quant.uniform<i8:f32, 5.000000e-02:2>"
    text = f"""func.func @main(%a: tensor<3x4xf32>, %b: tensor<4x2x{rq}>) -> tensor<3x2xf32> {{
  %0 = stablehlo.dot %a, %b : (tensor<3x4xf32>, tensor<4x2x{rq}>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}}"""
    after = assert_same_values(text, PASS, [_floats(3, 4), _storage(4, 2)], atol=1e-5)
    assert "stablehlo.optimization_barrier" in after


@pytest.mark.parametrize("pad", ["[[0, 0], [0, 0]]", "[[1, 1], [0, 2]]"])
def test_convolution_integer_path(pad: str) -> None:
    lq = "!quant.uniform<i8:f32, 1.000000e-01:4>"
    rq = "!quant.uniform<i8:f32, 5.000000e-02>"
    oq = "!quant.uniform<i32:f32, 1.000000e-02:3>"
    out = "1x3x3x2" if pad.startswith("[[0") else "1x5x5x2"
    text = f"""func.func @main(%a: tensor<1x4x4x3x{lq}>, %w: tensor<2x2x3x2x{rq}>) -> tensor<{out}x{oq}> {{
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = {pad}, lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x4x4x3x{lq}>, tensor<2x2x3x2x{rq}>) -> tensor<{out}x{oq}>
  return %0 : tensor<{out}x{oq}>
}}"""
    after = assert_same_values(text, PASS, [_storage(1, 4, 4, 3), _storage(2, 2, 3, 2)], atol=2)
    _no_quant_left(after)


def test_unsupported_op_is_reported() -> None:
    text = f"""func.func @main(%a: tensor<4x{QA}>) -> tensor<4x{QA}> {{
  %0 = stablehlo.reverse %a, dims = [0] : tensor<4x{QA}>
  return %0 : tensor<4x{QA}>
}}"""
    with pytest.raises(Diagnostic, match="failed to legalize operation 'stablehlo.reverse'"):
        rewrite(text, PASS)


def test_convolution_nchw_padded_to_i8() -> None:
    lq = "!quant.uniform<i8:f32, 1.000000e-01:4>"
    rq = "!quant.uniform<i8:f32, 5.000000e-02>"
    oq = "!quant.uniform<i8:f32, 2.000000e-01:-3>"
    text = f"""func.func @main(%a: tensor<1x3x4x4x{lq}>, %w: tensor<2x3x2x2x{rq}>) -> tensor<1x2x5x4x{oq}> {{
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {{stride = [1, 1], pad = [[1, 1], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x3x4x4x{lq}>, tensor<2x3x2x2x{rq}>) -> tensor<1x2x5x4x{oq}>
  return %0 : tensor<1x2x5x4x{oq}>
}}"""
    after = assert_same_values(text, PASS, [_storage(1, 3, 4, 4, lo=-30, hi=30),
                                            _storage(2, 3, 2, 2, lo=-30, hi=30)], atol=2)
    assert "stablehlo.pad" in after and "!quant" not in after


def test_dot_general_dynamic_shapes_both_zero_points() -> None:
    lq = "!quant.uniform<i8:f32, 1.000000e-01:4>"
    rq = "!quant.uniform<i8:f32, 5.000000e-02:-2>"
    oq = "!quant.uniform<i32:f32, 1.000000e-03:5>"
    text = f"""func.func @main(%a: tensor<?x3x?x{lq}>, %b: tensor<?x?x5x{rq}>) -> tensor<?x3x5x{oq}> {{
  %0 = "stablehlo.dot_general"(%a, %b) {{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}} : (tensor<?x3x?x{lq}>, tensor<?x?x5x{rq}>) -> tensor<?x3x5x{oq}>
  return %0 : tensor<?x3x5x{oq}>
}}"""
    after = assert_same_values(text, PASS, [_storage(2, 3, 4, lo=-30, hi=30),
                                            _storage(2, 4, 5, lo=-30, hi=30)], atol=2)
    assert "stablehlo.dynamic_broadcast_in_dim" in after and "!quant" not in after


def test_unsigned_storage_keeps_values_above_127() -> None:
    qu = "!quant.uniform<u8:f32, 1.000000e+00:10>"
    text = f"""func.func @main(%x: tensor<6xf32>, %y: tensor<6x{qu}>) -> (tensor<6xf32>, tensor<6x{qu}>) {{
  %0 = stablehlo.uniform_quantize %x : (tensor<6xf32>) -> tensor<6x{qu}>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<6x{qu}>) -> tensor<6xf32>
  %2 = stablehlo.add %0, %y : tensor<6x{qu}>
  return %1, %2 : tensor<6xf32>, tensor<6x{qu}>
}}"""
    x = np.array([0.0, 50.0, 130.0, 200.0, 240.0, 300.0], np.float32)
    y = RNG.integers(0, 120, 6).astype(np.uint8)
    after = assert_same_values(text, PASS, [x, y])
    assert "tensor<6xui8>" in after
