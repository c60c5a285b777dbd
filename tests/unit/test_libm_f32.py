"""libm_f32.margin_kernel (f32 arrays of up to SMALL elements: numpy's double guess
rounded twice, sure where the two roundings are equal) gives the C library's double result
rounded once, bit for bit: random inputs at every scale and every special (signed zeros,
subnormals, NaN payloads of both signs, infinities, overflow, deep underflow); equal zero
roundings (a masked softmax's exp) are sure without the C library, NaN and infinite
guesses are not; the `unquieted` form gives the same bits and leaves the error state
alone."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from shlo_cli.dialects import libm, libm_f32, libm_tiny
from shlo_cli.dialects.quiet import switches

F32 = np.dtype(np.float32)
FUNCTIONS = [libm.exp, libm.expm1, libm.log, libm.log1p, libm.sin, libm.cos, libm.tan,
             libm.tanh, libm.cbrt]
# NaNs: quiet and signalling, both signs, other payloads
NAN_BITS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FC12345, 0xFFBFFFFF]
SPECIALS = [0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 1e-40, -3e-39, 1.1754944e-38,
            88.72, 88.73, 100.0, 710.0, 3e38, -3e38, -87.3, -103.2, -103.97, -104.0, -105.0,
            -138.0, -150.0, -745.2, -1e9, 1.0, -1.0, 11.09, -17.3, 1e-30]


def _reference(fn: object, x: np.ndarray) -> np.ndarray:
    """The straightforward evaluation: the C library's double result, rounded once."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(x.astype(np.float64))).astype(np.float32)  # type: ignore[operator]


def _inputs(rng: np.random.Generator, n: int) -> np.ndarray:
    scale = rng.choice([1e-30, 1e-3, 0.1, 1.0, 3.0, 10.0, 80.0, 120.0, 1e3, 1e30], n)
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(n) * scale).astype(np.float32)
    specials = np.concatenate([np.array(SPECIALS, np.float32),
                               np.array(NAN_BITS, np.uint32).view(np.float32)])
    where = rng.random(n) < 0.2
    x[where] = rng.choice(specials, int(where.sum()))
    return x


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_small_arrays_are_the_c_library_rounded(fn: object) -> None:
    kernel = libm.native_kernel(fn, F32)
    quiet, loud = switches()
    rng = np.random.default_rng(17)
    for size in (libm_tiny.TINY + 1, 64, 300, libm_f32.SMALL):
        for _ in range(4):
            x = _inputs(rng, size)
            for view in (x, x.reshape(1, -1), x[::-1], x[: size - size % 4].reshape(4, -1).T):
                want = _reference(fn, view)
                with warnings.catch_warnings(record=True) as caught:
                    got = kernel(view)
                assert not caught
                assert _same_bits(got, want), (size, view.shape)
                token = quiet()
                try:
                    again = kernel.unquieted(view)  # type: ignore[attr-defined]
                finally:
                    loud(token)
                assert _same_bits(again, want)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_specials_alone(fn: object) -> None:
    """Arrays of specials only (every element doubtful or a zero), each NaN payload kept
    as the C library returns it."""
    kernel = libm.native_kernel(fn, F32)
    specials = np.concatenate([np.array(SPECIALS, np.float32),
                               np.array(NAN_BITS, np.uint32).view(np.float32)])
    for x in (specials, -specials, np.resize(specials, 100), np.full(40, -1e9, np.float32),
              np.resize(np.array(NAN_BITS, np.uint32).view(np.float32), 64)):
        assert _same_bits(kernel(x), _reference(fn, x))


class _Counted:
    """libm.exp as native_kernel sees it (numpy's exp the guess), counting each call of the
    C library's function (whole arrays and single elements)."""

    __name__ = "exp"

    def __init__(self) -> None:
        self.ufunc = libm.exp.ufunc  # type: ignore[attr-defined]
        self.arguments: list[float] = []

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.arguments += np.asarray(x, np.float64).reshape(-1).tolist()
        return libm.exp(x)  # type: ignore[no-any-return]

    def scalar(self, v: float) -> float:
        self.arguments.append(v)
        return libm.exp.scalar(v)  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("shape", [(4, 32), (2, 24), (1, 300), (8, 256)])
