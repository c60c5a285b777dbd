"""libm.native_kernel (f16/f32 transcendental results from numpy's double loop with a bit
test for the doubtful elements) equals the straightforward evaluation, the C library's
double result rounded once, bit for bit: random inputs over many scales, NaN, infinities,
-0.0, subnormals, overflow, empty and strided arrays, 0-d inputs; no warnings escape."""

from __future__ import annotations

import warnings
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects import libm, libm_f32

FUNCTIONS = [libm.exp, libm.expm1, libm.log, libm.log1p, libm.sin, libm.cos, libm.tan,
             libm.tanh, libm.cbrt]
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 88.72, 88.73, -87.3,
            -103.9, -104.0, 11.08, 11.1, -17.3, 1e-40, -1e-40, 1e-45, 6e-8, 65504.0, 3e38]


def _reference(fn: object, dtype: type, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(fn(np.asarray(x, np.float64))).astype(dtype)  # type: ignore[operator]


def _inputs(dtype: type, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scale = rng.choice([1e-30, 1e-6, 1e-3, 0.1, 1.0, 3.0, 10.0, 80.0, 1e3, 1e5, 1e30], n)
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(n) * scale).astype(dtype)
        x[:len(SPECIALS)] = np.array(SPECIALS).astype(dtype)
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_native_kernel_is_c_library_rounded(fn: object, dtype: type) -> None:
    kernel = libm.native_kernel(fn, np.dtype(dtype))
    x = _inputs(dtype, 60000, 7)
    with warnings.catch_warnings(record=True) as caught:
        got = kernel(x)
        small = kernel(x[:64].reshape(1, 64))
        middle = kernel(x[:8192].reshape(128, 64).T)  # a transposed view past SMALL
        strided = kernel(x[::3])
        empty = kernel(np.zeros((0, 4), dtype))
        scalar = kernel(np.asarray(x[3]))
    assert not [(w.filename, w.lineno, str(w.message)) for w in caught]
    want = _reference(fn, dtype, x)
    assert got.dtype == np.dtype(dtype) and got.shape == x.shape
    assert np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))
    assert np.array_equal(small.reshape(-1).view(f"u{got.itemsize}"),
                          want[:64].view(f"u{want.itemsize}"))
    assert np.array_equal(strided.view(f"u{got.itemsize}"), want[::3].view(f"u{want.itemsize}"))
    assert np.array_equal(middle.view(f"u{got.itemsize}"),
                          want[:8192].reshape(128, 64).T.view(f"u{want.itemsize}"))
    assert empty.shape == (0, 4) and empty.dtype == np.dtype(dtype)
    assert np.asarray(scalar).view(f"u{got.itemsize}") == want[3:4].view(f"u{got.itemsize}")[0]


class _SquareOneUlpOff:
    """A "C library" whose result is the exact double square moved one double ulp towards
    `direction`, with numpy's `square` as the kernel's guess."""

    __name__ = "fake"
    ufunc = np.square

    def __init__(self, direction: float) -> None:
        self.direction = direction

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.nextafter(np.square(np.asarray(x, np.float64)), self.direction)


