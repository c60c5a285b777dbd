"""Spec corner cases found by differential fuzzing against XLA CPU."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli


def _unary(op: str, t: str) -> str:
    return (f"func.func @main(%a: {t}) -> {t} {{\n  %r = stablehlo.{op} %a : {t}\n"
            f"  return %r : {t}\n}}")


@pytest.mark.parametrize("op,expected", [("negate", [0xFF800001, 0x7FA00001, 0x00000000]),
                                         ("abs", [0x7F800001, 0x7FA00001, 0x00000000])])
def test_sign_ops_keep_nan_payloads(op: str, expected: list[int]) -> None:
    x = np.array([0x7F800001, 0xFFA00001, 0x80000000], np.uint32).view(np.float32)
    [out] = shlo_cli.interpret(_unary(op, "tensor<3xf32>"), x)
    assert out.view(np.uint32).tolist() == expected


def test_negate_f64_and_f16_flip_only_the_sign() -> None:
    x = np.array([0x7FF0000000000001, 0], np.uint64).view(np.float64)
    [out] = shlo_cli.interpret(_unary("negate", "tensor<2xf64>"), x)
    assert out.view(np.uint64).tolist() == [0xFFF0000000000001, 0x8000000000000000]
    [h] = shlo_cli.interpret(_unary("negate", "tensor<2xf16>"), np.array([1, -0.0], np.float16))
    assert h.tolist() == [-1.0, 0.0] and not np.signbit(h[1])


@pytest.mark.parametrize("body,init", [("maximum", "0xFF800000"), ("minimum", "0x7F800000")])
def test_max_min_reductions_ignore_zero_order(body: str, init: str) -> None:
    prog = f"""func.func @main(%a: tensor<2x3xf32>) -> tensor<2xf32> {{
  %i = stablehlo.constant dense<{init}> : tensor<f32>
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.{body} across dimensions = [1]
       : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}}"""
    x = np.array([[0.0, -0.0, -1], [-0.0, 0.0, -1]], np.float32)
    if body == "minimum":
        x = -x
    [out] = shlo_cli.interpret(prog, x)
    # IEEE: maximum(+0, -0) = +0 and minimum(+0, -0) = -0, in either order.
    assert np.signbit(out).tolist() == [body == "minimum"] * 2


def test_complex_power_of_zero() -> None:
    t = "tensor<6xcomplex<f32>>"
    prog = (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %r = stablehlo.power %a, %b : {t}\n  return %r : {t}\n}}")
    zero = np.zeros(6, np.complex64)
    exps = np.array([0, 2, -2, 1j, 2 + 1j, -0.0], np.complex64)
    [out] = shlo_cli.interpret(prog, zero, exps)
    assert out[0] == 1 and out[1] == 0 and out[5] == 1  # C99 cpow: 0^0 = 1, 0^2 = 0
    assert np.all(np.isnan(out[2:5].real))  # 0^(negative or complex) is NaN, as XLA gives
