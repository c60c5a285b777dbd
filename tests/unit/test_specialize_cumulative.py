"""Cumulative reduce_window with a general body (dialects/stablehlo/specialize_cumulative.py)
gives the general evaluator's bits, forward (running fold), reverse (trailing fold) and for
windows past the sequential limit (shared-subtree tree): jax's cumlogsumexp body along either
axis with NaN, ±inf and -0.0; windows longer than the axis; two reduced inputs (a running
arg-max); several element types; a body whose fold of the init value is not the init value;
other windows (strided, padded on both sides, two long axes) are left to the general
evaluator, and so are empty operands."""

# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_cumulative

LOGADDEXP = """
      %1 = stablehlo.maximum %a, %b : {s}
      %2 = stablehlo.subtract %a, %b : {s}
      %3 = stablehlo.compare NE, %2, %2, FLOAT : ({s}, {s}) -> tensor<i1>
      %4 = stablehlo.add %a, %b : {s}
      %5 = stablehlo.abs %2 : {s}
      %6 = stablehlo.negate %5 : {s}
      %7 = stablehlo.exponential %6 : {s}
      %8 = stablehlo.log_plus_one %7 : {s}
      %9 = stablehlo.add %1, %8 : {s}
      %10 = stablehlo.select %3, %4, %9 : tensor<i1>, {s}
      stablehlo.return %10 : {s}"""
AFFINE = """
      %1 = stablehlo.multiply %a, %b : {s}
      %2 = stablehlo.add %1, %b : {s}
      stablehlo.return %2 : {s}"""

LEAKY = """
      %h = stablehlo.constant dense<0.75> : {s}
      %1 = stablehlo.multiply %a, %h : {s}
      %2 = stablehlo.add %1, %b : {s}
      stablehlo.return %2 : {s}"""  # order-sensitive (neither commutative nor associative)


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _program(shape: tuple[int, ...], elem: str, body: str, window: list[int],
             padding: list[list[int]], strides: list[int] | None = None) -> str:
    """The reduce_window first (run_first_op looks at the first op), its init an argument."""
    t, s = _t(shape, elem), _t((), elem)
    strides = strides or [1] * len(shape)
    out = tuple((n + lo + hi - w) // st + 1 for n, (lo, hi), w, st in
                zip(shape, padding, window, strides, strict=True))
    r = _t(out, elem)
    ones = ", ".join("1" for _ in shape)
    return f"""
func.func @main(%x: {t}, %init: {s}) -> {r} {{
  %0 = "stablehlo.reduce_window"(%x, %init) <{{base_dilations = array<i64: {ones}>, padding = dense<{padding}> : tensor<{len(shape)}x2xi64>, window_dilations = array<i64: {ones}>, window_dimensions = array<i64: {", ".join(map(str, window))}>, window_strides = array<i64: {", ".join(map(str, strides))}>}}> ({{
    ^bb0(%a: {s}, %b: {s}):{body.format(s=s)}
  }}) : ({t}, {s}) -> {r}
  func.return %0 : {r}
}}
"""


KINDS = ("_running_fold", "_reverse_fold", "_tree_windows")


def _kind(kernel: object) -> str | None:
    name = getattr(kernel, "__qualname__", "")
    return next((k for k in KINDS if name.startswith(k)), None)


def _running(kernel: object) -> bool:
    return _kind(kernel) == "_running_fold"


def _check(text: str, x: np.ndarray, init: float, bound: bool | str = True) -> None:
    """Bitwise equal to the general evaluator; `bound` names the kernel kind (True: the
    running fold, False: none)."""
    args = [x, np.array(init, x.dtype)]
    fast, kernel = run_first_op(text, args, specialize_cumulative.bind_cumulative, True)
    plain, _ = run_first_op(text, args, specialize_cumulative.bind_cumulative, False)
    want = "_running_fold" if bound is True else None if bound is False else bound
    assert _kind(kernel) == want
    _same(fast, plain)


def _same(fast: np.ndarray, plain: np.ndarray) -> None:
    """Same bits, but for which NaN comes out where a binary op meets two (numpy's
    contiguous and strided loops pick different operands, so the general path's own choice
    depends on its array layout): NaN where the general path has NaN."""
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    if fast.dtype.kind in "fV":
        nan = np.isnan(plain.astype(np.float64))
        assert np.array_equal(np.isnan(fast.astype(np.float64)), nan)
        fast, plain = fast[~nan], plain[~nan]
    assert fast.tobytes() == plain.tobytes()