def test_native_kernel_flags_midpoints() -> None:
    """A double guess on (or within 2^-40 of) a rounding boundary of the narrow type is
    recomputed. With numpy's `square` as the guess (exact in double: 1 + 2^-12 squared is
    1 + 2^-11 + 2^-24, the f32 midpoint above 1 + 2^-11) and a "C library" result one
    double ulp above it (or below), the result must follow the C side of the midpoint,
    where rounding the guess itself gives the even neighbour."""

    x = np.array([1 + 2.0 ** -12, 1.5, 1 + 3 * 2.0 ** -12], np.float32)
    exact = np.square(x.astype(np.float64))
    for direction in (np.inf, -np.inf):
        kernel = libm.native_kernel(_SquareOneUlpOff(direction), np.dtype(np.float32))
        want = np.nextafter(exact, direction).astype(np.float32)
        got = kernel(x)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert exact.astype(np.float32)[0] != np.nextafter(exact, np.inf).astype(np.float32)[0]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_large_f32_layouts(fn: object) -> None:
    """f32 arrays past libm_f32.SMALL elements: C order, a transposed (Fortran)
    view and strided ones give the reference bits in the input's own positions."""
    kernel = libm.native_kernel(fn, np.dtype(np.float32))
    x = _inputs(np.float32, 384 * 96, 11).reshape(384, 96)
    for view in (x, x.T, x[::2, :], x[:, :48], x[::2, ::3]):
        got = kernel(view)
        want = _reference(fn, np.float32, view)
        assert got.shape == view.shape
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_large_f32_flags_midpoints() -> None:
    """The midpoint cases of test_native_kernel_flags_midpoints among 18000 elements."""

    x = np.tile(np.array([1 + 2.0 ** -12, 1.5, 1 + 3 * 2.0 ** -12], np.float32), 6000)
    exact = np.square(x.astype(np.float64))
    for direction in (np.inf, -np.inf):
        got = libm.native_kernel(_SquareOneUlpOff(direction), np.dtype(np.float32))(x)
        want = np.nextafter(exact, direction).astype(np.float32)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


