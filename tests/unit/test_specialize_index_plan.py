"""The planned gather / scatter kernels (dialects/stablehlo/specialize_index_plan.py) give the
general evaluator's result bit for bit: batching dimensions leading or not, several of them,
index_vector_dim first, in the middle or implicit, window slices, out-of-bounds and negative
starts (clamped by gather, skipped element by element by scatter), repeated scatter targets
combined in update order, NaN and -0.0, integer and bool element types, empty tensors; and
they are the kernels chosen for those forms (not the general evaluator)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import (
    specialize_gather,
    specialize_index_plan,
    specialize_scatter,
)
from shlo_cli.interpreter import dynamic_guard, engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.memory import memory_limit
from shlo_cli.ir.parser import parse_source

GATHER_HOOKS = (specialize_gather.bind_gather, specialize_index_plan.bind_gather_plan)
SCATTER_HOOKS = (specialize_scatter.bind_scatter, specialize_scatter.bind_scatter_element,
                 specialize_index_plan.bind_scatter_plan)
DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32,
          "i8": np.int8, "i1": np.bool_, "i64": np.int64, "ui8": np.uint8, "i16": np.int16,
          "ui32": np.uint32}


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _run(text: str, args: list[np.ndarray], hooks: tuple[Any, ...],
         specialized: bool) -> tuple[np.ndarray, object]:
    saved = engine.slice_gathers  # (one-index gathers stay gathers)
    engine.slice_gathers = lambda ops, terminator: ops  # type: ignore[assignment]
    try:
        return run_first_op(text, args, hooks, specialized)
    finally:
        engine.slice_gathers = saved  # type: ignore[assignment]


def _values(rng: np.random.Generator, shape: tuple[int, ...], elem: str) -> np.ndarray:
    dtype = np.dtype(DTYPES[elem])
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)
    out = (rng.standard_normal(shape) * 4).astype(dtype)
    flat = out.reshape(-1)
    special = np.array([np.nan, -0.0, 0.0, np.inf, -np.nan], dtype)
    flat[:min(flat.size, special.size)] = special[:flat.size]
    rng.shuffle(flat)
    return out


def _ids(rng: np.random.Generator, shape: tuple[int, ...], elem: str, top: int) -> np.ndarray:
    """Starts in [-3, top + 3] (wrapped for unsigned types)."""
    return rng.integers(-3, top + 4, shape).astype(DTYPES[elem])


def _name(kernel: object) -> str:
    """A kernel's qualified name (the general evaluator's through its partial; a dynamically
    shaped op's kernel inside the run-time shape guard of interpreter/dynamic_guard.py)."""
    code = getattr(kernel, "__code__", None)
    if code is not None and getattr(kernel, "__qualname__", "").startswith("bind_dynamic_guard"):
        cells = dict(zip(code.co_freevars, kernel.__closure__ or (), strict=True))  # type: ignore[attr-defined]
        kernel = cells["inner"].cell_contents
    return str(getattr(getattr(kernel, "func", kernel), "__qualname__", ""))


def _same(fast: np.ndarray, plain: np.ndarray) -> None:
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes() and fast.flags.c_contiguous


# ---- gather ---------------------------------------------------------------------------------


def _gather(operand: tuple[int, ...], ids: tuple[int, ...], elem: str, ielem: str,
            dims: str, sizes: list[int], result: tuple[int, ...]) -> str:
    return f"""
func.func @main(%t: {_t(operand, elem)}, %i: {_t(ids, ielem)}) -> {_t(result, elem)} {{
  %0 = "stablehlo.gather"(%t, %i) <{{dimension_numbers = #stablehlo.gather<{dims}>, indices_are_sorted = false, slice_sizes = array<i64: {', '.join(map(str, sizes))}>}}> : ({_t(operand, elem)}, {_t(ids, ielem)}) -> {_t(result, elem)}
  func.return %0 : {_t(result, elem)}
}}
"""