def _values(shape: tuple[int, ...], dtype: object, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(dtype)  # type: ignore[call-overload]
    flat = x.reshape(-1)
    if np.dtype(dtype).kind == "f" or dtype == ml_dtypes.bfloat16:  # type: ignore[comparison-overlap]
        flat[3::17] = -np.inf
        flat[5::29] = np.nan
        flat[7::31] = np.inf
        flat[11::37] = -0.0
    return x


@pytest.mark.parametrize("elem", ["f32", "f16", "bf16", "f64"])
def test_cumlogsumexp_matches_general_evaluator(elem: str) -> None:
    dtype = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
             "f64": np.float64}[elem]
    x = _values((24, 40), dtype, 1)
    _check(_program((24, 40), elem, LOGADDEXP, [24, 1], [[23, 0], [0, 0]]), x, -np.inf)
    _check(_program((24, 40), elem, LOGADDEXP, [1, 40], [[0, 0], [39, 0]]), x, -np.inf)
    # a window longer than the axis
    _check(_program((24, 40), elem, LOGADDEXP, [1, 50], [[0, 0], [49, 0]]), x, -np.inf)


def test_other_init_values_and_types() -> None:
    """An integer running product-plus (fold of 0 with 0 is 0), and an init whose fold with
    itself changes it: the general path, same bits."""
    x = np.random.default_rng(2).integers(-5, 5, (6, 30)).astype(np.int32)
    _check(_program((6, 30), "i32", AFFINE, [1, 30], [[0, 0], [29, 0]]), x, 0)
    y = _values((6, 30), np.float32, 3)
    _check(_program((6, 30), "f32", AFFINE, [1, 30], [[0, 0], [29, 0]]), y, 1.0)
    _check(_program((5,), "f32", AFFINE, [5], [[4, 0]]), y[0, :5].copy(), 0.5)


def test_two_inputs_running_argmax() -> None:
    """A (value, index) pair folded together: max value, first index among ties."""
    s, i = _t((), "f32"), _t((), "i32")
    t, ti = _t((8, 20), "f32"), _t((8, 20), "i32")
    text = f"""
func.func @main(%x: {t}, %ix: {ti}, %m: {s}, %z: {i}) -> ({t}, {ti}) {{
  %0:2 = "stablehlo.reduce_window"(%x, %ix, %m, %z) <{{padding = dense<[[0, 0], [19, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 20>}}> ({{
    ^bb0(%a: {s}, %ai: {i}, %b: {s}, %bi: {i}):
      %gt = stablehlo.compare GT, %b, %a, FLOAT : ({s}, {s}) -> tensor<i1>
      %v = stablehlo.select %gt, %b, %a : tensor<i1>, {s}
      %k = stablehlo.select %gt, %bi, %ai : tensor<i1>, {i}
      stablehlo.return %v, %k : {s}, {i}
  }}) : ({t}, {ti}, {s}, {i}) -> ({t}, {ti})
  func.return %0#0, %0#1 : {t}, {ti}
}}
"""
    x = np.round(_values((8, 20), np.float32, 4))
    ix = np.broadcast_to(np.arange(20, dtype=np.int32), (8, 20)).copy()
    args = [x, ix, np.array(-np.inf, np.float32), np.array(0, np.int32)]
    fast, kernel = run_first_op(text, args, specialize_cumulative.bind_cumulative, True)
    plain, _ = run_first_op(text, args, specialize_cumulative.bind_cumulative, False)
    assert _running(kernel)
    _same(fast, plain)


@pytest.mark.parametrize("elem", ["f32", "f16", "bf16", "f64"])
def test_reverse_cumlogsumexp_matches_general_evaluator(elem: str) -> None:
    """Padding behind the operand (`reverse=True`): each window folds from its own start."""
    dtype = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
             "f64": np.float64}[elem]
    x = _values((24, 40), dtype, 6)
    _check(_program((24, 40), elem, LOGADDEXP, [24, 1], [[0, 23], [0, 0]]), x, -np.inf,
           "_reverse_fold")
    _check(_program((24, 40), elem, LOGADDEXP, [1, 40], [[0, 0], [0, 39]]), x, -np.inf,
           "_reverse_fold")
    _check(_program((24, 40), elem, LOGADDEXP, [1, 50], [[0, 0], [0, 49]]), x, -np.inf,
           "_reverse_fold")  # a window longer than the axis
    _check(_program((24, 40), elem, LOGADDEXP, [1, 9], [[0, 0], [0, 3]]), x, -np.inf,
           "_reverse_fold")  # a sliding window padded behind, short of w - 1
    _check(_program((24, 40), elem, LEAKY, [1, 40], [[0, 0], [0, 39]]), x, 0.5,
           "_reverse_fold")