class _Planted:
    """A fake libm function on inputs 0, 1, 2, ...: numpy's "guess" for input i is
    guesses[i], the "C library" result is exact[i] (a kernel must round exact[i])."""

    __name__ = "planted"

    def __init__(self, guesses: np.ndarray, exact: np.ndarray) -> None:
        self.guesses, self.exact = guesses, exact
        self.ufunc = self

    def __call__(self, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        picked = self.guesses if out is not None else self.exact
        result = picked[np.asarray(x).astype(np.int64)]
        if out is not None:
            out[...] = result
            return out
        return result


@pytest.mark.parametrize(("dtype", "copies"),  # f32: x 3 range test on f32 bits, x 9 all
                         [(np.float32, 1), (np.float32, 3), (np.float32, 9),  # 32-bit
                          (np.float16, 1)])
def test_trusted_band_edges(dtype: type, copies: int) -> None:
    """Guesses 1..512 and 2^13-511..2^13 double ulps (the trusted margin is 2^13) on the far
    side of a midpoint from the C library's result are all caught, beside midpoints that
    round down and up, whatever the array's size (2048 inputs per copy: f16 counts them)."""
    nmant = np.finfo(dtype).nmant
    ulp = 2.0 ** -52
    steps = np.r_[1:513, 2 ** 13 - 511:2 ** 13 + 1].astype(np.float64)
    down = 1 + 2.0 ** -(nmant + 1)  # midpoint rounding to even 1.0 (below)
    up = 1 + 3 * 2.0 ** -(nmant + 1)  # midpoint rounding to even above
    guesses = np.concatenate([down + steps * ulp, up - steps * ulp] * copies)
    exact = np.concatenate([np.full(steps.size, down), np.full(steps.size, up)] * copies)
    x = np.arange(guesses.size).astype(dtype)
    got = libm.native_kernel(_Planted(guesses, exact), np.dtype(dtype))(x)
    want = exact.astype(dtype)
    assert not np.array_equal(guesses.astype(dtype), want)
    assert np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


class _PlantedScalar(_Planted):
    """_Planted with the 0-d path (`scalar`) libm's functions have; it counts its calls."""

    def __init__(self, guesses: np.ndarray, exact: np.ndarray) -> None:
        super().__init__(guesses, exact)
        self.calls = 0

    def scalar(self, v: float) -> float:
        self.calls += 1
        return float(self.exact[int(v)])


@pytest.mark.parametrize(("dtype", "size"),  # f32: range test on double / f32 bits
                         [(np.float32, 3000), (np.float32, 4096), (np.float32, 8192),
                          (np.float16, 2048)])  # (f16 holds the integers to 2048)
@pytest.mark.parametrize("planted", [1, 2, 4, 5, 7])
@pytest.mark.parametrize("special", [None, np.nan, -np.inf, -0.0, 1e-45])
def test_near_midpoint_guesses_redone_one_by_one(dtype: type, size: int, planted: int,
                                                 special: float | None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to libm._FEW_REDO guesses within the margin of a midpoint are found one arg-max
    at a time and redone with `scalar` (no mask); the rest of more, or all of them beside
    a result out of the normal range (NaN, infinite, zero, subnormal), go the mask's way:
    each redone once, the exact results in their own positions, C order or transposed.
    f32 (libm_f32's two roundings): up to libm_f32.FEW_REDO doubtful elements one by one,
    a NaN or infinite guess among them; a zero or subnormal one whose roundings agree is
    sure."""
    nmant = np.finfo(dtype).nmant
    rng = np.random.default_rng(planted)
    exact = rng.uniform(1.1, 1.9, size).astype(dtype).astype(np.float64)  # (far from edges)
    if special is not None:
        exact[5] = special
    guesses = exact.copy()
    spots = rng.choice(np.arange(6, size), planted, replace=False)
    midpoint = 1 + 2.0 ** -(nmant + 1)  # rounds to even 1.0
    exact[spots] = midpoint + 2.0 ** -52  # the C result: just above, rounds up
    guesses[spots] = midpoint - 2.0 ** -52 * rng.integers(1, 2 ** 13, planted)
    x = np.arange(size).astype(dtype)
    masks: list[int] = []
    redo = libm._redo
    monkeypatch.setattr(libm, "_redo", lambda *a: masks.append(1) or redo(*a))
    for view in (x, x.reshape(-1, 8).T if size % 8 == 0 else x[::-1]):
        fake = _PlantedScalar(guesses, exact)
        with np.errstate(all="ignore"):
            got = libm.native_kernel(fake, np.dtype(dtype))(view)
            want = exact[view.astype(np.int64)].astype(dtype)
        assert got.shape == view.shape
        assert np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))
        if dtype == np.float32:
            doubtful = planted + (special is not None and not np.isfinite(special))
            assert fake.calls == doubtful
        else:
            assert fake.calls == planted + (special is not None)
    if dtype == np.float32:
        assert bool(masks) == (doubtful > libm_f32.FEW_REDO)
    else:
        assert bool(masks) == (special is not None or planted > libm._FEW_REDO)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_few_doubtful_elements_one_by_one(fn: object, dtype: type) -> None:
    """A handful of doubtful elements (specials: zeros, NaN, infinities, subnormals,
    overflow) among ordinary ones go through the scalar path; at every size class and in
    a Fortran-ordered view they land in their own positions with the reference bits."""
    kernel = libm.native_kernel(fn, np.dtype(dtype))
    rng = np.random.default_rng(5)
    specials = np.array(SPECIALS, np.float64)
    for size in (64, 8192, 20000):
        for chunk in (specials[:7], specials[7:15], specials[15:]):
            with np.errstate(all="ignore"):
                x = (rng.standard_normal(size) + 2).astype(dtype)
                x[rng.choice(size, chunk.size, replace=False)] = chunk.astype(dtype)
            for view in (x, x.reshape(-1, 8).T):
                got = kernel(view)
                want = _reference(fn, dtype, view)
                assert got.shape == view.shape
                assert np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_many_results_deep_in_the_underflow(dtype: type) -> None:
    """exp of a -1e9 attention mask: thousands of results round to +0 whatever the C
    library's last bits, beside ones at the edge of the narrow type's subnormals (-103.3 ..
    -104.0 in f32, -16.6 .. -17.4 in f16), which must still be recomputed: the reference
    bits everywhere, in place, C and Fortran order."""
    rng = np.random.default_rng(3)
    n = 20000
    x = rng.standard_normal(n).astype(dtype)
    x[rng.random(n) < 0.5] = -1e9 if dtype == np.float32 else -6e4
    low, high = (-103.3, -104.0) if dtype == np.float32 else (-16.6, -17.4)
    edge = np.linspace(low, high, 200)
    x[rng.choice(n, edge.size, replace=False)] = edge.astype(dtype)
    kernel = libm.native_kernel(libm.exp, np.dtype(dtype))
    for view in (x, x.reshape(-1, 8).T, x[:4000], x[:8192]):  # every range-test path
        got = kernel(view)
        want = _reference(libm.exp, dtype, view)
        assert np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("shape", [(4, 32), (1, 48), (8, 64), (2048,)])
def test_masked_softmax_rows_of_a_small_array(shape: tuple[int, ...]) -> None:
    """A decoding step's causal attention (libm_f32.SMALL elements or fewer): exp of logits
    minus their row maximum, most of them masked to -1e9 or -inf, beside normal ones, edge
    ones (-103.3 .. -104.0) and NaN: the masked results are +0 without recomputing them
    (they cost 30 us a 4x32 call), the others the reference bits."""
    rng = np.random.default_rng(5)
    for trial in range(30):
        x = rng.standard_normal(shape).astype(np.float32)
        masked = rng.random(shape) < rng.random()
        x[masked] = rng.choice([-1e9, -np.inf])
        flat = x.reshape(-1)
        flat[rng.integers(flat.size)] = rng.choice([-103.3, -103.9, -104.0, np.nan, -0.0])
        got = libm.native_kernel(libm.exp, np.dtype(np.float32))(x)
        want = _reference(libm.exp, np.float32, x)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), trial


@pytest.mark.parametrize("count", [5000, 8192, 40000])  # one array, blocks
def test_deep_underflow_edge(count: int) -> None:
    """Guesses just below 2^-151 are sure zeros, 2^-151 itself rounds to zero too (its
    margin does), and NaN and infinite guesses are recomputed (the planted C results
    differ), among enough doubtful elements for the deep test to run."""
    edge = 2.0 ** -151
    pattern = np.array([np.nextafter(edge, 0), edge, np.nan, np.inf, edge / 3, 1.5, -np.inf])
    results = np.array([2.0 ** -310, edge, 1.0, 2.0, 0.0, 1.5, -3.0])
    guesses = np.resize(pattern, count)
    exact = np.resize(results, count)
    x = np.arange(count).astype(np.float32)
    got = libm.native_kernel(_PlantedGuess(guesses, exact), np.dtype(np.float32))(x)
    want = exact.astype(np.float32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


class _PlantedGuess(_Planted):
    """Like _Planted, but numpy's guess is `guesses` wherever it is asked for (the second
    look at the doubtful elements too); only calling the function gives `exact`."""

    def __init__(self, guesses: np.ndarray, exact: np.ndarray) -> None:
        super().__init__(guesses, exact)
        self.ufunc = lambda x, out=None: _Planted.__call__(self, x, out if out is not None
                                                           else np.empty(np.shape(x)))


@pytest.mark.parametrize("count", [40, 5000, 40000])  # small, one array, blocks
def test_subnormal_results_trusted_only_off_a_rounding_boundary(count: int) -> None:
    """Results in f32's subnormal range: a guess whose 2^-40 margin rounds to one f32
    subnormal is kept, one on a midpoint between two is recomputed by the function and
    rounds as the exact result does."""
    quantum = 2.0 ** -149
    steps = 2.0 * (np.arange(count) % 40) + 4.0  # even: a midpoint above one rounds down to it
    guesses = np.where(np.arange(count) % 2 == 0, steps + 0.5, steps + 0.25) * quantum
    exact = np.where(np.arange(count) % 2 == 0, steps + 0.5 + 1e-6, steps + 0.25 + 1e-6)
    exact = exact * quantum
    x = np.arange(count).astype(np.float32)
    got = libm.native_kernel(_PlantedGuess(guesses, exact), np.dtype(np.float32))(x)
    want = exact.astype(np.float32)
    assert not np.array_equal(guesses.astype(np.float32), want)  # midpoints round to even
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, "bfloat16"])
def test_results_in_the_narrow_subnormals(dtype: object) -> None:
    """exp of arguments whose results are the narrow type's subnormals, smallest normals or
    round to zero above 2^-200 (a Sinkhorn or RBF kernel's exp(-d/eps)), log1p and expm1
    near them, mixed with ordinary ones: the C library's result rounded once, in C and
    Fortran order."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float, rounder

    dt = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)  # type: ignore[call-overload]
    low, high = (-9.0, -18.0) if dt == np.float16 else (-85.0, -140.0)
    rng = np.random.default_rng(12)
    x = rng.uniform(high, low, 30000)
    x[rng.random(x.size) < 0.2] = rng.standard_normal() * 3
    x[:6] = [np.nan, -np.inf, -0.0, 0.0, high - 60.0, low + 2.0]
    x = x.astype(np.float32).astype(dt)
    for fn in (libm.exp, libm.expm1, libm.log1p):
        kernel = libm.native_kernel(fn, dt, None if dt.kind == "f" else rounder(dt))
        if dt.itemsize == 2:
            kernel = libm.native_kernel.__wrapped__(fn, dt, None if dt.kind == "f" else rounder(dt))
        for view in (x[:20000], x[:20000].reshape(-1, 8).T, x[:5000]):
            want = round_float(_c_library_elementwise(fn, view), dt)
            assert np.array_equal(_bits(kernel(view)), _bits(want))


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.itemsize}")


def _c_library_elementwise(fn: object, x: np.ndarray) -> np.ndarray:
    """The C library's double result, one element at a time (no shortcuts to test)."""
    with np.errstate(all="ignore"):
        flat = np.asarray(x, np.float64).reshape(-1)
        return np.array([fn(flat[i:i + 1])[0] for i in range(flat.size)],  # type: ignore[operator]
                        np.float64).reshape(np.shape(x))


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_bfloat16_kernel_is_c_library_rounded_once(fn: object) -> None:
    """bfloat16 results: the same kernel with a rounding that goes through round-to-odd
    (astype from double can round twice), the C library's result rounded once."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float, rounder

    bf16 = np.dtype(ml_dtypes.bfloat16)
    kernel = libm.native_kernel(fn, bf16, rounder(bf16))
    x = _inputs(np.float32, 20000, 11).astype(bf16)
    with np.errstate(all="ignore"):
        want = round_float(np.asarray(fn(x.astype(np.float64)), np.float64), bf16)  # type: ignore[operator]
    for view, expected in ((x, want), (x[:64].reshape(1, 64), want[:64].reshape(1, 64)),
                           (x[::3], want[::3]), (x[:4096].reshape(64, 64).T,
                                                 want[:4096].reshape(64, 64).T)):
        got = kernel(view)
        assert got.dtype == bf16 and got.shape == expected.shape
        assert np.array_equal(_bits(got), _bits(expected))
    assert kernel(np.zeros((0, 3), bf16)).shape == (0, 3)
    assert _bits(np.asarray(kernel(np.asarray(x[5]))))[()] == _bits(want[5:6])[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, "bfloat16"])
def test_repeated_doubtful_arguments_computed_once(dtype: object) -> None:
    """NaN padding and -inf masks: many doubtful elements with one argument (or a few:
    NaN with either sign and another payload, infinities) take the C library's result of
    that argument; mixed with ordinary elements, in C and Fortran order."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float, rounder

    dt = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)  # type: ignore[call-overload]
    payload = np.array([0x7FC00001], np.uint32).view(np.float32)[0]
    rng = np.random.default_rng(9)
    for fills in ([np.nan], [-np.inf], [np.nan, -np.nan, payload, np.inf, -np.inf]):
        for size in (40, 5000, 40000):
            x = (rng.standard_normal(size) * 3).astype(np.float32)
            where = rng.random(size) < 0.6
            x[where] = rng.choice(np.array(fills, np.float32), int(where.sum()))
            x = x.astype(dt)
            for fn in (libm.exp, libm.log1p, libm.tanh):
                kernel = libm.native_kernel(fn, dt, None if dt.kind == "f" else rounder(dt))
                want = round_float(_c_library_elementwise(fn, x), dt)
                for view, expected in ((x, want), (x.reshape(-1, 8).T, want.reshape(-1, 8).T)):
                    assert np.array_equal(_bits(kernel(view)), _bits(expected))


