"""Quantized types: uniform_quantize/dequantize arithmetic, ops on quantized values
(dequantize -> op -> quantize, storage-only data movement, integer dot/convolution)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

Q = "!quant.uniform<i8:f32, 0.5:-20>"


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def test_quantize_rounds_half_even_and_clamps() -> None:
    text = f"""func.func @main(%x: tensor<6xf32>) -> (tensor<6x{Q}>, tensor<6xf32>) {{
  %0 = stablehlo.uniform_quantize %x : (tensor<6xf32>) -> tensor<6x{Q}>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<6x{Q}>) -> tensor<6xf32>
  return %0, %1 : tensor<6x{Q}>, tensor<6xf32>
}}"""
    x = np.array([0.25, 0.75, -1.0, 100.0, -100.0, 3.0], np.float32)
    q, back = _run(text, x)
    # x / 0.5 - 20: 0.5 -> -19.5 -> -20 (even), 1.5 -> -18.5 -> -18, clamp at 127 / -128.
    assert q.dtype == np.int8
    assert q.tolist() == [-20, -18, -22, 127, -128, -14]
    np.testing.assert_allclose(back, (q.astype(np.float32) + 20) * 0.5)


def test_per_axis_quantize_and_requantize() -> None:
    src = "!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>"
    dst = "!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>"
    text = f"""func.func @main(%x: tensor<2xf32>) -> (tensor<2x{src}>, tensor<2x{dst}>) {{
  %0 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x{src}>
  %1 = stablehlo.uniform_quantize %0 : (tensor<2x{src}>) -> tensor<2x{dst}>
  return %0, %1 : tensor<2x{src}>, tensor<2x{dst}>
}}"""
    q, r = _run(text, np.array([4.0, 15.0], np.float32))
    assert q.tolist() == [10, 10]
    assert r.tolist() == [20, 45]


def test_elementwise_ops_dequantize_compute_quantize() -> None:
    out_q = "!quant.uniform<i8:f32, 0.25:0>"
    text = f"""func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi1>) {{
  %qa = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<3x{Q}>
  %qb = stablehlo.uniform_quantize %b : (tensor<3xf32>) -> tensor<3x{Q}>
  %m = stablehlo.multiply %qa, %qb : (tensor<3x{Q}>, tensor<3x{Q}>) -> tensor<3x{out_q}>
  %t = stablehlo.tanh %m : tensor<3x{out_q}>
  %c = stablehlo.compare GT, %qa, %qb : (tensor<3x{Q}>, tensor<3x{Q}>) -> tensor<3xi1>
  %r = stablehlo.uniform_dequantize %t : (tensor<3x{out_q}>) -> tensor<3xf32>
  return %r, %c : tensor<3xf32>, tensor<3xi1>
}}"""
    r, c = _run(text, np.array([1.0, -2.0, 0.5], np.float32), np.array([2.0, 0.5, 0.5], np.float32))
    product = np.array([2.0, -1.0, 0.25])
    expected = np.rint(np.tanh(np.rint(product / 0.25) * 0.25) / 0.25) * 0.25
    np.testing.assert_allclose(r, expected)
    assert c.tolist() == [False, False, False]


def test_data_movement_keeps_storage_values() -> None:
    text = f"""func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2x{Q}> {{
  %q = stablehlo.uniform_quantize %a : (tensor<2x3xf32>) -> tensor<2x3x{Q}>
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<2x3x{Q}>) -> tensor<3x2x{Q}>
  return %t : tensor<3x2x{Q}>
}}"""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    (t,) = _run(text, a)
    assert t.dtype == np.int8
    assert t.tolist() == (np.rint(a / 0.5) - 20).astype(int).T.tolist()


@pytest.mark.parametrize("zero_point", [0, -10, 7])
def test_dot_general_accumulates_in_integers(zero_point: int) -> None:
    lq = f"!quant.uniform<i8:f32, 0.5:{zero_point}>"
    rq = "!quant.uniform<i8:f32, 0.25>"
    oq = "!quant.uniform<i32:f32, 0.125>"
    text = f"""func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {{
  %qa = stablehlo.uniform_quantize %a : (tensor<2x3xf32>) -> tensor<2x3x{lq}>
  %qb = stablehlo.uniform_quantize %b : (tensor<3x2xf32>) -> tensor<3x2x{rq}>
  %d = stablehlo.dot_general %qa, %qb, contracting_dims = [1] x [0] : (tensor<2x3x{lq}>, tensor<3x2x{rq}>) -> tensor<2x2x{oq}>
  %r = stablehlo.uniform_dequantize %d : (tensor<2x2x{oq}>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}}"""
    a = np.array([[1.0, 2.0, -3.0], [0.5, 4.0, 2.5]], np.float32)
    b = np.array([[1.0, -0.5], [2.0, 0.25], [-1.0, 3.0]], np.float32)
    (r,) = _run(text, a, b)
    np.testing.assert_allclose(r, a @ b)


def test_hybrid_dot_dequantizes_rhs() -> None:
    rq = "!quant.uniform<i8:f32:1, {0.5,0.25}>"
    text = f"""func.func @main(%a: tensor<1x2xf32>, %b: tensor<2x2xf32>) -> tensor<1x2xf32> {{
  %qb = stablehlo.uniform_quantize %b : (tensor<2x2xf32>) -> tensor<2x2x{rq}>
  %d = stablehlo.dot_general %a, %qb, contracting_dims = [1] x [0] : (tensor<1x2xf32>, tensor<2x2x{rq}>) -> tensor<1x2xf32>
  return %d : tensor<1x2xf32>
}}"""
    a = np.array([[1.0, 2.0]], np.float32)
    b = np.array([[1.0, 0.25], [-2.0, 0.5]], np.float32)
    (r,) = _run(text, a, b)
    np.testing.assert_allclose(r, a @ b)


def test_quantized_constant_holds_storage_values() -> None:
    text = f"""func.func @main() -> tensor<2xf32> {{
  %c = stablehlo.constant() {{value = dense<[-20, -18]> : tensor<2xi8>}} : () -> tensor<2x{Q}>
  %r = stablehlo.uniform_dequantize %c : (tensor<2x{Q}>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}}"""
    (r,) = _run(text)
    assert r.tolist() == [0.0, 1.0]


def test_uniform_quantize_syntax_round_trip() -> None:
    text = f"""func.func @main(%x: tensor<2xf32>) -> tensor<2x{Q}> {{
  %0 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x{Q}>
  return %0 : tensor<2x{Q}>
}}"""
    printed = print_module(parse_source(text))
    assert "stablehlo.uniform_quantize %arg0 : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>" in printed
    assert print_module(parse_source(printed)) == printed


def test_scales_print_as_asm_printer_prints_a_double() -> None:
    """MLIR prints a scale with `out << scale` on a DialectAsmPrinter, i.e. printFloat: `%e`
    when it reads back exactly, else all digits (as jax's exports spell it), so printing then
    parsing keeps the scale and a program's results."""
    q = "!quant.uniform<i8:f32:0, {0.0078431033620647364,0.1:-3,34.0:16}>"
    text = f"""func.func @main(%x: tensor<3x{q}>) -> tensor<3x{q}> {{
  return %x : tensor<3x{q}>
}}"""
    printed = print_module(parse_source(text))
    assert "{0.0078431033620647364,1.000000e-01:-3,3.400000e+01:16}" in printed
    reparsed = parse_source(printed).functions()[0].attr("function_type").value.inputs[0]
    assert reparsed.element.scales == (0.0078431033620647364, 0.1, 34.0)


def test_per_axis_convolution_rescales_per_output_feature() -> None:
    lq = "!quant.uniform<i8:f32, 0.5:3>"
    rq = "!quant.uniform<i8:f32:2, {0.25,0.125}>"
    oq = "!quant.uniform<i32:f32:2, {0.125,0.0625}>"
    text = f"""func.func @main(%x: tensor<1x4x1xf32>, %k: tensor<2x1x2xf32>) -> tensor<1x3x2xf32> {{
  %qx = stablehlo.uniform_quantize %x : (tensor<1x4x1xf32>) -> tensor<1x4x1x{lq}>
  %qk = stablehlo.uniform_quantize %k : (tensor<2x1x2xf32>) -> tensor<2x1x2x{rq}>
  %c = stablehlo.convolution(%qx, %qk) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {{}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x4x1x{lq}>, tensor<2x1x2x{rq}>) -> tensor<1x3x2x{oq}>
  %r = stablehlo.uniform_dequantize %c : (tensor<1x3x2x{oq}>) -> tensor<1x3x2xf32>
  return %r : tensor<1x3x2xf32>
}}"""
    x = np.array([1.0, -2.0, 0.5, 3.0], np.float32).reshape(1, 4, 1)
    k = np.array([[0.5, 0.25], [-1.0, 0.375]], np.float32).reshape(2, 1, 2)
    (r,) = _run(text, x, k)
    expected = np.stack([x[0, i:i + 2, 0] @ k[:, 0, :] for i in range(3)])[None]
    np.testing.assert_allclose(r, expected)


def test_maximum_with_equal_parameters_compares_storage() -> None:
    text = f"""func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {{
  %qa = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<3x{Q}>
  %qb = stablehlo.uniform_quantize %b : (tensor<3xf32>) -> tensor<3x{Q}>
  %m = stablehlo.maximum %qa, %qb : tensor<3x{Q}>
  %r = stablehlo.uniform_dequantize %m : (tensor<3x{Q}>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}}"""
    (r,) = _run(text, np.array([1.0, -2.0, 4.0], np.float32), np.array([0.5, 3.0, 4.5], np.float32))
    assert r.tolist() == [1.0, 3.0, 4.5]


@pytest.mark.parametrize(("result", "message"), [
    ("tensor<1x5x2x!quant.uniform<i8:f32:1, {0.1:-30, 0.1:-30}>>", "result #0 must be ranked tensor of"),
    ("tensor<1x5x2x!quant.uniform<i8:f64, 0.1>>", "Expressed type of result expected to be 'f32', but got 'f64'"),
    ("tensor<1x2x2x!quant.uniform<i8:f32, 0.1>>", "requires the same shape for all operands and results"),
])
def test_uniform_quantize_verifier(result: str, message: str) -> None:
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    text = f"""func.func @main(%x: tensor<1x5x2xf32>) {{
  %0 = "stablehlo.uniform_quantize"(%x) : (tensor<1x5x2xf32>) -> {result}
  return
}}"""
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text))
    assert message in info.value.render()


def test_uniform_dequantize_keeps_the_shape() -> None:
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    text = """func.func @main(%q: tensor<2x2x!quant.uniform<i8:f32, 0.1>>) {
  %0 = "stablehlo.uniform_dequantize"(%q) : (tensor<2x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<2x3xf32>
  return
}"""
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text))
    assert "requires the same shape for all operands and results" in info.value.render()


def test_reduce_over_quantized_values_runs_the_quantized_body() -> None:
    text = f"""func.func @main(%x: tensor<4xf32>) -> tensor<f32> {{
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x{Q}>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %qz = stablehlo.uniform_quantize %z : (tensor<f32>) -> tensor<{Q}>
  %r = stablehlo.reduce(%q init: %qz) applies stablehlo.add across dimensions = [0] : (tensor<4x{Q}>, tensor<{Q}>) -> tensor<{Q}>
  %d = stablehlo.uniform_dequantize %r : (tensor<{Q}>) -> tensor<f32>
  return %d : tensor<f32>
}}"""
    (r,) = _run(text, np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    assert float(r) == 10.0
