"""The one-axis gather kernel (dialects/stablehlo/specialize_gather.py) gives the general
evaluator's result bit for bit (out-of-range and negative ids clamped, NaN and -0.0 rows,
empty id lists, several index types, gathers along any axis with the slice dimensions
anywhere in the result) and is chosen only for gathers of whole slices along one axis."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_gather
from shlo_cli.interpreter import engine


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _program(table: tuple[int, ...], ids: tuple[int, ...], elem: str, ielem: str,
             vector_dim: int, offset: list[int], sizes: list[int], result: tuple[int, ...],
             collapsed: int | None = 0) -> str:
    """A gather along axis `collapsed` (axis 0 kept as a unit slice dimension when None, axis
    1 kept when -1)."""
    axis = 0 if collapsed is None else 1 if collapsed == -1 else collapsed
    dropped = "" if collapsed is None or collapsed == -1 else str(collapsed)
    return f"""
func.func @main(%t: {_t(table, elem)}, %i: {_t(ids, ielem)}) -> {_t(result, elem)} {{
  %0 = "stablehlo.gather"(%t, %i) <{{dimension_numbers = #stablehlo.gather<offset_dims = {offset}, collapsed_slice_dims = [{dropped}], start_index_map = [{axis}], index_vector_dim = {vector_dim}>, indices_are_sorted = false, slice_sizes = array<i64: {', '.join(map(str, sizes))}>}}> : ({_t(table, elem)}, {_t(ids, ielem)}) -> {_t(result, elem)}
  func.return %0 : {_t(result, elem)}
}}
"""


def _run(text: str, args: list[np.ndarray], specialized: bool) -> tuple[np.ndarray, object]:
    saved = engine.slice_gathers  # (the kernel itself: one-index gathers stay gathers)
    engine.slice_gathers = lambda ops, terminator: ops  # type: ignore[assignment]
    try:
        return run_first_op(text, args, specialize_gather.bind_gather, specialized)
    finally:
        engine.slice_gathers = saved  # type: ignore[assignment]


CASES = [
    # (table, ids, elem, index elem, index_vector_dim, offset_dims, slice sizes, result)
    ((10, 6), (7, 1), "f32", "i32", 1, [1], [1, 6], (7, 6)),
    ((10, 6), (4, 5), "f32", "i64", 2, [2], [1, 6], (4, 5, 6)),
    ((10, 3, 2), (5, 1), "f16", "ui8", 1, [1, 2], [1, 3, 2], (5, 3, 2)),
    ((10, 6), (0, 1), "f32", "i32", 1, [1], [1, 6], (0, 6)),
    ((10, 6), (), "f32", "i32", 0, [0], [1, 6], (6,)),
    ((4, 6), (9, 1), "i8", "i16", 1, [1], [1, 6], (9, 6)),
    # along other axes (collapsed dimension last): a column gather, and the middle axis of
    # a 3-d operand with the batch first, between, or last in the result
    ((6, 10), (7, 1), "f32", "i32", 1, [0], [6, 1], (6, 7), 1),
    ((6, 10), (7, 1), "f32", "i32", 1, [1], [6, 1], (7, 6), 1),
    ((4, 5, 3), (2, 7), "f16", "i64", 2, [0, 3], [4, 1, 3], (4, 2, 7, 3), 1),
    ((4, 5, 3), (7, 1), "i8", "ui8", 1, [0, 1], [4, 1, 3], (4, 3, 7), 1),
    ((4, 5, 3), (7,), "f32", "i16", 1, [1, 2], [4, 1, 3], (7, 4, 3), 1),
    ((4, 5, 3), (7,), "f32", "i32", 1, [0, 1], [4, 5, 1], (4, 5, 7), 2),
    ((0, 5), (7,), "f32", "i32", 1, [0], [0, 1], (0, 7), 1),
    # the gathered axis kept as a unit slice dimension (no collapsed dimensions)
    ((20,), (9, 1), "f32", "i32", 1, [1], [1], (9, 1), None),
    ((20,), (9, 1), "f32", "i32", 1, [0], [1], (1, 9), None),
    ((5, 4), (3, 2), "f16", "i64", 2, [0, 2], [5, 1], (5, 3, 1, 2), -1),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_row_gather_matches_general_evaluator(case: int) -> None:
    table, ids, elem, ielem, vector_dim, offset, sizes, result, *axis = CASES[case]
    collapsed = axis[0] if axis else 0
    text = _program(table, ids, elem, ielem, vector_dim, offset, sizes, result, collapsed)
    along = 0 if collapsed is None else 1 if collapsed == -1 else collapsed
    rng = np.random.default_rng(case)
    dtype = {"f32": np.float32, "f16": np.float16, "i8": np.int8}[elem]
    t = (rng.standard_normal(table) * 50).astype(dtype)
    if dtype != np.int8 and t.size:
        t.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    idtype = {"i32": np.int32, "i64": np.int64, "ui8": np.uint8, "i16": np.int16}[ielem]
    lo = 0 if idtype == np.uint8 else -3
    i = rng.integers(lo, table[along] + 4, ids).astype(idtype)
    fast, kernel = _run(text, [t, i], True)
    plain, general = _run(text, [t, i], False)
    assert kernel is not general and getattr(kernel, "__qualname__", "").startswith(
        ("_take_kernel", "_one_take"))
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes() and fast.flags.c_contiguous


ONE = [  # a single index (jnp's x[:, i] with a traced i): one basic slice
    ((8, 49), (1,), "f32", "i32", 0, [0, 1], [8, 1], (8, 1), -1),
    ((10, 6), (), "f32", "i64", 0, [0], [1, 6], (6,)),
    ((10, 6), (1, 1), "i8", "ui8", 1, [1], [1, 6], (1, 6)),
    ((6, 10), (1,), "f16", "i16", 1, [0], [6, 1], (6, 1), 1),
    ((4, 5, 3), (1, 1), "f32", "i32", 1, [0, 2], [4, 1, 3], (4, 1, 3), 1),  # (a copy)
    ((20,), (1,), "f32", "i32", 1, [0], [1], (1, 1), None),
]


@pytest.mark.parametrize("case", range(len(ONE)))
def test_one_index_gather_matches_general_evaluator(case: int) -> None:
    table, ids, elem, ielem, vector_dim, offset, sizes, result, *axis = ONE[case]
    collapsed = axis[0] if axis else 0
    text = _program(table, ids, elem, ielem, vector_dim, offset, sizes, result, collapsed)
    along = 0 if collapsed is None else 1 if collapsed == -1 else collapsed
    dtype = {"f32": np.float32, "f16": np.float16, "i8": np.int8}[elem]
    t = (np.random.default_rng(case).standard_normal(table) * 50).astype(dtype)
    if dtype != np.int8:
        t.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    idtype = np.dtype({"i32": np.int32, "i64": np.int64, "ui8": np.uint8, "i16": np.int16}[ielem])
    n = table[along]
    for value in (-5, -1, 0, 1, n - 1, n, n + 7, np.iinfo(idtype).max, np.iinfo(idtype).min):
        i = np.full(ids, value).astype(idtype)  # (negative values wrap for unsigned types)
        fast, kernel = _run(text, [t, i], True)
        plain, _ = _run(text, [t, i], False)
        assert getattr(kernel, "__qualname__", "").startswith("_one_take")
        assert fast.dtype == plain.dtype and fast.shape == plain.shape
        assert fast.tobytes() == plain.tobytes() and fast.flags.c_contiguous


def test_other_gathers_keep_the_general_path() -> None:
    # partial rows, and partial columns
    for text in (_program((10, 6), (7, 1), "f32", "i32", 1, [1], [1, 4], (7, 4)),
                 _program((6, 10), (7, 1), "f32", "i32", 1, [0], [5, 1], (5, 7), collapsed=1)):
        rng = np.random.default_rng(0)
        t = rng.standard_normal((10, 6) if "10x6" in text.split("->")[0] else (6, 10))
        i = rng.integers(-2, 12, (7, 1)).astype(np.int32)
        fast, kernel = _run(text, [t.astype(np.float32), i], True)
        plain, _ = _run(text, [t.astype(np.float32), i], False)
        assert not getattr(kernel, "__qualname__", "").startswith("_take_kernel")
        assert fast.tobytes() == plain.tobytes()


def _points_program(table: tuple[int, ...], ids: tuple[int, ...], ielem: str, index_map: list[int],
                    vector_dim: int, offset: list[int], result: tuple[int, ...]) -> str:
    sizes = [1 if d in index_map else n for d, n in enumerate(table)]
    collapsed = ", ".join(map(str, sorted(index_map)))
    return f"""
func.func @main(%t: {_t(table, "f32")}, %i: {_t(ids, ielem)}) -> {_t(result, "f32")} {{
  %0 = "stablehlo.gather"(%t, %i) <{{dimension_numbers = #stablehlo.gather<offset_dims = {offset}, collapsed_slice_dims = [{collapsed}], start_index_map = {index_map}, index_vector_dim = {vector_dim}>, indices_are_sorted = false, slice_sizes = array<i64: {', '.join(map(str, sizes))}>}}> : ({_t(table, "f32")}, {_t(ids, ielem)}) -> {_t(result, "f32")}
  func.return %0 : {_t(result, "f32")}
}}
"""


POINTS = [
    # (table, ids, index elem, start_index_map, index_vector_dim, offset_dims, result)
    ((32, 32, 3), (1024, 2), "i32", [0, 1], 1, [1], (1024, 3)),  # img[ys, xs]
    ((8, 9, 3), (2, 5), "i64", [1, 0], 0, [1], (5, 3)),           # (x, y) pairs, vector first
    ((4, 8, 9), (6, 2), "ui8", [1, 2], 1, [0], (4, 6)),           # trailing axes, rows first
    ((5, 6, 7, 2), (3, 4, 3), "i16", [0, 3, 2], 2, [2], (3, 4, 6)),
    ((5, 6), (0, 2), "i32", [0, 1], 1, [], (0,)),
    ((5, 6), (2,), "i32", [1, 0], 0, [], ()),
]


@pytest.mark.parametrize("case", range(len(POINTS)))
def test_point_gather_matches_general_evaluator(case: int) -> None:
    """Points along several axes (`img[ys, xs]`): indices out of range both ways clamped,
    any axis order, the vector dimension anywhere, the whole axes first or last."""
    table, ids, ielem, index_map, vector_dim, offset, result = POINTS[case]
    text = _points_program(table, ids, ielem, index_map, vector_dim, offset, result)
    rng = np.random.default_rng(case)
    t = (rng.standard_normal(table) * 50).astype(np.float32)
    t.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    idtype = {"i32": np.int32, "i64": np.int64, "ui8": np.uint8, "i16": np.int16}[ielem]
    lo = 0 if idtype == np.uint8 else -3
    i = rng.integers(lo, max(table) + 4, ids).astype(idtype)
    fast, kernel = _run(text, [t, i], True)
    plain, general = _run(text, [t, i], False)
    assert getattr(kernel, "__qualname__", "").startswith("_points")
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()