def test_double_results_of_repeated_special_arguments() -> None:
    """float64 results (the C library for every element): NaN, infinities and
    out-of-domain arguments repeated many times, unary and binary, equal the per-element
    C results, payloads and NaN signs included."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal(3000) * 4
    x[rng.random(3000) < 0.5] = np.nan
    x[rng.random(3000) < 0.1] = -np.inf
    x[rng.random(3000) < 0.05] = -np.nan
    for fn in (libm.exp, libm.log, libm.log1p, libm.arccosh):
        assert np.array_equal(_bits(np.asarray(fn(x))), _bits(_c_library_elementwise(fn, x)))
    y = np.where(rng.random(3000) < 0.5, np.inf, rng.standard_normal(3000))
    for fn2 in (libm.power, libm.arctan2):
        got = np.asarray(fn2(x, y))
        with np.errstate(all="ignore"):
            want = np.array([fn2(x[i:i + 1], y[i:i + 1])[0] for i in range(x.size)])
        assert np.array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_sixteen_bit_kernels_switch_to_a_table(dtype: object) -> None:
    """After 2^16 elements a 16-bit kernel answers from a table of all bit patterns: before
    and after the switch, every pattern (NaN payloads included), a strided view and 0-d
    inputs give libm.rounded's bits (the margin test, another path)."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import rounder

    dt = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)  # type: ignore[call-overload]
    rounding = None if dt.kind == "f" else rounder(dt)
    every = np.arange(1 << 16, dtype=np.uint16).view(dt)
    for fn in (libm.exp, libm.tanh, libm.log):
        want = libm.rounded(fn, rounding or (lambda r: r.astype(dt)), every)
        fresh = libm.native_kernel.__wrapped__(fn, dt, rounding)  # uncached: no table yet
        first = fresh(every[:1000].copy())  # computed
        whole = fresh(every)  # crosses 2^16 elements: builds the table
        later = fresh(every[::-7].reshape(-1, 1))  # from the table
        assert np.array_equal(_bits(first), _bits(want[:1000]))
        assert np.array_equal(_bits(whole), _bits(want))
        assert np.array_equal(_bits(later), _bits(want[::-7].reshape(-1, 1)))
        assert _bits(np.asarray(fresh(np.asarray(every[15360]))))[()] == _bits(want[15360:15361])[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("fn", [libm.log, libm.log1p], ids=lambda f: f.__name__)
def test_masked_out_arguments(fn: object, dtype: type) -> None:
    """`where(x > 0, log(x), 0)` feeds log every masked-out argument: zeros (a ReLU's
    output), negatives, NaN and infinities are evaluated at a regular argument and then
    recomputed by the C library; all-special, mixed and all-regular blocks, in every size
    class, give the straightforward evaluation's bits."""
    rng = np.random.default_rng(3)
    n = 3 * 16384 + 77
    x = rng.standard_normal(n) * rng.choice([1e-40, 1e-3, 1.0, 1e3], n)
    x[rng.random(n) < 0.3] = 0.0
    x[:4096] = np.abs(x[:4096])  # a block with few specials
    x[4096:8192] = -np.abs(x[4096:8192]) - 1.5  # a block of specials only
    x[8192:8192 + 40] = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, -1.0, 5e-324, -5e-324,
                         1e-45, -1e-45, -1.0000001, -0.9999999, 3e38] * 2 + [0.0] * 12
    with np.errstate(all="ignore"):
        x = x.astype(dtype)
    rounder = None if dtype != ml_dtypes.bfloat16 else _bf16_rounder()
    kernel = libm.native_kernel(fn, np.dtype(dtype), rounder)
    for view in (x, x[:20000], x[:3000], x[::3], x[:4096 * 4].reshape(64, 256).T, x[8195:8196]):
        got = kernel(view)
        with np.errstate(all="ignore"):
            want = np.asarray(fn(np.asarray(view, np.float64)))  # type: ignore[operator]
        want = want.astype(dtype) if rounder is None else rounder(want)
        assert got.shape == view.shape
        assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


