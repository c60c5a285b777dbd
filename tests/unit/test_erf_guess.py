"""erf / erfc for f32, f16 and bf16 results start from a piecewise-polynomial guess
(dialects/chlo/erf_guess.py) and recompute doubtful elements with the C library: the guess
stays within 2^-47 of the C library's double result (far inside libm.rounded's 2^-40 trust),
and the rounded results equal the C library's double rounded once, bit for bit."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.chlo import erf_guess, special_math
from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float, upcast_to_double

SPECIALS = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, -1e-45, 3e38, -3e38]


def _inputs(seed: int) -> np.ndarray:
    """f32 values: wide and narrow random ranges, every piece edge and its neighbours, the
    deep underflow of erfc, specials."""
    rng = np.random.default_rng(seed)
    edges = np.concatenate([
        np.arange(0, 12 + 2 * erf_guess._WIDTH, erf_guess._WIDTH),
        np.arange(0, erf_guess._ONE + 2 * erf_guess._ERF_WIDTH, erf_guess._ERF_WIDTH),
        np.arange(-12, 12 + 2 * erf_guess._ERFC_WIDTH, erf_guess._ERFC_WIDTH),
    ]).astype(np.float32)
    near = np.concatenate([np.nextafter(edges, np.float32(-1)), edges,
                           np.nextafter(edges, np.float32(20))])
    parts = [rng.uniform(-1, 1, 20000), rng.uniform(-13, 13, 20000),
             rng.standard_normal(5000) * 1e-4, near, -near, np.linspace(9, 12.5, 3000), SPECIALS]
    return np.concatenate([np.asarray(p, np.float64) for p in parts]).astype(np.float32)


@pytest.mark.parametrize(("guess", "exact"), [(erf_guess.erf_guess, math.erf),
                                              (erf_guess.erfc_guess, math.erfc)],
                         ids=["erf", "erfc"])
def test_guess_within_its_bound(guess: object, exact: object) -> None:
    x = _inputs(1).astype(np.float64)
    got = guess(x)  # type: ignore[operator]
    want = np.array([exact(v) for v in x.tolist()])  # type: ignore[operator]
    finite = np.isfinite(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    big = finite & (np.abs(want) > 2.0 ** -200)
    assert np.max(np.abs(got[big] - want[big]) / np.abs(want[big])) < 2.0 ** -47
    assert np.all(np.abs(got[finite & ~big]) < 2.0 ** -200)  # deep in the underflow: tiny too
    out = np.empty_like(x)
    assert guess(x, out) is out and np.array_equal(out, got, equal_nan=True)  # type: ignore[operator]
    for one in (x[7], float(x[7]), x[7:8].reshape(())):  # 0-d and scalars, as folders pass them
        assert np.asarray(guess(one)).shape == () and guess(one) == got[7]  # type: ignore[operator]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("fn", [special_math.erf, special_math.erfc], ids=["erf", "erfc"])
def test_rounded_results_are_the_c_library_rounded_once(fn: object, dtype: type) -> None:
    x = _inputs(2)
    with np.errstate(all="ignore"):
        x = x.astype(dtype)
    wide = x.astype(np.float64)
    want = round_float(np.asarray(fn(wide)), np.dtype(dtype))  # type: ignore[operator]
    for view in (x, x[:40000].reshape(-1, 8).T, x[::3], x[:10], x[5], x[5:6].reshape(())):
        got = upcast_to_double(fn, np.dtype(dtype), view)  # type: ignore[arg-type]
        expected = round_float(np.asarray(fn(view.astype(np.float64))), np.dtype(dtype))  # type: ignore[operator]
        assert got.shape == view.shape
        assert got.tobytes() == np.ascontiguousarray(expected).tobytes()
    assert upcast_to_double(fn, np.dtype(dtype), x).tobytes() == want.tobytes()  # type: ignore[arg-type]


def _inverse_inputs(seed: int) -> np.ndarray:
    """Arguments of erf_inv: uniform on (-1, 1) (what jax.random.normal feeds it), tails
    down to 1 - 2^-52 and their negatives, tiny and subnormal values, the edges of the
    erf/erfc switch at 1/2, 0, -0, +-1, outside [-1, 1], NaN, infinities."""
    rng = np.random.default_rng(seed)
    tails = 1.0 - 2.0 ** -rng.uniform(1, 52, 3000)
    parts = [rng.uniform(-1, 1, 20000), tails, -tails, rng.standard_normal(500) * 1e-300,
             [0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 5e-324,
              np.nextafter(0.5, 0), 0.5, np.nextafter(0.5, 1), -0.5]]
    return np.concatenate([np.asarray(p, np.float64) for p in parts])


def test_erf_inv_guess_within_its_bound() -> None:
    y = _inverse_inputs(3)
    exact = special_math.erf_inv(y)
    got = special_math.erf_inv_guess(y)
    finite = np.isfinite(exact) & (exact != 0)
    assert np.max(np.abs(got[finite] - exact[finite]) / np.abs(exact[finite])) < 2.0 ** -44
    assert np.array_equal(np.isnan(got), np.isnan(exact))
    zeros = exact == 0
    assert np.array_equal(np.signbit(got[zeros]), np.signbit(exact[zeros]))
    out = np.empty_like(y)
    assert special_math.erf_inv_guess(y, out) is out
    assert np.array_equal(out, got, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_erf_inv_rounded_once(dtype: type) -> None:
    """f32, f16 and bf16 results of erf_inv equal its double result rounded once, bit for
    bit, in several layouts (the guess decides only where that rounding is sure)."""
    with np.errstate(all="ignore"):
        x = _inverse_inputs(4).astype(np.float32).astype(dtype)
    for view in (x, x[:20000].reshape(-1, 8).T, x[::3], x[:10], x[5:6].reshape(())):
        got = upcast_to_double(special_math.erf_inv, np.dtype(dtype), view)  # type: ignore[arg-type]
        want = round_float(np.asarray(special_math.erf_inv(view.astype(np.float64))),
                           np.dtype(dtype))
        assert got.shape == view.shape
        assert got.tobytes() == np.ascontiguousarray(want).tobytes()


def test_pick_is_where_bit_for_bit() -> None:
    """erf_guess._pick (branch-free select) equals np.where on any bits: NaN payloads,
    -0.0, infinities, subnormals, empty arrays."""
    rng = np.random.default_rng(6)
    for n in (0, 1, 17, 5000):
        a = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True).view(np.float64)
        b = rng.standard_normal(n)
        b[: min(n, 4)] = [-0.0, np.inf, 5e-324, np.nan][: min(n, 4)]
        mask = rng.random(n) < 0.5
        got = erf_guess._pick(mask, a, b)
        assert got.tobytes() == np.where(mask, a, b).tobytes()


def test_halley_steps_reach_erf_inv() -> None:
    """One step from a start within 1e-6 lands within 2^-47 of the exact erf_inv, on the
    erf side (small targets, subnormal ones) and the erfc side (targets near 1)."""
    rng = np.random.default_rng(8)
    w = np.concatenate([rng.uniform(0, 1, 2000), 1 - 2.0 ** -rng.uniform(2, 50, 500),
                        [0.0, 5e-324, 1e-300, 0.5, np.nextafter(0.5, 1)]])
    exact = special_math.erf_inv(w)
    start = exact * (1 + rng.uniform(-1e-6, 1e-6, w.size))
    got = erf_guess.halley_steps(start, w, 1)
    nonzero = exact != 0
    assert np.max(np.abs(got[nonzero] - exact[nonzero]) / exact[nonzero]) < 2.0 ** -47
    assert np.all(got[~nonzero] == 0)
