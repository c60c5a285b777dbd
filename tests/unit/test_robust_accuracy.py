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


def test_rng_bit_generator_scalar_output_keeps_its_shape() -> None:
    prog = """func.func @main() -> (tensor<2xui64>, tensor<ui64>) {
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY
         : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui64>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<ui64>
}"""
    state, out = shlo_cli.interpret(prog)
    assert state.shape == (2,) and out.shape == () and out.dtype == np.uint64


def test_f32_triangular_solve_is_correctly_rounded() -> None:
    rng = np.random.default_rng(0)
    prog = """func.func @main(%a: tensor<32x32xf32>, %b: tensor<32x8xf32>) -> tensor<32x8xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true,
       transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}
       : (tensor<32x32xf32>, tensor<32x8xf32>) -> tensor<32x8xf32>
  return %0 : tensor<32x8xf32>
}"""
    a = (np.tril(rng.standard_normal((32, 32))) + 8 * np.eye(32)).astype(np.float32)
    b = rng.standard_normal((32, 8)).astype(np.float32)
    exact = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    [out] = shlo_cli.interpret(prog, a, b)
    ulps = np.abs(out.astype(np.float64) - exact) / np.spacing(np.abs(exact).astype(np.float32))
    assert out.dtype == np.float32 and ulps.max() <= 1.0  # was 176 ulp with f32 sums


def test_complex_division_recovers_infinities_and_zeros() -> None:
    t = "tensor<4xcomplex<f64>>"
    prog = (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %r = stablehlo.divide %a, %b : {t}\n  return %r : {t}\n}}")
    a = np.array([0, 1 + 1j, 1, 2 + 3j])
    b = np.array([complex(np.nan, np.inf), 0, complex(np.inf, np.nan), 1 + 1j])
    [out] = shlo_cli.interpret(prog, a, b)
    # C99 Annex G: finite / infinite = 0, nonzero / 0 = infinite.
    assert out[0] == 0 and out[2] == 0
    assert np.isinf(out[1].real) and np.isinf(out[1].imag)
    assert out[3] == (2 + 3j) / (1 + 1j)