def _bf16_rounder() -> Any:
    from shlo_cli.dialects.stablehlo.elementwise_numerics import rounder

    return rounder(np.dtype(ml_dtypes.bfloat16))


def test_fill_is_boolean_assignment() -> None:
    rng = np.random.default_rng(4)
    for shape in [(0,), (1,), (1000,), (30, 40)]:
        target = rng.standard_normal(shape)
        mask = rng.random(shape) < 0.5
        want = target.copy()
        want[mask] = np.nan
        libm._fill(target, mask, np.array(np.nan))
        assert target.tobytes() == want.tobytes()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_small_f32_arrays(fn: object, seed: int) -> None:
    """f32 arrays up to libm_f32.SMALL elements (the margin test on two roundings of the
    guess): the reference bits for random inputs at every scale with NaN, infinities,
    -0.0, subnormals and overflow among them, in C order, transposed and strided, and
    arrays of specials only (every element doubtful)."""
    kernel = libm.native_kernel(fn, np.dtype(np.float32))
    x = _inputs(np.float32, libm_f32.SMALL, seed)
    rng = np.random.default_rng(seed)
    x = x[rng.permutation(x.size)]
    specials = np.array(SPECIALS, np.float32)
    with warnings.catch_warnings(record=True) as caught:
        for view in (x, x[:64].reshape(1, 64), x[:1], x.reshape(32, 64).T, x[::5],
                     specials, -specials, np.full(7, -0.0, np.float32)):
            got = kernel(view)
            want = _reference(fn, np.float32, view)
            assert got.shape == view.shape and got.dtype == np.float32
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), view
    assert not [(w.filename, w.lineno, str(w.message)) for w in caught]


