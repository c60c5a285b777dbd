"""Fast reduce_window algorithms and key-based sorts agree with the straightforward evaluation
(a literal per-window fold; a comparator-driven stable sort) on random data with NaN, -0.0
and empty tensors. Bitwise comparisons: the fast paths claim exact results. Max and min pooling
with no -0.0 around folds numpy's own maximum/minimum (window_algorithms._extremum_fold);
with a -0.0 in a window the spec's zero order (-0 < +0) still decides."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import window_algorithms
from shlo_cli.dialects.stablehlo.reduce_window import pad_dilate
from shlo_cli.dialects.stablehlo.window_algorithms import (
    fast_reduce_window,
    float_maximum,
    float_minimum,
)
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

OPS = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
       "or": np.bitwise_or, "xor": np.bitwise_xor, "and": np.bitwise_and}


def _binary(name: str, dtype: np.dtype):
    if dtype.kind in "fV" and name == "maximum":
        return float_maximum
    if dtype.kind in "fV" and name == "minimum":
        return float_minimum
    if dtype == np.bool_:
        return {"add": np.logical_or, "or": np.logical_or, "maximum": np.logical_or,
                "multiply": np.logical_and, "minimum": np.logical_and,
                "xor": np.logical_xor, "and": np.logical_and}[name]
    return OPS[name]


def _literal(name, x, init, window, strides, base, dil, low, high):
    """The spec's definition, one window at a time, elements in row-major order."""
    fn = _binary(name, x.dtype)
    padded = pad_dilate(x, low, high, [b - 1 for b in base], np.asarray(init, x.dtype)[()])
    counts = [0 if w == 0 else max(0, (n - ((w - 1) * d + 1)) // s + 1)
              for n, w, d, s in zip(padded.shape, window, dil, strides, strict=False)]
    out = np.empty(counts, x.dtype)
    with np.errstate(all="ignore"):
        for index in np.ndindex(*counts):
            acc = np.asarray(init, x.dtype)
            for offset in np.ndindex(*window):
                pos = tuple(i * s + o * d for i, s, o, d in zip(index, strides, offset, dil, strict=False))
                acc = np.asarray(fn(acc, padded[pos]), x.dtype)
            out[index] = acc
    return out


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype
    if a.dtype.kind == "V":  # ml_dtypes' floats: compared through float32 (exact)
        a, b = a.astype(np.float32), b.astype(np.float32)
    if a.dtype.kind in "fc":
        assert np.array_equal(a, b, equal_nan=True)
        assert np.array_equal(np.signbit(a.real), np.signbit(b.real))
    else:
        assert np.array_equal(a, b)


def _data(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.3
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    if flat.size:
        special = rng.choice(flat.size, size=max(1, flat.size // 8), replace=False)
        flat[special] = rng.choice(np.array([np.nan, -0.0, 0.0, np.inf], dtype))
    return x


def _fast(name, x, init, window, strides, base, dil, low, high):
    padded = pad_dilate(x, low, high, [b - 1 for b in base], np.asarray(init, x.dtype)[()])
    counts = [0 if w == 0 else max(0, (n - ((w - 1) * d + 1)) // s + 1)
              for n, w, d, s in zip(padded.shape, window, dil, strides, strict=False)]
    return fast_reduce_window("stablehlo." + name, padded, np.asarray(init, x.dtype),
                              [max(v, 0) for v in low], counts, strides, window, dil,
                              [max(v, 0) for v in high])


BF16, F8 = np.dtype(ml_dtypes.bfloat16), np.dtype(ml_dtypes.float8_e5m2)
CUMULATIVE = [  # (op, dtype, init): jax's cumsum/cumprod/cummax/cummin lowering
    ("add", "float32", 0.0), ("add", "float32", -0.0), ("add", "float64", 0.0),
    ("multiply", "float32", 1.0), ("maximum", "float32", -np.inf),
    ("minimum", "float64", np.inf), ("add", "int32", 0), ("multiply", "int8", 1),
    ("maximum", "int16", -(2 ** 15)), ("xor", "uint8", 0), ("or", "bool", False),
    ("add", "float32", 1.0),  # not idempotent: the fold path
    ("maximum", "float32", -0.0), ("minimum", "float16", 0.0), ("maximum", "float64", 0.0),
    ("minimum", "uint32", 2 ** 32 - 1), ("and", "bool", True), ("add", "int64", 3),
    ("add", BF16, 0.0), ("multiply", BF16, 1.0), ("maximum", BF16, -np.inf),
    ("minimum", BF16, 0.0), ("add", F8, -0.0), ("maximum", F8, -0.0),
]


@pytest.mark.parametrize("name,dtype,init", CUMULATIVE)
@pytest.mark.parametrize("n", [0, 1, 7, 70])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_windows_match_literal(name, dtype, init, n, reverse):
    rng = np.random.default_rng(n)
    x = _data(rng, (3, n), dtype)
    init = np.asarray(init, dtype)
    pad = max(n - 1, 0)
    low, high = ([0, 0], [0, pad]) if reverse else ([0, pad], [0, 0])
    args = (name, x, init, [1, max(n, 1)], [1, 1], [1, 1], [1, 1], low, high)
    _same(_fast(*args), _literal(*args))


def test_reverse_float_cumsum_folds_only_live_windows(monkeypatch):
    """jax's reverse cumsum/cumprod (padding behind) skips the plain offset fold; the
    trailing `+ init` steps stop at their fixed point (here after -0 + 0 = +0)."""
    def refuse(*args):
        raise AssertionError("the plain offset fold ran")

    monkeypatch.setattr(window_algorithms, "_offset_fold", refuse)
    for name, init, dtype in (("add", 0.0, "float32"), ("multiply", 1.0, "float32"),
                              ("add", -0.0, "float32"), ("add", 0.0, BF16),
                              ("multiply", 1.0, BF16), ("add", 0.0, "float16")):
        x = _data(np.random.default_rng(7), (4, 90, 3), dtype)
        x[1, 80:, 0] = -0.0
        init = np.asarray(init, dtype)
        args = (name, x, init, [1, 90, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1], [0, 0, 0], [0, 89, 0])
        _same(_fast(*args), _literal(*args))


@pytest.mark.parametrize("name,dtype,init", [
    ("maximum", "float32", -np.inf), ("minimum", "float64", 0.0), ("maximum", "float64", 0.0),
    ("minimum", "float32", np.inf), ("maximum", "float16", -0.0)])
@pytest.mark.parametrize("axis", [0, 1])
def test_float_extremum_scans_accumulate_in_both_directions(monkeypatch, name, dtype, init,
                                                            axis):
    """Cumulative windows of float maximum/minimum (cummax, cummin) along the last axis take
    one accumulate, reverse ones on the reversed operand, not the sliding doubling; zero
    signs as the spec's."""
    def refuse(*args):
        raise AssertionError("the doubling ran")

    if axis == 1:  # along an outer axis the doubling is faster
        monkeypatch.setattr(window_algorithms, "_separable", refuse)
    n = 40  # past SMALL_WINDOW
    x = _data(np.random.default_rng(axis), (n, 5) if axis == 0 else (5, n), dtype)
    if np.dtype(dtype).kind == "f":  # runs of signed zeros
        zeros = np.where(np.arange(25) % 2, 0.0, -0.0).astype(dtype)
        if axis == 0:
            x[5:30, 1:3] = zeros[:, None]
        else:
            x[1:3, 5:30] = zeros
    for reverse in (False, True):
        low, high = [0, 0], [0, 0]
        (high if reverse else low)[axis] = n - 1
        window = [1, 1]
        window[axis] = n
        args = (name, x, np.asarray(init, dtype), window, [1, 1], [1, 1], [1, 1], low, high)
        _same(_fast(*args), _literal(*args))


GENERAL = [  # (window, strides, base dilation, window dilation, low, high)
    ([3, 3], [2, 2], [1, 1], [1, 1], [1, 1], [1, 1]),
    ([2, 40], [1, 3], [1, 1], [1, 1], [0, 39], [0, 0]),
    ([6, 7], [1, 1], [1, 1], [1, 1], [0, 0], [0, 0]),
    ([5, 9], [2, 1], [2, 1], [1, 2], [2, 1], [-1, 3]),
    ([1, 50], [1, 1], [1, 1], [1, 1], [0, 10], [0, 10]),
    ([4, 12], [3, 5], [1, 1], [1, 1], [0, 0], [0, 0]),
    ([1, 50], [1, 1], [1, 1], [1, 1], [0, 0], [0, 30]),  # padded behind only, short of w - 1
    ([2, 45], [1, 1], [1, 2], [1, 1], [0, 0], [1, 44]),  # ... over a base-dilated operand
]


@pytest.mark.parametrize("name,dtype", [("add", "float32"), ("maximum", "float32"),
                                        ("minimum", "float64"), ("multiply", "float64"),
                                        ("add", "int64"), ("maximum", "uint16"),
                                        ("xor", "int32"), ("add", "bool"), ("add", BF16),
                                        ("maximum", BF16)])
@pytest.mark.parametrize("case", range(len(GENERAL)))
def test_general_windows_match_literal(name, dtype, case):
    window, strides, base, dil, low, high = GENERAL[case]
    rng = np.random.default_rng(case)
    x = _data(rng, (9, 40), dtype)
    if name == "multiply" and np.dtype(dtype).kind == "f":
        x = np.where(np.isfinite(x), 1 + x / 64, x).astype(dtype)
    init = np.asarray(0 if name in ("add", "xor") else 1 if name == "multiply" else
                      (-np.inf if name == "maximum" else np.inf) if np.dtype(dtype).kind in "fV"
                      else 0, dtype)
    args = (name, x, init, window, strides, base, dil, low, high)
    _same(_fast(*args), _literal(*args))


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def test_cumsum_program_over_a_long_axis_runs_without_materialized_windows():
    n = 200_000  # the plain evaluation would need n * n * 4 bytes
    text = f"""
func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %z) <{{padding = dense<[[{n - 1}, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: {n}>}}> ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }}) : (tensor<{n}xf32>, tensor<f32>) -> tensor<{n}xf32>
  func.return %0 : tensor<{n}xf32>
}}
"""
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    [out] = _run(text, x)
    _same(out, np.add.accumulate(np.concatenate([[np.float32(0)], x]), dtype=np.float32)[1:])


# ---- sort: jax's canonicalizing comparator ---------------------------------------------------

JAX_SORT = """
func.func @main(%x: tensor<{n}xf32>, %i: tensor<{n}xi32>) -> (tensor<{n}xf32>, tensor<{n}xi32>) {{
  %0:2 = "stablehlo.sort"(%x, %i) <{{dimension = 0 : i64, is_stable = true}}> ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.compare EQ, %a, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.select %1, %z, %a : tensor<i1>, tensor<f32>
    %3 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.select %3, %nan, %2 : tensor<i1>, tensor<f32>
    %5 = stablehlo.compare EQ, %b, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = stablehlo.select %5, %z, %b : tensor<i1>, tensor<f32>
    %7 = stablehlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = stablehlo.select %7, %nan, %6 : tensor<i1>, tensor<f32>
    %9 = stablehlo.compare {direction}, {lhs}, {rhs}, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %9 : tensor<i1>
  }}) : (tensor<{n}xf32>, tensor<{n}xi32>) -> (tensor<{n}xf32>, tensor<{n}xi32>)
  func.return %0#0, %0#1 : tensor<{n}xf32>, tensor<{n}xi32>
}}
"""


def _total_key(v: float) -> tuple:
    """jax's comparator on one element: -0 -> 0, NaN -> +NaN, then IEEE totalOrder."""
    if np.isnan(v):
        return (2, 0.0)
    if v == 0:
        return (1, 0.0)
    return (1, float(v))


@pytest.mark.parametrize("n", [0, 1, 9, 300])
@pytest.mark.parametrize("direction,lhs,rhs", [("LT", "%4", "%8"), ("GT", "%4", "%8"),
                                               ("LT", "%8", "%4")])
def test_canonicalizing_comparator_sorts_like_the_literal_stable_sort(n, direction, lhs, rhs):
    rng = np.random.default_rng(n)
    x = _data(rng, (n,), "float32")
    x[: n // 3] = np.round(x[: n // 3])  # ties, so stability shows
    x.reshape(-1)[::7] = -np.nan if n else x.reshape(-1)[::7]
    idx = np.arange(n, dtype=np.int32)
    vals, perm = _run(JAX_SORT.format(n=n, direction=direction, lhs=lhs, rhs=rhs), x, idx)
    descending = (direction == "GT") != (lhs == "%8")

    def cmp(i: int, j: int) -> int:
        a, b = _total_key(x[i]), _total_key(x[j])
        less = a > b if descending else a < b
        more = a < b if descending else a > b
        return -1 if less else 1 if more else 0

    expected = sorted(range(n), key=functools.cmp_to_key(cmp))
    assert perm.tolist() == expected
    _same(vals, x[np.asarray(expected, dtype=np.int64)])


def test_comparator_reading_both_sides_of_one_pair_keeps_the_merge_sort():
    # f(lhs) mixes in the other operand's lhs: not a single key; results still right.
    text = """
func.func @main(%x: tensor<5xf32>, %y: tensor<5xf32>) -> tensor<5xf32> {
  %0:2 = "stablehlo.sort"(%x, %y) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    %1 = stablehlo.add %a, %c : tensor<f32>
    %2 = stablehlo.add %b, %d : tensor<f32>
    %3 = stablehlo.compare LT, %1, %2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %3 : tensor<i1>
  }) : (tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>)
  func.return %0#0 : tensor<5xf32>
}
"""
    x = np.array([5, 1, 4, 2, 3], np.float32)
    y = np.array([0, 10, 0, 0, 0], np.float32)
    [out] = _run(text, x, y)
    assert out.tolist() == [2, 3, 4, 5, 1]


def test_literal_reference_is_itself_sane():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = _literal("add", x, np.int32(0), [1, 3], [1, 1], [1, 1], [1, 1], [0, 2], [0, 0])
    assert out.tolist() == [[0, 1, 3], [3, 7, 12]]


POOLS = [  # (operand shape, window, strides, base dilation, window dilation, low, high)
    ((1, 9, 9, 3), (1, 3, 3, 1), (1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1), (0,) * 4, (0,) * 4),
    ((2, 8, 8, 2), (1, 2, 2, 1), (1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1), (0,) * 4, (0,) * 4),
    ((1, 7, 6, 4), (1, 3, 3, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1),
     (0, 1, 1, 0), (0, 1, 1, 0)),  # "same" padding
    ((1, 7, 7, 2), (1, 3, 2, 1), (1, 2, 1, 1), (1, 2, 1, 1), (1, 1, 2, 1),
     (0, 2, 0, 0), (0, 1, 3, 0)),  # base and window dilation, uneven padding
    ((1, 0, 5, 2), (1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), (0,) * 4, (0,) * 4),
    ((5, 4), (1, 1), (1, 1), (1, 1), (1, 1), (0, 0), (0, 0)),  # a window of one element
]


def _relu_data(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Activations after a ReLU: many +0.0, some NaN and inf, no -0.0."""
    x = np.maximum(rng.standard_normal(shape), 0.0).astype(dtype)
    flat = x.reshape(-1)
    if flat.size > 4:
        flat[rng.choice(flat.size, 2, replace=False)] = [np.nan, np.inf]
        flat[rng.integers(flat.size)] = -np.inf
    return x


def _same_pool_bits(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize(("name", "init"), [
    ("maximum", -np.inf), ("maximum", 0.0), ("maximum", np.nan), ("minimum", np.inf),
    ("minimum", 0.5)])
def test_pooling_without_negative_zeros_is_numpys_fold(monkeypatch, dtype, pool, name,
                                                       init) -> None:
    """Max/min pooling with no -0.0 around: numpy's own fold (_extremum_fold), bit for bit
    (ReLU outputs: +0.0, NaN, inf; padding, strides, dilations, inits; empty results)."""
    def refuse(*args):
        raise AssertionError("the sign-aware fold ran")

    rng = np.random.default_rng(len(pool[0]) + pool[0][1])
    x = _relu_data(rng, pool[0], dtype)
    if name == "minimum":
        x = -x  # -(+0.0) is -0.0: keep the zeros +0.0
        x[x == 0] = 0.0
    args = (x, np.asarray(init, dtype), *pool[1:])
    want = _literal(name, *args)
    if want.size:  # (an empty result is the offset fold's)
        monkeypatch.setattr(window_algorithms, "_offset_fold", refuse)
    got = _fast(name, *args)
    _same_pool_bits(got, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(("name", "init"), [
    ("maximum", -np.inf), ("maximum", -0.0), ("minimum", np.inf), ("minimum", 0.0)])
def test_negative_zeros_keep_the_spec_order(monkeypatch, dtype, name, init) -> None:
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
    want = _literal(name, *args)
    monkeypatch.setattr(window_algorithms, "_extremum_fold", refuse)
    got = _fast(name, *args)
    _same_pool_bits(got, want)
    assert np.all(np.signbit(want[0, :2, :2]) == (name == "minimum"))