GATHERS = [
    # (operand, ids, dimension numbers, slice sizes, result)
    # vmapped x[i] (the LU pivots loop)
    ((8, 6), (8, 1), "offset_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1", [1, 1], (8, 1)),
    # take_along_axis
    ((30, 40), (30, 7, 1), "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2", [1, 1], (30, 7)),
    # vmapped row gather
    ((10, 16, 8), (10, 5, 1), "offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2", [1, 1, 8], (10, 5, 8)),
    # lu_solve's permutation of a batch of matrices
    ((8, 6, 6, 1), (8, 6, 1), "offset_dims = [1, 3], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 2", [1, 6, 1, 1], (8, 6, 6, 1)),
    # batching dimension last in the operand, two-entry index vectors with a window
    ((5, 7, 4), (3, 4, 2), "offset_dims = [1], collapsed_slice_dims = [0], operand_batching_dims = [2], start_indices_batching_dims = [1], start_index_map = [0, 1], index_vector_dim = 2", [1, 3, 1], (3, 3, 4)),
    # index_vector_dim in the middle
    ((5, 7, 4), (3, 2, 4), "offset_dims = [2], collapsed_slice_dims = [0], operand_batching_dims = [2], start_indices_batching_dims = [2], start_index_map = [0, 1], index_vector_dim = 1", [1, 3, 1], (3, 4, 3)),
    # two batching dimensions, paired crosswise
    ((3, 2, 5, 6), (2, 3, 4, 1), "offset_dims = [3], collapsed_slice_dims = [2], operand_batching_dims = [0, 1], start_indices_batching_dims = [1, 0], start_index_map = [2], index_vector_dim = 3", [1, 1, 1, 6], (2, 3, 4, 6)),
    # implicit index vector (index_vector_dim = rank), batching with a window kept
    ((4, 9, 5), (4, 3), "offset_dims = [2, 3], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2", [1, 2, 5], (4, 3, 2, 5)),
    # no batching: a 2-d window at one start vector (lax.dynamic_slice as a gather)
    ((8, 6), (2,), "offset_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 0", [3, 4], (3, 4)),
    # no batching: a partial two-column window at one index
    ((7, 3), (1,), "offset_dims = [0, 1], start_index_map = [1], index_vector_dim = 0", [5, 2], (5, 2)),
    # no batching: partial rows at two-entry starts, the batch after the window
    ((10, 6), (7, 2), "offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1", [1, 3], (3, 7)),
    # empty batch
    ((0, 6), (0, 1), "offset_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1", [0, 1], (0, 1)),
    ((6, 6), (6, 0, 1), "offset_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2", [1, 2], (6, 0, 2)),
    # a collapsed dimension of slice size 0: zeros
    ((5, 6), (3, 1), "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", [0, 6], (3, 6)),
]


@pytest.mark.parametrize("elem", ["f32", "f16", "i8", "i1"])
@pytest.mark.parametrize("case", range(len(GATHERS)))
def test_gather_plan_matches_general_evaluator(case: int, elem: str) -> None:
    operand, ids, dims, sizes, result = GATHERS[case]
    rng = np.random.default_rng(case)
    for ielem in ("i32", "i64", "ui8", "i16"):
        text = _gather(operand, ids, elem, ielem, dims, sizes, result)
        args = [_values(rng, operand, elem), _ids(rng, ids, ielem, max(operand, default=1))]
        fast, kernel = _run(text, args, GATHER_HOOKS, True)
        plain, general = _run(text, args, GATHER_HOOKS, False)
        assert getattr(kernel, "__qualname__", "").startswith(
            ("_gather_kernel", "_fixed_kernel")), kernel
        assert _name(general) == "gather"
        _same(fast, plain)


def test_gather_plan_clamps_extreme_starts() -> None:
    operand, ids, dims, sizes, result = GATHERS[4]
    table = _values(np.random.default_rng(1), operand, "f32")
    for ielem in ("i32", "i64", "i8"):
        info = np.iinfo(DTYPES[ielem])
        for value in (info.min, -1, 0, 4, 5, 6, info.max):
            text = _gather(operand, ids, "f32", ielem, dims, sizes, result)
            args = [table, np.full(ids, value, DTYPES[ielem])]
            fast, _ = _run(text, args, GATHER_HOOKS, True)
            plain, _ = _run(text, args, GATHER_HOOKS, False)
            _same(fast, plain)