def test_small_f32_margin_is_at_least_the_trusted_one() -> None:
    """Guesses 2^13 double ulps (a relative 2^-40 at the top of a binade, 2^-39 at its
    bottom) on either side of f32 midpoints, at the bottom and the top of binades: every
    one whose C result rounds elsewhere than the guess is caught."""
    ulp = 2.0 ** -52
    mids = np.array([1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24, 2 - 2.0 ** -24, 2 - 3 * 2.0 ** -24])
    steps = np.array([1, 2 ** 12, 2 ** 13 - 1, 2 ** 13]) * ulp
    guesses = np.concatenate([mids + d for d in steps] + [mids - d for d in steps])
    exact = np.concatenate([mids - d / 2 ** 14 for d in steps] + [mids + d / 2 ** 14
                                                                 for d in steps])
    x = np.arange(guesses.size).astype(np.float32)
    got = libm.native_kernel(_Planted(guesses, exact), np.dtype(np.float32))(x)
    want = exact.astype(np.float32)
    assert not np.array_equal(guesses.astype(np.float32), want)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_table_of_a_16_bit_kernel_after_many_small_calls(dtype: type) -> None:
    """Small calls build the table after _TABLE_CALLS of them (long before 65536 elements),
    and its answers are compute's own, bit for bit."""
    computed: list[int] = []

    def compute(x: np.ndarray) -> np.ndarray:
        computed.append(x.size)
        return _reference(libm.tanh, dtype, x)

    kernel = libm.tabulated(compute, np.dtype(dtype))
    x = _inputs(dtype, 64, 7)
    for _ in range(libm._TABLE_CALLS + 3):
        out = kernel(x)
    assert computed[-1] == 1 << 16 and len(computed) == libm._TABLE_CALLS
    assert out.tobytes() == _reference(libm.tanh, dtype, x).tobytes()


