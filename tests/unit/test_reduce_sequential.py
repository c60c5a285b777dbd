"""Float sums (and products) over the last axis (reducer.fast_reduce_last) keep the sequential
order `((init op x0) op x1) ...` bit for bit on the transposed-rows path: data where pairwise
or blocked summation would round differently (large and small magnitudes mixed), NaN, -0.0
and infinities, f16/f32/f64/complex, several shapes, below and above the row threshold."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import reducer


def _sequential(ufunc: np.ufunc, x: np.ndarray, init: np.ndarray) -> np.ndarray:
    acc = np.full(x.shape[:-1], init, x.dtype)
    with np.errstate(all="ignore"):
        for k in range(x.shape[-1]):
            acc = ufunc(acc, x[..., k]).astype(x.dtype)
    return acc


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Bitwise equal except that NaNs only need to be NaNs (which operand's NaN an add
    returns is the hardware's choice, the spec does not fix payloads)."""
    parts = [(got, want)] if got.dtype.kind == "f" else [(got.real, want.real),
                                                          (got.imag, want.imag)]
    for g, w in parts:
        nan = np.isnan(w)
        assert np.array_equal(np.isnan(g), nan)
        g, w = np.ascontiguousarray(g[~nan]), np.ascontiguousarray(w[~nan])
        assert np.array_equal(g.view(np.uint8), w.view(np.uint8))


SHAPES = [(8, 1), (8, 2), (64, 128), (3, 5, 300), (16, 1000), (4, 40), (1, 500), (500,),
          (9, 3, 7), (1,), (7,), (32,)]


# complex products stay on numpy's accumulate, whose complex infinities/NaN parts follow its
# own loop, not the binary ufunc's: not what this file pins
CASES = [(dtype, name) for dtype in (np.float16, np.float32, np.float64, np.complex64,
                                     np.complex128)
         for name in ("stablehlo.add", "stablehlo.multiply")
         if not (name == "stablehlo.multiply" and np.dtype(dtype).kind == "c")]


@pytest.mark.parametrize("dtype,name", CASES)
@pytest.mark.parametrize("shape", SHAPES)
def test_last_axis_sum_is_sequential(dtype: type, shape: tuple[int, ...], name: str) -> None:
    rng = np.random.default_rng(sum(shape))
    scale = rng.choice([1e-4, 1.0, 3e3] if dtype == np.float16 else [1e-8, 1.0, 1e7], shape)
    if name == "stablehlo.multiply":
        scale = rng.choice([0.5, 1.0, 1.5, 2.0], shape)
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(shape) * scale).astype(dtype)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * (rng.standard_normal(shape) * scale).astype(dtype)
    flat = x.reshape(-1)
    if flat.size > 20:
        flat[3], flat[7], flat[11] = -0.0, np.inf, -np.inf
        flat[17] = np.nan
    ufunc = np.add if name == "stablehlo.add" else np.multiply
    for init in (dtype(0), dtype(-0.0), dtype(1.5)):
        got = reducer.fast_reduce_last(name, x, np.asarray(init))
        want = _sequential(ufunc, x, np.asarray(init))
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.flags.c_contiguous
        _same(got, want)


@pytest.mark.parametrize("shape", [(16, 9), (9,), (1,)])
def test_all_negative_zeros_keep_their_sign(shape: tuple[int, ...]) -> None:
    x = np.full(shape, -0.0, np.float32)
    got = reducer.fast_reduce_last("stablehlo.add", x, np.asarray(np.float32(-0.0)))
    assert np.all(np.signbit(got))
    got = reducer.fast_reduce_last("stablehlo.add", x, np.asarray(np.float32(0.0)))
    assert not np.any(np.signbit(got))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_one_row_from_zero_with_zeros_nan_and_infinities(dtype: type) -> None:
    """One row summed from +0 (accumulated without the start prepended): zero signs, NaN
    and infinities placed first, last and alone, against the sequential sum."""
    values = [-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3e-8, -3e-8]
    rng = np.random.default_rng(4)
    for _ in range(300):
        x = np.array(rng.choice(values, rng.integers(1, 6)), dtype)
        got = reducer.fast_reduce_last("stablehlo.add", x, np.asarray(dtype(0.0)))
        _same(np.asarray(got), _sequential(np.add, x, np.asarray(dtype(0.0))))