def test_masked_softmax_rows_need_no_c_call(shape: tuple[int, ...]) -> None:
    """exp of logits minus their row maximum, with a causal mask of -1e9 or -inf and
    results between 2^-200 and f32's least subnormal (-104.5 .. -138): each of those is
    sure from numpy's guess (both roundings +0), none is recomputed (an unmasked one may
    be: its guess near an f32 midpoint)."""
    rng = np.random.default_rng(3)
    for trial in range(20):
        x = rng.standard_normal(shape).astype(np.float32)
        x[rng.random(shape) < rng.random()] = rng.choice([-1e9, -np.inf])
        x.reshape(-1)[: 8] = rng.uniform(-138.0, -104.5, 8).astype(np.float32)
        counted = _Counted()
        got = libm.native_kernel(counted, F32)(x)  # type: ignore[arg-type]
        assert _same_bits(got, _reference(libm.exp, x)), trial
        assert not [v for v in counted.arguments if v < -104.0], trial


class _Planted:
    """A fake libm function on inputs 0, 1, 2...: numpy's guess for input i is guesses[i],
    the C library's result exact[i]; it counts the C library's calls."""

    __name__ = "planted"

    def __init__(self, guesses: np.ndarray, exact: np.ndarray) -> None:
        self.guesses, self.exact = guesses, exact
        self.ufunc = self
        self.calls = 0

    def __call__(self, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        index = np.asarray(x).astype(np.int64)
        if out is not None:  # numpy's guess, in place
            out[...] = self.guesses[index]
            return out
        self.calls += 1
        return self.exact[index]  # type: ignore[no-any-return]

    def scalar(self, v: float) -> float:
        self.calls += 1
        return float(self.exact[int(v)])


def test_equal_roundings_are_sure_nan_and_infinite_guesses_are_not() -> None:
    """Guesses from 2^-160 down to 0 of either sign round to +-0 on both sides of their
    margin: kept without the C library (whose planted results, as tiny, round alike);
    NaN and infinite guesses (planted C results elsewhere) and one whose margin holds an
    f32 midpoint are recomputed."""
    tiny = [2.0 ** -160, -(2.0 ** -160), 2.0 ** -151 * 0.9, 2.0 ** -199, 0.0, -0.0]
    tiny_exact = [2.0 ** -161, -(2.0 ** -159), 2.0 ** -152, 2.0 ** -230, 2.0 ** -400, -0.0]
    midpoint = 1 + 2.0 ** -24
    guesses = np.array(tiny * 5 + [np.nan, np.inf, -np.inf, midpoint - 2.0 ** -50])
    exact = np.array(tiny_exact * 5 + [0.25, 3.0, -1.0, midpoint + 2.0 ** -50])
    planted = _Planted(guesses, exact)
    x = np.arange(guesses.size).astype(np.float32)
    got = libm.native_kernel(planted, F32)(x)  # type: ignore[arg-type]
    assert _same_bits(got, exact.astype(np.float32))
    assert 1 <= planted.calls <= 4  # the last four only: one by one or as one array
    planted.calls = 0
    zeros_only = np.arange(30).astype(np.float32)
    libm.native_kernel(planted, F32)(zeros_only)  # type: ignore[arg-type]
    assert planted.calls == 0


def test_tiny_arrays_unquieted_form() -> None:
    """libm_tiny's `unquieted` form: the same bits, None where the quieted one gives None."""
    tiny = libm_tiny.per_element(libm.exp, F32)
    assert tiny is not None
    unquieted = tiny.unquieted  # type: ignore[attr-defined]
    quiet, loud = switches()
    for row in ([0.5, -2.0, 89.0], [1.0, np.nan], [710.0], [-0.0, 1e-45]):
        x = np.array([row], np.float32)
        token = quiet()
        try:
            again = unquieted(x)
        finally:
            loud(token)
        first = tiny(x)
        assert (first is None) == (again is None)
        if first is not None:
            assert _same_bits(first, again) and _same_bits(first, _reference(libm.exp, x))