@pytest.mark.parametrize("count", [3 * 21, 3 * 1400, 3 * 12000])  # small, one array, blocks
def test_f32_keeps_deep_guesses_and_redoes_nan_ones(count: int) -> None:
    """f32 arrays (libm_f32's two roundings): guesses below 2^-200 of either sign round to
    +-0 without the function, a NaN guess is redone whatever its neighbours."""
    kind = np.arange(count) % 3
    guesses = np.select([kind == 0, kind == 1], [2.0 ** -300, np.nan], -(2.0 ** -300))
    exact = np.select([kind == 0, kind == 1], [2.0 ** -310, 0.5], -(2.0 ** -305))
    planted = _PlantedGuess(guesses, exact)
    got = libm.native_kernel(planted, np.dtype(np.float32))(np.arange(count).astype(np.float32))
    assert np.array_equal(got.view(np.uint32), exact.astype(np.float32).view(np.uint32))


def _floor_inputs(n: int) -> np.ndarray:
    """A masked softmax's exp arguments (scores minus the row maximum, -1e9 where masked)
    with the values around exp's floor and the specials spread over every chunk."""
    rng = np.random.default_rng(21)
    x = -np.abs(rng.standard_normal(n)) * rng.choice([1e-3, 1.0, 30.0, 150.0, 1e4], n)
    x[rng.random(n) < 0.5] = -1e9
    specials = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -200.0, -199.99, -200.01,
                -745.2, -1e-45, 1e-45, 88.8, -3e38]
    for start in range(0, n, 9000):
        x[start:start + len(specials)] = specials[:n - start]
    x[-1:] = -1e9  # (the last chunk's last element)
    return x


