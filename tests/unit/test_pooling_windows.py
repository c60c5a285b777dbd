"""Max and min pooling (float reduce_window of maximum/minimum over small windows) by numpy's
own ufuncs when no -0.0 is around (window_algorithms._extremum_fold) equals the spec's
definition window by window, bit for bit: +0 zeros (after a ReLU), NaN, inf, padding,
strides, window and base dilation, inits that are and are not the identity, f16/f32/f64,
empty results; with a -0.0 in the operand or init the spec's zero order decides (-0 < +0)
and the sign-aware fold runs instead."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import window_algorithms
from shlo_cli.dialects.stablehlo.reduce_window import pad_dilate
from shlo_cli.dialects.stablehlo.window_algorithms import (
    fast_reduce_window,
    float_maximum,
    float_minimum,
)

# (operand shape, window, strides, base dilation, window dilation, low, high)
POOLS = [
    ((1, 9, 9, 3), (1, 3, 3, 1), (1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1), (0,) * 4, (0,) * 4),
    ((2, 8, 8, 2), (1, 2, 2, 1), (1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1), (0,) * 4, (0,) * 4),
    ((1, 7, 6, 4), (1, 3, 3, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1),
     (0, 1, 1, 0), (0, 1, 1, 0)),  # "same" padding
    ((1, 7, 7, 2), (1, 3, 2, 1), (1, 2, 1, 1), (1, 2, 1, 1), (1, 1, 2, 1),
     (0, 2, 0, 0), (0, 1, 3, 0)),  # base and window dilation, uneven padding
    ((1, 0, 5, 2), (1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), (0,) * 4, (0,) * 4),
    ((5, 4), (1, 1), (1, 1), (1, 1), (1, 1), (0, 0), (0, 0)),  # a window of one element
]


def _literal(fn, x, init, window, strides, base, dil, low, high):
    """The spec's definition, one window at a time, elements in row-major order."""
    padded = pad_dilate(x, low, high, [b - 1 for b in base], np.asarray(init, x.dtype)[()])
    counts = [max(0, (n - ((w - 1) * d + 1)) // s + 1)
              for n, w, d, s in zip(padded.shape, window, dil, strides, strict=True)]
    out = np.empty(counts, x.dtype)
    with np.errstate(all="ignore"):
        for index in np.ndindex(*counts):
            acc = np.asarray(init, x.dtype)
            for offset in np.ndindex(*window):
                pos = tuple(i * s + o * d for i, s, o, d in
                            zip(index, strides, offset, dil, strict=True))
                acc = np.asarray(fn(acc, padded[pos]), x.dtype)
            out[index] = acc
    return out


def _fast(name, x, init, window, strides, base, dil, low, high):
    padded = pad_dilate(x, low, high, [b - 1 for b in base], np.asarray(init, x.dtype)[()])
    counts = [max(0, (n - ((w - 1) * d + 1)) // s + 1)
              for n, w, d, s in zip(padded.shape, window, dil, strides, strict=True)]
    return fast_reduce_window(name, padded, np.asarray(init, x.dtype), list(low), counts,
                              strides, window, dil, list(high))


def _relu_data(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Activations after a ReLU: many +0.0, some NaN and inf, no -0.0."""
    x = np.maximum(rng.standard_normal(shape), 0.0).astype(dtype)
    flat = x.reshape(-1)
    if flat.size > 4:
        flat[rng.choice(flat.size, 2, replace=False)] = [np.nan, np.inf]
        flat[rng.integers(flat.size)] = -np.inf
    return x


def _same_bits(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize(("name", "fn", "init"), [
    ("maximum", float_maximum, -np.inf), ("maximum", float_maximum, 0.0),
    ("maximum", float_maximum, np.nan), ("minimum", float_minimum, np.inf),
    ("minimum", float_minimum, 0.5)])
def test_pooling_without_negative_zeros_is_numpys_fold(monkeypatch, dtype, pool, name, fn,
                                                       init) -> None:
    def refuse(*args):
        raise AssertionError("the sign-aware fold ran")

    rng = np.random.default_rng(len(pool[0]) + pool[0][1])
    x = _relu_data(rng, pool[0], dtype)
    if name == "minimum":
        x = -x  # -(+0.0) is -0.0: keep the zeros +0.0
        x[x == 0] = 0.0
    args = (x, np.asarray(init, dtype), *pool[1:])
    want = _literal(fn, *args)
    if want.size:  # (an empty result is the offset fold's)
        monkeypatch.setattr(window_algorithms, "_offset_fold", refuse)
    got = _fast("stablehlo." + name, *args)
    _same_bits(got, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(("name", "fn", "init"), [
    ("maximum", float_maximum, -np.inf), ("maximum", float_maximum, -0.0),
    ("minimum", float_minimum, np.inf), ("minimum", float_minimum, 0.0)])
def test_negative_zeros_keep_the_spec_order(monkeypatch, dtype, name, fn, init) -> None:
    """-0.0 before +0.0 in a window whose extremum is zero: numpy's maximum keeps the
    first of two equal zeros (-0.0); the spec's is +0.0 (and -0.0 for minimum)."""
    def refuse(*args):
        raise AssertionError("numpy's fold ran with a -0.0 around")

    sign = 1.0 if name == "maximum" else -1.0
    x = np.full((1, 6, 6, 2), -sign * 3.0, dtype)
    x[0, 0::2, 0::2, :] = -0.0 if name == "maximum" else 0.0
    x[0, 1::2, 1::2, :] = 0.0 if name == "maximum" else -0.0
    x[0, 4, 4, 1] = np.nan
    args = (x, np.asarray(init, dtype), (1, 2, 2, 1), (1, 2, 2, 1), (1, 1, 1, 1),
            (1, 1, 1, 1), (0,) * 4, (0,) * 4)
    want = _literal(fn, *args)
    monkeypatch.setattr(window_algorithms, "_extremum_fold", refuse)
    got = _fast("stablehlo." + name, *args)
    _same_bits(got, want)
    assert np.all(np.signbit(want[0, :2, :2]) == (name == "minimum"))
