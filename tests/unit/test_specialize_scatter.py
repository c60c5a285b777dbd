"""The row-scatter kernel (dialects/stablehlo/specialize_scatter.py) gives the general
evaluator's result bit for bit (out-of-range and negative ids skipped, repeated ids applied in
update order, NaN and -0.0 values, empty id lists, several element and index types, add /
max / replace / keep regions) and is chosen only for whole-row scatters."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_scatter


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _program(operand: tuple[int, ...], ids: tuple[int, ...], updates: tuple[int, ...],
             elem: str, ielem: str, vector_dim: int, window: list[int], body: str,
             axis: int = 0) -> str:
    s = _t((), elem)
    return f"""
func.func @main(%x: {_t(operand, elem)}, %i: {_t(ids, ielem)}, %u: {_t(updates, elem)}) -> {_t(operand, elem)} {{
  %0 = "stablehlo.scatter"(%x, %i, %u) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {window}, inserted_window_dims = [{axis}], scatter_dims_to_operand_dims = [{axis}], index_vector_dim = {vector_dim}>, unique_indices = false}}> ({{
  ^bb0(%a: {s}, %b: {s}):
    {body}
  }}) : ({_t(operand, elem)}, {_t(ids, ielem)}, {_t(updates, elem)}) -> {_t(operand, elem)}
  func.return %0 : {_t(operand, elem)}
}}
"""


def _body(kind: str, elem: str) -> str:
    s = _t((), elem)
    if kind == "replace":
        return f"stablehlo.return %b : {s}"
    if kind == "keep":
        return f"stablehlo.return %a : {s}"
    return f"%r = stablehlo.{kind} %a, %b : {s}\n    stablehlo.return %r : {s}"


def _run(text: str, args: list[np.ndarray], specialized: bool) -> tuple[np.ndarray, object]:
    return run_first_op(text, args, specialize_scatter.bind_scatter, specialized)


CASES = [
    # (operand, ids, updates, elem, index elem, index_vector_dim, update_window_dims, region)
    ((10, 6), (40, 1), (40, 6), "f32", "i32", 1, [1], "add"),
    ((10, 6), (4, 5), (4, 5, 6), "f32", "i64", 2, [2], "add"),
    ((10, 3, 2), (25, 1), (25, 3, 2), "f16", "ui8", 1, [1, 2], "maximum"),
    ((10, 6), (0, 1), (0, 6), "f32", "i32", 1, [1], "add"),
    ((10, 6), (), (6,), "f32", "i32", 0, [0], "multiply"),
    ((4, 6), (30, 1), (30, 6), "i8", "i16", 1, [1], "add"),
    ((10, 6), (40, 1), (40, 6), "f32", "i32", 1, [1], "replace"),
    ((10, 6), (40, 1), (40, 6), "i32", "i32", 1, [1], "keep"),
    ((10, 6), (40, 1), (40, 6), "f32", "i32", 1, [1], "minimum"),
    # many updates per row (the rounds), a few rows left without any
    ((12, 40), (400, 1), (400, 40), "f32", "i32", 1, [1], "add"),
    ((12, 40), (400, 1), (400, 40), "f64", "i64", 1, [1], "maximum"),
    ((12, 40), (400, 1), (400, 40), "f32", "i32", 1, [1], "minimum"),
    ((12, 40), (400, 1), (400, 40), "f64", "i32", 1, [1], "multiply"),
    ((300, 2), (400, 1), (400, 2), "i8", "i32", 1, [1], "add"),
    ((12, 40), (400, 1), (400, 40), "i32", "ui8", 1, [1], "maximum"),
    ((12, 40), (400, 1), (400, 40), "f16", "i32", 1, [1], "add"),
    # replacements: few updates into many rows (the sort), many into few (maximum.at)
    ((400, 2), (5, 1), (5, 2), "f32", "i32", 1, [1], "replace"),
    ((3, 2), (60, 1), (60, 2), "f32", "i32", 1, [1], "replace"),
]


AXIS_CASES = [
    # (operand, ids, updates, elem, index elem, index_vector_dim, update_window_dims, region,
    # axis): rows along a later axis (`x.at[:, i].set(column)`)
    ((4, 16), (1,), (4,), "i32", "i32", 0, [0], "replace", 1),
    ((5, 7, 3), (20, 1), (20, 5, 3), "f32", "i32", 1, [1, 2], "add", 1),
    ((5, 7, 3), (6,), (6, 5, 7), "f32", "i64", 1, [1, 2], "maximum", 2),
    ((5, 7, 3), (9, 1), (9, 5, 7), "f32", "i32", 1, [1, 2], "replace", 2),
    ((3, 8), (300, 1), (300, 3), "f32", "i32", 1, [1], "add", 1),  # rounds
    ((3, 8), (40, 1), (40, 3), "f64", "i32", 1, [1], "multiply", 1),
    ((6, 5), (), (6,), "i8", "i16", 0, [0], "keep", 1),
]


@pytest.mark.parametrize("special", [True, False])
@pytest.mark.parametrize("case", range(len(CASES) + len(AXIS_CASES)))
def test_row_scatter_matches_general_evaluator(case: int, special: bool) -> None:
    axis = 0
    if case < len(CASES):
        operand, ids, updates, elem, ielem, vector_dim, window, kind = CASES[case]
    else:
        operand, ids, updates, elem, ielem, vector_dim, window, kind, axis = AXIS_CASES[
            case - len(CASES)]
    text = _program(operand, ids, updates, elem, ielem, vector_dim, window, _body(kind, elem),
                    axis)
    rng = np.random.default_rng(case)
    dtype = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i8": np.int8,
             "i32": np.int32}[elem]
    x = (rng.standard_normal(operand) * 50).astype(dtype)
    u = (rng.standard_normal(updates) * 50).astype(dtype)
    if dtype in (np.float32, np.float16, np.float64) and special:
        x.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
        if u.size:
            u.reshape(-1)[:4] = [-0.0, np.nan, -np.inf, 1e-30]
    elif dtype in (np.float32, np.float16, np.float64) and u.size:
        u.reshape(-1)[:3] = [np.inf, -np.inf, 0.0]  # inf - inf: a NaN made on the way
        x.reshape(-1)[:2] = [-np.nan, -0.0]  # a NaN only in the operand
    idtype = {"i32": np.int32, "i64": np.int64, "ui8": np.uint8, "i16": np.int16}[ielem]
    lo = 0 if idtype == np.uint8 else -3
    i = rng.integers(lo, operand[axis] + 4, ids).astype(idtype)
    fast, kernel = _run(text, [x, i, u], True)
    plain, general = _run(text, [x, i, u], False)
    assert kernel is not general and getattr(kernel, "__qualname__", "").startswith("bind_scatter")
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes() and fast.flags.c_contiguous
    assert fast is not x


@pytest.mark.parametrize("kind", ["add", "minimum", "maximum", "multiply", "replace"])
def test_row_scatter_with_every_id_out_of_bounds_leaves_the_operand(kind: str) -> None:
    text = _program((1,), (2, 1), (2,), "i16", "i64", 1, [], _body(kind, "i16"))
    x = np.array([4], np.int16)
    u = np.array([-3, 0], np.int16)
    i = np.array([[-2], [5]], np.int64)
    fast, _ = _run(text, [x, i, u], True)
    plain, _ = _run(text, [x, i, u], False)
    assert fast.tobytes() == plain.tobytes() == x.tobytes()


def test_other_scatters_keep_the_general_path() -> None:
    # partial rows (window smaller than the operand's row), and a two-op region
    partial = _program((10, 6), (7, 1), (7, 4), "f32", "i32", 1, [1], _body("add", "f32"))
    s = _t((), "f32")
    two_ops = _program((10, 6), (7, 1), (7, 6), "f32", "i32", 1, [1],
                       f"%r = stablehlo.add %a, %b : {s}\n    %q = stablehlo.multiply %r, %b : {s}\n    stablehlo.return %q : {s}")
    rng = np.random.default_rng(0)
    for text, shape in ((partial, (7, 4)), (two_ops, (7, 6))):
        x = rng.standard_normal((10, 6)).astype(np.float32)
        i = rng.integers(0, 10, (7, 1)).astype(np.int32)
        u = rng.standard_normal(shape).astype(np.float32)
        fast, kernel = _run(text, [x, i, u], True)
        plain, _ = _run(text, [x, i, u], False)
        assert not getattr(kernel, "__qualname__", "").startswith("bind_scatter")
        assert fast.tobytes() == plain.tobytes()


ROUND_DTYPES = [np.float32, np.float64, np.int8, np.int32, np.uint64, np.bool_]


def _round_data(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = (rng.standard_normal(shape) * 1e3).astype(dtype)
    x.reshape(-1)[:4] = [np.inf, -np.inf, 0.0, 1e-300]
    return x


@pytest.mark.parametrize("dtype", ROUND_DTYPES)
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "bitwise_xor",
                                  "logical_or"])
@pytest.mark.parametrize("spread", ["even", "skewed", "sparse", "one"])
def test_rounds_give_ufunc_at_bits(dtype: type, name: str, spread: str) -> None:
    """The rounds apply each row's updates in update order: the bits of `ufunc.at` (or they
    decline, leaving the result untouched, when one row has too many updates)."""
    combine = getattr(np, name)
    if (dtype is np.bool_) != name.startswith("logical") or (
            name == "bitwise_xor" and not np.issubdtype(dtype, np.integer)):
        pytest.skip("no such region for this element type")
    rng = np.random.default_rng(ROUND_DTYPES.index(dtype))
    rows, count = 9, 500
    if spread == "even":
        targets = rng.integers(0, rows, count)
    elif spread == "skewed":  # row 0 gets most updates, rows 1.. a few, row 8 none
        targets = np.where(rng.random(count) < 0.8, 0, rng.integers(1, rows - 1, count))
    elif spread == "sparse":  # one row with many updates among 400 rows with one each
        rows = 500
        targets = np.concatenate([np.full(100, 7), np.arange(100, 500)])
        rng.shuffle(targets)
    else:  # one row with all updates, one element each: as many rounds as updates
        targets = np.full(count, 3)
    targets = targets.astype(np.intp)
    width = 1 if spread == "one" else 64
    x = _round_data(rng, (rows, width), dtype)
    values = _round_data(rng, (targets.size, width), dtype)
    want = x.copy()
    got = x.copy()
    with np.errstate(all="ignore"):
        combine.at(want, targets, values)
        done = specialize_scatter._combine_in_rounds(got, targets, values, combine)
    assert done == (spread != "one")
    assert (got.tobytes() == want.tobytes()) if done else (got.tobytes() == x.tobytes())


@pytest.mark.parametrize("value", [np.nan, -np.nan, -0.0])
@pytest.mark.parametrize("name", ["add", "maximum", "minimum"])
def test_rounds_leave_nan_and_negative_zero_to_ufunc_at(value: float, name: str) -> None:
    """Data on which the two loops may pick different bits is declined."""
    combine = getattr(np, name)
    values = np.ones((40, 2), np.float32)
    values[17, 1] = value
    result = np.zeros((4, 2), np.float32)
    done = specialize_scatter._combine_in_rounds(result, np.arange(40) % 4, values, combine)
    assert done == (name == "add" and value == 0.0)
    if not done:
        assert not result.any()


def _point_program(operand: tuple[int, ...], ids: tuple[int, ...], elem: str, ielem: str,
                   to_operand: list[int], body: str) -> str:
    s = _t((), elem)
    updates = ids[:-1]
    inserted = list(range(len(operand)))
    return f"""
