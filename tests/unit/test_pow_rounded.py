"""stablehlo.power on f16, bf16 and f32 (pow_rounded.rounded_power: numpy's double result
for every sign of base, C99's special values written out) equals the straightforward
evaluation, the C library's double pow rounded once, bit for bit: negative bases to integer
and non-integer powers, 0 ** 0, 0 ** negative, infinities, NaNs, -0.0, subnormals, huge and
tiny results, broadcast, 0-d and empty operands; only NaN arguments, invalid operations and
results near a rounding boundary reach the C library."""

from __future__ import annotations

import warnings
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects import libm
from shlo_cli.dialects.pow_rounded import rounded_power
from shlo_cli.dialects.stablehlo.elementwise import power
from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float, rounder

DTYPES = [np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
BASES = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, 2.0, -2.0, 0.5, -0.5,
         1e-45, -1e-45, 6e-8, -6e-8, 1e-40, 65504.0, -65504.0, 3e38, -3e38, 10.0, -10.0]
EXPONENTS = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 1.5, np.inf, -np.inf,
             np.nan, -np.nan, 7.0, -7.0, 40.0, -41.0, 65504.0, -65504.0, 2.0 ** 60, 3e38,
             1e-45, 0.3333]


def _straightforward(x: np.ndarray, y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The C library's pow of the double arguments, rounded once."""
    with np.errstate(all="ignore"):
        return np.asarray(round_float(np.asarray(libm.power(x.astype(np.float64),
                                                            y.astype(np.float64))), dtype))


def _bits(a: Any) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _random(dtype: np.dtype, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Bases over many scales and both signs (a fifth zeros), exponents half integers in
    -50..50 (jax's `x ** i`), half uniform; results from subnormal to overflowing."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * rng.choice([1e-6, 1e-2, 1.0, 3.0, 30.0, 1e4], n)
    x[rng.random(n) < 0.05] = 0.0
    y = rng.integers(-50, 51, n).astype(np.float64)
    y[n // 2:] = rng.uniform(-12, 12, n - n // 2)
    with np.errstate(all="ignore"):
        return x.astype(dtype), y.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_random_arguments_match_the_c_library_rounded_once(dtype: np.dtype) -> None:
    x, y = _random(dtype, 40000, 3)
    with warnings.catch_warnings(record=True) as caught:
        got = rounded_power(x, y, rounder(dtype))
    assert not caught
    assert got.dtype == dtype and got.shape == x.shape
    assert _bits(got) == _bits(_straightforward(x, y, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_special_pair_matches(dtype: np.dtype) -> None:
    """The cross product of special bases and exponents (C99 F.9.4.4's cases, signed zeros,
    NaNs of both signs, subnormal and extreme magnitudes), with a signalling NaN too."""
    with np.errstate(all="ignore"):
        bases = np.array(BASES).astype(dtype)
        exponents = np.array(EXPONENTS).astype(dtype)
    signalling = np.array([0x7F800001, 0xFFA00000], np.uint32).view(np.float32)
    if dtype == np.float32:
        bases = np.concatenate([bases, signalling])
        exponents = np.concatenate([exponents, signalling])
    x, y = (a.reshape(-1) for a in np.meshgrid(bases, exponents))
    with warnings.catch_warnings(record=True) as caught:
        got = rounded_power(x, y, rounder(dtype))
    assert not caught
    assert _bits(got) == _bits(_straightforward(x, y, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_negative_bases_to_integer_and_fractional_powers(dtype: np.dtype) -> None:
    """Negative bases only: odd and even integers (a sign each), huge even ones, and many
    non-integers (the C library's invalid-operation NaN), as few and as many."""
    rng = np.random.default_rng(8)
    n = 20000
    x = -np.abs(rng.standard_normal(n) * rng.choice([1e-3, 1.0, 5.0, 100.0], n))
    y = rng.integers(-30, 31, n).astype(np.float64)
    y[::7] = rng.uniform(-5, 5, y[::7].size)
    y[::11] = 2.0 ** 40
    with np.errstate(all="ignore"):
        x, y = x.astype(dtype), y.astype(dtype)
    for count in (3, 40, n):
        got = rounded_power(x[:count], y[:count], rounder(dtype))
        assert _bits(got) == _bits(_straightforward(x[:count], y[:count], dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_broadcast_0d_and_empty_operands(dtype: np.dtype) -> None:
    x, _ = _random(dtype, 600, 4)
    grid = x.reshape(20, 30)
    for exponent in (-3.0, 1.7, 0.0, np.inf, np.nan):
        e = np.array(exponent, dtype)
        got = rounded_power(grid, e, rounder(dtype))
        assert got.shape == (20, 30)
        assert _bits(got) == _bits(_straightforward(grid, np.broadcast_to(e, grid.shape), dtype))
    column = x[:20].reshape(20, 1)
    got = rounded_power(column, np.arange(-3, 3).astype(dtype), rounder(dtype))
    wide, powers = np.broadcast_arrays(column, np.arange(-3, 3).astype(dtype))
    want = _straightforward(wide, powers, dtype)
    assert got.shape == (20, 6) and _bits(got) == _bits(want)
    for b, p in [(-2.0, 3.0), (-0.0, -3.0), (0.0, 0.0), (-2.0, 0.5), (np.nan, 0.0),
                 (np.inf, -1.0)]:
        scalar = rounded_power(np.array(b, dtype), np.array(p, dtype), rounder(dtype))
        assert scalar.shape == () and scalar.dtype == dtype
        assert _bits(scalar) == _bits(_straightforward(np.array(b, dtype), np.array(p, dtype),
                                                       dtype))
    empty = rounded_power(np.zeros((0, 3), dtype), np.zeros((0, 3), dtype), rounder(dtype))
    assert empty.shape == (0, 3) and empty.dtype == dtype


def test_the_op_takes_this_path_and_keeps_f64(monkeypatch: pytest.MonkeyPatch) -> None:
    """stablehlo.power on f32 calls the C library only for the doubtful few (integer powers
    of negative bases and an infinite base are numpy's); f64 keeps the C library for every
    element."""
    x, y = _random(np.dtype(np.float32), 20000, 5)
    y = np.round(y)
    x[:100] = np.inf
    x[100:200] = -np.inf
    want = _straightforward(x, y, np.dtype(np.float32))
    evaluated = []
    original = libm.power

    def counting(a: Any, b: Any) -> Any:
        evaluated.append(np.size(a))
        return original(a, b)

    monkeypatch.setattr(libm, "power", counting)
    assert _bits(power(x, y)) == _bits(want)
    assert sum(evaluated) < 20
    wide = [v.astype(np.float64) for v in (x, y)]
    with np.errstate(all="ignore"):
        assert _bits(power(*wide)) == _bits(original(*wide))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_one_exponent_for_every_base(dtype: np.dtype) -> None:
    """x ** c (a 0-d or one-element exponent: its parity and integrality decided once) on
    bases of both signs with -0.0, infinities, NaNs, subnormals: odd and even integers,
    huge even ones, fractions (as many invalid operations as share one sampled NaN, and as
    few as go one by one), infinite, NaN and signed-zero exponents."""
    rng = np.random.default_rng(12)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, -1.0])
    bases = np.concatenate([rng.standard_normal(3000) * rng.choice([1e-3, 1.0, 40.0], 3000),
                            special])
    with np.errstate(all="ignore"):
        bases = bases.astype(dtype)
    for c in (3.0, -3.0, 2.0, -2.0, 1.0, 7.0, 2.0 ** 40, 0.5, -1.5, 1.0 / 3.0, np.inf,
              -np.inf, np.nan, 0.0, -0.0):
        for x in (bases, bases[-40:]):
            with np.errstate(over="ignore"):  # (2^40 is inf in f16)
                exponents = (np.array(c, dtype), np.full(1, c, dtype))
            for e in exponents:
                got = rounded_power(x, e, rounder(dtype))
                want = _straightforward(x, np.broadcast_to(e, x.shape), dtype)
                assert _bits(got) == _bits(want), (c, x.size, e.shape)


def test_exact_midpoints_reach_the_c_library() -> None:
    """Cubes of f32 values with 9 significant bits are exact doubles of up to 27, many of
    them exact midpoints between two f32 values: the bracketing test must doubt them (the
    lower bracket alone rounds some of them wrong, checked here) and the C library rounds
    them (ties to even)."""
    dtype = np.dtype(np.float32)
    x = (np.arange(256, 512) * 2.0 ** -8).astype(dtype)
    x = np.concatenate([x, -x, x * 2.0 ** 30, x * 2.0 ** -45])
    y = np.full(x.shape, 3.0, dtype)
    want = _straightforward(x, y, dtype)
    lower = (np.power(x.astype(np.float64), 3.0) * (1 - 2.0 ** -39)).astype(dtype)
    assert _bits(lower) != _bits(want)
    assert _bits(rounded_power(x, y, rounder(dtype))) == _bits(want)
    assert _bits(rounded_power(x, np.array(3.0, dtype), rounder(dtype))) == _bits(want)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("share", [0.002, 0.1, 0.24, 0.3, 0.9])
def test_few_and_many_negative_bases_among_positive_ones(dtype: np.dtype, share: float) -> None:
    """Negative bases (with -0.0 and -inf among them) in a share of the lanes, to integer
    and non-integer array exponents: under a quarter are handled by index, more by
    whole-array passes; both give the C library's result rounded once."""
    rng = np.random.default_rng(int(share * 1000))
    n = 6000
    x = np.abs(rng.standard_normal(n) * rng.choice([1e-2, 1.0, 9.0], n)) + 1e-3
    flip = rng.random(n) < share
    x[flip] = -x[flip]
    x[np.flatnonzero(flip)[1:4]] = [-0.0, -np.inf, -1.0]  # (not among the sampled)
    y = rng.integers(-9, 10, n).astype(np.float64)
    y[::2] = rng.uniform(-4, 4, n // 2)
    y[np.flatnonzero(flip)[1:4]] = 0.5  # (pow(-0, 0.5) = +0, pow(-inf, 0.5) = +inf: valid)
    with np.errstate(all="ignore"):
        x, y = x.astype(dtype), y.astype(dtype)
    assert _bits(rounded_power(x, y, rounder(dtype))) == _bits(_straightforward(x, y, dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_nan_arguments_among_ordinary_ones(dtype: np.dtype) -> None:
    """NaN bases and exponents (of both signs; signalling in f32) where no base is zero or
    infinite and no exponent infinite: the C library decides each (-NaN ** 2 keeps its
    sign there, numpy's loop gives +NaN), to zero and nonzero powers, among ordinary
    lanes."""
    nans = [np.nan, -np.nan]
    with np.errstate(all="ignore"):
        x = np.array(nans * 3 + [2.0, 1.0, -1.0, 3.0, -2.0, 0.5]).astype(dtype)
        y = np.array([0.0, 0.0, 2.0, 2.0, 0.5, -3.0, np.nan, np.nan, -np.nan, 2.0, 1.5,
                      np.nan]).astype(dtype)
    if dtype == np.float32:
        signalling = np.array([0x7F800001, 0xFFA00000], np.uint32).view(np.float32)
        x = np.concatenate([x, signalling, np.array([1.5, 2.0], np.float32)])
        y = np.concatenate([y, np.array([0.0, 2.0], np.float32), signalling])
        assert x.view(np.uint32)[-4] == 0x7F800001  # (still signalling)
    for count in (x.size, 3):
        got = rounded_power(x[:count], y[:count], rounder(dtype))
        assert _bits(got) == _bits(_straightforward(x[:count], y[:count], dtype))
    got = rounded_power(x, np.array(np.nan, dtype), rounder(dtype))
    assert _bits(got) == _bits(_straightforward(x, np.full(x.shape, np.nan, dtype), dtype))
