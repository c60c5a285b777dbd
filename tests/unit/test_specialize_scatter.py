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
             elem: str, ielem: str, vector_dim: int, window: list[int], body: str) -> str:
    s = _t((), elem)
    return f"""
func.func @main(%x: {_t(operand, elem)}, %i: {_t(ids, ielem)}, %u: {_t(updates, elem)}) -> {_t(operand, elem)} {{
  %0 = "stablehlo.scatter"(%x, %i, %u) <{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {window}, inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = {vector_dim}>, unique_indices = false}}> ({{
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
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_row_scatter_matches_general_evaluator(case: int) -> None:
    operand, ids, updates, elem, ielem, vector_dim, window, kind = CASES[case]
    text = _program(operand, ids, updates, elem, ielem, vector_dim, window, _body(kind, elem))
    rng = np.random.default_rng(case)
    dtype = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32}[elem]
    x = (rng.standard_normal(operand) * 50).astype(dtype)
    u = (rng.standard_normal(updates) * 50).astype(dtype)
    if dtype in (np.float32, np.float16):
        x.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
        if u.size:
            u.reshape(-1)[:4] = [-0.0, np.nan, -np.inf, 1e-30]
    idtype = {"i32": np.int32, "i64": np.int64, "ui8": np.uint8, "i16": np.int16}[ielem]
    lo = 0 if idtype == np.uint8 else -3
    i = rng.integers(lo, operand[0] + 4, ids).astype(idtype)
    fast, kernel = _run(text, [x, i, u], True)
    plain, general = _run(text, [x, i, u], False)
    assert kernel is not general and getattr(kernel, "__qualname__", "").startswith("bind_scatter")
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes() and fast.flags.c_contiguous
    assert fast is not x


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