def test_gather_plan_leaves_unsigned_64_bit_indices_general() -> None:
    operand, ids, dims, sizes, result = GATHERS[0]
    text = _gather(operand, ids, "f32", "ui64", dims, sizes, result)
    args = [np.ones(operand, np.float32), np.ones(ids, np.uint64)]
    _, kernel = _run(text, args, GATHER_HOOKS, True)
    assert not getattr(kernel, "__qualname__", "").startswith("_gather_kernel")


# ---- scatter --------------------------------------------------------------------------------


def _body(kind: str, elem: str) -> str:
    s = _t((), elem)
    if kind == "replace":
        return f"stablehlo.return %b : {s}"
    if kind == "keep":
        return f"stablehlo.return %a : {s}"
    if kind == "general":  # a two-op region: the general path
        return (f"%r = stablehlo.add %a, %b : {s}\n    %q = stablehlo.multiply %r, %b : {s}\n"
                f"    stablehlo.return %q : {s}")
    return f"%r = stablehlo.{kind} %a, %b : {s}\n    stablehlo.return %r : {s}"


def _scatter(operand: tuple[int, ...], ids: tuple[int, ...], updates: tuple[int, ...],
             elem: str, ielem: str, dims: str, kind: str) -> str:
    s = _t((), elem)
    return f"""
func.func @main(%x: {_t(operand, elem)}, %i: {_t(ids, ielem)}, %u: {_t(updates, elem)}) -> {_t(operand, elem)} {{
  %0 = "stablehlo.scatter"(%x, %i, %u) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<{dims}>, unique_indices = false}}> ({{
  ^bb0(%a: {s}, %b: {s}):
    {_body(kind, elem)}
  }}) : ({_t(operand, elem)}, {_t(ids, ielem)}, {_t(updates, elem)}) -> {_t(operand, elem)}
  func.return %0 : {_t(operand, elem)}
}}
"""


SCATTERS = [
    # (operand, ids, updates, dimension numbers)
    # vmapped x.at[i].set(v) (the LU pivots loop)
    ((10, 6), (10, 1), (10,), "inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1"),
    # vmapped x.at[i].add(v) with five (often repeated) indices per row
    ((10, 6), (10, 5, 1), (10, 5), "inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2"),
    # x.at[i, 1:3]-like windows at two-entry starts (some windows partly out of bounds)
    ((10, 6), (7, 2), (7, 2), "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1"),
    # a 1-d window at one start (x.at[1:].set(y) with a traced start)
    ((13,), (1,), (12,), "update_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 0"),
    # batching dimension last, index_vector_dim in the middle, a window
    ((5, 7, 4), (3, 2, 4), (3, 4, 3), "update_window_dims = [2], inserted_window_dims = [0], input_batching_dims = [2], scatter_indices_batching_dims = [2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1"),
    # two batching dimensions paired crosswise, a row window
    ((3, 2, 5, 6), (2, 3, 4, 1), (2, 3, 4, 6), "update_window_dims = [3], inserted_window_dims = [2], input_batching_dims = [0, 1], scatter_indices_batching_dims = [1, 0], scatter_dims_to_operand_dims = [2], index_vector_dim = 3"),
    # the window between the batch dimensions of the updates
    ((4, 9, 5), (4, 3), (4, 2, 3), "update_window_dims = [1], inserted_window_dims = [2], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [2], index_vector_dim = 2"),
    # a batched window per batch row (every target distinct)
    ((4, 9, 5), (4, 1), (4, 2, 5), "update_window_dims = [1, 2], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1"),
    # empty updates
    ((10, 6), (10, 0, 1), (10, 0), "inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2"),
]

REGIONS = {"f32": ["add", "multiply", "maximum", "minimum", "replace", "keep"],
           "f64": ["add", "replace"],
           "i32": ["add", "multiply", "maximum", "and", "or", "xor", "replace"],
           "i8": ["add", "minimum", "replace"],
           "i1": ["add", "or", "and", "replace"]}