@pytest.mark.parametrize("size", [0, 1, 5000, libm._FLOOR_CHUNK, 2 * libm._FLOOR_CHUNK + 1])
def test_exp_guess_floor_in_chunks(size: int) -> None:
    """exp's double guess raises its arguments to the floor a chunk at a time against an
    array of the floor: in place it is numpy's exp of numpy's maximum with the 0-d floor,
    bit for bit, NaN payloads included, in C order, Fortran order and a strided view."""
    evaluate = libm._guesser(libm.exp)
    floor = np.array(libm.exp.underflow_below)  # type: ignore[attr-defined]
    x = _floor_inputs(size)
    views = [x, x[::3]]
    if size % 50 == 0 and size:
        views += [x.reshape(-1, 50), x.reshape(-1, 50).T]
    for view in views:
        guess = np.array(view, order="K")
        with np.errstate(all="ignore"):
            evaluate(guess)
            want = np.exp(np.maximum(view, floor))
        assert guess.tobytes(order="A") == np.array(want, order="K").tobytes(order="A")
        assert guess.flags.c_contiguous == want.flags.c_contiguous or not guess.ndim


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_exp_of_masked_scores_past_a_floor_chunk(dtype: type) -> None:
    """The exp kernels on arguments below, at and above the floor, past several floor
    chunks and blocks, in every layout (C-contiguous f32 ones raised to the floor while
    widened, libm_f32.guessed; the others after): the C library's exp rounded once."""
    with np.errstate(all="ignore"):
        x = _floor_inputs(5 * 16384 + 50).astype(dtype)
    rounder = None if dtype != ml_dtypes.bfloat16 else _bf16_rounder()
    kernel = libm.native_kernel(libm.exp, np.dtype(dtype), rounder)
    square = x[:256 * 256].reshape(256, 256)
    for view in (x, x[:40000], x[::2], square, square.T, square[::2, 1::3]):
        got = kernel(view)
        with np.errstate(all="ignore"):
            want = np.asarray(libm.exp(np.asarray(view, np.float64)))
            want = want.astype(dtype) if rounder is None else rounder(want)
        assert got.shape == view.shape
        assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()
