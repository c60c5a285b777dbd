"""Complex log_plus_one and exponential_minus_one stay accurate near z = 0 and keep the
sign of a zero imaginary part on the branch cut (log(1 + z) formed naively does neither)."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def _run(op: str, ctype: str, z: np.ndarray) -> np.ndarray:
    shape = f"tensor<{z.size}x{ctype}>"
    text = f"""func.func @main(%z: {shape}) -> {shape} {{
  %0 = stablehlo.{op} %z : {shape}
  return %0 : {shape}
}}"""
    interpreter = Interpreter(parse_source(text))
    return interpreter.call(interpreter.lookup_function("main"), [z])[0]


@pytest.mark.parametrize(("ctype", "dtype"), [("complex<f32>", np.complex64),
                                              ("complex<f64>", np.complex128)])
def test_log_plus_one_tiny_argument_keeps_its_real_part(ctype: str, dtype: type) -> None:
    z = np.array([1e-30 + 0j, 1e-20 + 1e-20j], dtype)
    got = _run("log_plus_one", ctype, z)
    np.testing.assert_allclose(got.real, z.real, rtol=1e-6)
    np.testing.assert_allclose(got.imag, z.imag, rtol=1e-6)


def test_log_plus_one_branch_cut_follows_the_sign_of_zero() -> None:
    z = np.array([complex(-1.5, 0.0), complex(-1.5, -0.0)], np.complex128)
    got = _run("log_plus_one", "complex<f64>", z)
    assert got[0].imag == pytest.approx(np.pi)
    assert got[1].imag == pytest.approx(-np.pi)
    assert got.real == pytest.approx(np.log(0.5))


def test_log_plus_one_matches_log_away_from_zero() -> None:
    rng = np.random.default_rng(0)
    z = (rng.uniform(-3, 3, 200) + 1j * rng.uniform(-3, 3, 200)).astype(np.complex128)
    np.testing.assert_allclose(_run("log_plus_one", "complex<f64>", z), np.log(1 + z),
                               rtol=1e-13)


def _log_modulus(x: float, y: float) -> float:
    """log|1 + x + iy| to 60 digits (Decimal arithmetic on the exact binary values)."""
    with localcontext() as context:
        context.prec = 60
        one_plus_x, im = 1 + Decimal(x), Decimal(y)
        return float((one_plus_x * one_plus_x + im * im).ln() / 2)


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.spacing(np.abs(want))


@pytest.mark.parametrize("where", ["near -1", "circle |1 + z| = 1", "near 0"])
def test_log_plus_one_is_within_two_ulp(where: str) -> None:
    """Near z = -1 (|1 + z| tiny) and on the circle |1 + z| = 1 (log|1 + z| cancels to 0)
    the real part needs more than 1 + z or log1p(2x + x^2 + y^2) in double or extended
    precision: those lose up to all digits there."""
    rng = np.random.default_rng(7)
    angle = rng.uniform(0, 2 * np.pi, 300)
    radius = {"near -1": 10 ** rng.uniform(-12, -0.5, 300),
              "circle |1 + z| = 1": 1 + rng.uniform(-1e-6, 1e-6, 300),
              "near 0": None}[where]
    if radius is None:
        z = 10 ** rng.uniform(-20, -1, 300) * np.exp(1j * angle)
    else:
        z = -1 + radius * np.exp(1j * angle)
    got = _run("log_plus_one", "complex<f64>", z)
    want_real = np.array([_log_modulus(v.real, v.imag) for v in z])
    assert _ulps(got.real, want_real).max() <= 2
    if where != "near 0":  # there 1 + x is exact (Sterbenz), so atan2 is the reference
        want_imag = np.array([math.atan2(v.imag, 1 + v.real) for v in z])
        assert _ulps(got.imag, want_imag).max() <= 1


def test_exponential_minus_one_tiny_argument() -> None:
    z = np.array([1e-30 + 1e-30j, 1e-10j], np.complex128)
    got = _run("exponential_minus_one", "complex<f64>", z)
    np.testing.assert_allclose(got.real, [1e-30, -5e-21], rtol=1e-12)
    np.testing.assert_allclose(got.imag, [1e-30, 1e-10], rtol=1e-12)


def test_exponential_minus_one_matches_exp_away_from_zero() -> None:
    rng = np.random.default_rng(1)
    z = (rng.uniform(-3, 3, 200) + 1j * rng.uniform(-3, 3, 200)).astype(np.complex128)
    np.testing.assert_allclose(_run("exponential_minus_one", "complex<f64>", z),
                               np.exp(z) - 1, rtol=1e-12, atol=1e-15)
