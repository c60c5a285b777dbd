"""A large sample of f32 bit patterns through every f32 transcendental kernel (libm_f32's
two roundings at every size class: the shortest path, one array, blocks) against the
straightforward evaluation, the C library's double result for each element rounded once.

The sample: uniform bit patterns (every exponent, NaN payloads of both signs, subnormals,
infinities), uniform values over the magnitudes where results vary, the specials, and the
hard cases: arguments whose double result lies close to an f32 rounding boundary (picked
from a larger pool by the bits numpy's result discards), the ones the kernels must send
to the C library. An exhaustive run over all 2^32 patterns takes hours of C-library calls
per function; this one takes a few seconds in all."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects import libm, libm_f32
from shlo_cli.dialects.chlo import special_math

F32 = np.dtype(np.float32)
FUNCTIONS = [libm.exp, libm.expm1, libm.log, libm.log1p, libm.sin, libm.cos, libm.tan,
             libm.tanh, libm.cbrt, libm.arctan, special_math.erf]
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 1.1754944e-38,
            3.4028235e38, -3.4028235e38, 1.0, -1.0, 88.72283, 88.72284, -103.97208, -87.33654]
_UNIFORM, _RANGED, _POOL = 1 << 19, 1 << 19, 1 << 21


def _reference(fn: object, x: np.ndarray) -> np.ndarray:
    """The C library's double result of each element (libm's per-element path: `math` or
    ctypes), rounded once to f32."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(x.astype(np.float64))).astype(np.float32)  # type: ignore[operator]


def _near_boundaries(fn: object, pool: np.ndarray) -> np.ndarray:
    """The arguments of `pool` whose double result (numpy's guess) has its 29 bits below
    f32's mantissa within 2^17 of the midpoint pattern: near a rounding boundary."""
    guess_of = getattr(fn, "ufunc")  # noqa: B009 - libm's functions carry their guess
    with np.errstate(all="ignore"):
        guess = np.asarray(guess_of(pool.astype(np.float64)), np.float64)
    low = guess.view(np.uint64) & np.uint64((1 << 29) - 1)
    near = np.abs(low.astype(np.int64) - (1 << 28)) < (1 << 17)
    return pool[near & np.isfinite(guess)]


def _sample(fn: object, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    uniform = rng.integers(0, 1 << 32, _UNIFORM, dtype=np.uint64).astype(np.uint32)
    signs = rng.choice([-1.0, 1.0], _RANGED)
    ranged = signs * np.exp2(rng.uniform(-30.0, 8.0, _RANGED))
    pool = (rng.choice([-1.0, 1.0], _POOL) * np.exp2(rng.uniform(-12.0, 7.0, _POOL)))
    hard = _near_boundaries(fn, pool.astype(np.float32))
    with np.errstate(all="ignore"):
        parts = [uniform.view(np.float32), ranged.astype(np.float32), hard,
                 np.array(SPECIALS, np.float32)]
    x = np.concatenate(parts)
    return x[rng.permutation(x.size)]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_f32_kernels_on_a_large_sample_of_bit_patterns(fn: object) -> None:
    x = _sample(fn, 21)
    want = _reference(fn, x)
    kernel = libm.native_kernel(fn, F32)
    sizes = (libm_f32.SMALL, 5000, x.size)  # the shortest path, one array, blocks
    for size in sizes:
        got = np.concatenate([kernel(x[i:i + size]) for i in range(0, x.size, size)])
        assert got.view(np.uint32).tobytes() == want.view(np.uint32).tobytes(), size
    rows = x[:x.size // 64 * 64].reshape(-1, 64)
    assert np.array_equal(kernel(rows.T).view(np.uint32), want[:rows.size].reshape(
        rows.shape).T.view(np.uint32))  # Fortran order: flat positions in C order


def test_the_sample_has_hard_cases() -> None:
    """The near-boundary part is not empty and some of it is doubtful to the kernel (its
    two roundings differ): the test above reaches the C library's side."""
    rng = np.random.default_rng(21)
    pool = (rng.choice([-1.0, 1.0], _POOL) * np.exp2(rng.uniform(-12.0, 7.0, _POOL)))
    hard = _near_boundaries(libm.tanh, pool.astype(np.float32))
    assert hard.size > 100
    guess = np.tanh(hard.astype(np.float64))
    low = (guess * (1 - 2.0 ** -39)).astype(np.float32)
    high = (guess * (1 + 2.0 ** -39)).astype(np.float32)
    assert np.count_nonzero(low != high) > 0