@pytest.mark.parametrize("elem", sorted(REGIONS))
@pytest.mark.parametrize("case", range(len(SCATTERS)))
def test_scatter_plan_matches_general_evaluator(case: int, elem: str) -> None:
    operand, ids, updates, dims = SCATTERS[case]
    rng = np.random.default_rng(case)
    for kind in REGIONS[elem]:
        for ielem in ("i32", "i64", "ui8"):
            text = _scatter(operand, ids, updates, elem, ielem, dims, kind)
            top = max(operand) // (2 if ielem == "i32" else 1)  # (i32: in bounds, repeated)
            args = [_values(rng, operand, elem), _ids(rng, ids, ielem, top),
                    _values(rng, updates, elem)]
            fast, kernel = _run(text, args, SCATTER_HOOKS, True)
            plain, general = _run(text, args, SCATTER_HOOKS, False)
            assert getattr(kernel, "__qualname__", "").startswith(
                ("_scatter_kernel", "_copy_kernel")), (kind, kernel)
            assert _name(general) == "scatter"
            _same(fast, plain)


def test_scatter_plan_orders_repeated_float_updates_as_the_general_path() -> None:
    """Many f32 adds into few targets: rounding depends on the order."""
    operand, ids, updates, dims = (4, 3), (4, 200, 1), (4, 200), SCATTERS[1][3].replace(
        "index_vector_dim = 2", "index_vector_dim = 2")
    rng = np.random.default_rng(7)
    for kind in ("add", "multiply"):
        text = _scatter(operand, ids, updates, "f32", "i32", dims, kind)
        scale = 1.0 if kind == "multiply" else 1e4
        new = (rng.standard_normal(updates) * scale).astype(np.float32)
        if kind == "multiply":
            new = (1 + new / 50).astype(np.float32)
        args = [np.ones(operand, np.float32), rng.integers(0, 3, ids).astype(np.int32), new]
        fast, _ = _run(text, args, SCATTER_HOOKS, True)
        plain, _ = _run(text, args, SCATTER_HOOKS, False)
        _same(fast, plain)


def test_scatter_plan_skips_every_out_of_bounds_start() -> None:
    operand, ids, updates, dims = SCATTERS[2]
    x = _values(np.random.default_rng(3), operand, "f32")
    u = _values(np.random.default_rng(4), updates, "f32")
    for ielem in ("i32", "i64", "i8"):
        info = np.iinfo(DTYPES[ielem])
        for value in (info.min, -2, -1, 0, 4, 5, 9, 10, info.max):
            text = _scatter(operand, ids, updates, "f32", ielem, dims, "add")
            args = [x, np.full(ids, value, DTYPES[ielem]), u]
            fast, _ = _run(text, args, SCATTER_HOOKS, True)
            plain, _ = _run(text, args, SCATTER_HOOKS, False)
            _same(fast, plain)


def test_general_regions_stay_general() -> None:
    operand, ids, updates, dims = SCATTERS[0]
    text = _scatter(operand, ids, updates, "f32", "i32", dims, "general")
    rng = np.random.default_rng(0)
    args = [_values(rng, operand, "f32"), _ids(rng, ids, "i32", 6), _values(rng, updates, "f32")]
    fast, kernel = _run(text, args, SCATTER_HOOKS, True)
    plain, _ = _run(text, args, SCATTER_HOOKS, False)
    assert _name(kernel) == "scatter"
    _same(fast, plain)


def test_kernels_fall_back_on_unexpected_arguments() -> None:
    """Arguments of other shapes (a caller bypassing the verifier) get the general path's
    diagnostics, not a numpy error from the planned kernel."""
    operand, ids, dims, sizes, result = GATHERS[0]
    text = _gather(operand, ids, "f32", "i32", dims, sizes, result)
    _, kernel = _run(text, [np.ones(operand, np.float32), np.zeros(ids, np.int32)],
                     GATHER_HOOKS, True)
    calls: list[Any] = []
    fallback = specialize_index_plan._gather_kernel(
        specialize_index_plan._addressing((8, 6), (8, 1), 1, [1], [0], [0], [1], [1], (8, 1)),
        (8, 6), (8, 1), [5], lambda *a: calls.append(a) or "general")
    assert fallback(np.ones((8, 7), np.float32), np.zeros((8, 1), np.int32)) == "general"
    assert fallback(np.ones((8, 6), np.float32), np.zeros((8, 1), np.int32)).shape == (8, 1)
    assert len(calls) == 1 and callable(kernel)