def test_reverse_fold_with_other_inits_types_and_shapes() -> None:
    """Padding steps that change the accumulator every time (`a * init + init` with init
    1.0), integers, a size-1 axis, three axes, and an empty operand (the general path)."""
    y = _values((6, 30), np.float32, 7)
    _check(_program((6, 30), "f32", AFFINE, [1, 30], [[0, 0], [0, 29]]), y, 1.0,
           "_reverse_fold")
    _check(_program((6, 30), "f32", AFFINE, [1, 30], [[0, 0], [0, 29]]), y, -0.0,
           "_reverse_fold")
    x = np.random.default_rng(8).integers(-5, 5, (6, 30)).astype(np.int32)
    _check(_program((6, 30), "i32", AFFINE, [1, 30], [[0, 0], [0, 29]]), x, 0, "_reverse_fold")
    _check(_program((6, 1), "f32", LOGADDEXP, [2, 1], [[0, 1], [0, 0]]), y[:, :1].copy(),
           -np.inf, "_reverse_fold")
    z = _values((4, 5, 6), np.float32, 9)
    _check(_program((4, 5, 6), "f32", LOGADDEXP, [1, 5, 1], [[0, 0], [0, 4], [0, 0]]), z,
           -np.inf, "_reverse_fold")
    _check(_program((4, 5, 6), "f32", LOGADDEXP, [1, 1, 6], [[0, 0], [0, 0], [5, 0]]), z,
           -np.inf)
    e = np.zeros((0, 30), np.float32)
    _check(_program((0, 30), "f32", LOGADDEXP, [1, 30], [[0, 0], [0, 29]]), e, -np.inf,
           "_reverse_fold")


@pytest.mark.parametrize("width,padding", [
    (1500, [1499, 0]), (1500, [0, 1499]),  # jax's forward and reverse cumulative windows
    (1025, [0, 1024]), (1031, [1030, 0]),  # odd widths: carried last nodes
    (1100, [200, 50]), (1026, [0, 0]),  # padded on both sides; unpadded
])
def test_long_windows_share_subtrees(width: int, padding: list[int]) -> None:
    """Windows past the sequential limit: the general path's pairwise tree per window."""
    x = _values((2, 1500), np.float32, width)
    _check(_program((2, 1500), "f32", LOGADDEXP, [1, width], [[0, 0], padding]), x, -np.inf,
           "_tree_windows")
    y = np.random.default_rng(width).standard_normal((2, 1500)).astype(np.float32)
    _check(_program((2, 1500), "f32", LEAKY, [1, width], [[0, 0], padding]), y, 0.5,
           "_tree_windows")


def test_long_windows_other_types_and_axes() -> None:
    x = _values((1200, 2), ml_dtypes.bfloat16, 10)
    _check(_program((1200, 2), "bf16", LOGADDEXP, [1200, 1], [[0, 1199], [0, 0]]), x, -np.inf,
           "_tree_windows")
    y = _values((1, 1100), np.float64, 11)
    _check(_program((1, 1100), "f64", AFFINE, [1, 1100], [[0, 0], [1099, 0]]), y, 1.0,
           "_tree_windows")
    i = np.random.default_rng(12).integers(-3, 3, (3, 1050)).astype(np.int32)
    _check(_program((3, 1050), "i32", AFFINE, [1, 1050], [[0, 0], [0, 1049]]), i, 0,
           "_tree_windows")


def test_reverse_fold_results_reading_each_others_accumulators() -> None:
    """A body returning one accumulator as the other's result (a view of it): each step
    reads every accumulator before writing any, padding steps included."""
    s, t = _t((), "f32"), _t((5, 12), "f32")
    text = f"""
func.func @main(%x: {t}, %y: {t}, %i: {s}, %j: {s}) -> ({t}, {t}) {{
  %0:2 = "stablehlo.reduce_window"(%x, %y, %i, %j) <{{padding = dense<[[0, 0], [0, 11]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 12>}}> ({{
    ^bb0(%a0: {s}, %a1: {s}, %b0: {s}, %b1: {s}):
      %1 = stablehlo.add %a1, %b0 : {s}
      stablehlo.return %1, %a0 : {s}, {s}
  }}) : ({t}, {t}, {s}, {s}) -> ({t}, {t})
  func.return %0#1, %0#0 : {t}, {t}
}}
"""
    rng = np.random.default_rng(13)
    x, y = (rng.standard_normal((5, 12)).astype(np.float32) for _ in range(2))
    args = [x, y, np.array(0.5, np.float32), np.array(2.0, np.float32)]
    fast, kernel = run_first_op(text, args, specialize_cumulative.bind_cumulative, True)
    plain, _ = run_first_op(text, args, specialize_cumulative.bind_cumulative, False)
    assert _kind(kernel) == "_reverse_fold"
    _same(fast, plain)


def test_other_windows_keep_the_general_path() -> None:
    x = _values((12, 10), np.float32, 5)
    for window, padding, strides in (([12, 1], [[11, 0], [0, 0]], [2, 1]),  # strided
                                     ([6, 1], [[5, 0], [0, 0]], None),  # shorter than the axis
                                     ([6, 1], [[3, 2], [0, 0]], None),  # padded on both sides
                                     ([12, 2], [[11, 0], [1, 0]], None)):  # two long axes
        _check(_program((12, 10), "f32", LOGADDEXP, window, padding, strides), x, -np.inf,
               bound=False)