func.func @main(%x: {_t(operand, elem)}, %i: {_t(ids, ielem)}, %u: {_t(updates, elem)}) -> {_t(operand, elem)} {{
  %0 = "stablehlo.scatter"(%x, %i, %u) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = {inserted}, scatter_dims_to_operand_dims = {to_operand}, index_vector_dim = {len(ids) - 1}>, unique_indices = false}}> ({{
  ^bb0(%a: {s}, %b: {s}):
    {body}
  }}) : ({_t(operand, elem)}, {_t(ids, ielem)}, {_t(updates, elem)}) -> {_t(operand, elem)}
  func.return %0 : {_t(operand, elem)}
}}
"""


POINT_CASES = [
    # (operand, ids, elem, index elem, scatter_dims_to_operand_dims, region)
    ((6, 7), (50, 2), "f32", "i32", [0, 1], "replace"),
    ((6, 7), (50, 2), "f32", "i64", [1, 0], "add"),  # coordinates in another order
    ((3, 4, 5), (4, 30, 3), "f64", "i32", [0, 1, 2], "add"),  # repeats: the rounds
    ((3, 4, 5), (200, 3), "f32", "i32", [2, 0, 1], "maximum"),
    ((2, 3, 2, 2, 4), (2, 3, 2, 2, 5), "f32", "i32", [0, 1, 2, 3, 4], "replace"),  # unpooling
    ((5, 5), (40, 2), "i32", "ui8", [0, 1], "add"),
    ((5, 5), (40, 2), "i8", "i16", [0, 1], "multiply"),
    ((5, 5), (0, 2), "f32", "i32", [0, 1], "add"),
    ((5, 5), (40, 2), "f32", "i32", [0, 1], "keep"),
    ((5, 5), (40, 2), "f16", "i32", [0, 1], "minimum"),
]


@pytest.mark.parametrize("special", [True, False])
@pytest.mark.parametrize("case", range(len(POINT_CASES)))
def test_point_scatter_matches_general_evaluator(case: int, special: bool) -> None:
    """Single elements at full coordinates (x.at[i, j].set(v)): out-of-bounds coordinates
    (any one of them) skipped, repeats applied in update order, NaN / -0.0 / inf values."""
    operand, ids, elem, ielem, to_operand, kind = POINT_CASES[case]
    text = _point_program(operand, ids, elem, ielem, to_operand, _body(kind, elem))
    rng = np.random.default_rng(100 + case)
    dtype = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i8": np.int8,
             "i32": np.int32}[elem]
    x = (rng.standard_normal(operand) * 50).astype(dtype)
    u = (rng.standard_normal(ids[:-1]) * 50).astype(dtype)
    if dtype in (np.float32, np.float16, np.float64) and special and u.size:
        x.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
        u.reshape(-1)[:4] = [-0.0, np.nan, -np.inf, 1e-30]
    idtype = {"i32": np.int32, "i64": np.int64, "ui8": np.uint8, "i16": np.int16}[ielem]
    lo = 0 if idtype == np.uint8 else -2
    bounds = np.array([operand[d] for d in to_operand])
    i = (rng.integers(lo, 2**31 - 1, ids) % (bounds + 3 - lo) + lo).astype(idtype)
    fast, kernel = _run(text, [x, i, u], True)
    plain, _ = _run(text, [x, i, u], False)
    assert getattr(kernel, "__qualname__", "").startswith("_point_kernel")
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes() and fast is not x


@pytest.mark.parametrize("repeat", [False, True])
def test_point_replace_with_distinct_targets(repeat: bool) -> None:
    """A max-unpool's replacement writes every position at most once (one assignment, no
    search for last writes); one repeated position among them takes the general order."""
    operand, ids = (4, 6, 5), (100, 3)
    text = _point_program(operand, ids, "f32", "i32", [0, 1, 2], _body("replace", "f32"))
    rng = np.random.default_rng(7)
    flat = rng.permutation(120)[:100]
    i = np.stack(np.unravel_index(flat, operand), axis=1).astype(np.int32)
    i[5] = [4, 0, 0]  # out of bounds: skipped
    if repeat:
        i[7] = i[60]
    x = rng.standard_normal(operand).astype(np.float32)
    u = rng.standard_normal(ids[:-1]).astype(np.float32)
    u[:3] = [np.nan, -0.0, np.inf]
    fast, kernel = _run(text, [x, i, u], True)
    plain, _ = _run(text, [x, i, u], False)
    assert getattr(kernel, "__qualname__", "").startswith("_point_kernel")
    assert fast.tobytes() == plain.tobytes()