# ---- dynamically shaped (symbolic-shape exports) ------------------------------------------

DYNAMIC_GATHER = """
func.func @main(%t: tensor<?x6xf32>, %i: tensor<?x1xi32>) -> tensor<?x1xf32> {
  %0 = "stablehlo.gather"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = true, slice_sizes = array<i64: 1, 1>}> : (tensor<?x6xf32>, tensor<?x1xi32>) -> tensor<?x1xf32>
  func.return %0 : tensor<?x1xf32>
}
"""

DYNAMIC_SLICE_GATHER = """
func.func @main(%t: tensor<?x3xi32>, %i: tensor<1xi32>, %s: tensor<2xi32>) -> tensor<?x1xi32> {
  %0 = "stablehlo.dynamic_gather"(%t, %i, %s) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [1]>, indices_are_sorted = true}> : (tensor<?x3xi32>, tensor<1xi32>, tensor<2xi32>) -> tensor<?x1xi32>
  func.return %0 : tensor<?x1xi32>
}
"""

DYNAMIC_SCATTER = """
func.func @main(%x: tensor<?x6xf32>, %i: tensor<?x3x1xi32>, %u: tensor<?x3xf32>) -> tensor<?x6xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<?x6xf32>, tensor<?x3x1xi32>, tensor<?x3xf32>) -> tensor<?x6xf32>
  func.return %0 : tensor<?x6xf32>
}
"""


def test_dynamically_shaped_gathers_and_scatters_plan_per_run_time_shape() -> None:
    """A symbolic batch size: each run-time shape gets its planned kernel (same bits as the
    general evaluator), also a dynamic_gather whose slice sizes are an operand."""
    rng = np.random.default_rng(11)
    for rows in (0, 1, 3, 8, 3):
        table = _values(rng, (rows, 6), "f32")
        cases: list[tuple[str, list[np.ndarray], tuple[Any, ...]]] = [
            (DYNAMIC_GATHER, [table, _ids(rng, (rows, 1), "i32", 6)], GATHER_HOOKS),
            (DYNAMIC_SCATTER, [table, _ids(rng, (rows, 3, 1), "i32", 6),
                               _values(rng, (rows, 3), "f32")], SCATTER_HOOKS)]
        ints = rng.integers(-9, 9, (rows, 3)).astype(np.int32)
        for start in (-2, 0, 1, 2, 5):
            sizes = np.array([rows, 1 + (start == 1)], np.int32)
            slices = DYNAMIC_SLICE_GATHER.replace("?x1xi32>\n", "?x?xi32>\n").replace(
                "-> tensor<?x1xi32>", "-> tensor<?x?xi32>") if start == 1 else DYNAMIC_SLICE_GATHER
            cases.append((slices, [ints, np.array([start], np.int32), sizes], GATHER_HOOKS))
        for text, args, hooks in cases:
            fast, kernel = _run(text, args, hooks, True)
            plain, general = _run(text, args, hooks, False)
            assert _name(kernel).startswith(("_per_shape_gather", "bind_scatter_plan")), kernel
            assert dynamic_guard.bind_dynamic_guard in engine.BIND_HOOKS
            assert _name(general) in ("gather", "dynamic_gather", "scatter")
            _same(fast, plain)


def test_position_tables_the_budget_refuses_stay_general() -> None:
    """A 256k-element batched gather under a 3 MiB budget: its 2 MiB position table and the
    per-call copy do not fit, so the general evaluator runs it (and refuses its own index
    arrays with a diagnostic)."""
    text = _gather((4096, 6), (4096, 64, 1), "i8", "i32", "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2", [1, 1], (4096, 64))
    args = [np.zeros((4096, 6), np.int8), np.zeros((4096, 64, 1), np.int32)]
    with memory_limit(3 << 20):
        interpreter = Interpreter(parse_source(text))
        with pytest.raises(Diagnostic, match="index arrays"):
            interpreter.call(interpreter.lookup_function("main"), args)
        kernel = next(iter(interpreter._plans.values())).steps[0].fn
    assert _name(kernel) == "gather"
    _, kernel = _run(text, args, GATHER_HOOKS, True)
    assert _name(kernel).startswith("_gather_kernel")
