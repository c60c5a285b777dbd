"""The single-element scatter kernel (dialects/stablehlo/specialize_scatter.py) gives the
general evaluator's result bit for bit: in-range, negative and out-of-range start indices
(INT_MIN, the largest unsigned), partial index vectors on higher-rank operands, replace /
keep / add / multiply / max / min / xor regions, NaN (either sign), -0.0 and inf, updates
given as 0-d arrays, numpy scalars or size-1 arrays, several element and index types."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_scatter

ELEM = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8,
        "i32": np.int32, "i64": np.int64, "ui8": np.uint8, "ui64": np.uint64, "i1": np.bool_, "i16": np.int16}


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _program(operand: tuple[int, ...], ids: tuple[int, ...], updates: tuple[int, ...],
             elem: str, ielem: str, dims: str, kind: str) -> str:
    s = _t((), elem)
    if kind == "replace":
        body = f"stablehlo.return %b : {s}"
    elif kind == "keep":
        body = f"stablehlo.return %a : {s}"
    else:
        body = f"%r = stablehlo.{kind} %a, %b : {s}\n    stablehlo.return %r : {s}"
    return f"""
func.func @main(%x: {_t(operand, elem)}, %i: {_t(ids, ielem)}, %u: {_t(updates, elem)}) -> {_t(operand, elem)} {{
  %0 = "stablehlo.scatter"(%x, %i, %u) <{{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<{dims}>, unique_indices = true}}> ({{
  ^bb0(%a: {s}, %b: {s}):
    {body}
  }}) : ({_t(operand, elem)}, {_t(ids, ielem)}, {_t(updates, elem)}) -> {_t(operand, elem)}
  func.return %0 : {_t(operand, elem)}
}}
"""


def _run(text: str, args: list[object], specialized: bool) -> tuple[np.ndarray, object]:
    """(main's result, the kernel bound for the scatter); without either scatter hook when
    not `specialized` (the general evaluator)."""
    hooks = (specialize_scatter.bind_scatter, specialize_scatter.bind_scatter_element)
    return run_first_op(text, args, hooks, specialized)


ONE = "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]"
TWO = "inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]"
CASES = [
    # (operand, ids, updates, elem, index elem, dimension numbers, region)
    ((128,), (1,), (), "i32", "i32", ONE, "replace"),
    ((128,), (1,), (), "f32", "i64", ONE, "add"),
    ((16,), (1,), (), "f16", "i8", ONE, "maximum"),
    ((16,), (1,), (), "f64", "ui8", ONE, "minimum"),
    ((16,), (1,), (), "i8", "ui64", ONE, "add"),
    ((16,), (1,), (), "ui8", "i32", ONE, "multiply"),
    ((16,), (1,), (), "i64", "i32", ONE, "xor"),
    ((16,), (1,), (), "i1", "i32", ONE, "maximum"),
    ((16,), (1,), (), "f32", "i32", ONE, "keep"),
    ((16,), (), (), "f32", "i32", ONE + ", index_vector_dim = 0", "add"),
    ((5, 7), (2,), (), "f32", "i32", TWO, "replace"),
    ((5, 7), (1, 2), (1,), "f32", "i16", TWO + ", index_vector_dim = 1", "add"),
    # a partial index vector: dimension 1 is a size-1 window starting at 0
    ((5, 7), (1,), (1,), "f32", "i32", "update_window_dims = [0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]", "maximum"),
    ((5, 7), (1,), (1,), "f32", "i32", "update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]", "replace"),
]

SPECIAL = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.0]


def _index_values(dtype: type, size: int) -> list[int]:
    """Start indices at and past both ends of the operand and of the index type."""
    info = np.iinfo(dtype)
    near = [v for v in (-1, 0, 1, size - 1, size, size + 3) if info.min <= v <= info.max]
    return sorted({int(info.min), int(info.max), *near})


@pytest.mark.parametrize("case", range(len(CASES)))
def test_single_element_scatter_matches_general_evaluator(case: int) -> None:
    operand, ids, updates, elem, ielem, dims, kind = CASES[case]
    text = _program(operand, ids, updates, elem, ielem, dims, kind)
    dtype, idtype = ELEM[elem], ELEM[ielem]
    rng = np.random.default_rng(case)
    size = int(np.prod(operand))
    if dtype is np.bool_:
        x = rng.integers(0, 2, operand).astype(dtype)
        values = [np.bool_(True), np.bool_(False)]
    elif np.issubdtype(dtype, np.floating):
        x = rng.standard_normal(operand).astype(dtype)
        x.reshape(-1)[: len(SPECIAL)] = np.array(SPECIAL, dtype=dtype)[: size]
        values = [dtype(v) for v in SPECIAL]
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, operand, dtype=dtype, endpoint=True)
        values = [dtype(v) for v in (info.min, info.max, 0, 1, -1 if info.min else 7)]
    starts = _index_values(idtype, max(operand))
    checked = 0
    for _trial in range(40):
        picks = rng.integers(len(starts), size=max(int(np.prod(ids)), 1))
        i = np.array([starts[k] for k in picks], dtype=idtype).reshape(ids)
        v = values[int(rng.integers(len(values)))]
        for u in (np.array(v, dtype=dtype).reshape(updates), v):
            if updates and not isinstance(u, np.ndarray):
                continue
            fast, kernel = _run(text, [x, i, u], True)
            plain, _ = _run(text, [x, i, u], False)
            assert getattr(kernel, "__qualname__", "").startswith("_element_kernel")
            assert fast.dtype == plain.dtype and fast.shape == plain.shape
            assert fast.tobytes() == plain.tobytes() and fast.flags.c_contiguous
            assert not np.shares_memory(fast, x)
            checked += 1
    assert checked >= 40


def test_other_scatters_are_not_single_element() -> None:
    # two updates, and a window of two elements
    texts = [_program((16,), (2, 1), (2,), "f32", "i32", ONE + ", index_vector_dim = 1", "add"),
             _program((5, 7), (1,), (2,), "f32", "i32", "update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]", "add")]
    shapes = [((16,), (2, 1), (2,)), ((5, 7), (1,), (2,))]
    for text, (operand, ids, updates) in zip(texts, shapes, strict=True):
        x = np.arange(np.prod(operand), dtype=np.float32).reshape(operand)
        i = np.zeros(ids, dtype=np.int32)
        u = np.ones(updates, dtype=np.float32)
        fast, kernel = _run(text, [x, i, u], True)
        plain, _ = _run(text, [x, i, u], False)
        assert not getattr(kernel, "__qualname__", "").startswith("_element_kernel")
        assert fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize("case", range(len(CASES)))
def test_in_place_matches_the_copying_kernel(case: int) -> None:
    """`in_place` (a generated loop's `x.at[t].set(v)` at x's last use) writes into an
    operand only its caller's local holds, the copying kernel's bits; an operand held
    elsewhere too is left as it was."""
    operand, ids, updates, elem, ielem, dims, kind = CASES[case]
    _, kernel = _run(_program(operand, ids, updates, elem, ielem, dims, kind),
                     [np.zeros(operand, ELEM[elem]), np.zeros(ids, ELEM[ielem]),
                      np.zeros(updates, ELEM[elem])], True)
    in_place = kernel.in_place  # type: ignore[attr-defined]
    dtype, idtype = ELEM[elem], ELEM[ielem]
    rng = np.random.default_rng(100 + case)
    starts = _index_values(idtype, max(operand))
    values = ([True, False] if dtype is np.bool_ else SPECIAL if np.issubdtype(dtype, np.floating)
              else [int(np.iinfo(dtype).min), int(np.iinfo(dtype).max), 0, 1])
    wrote = 0
    for _trial in range(30):
        x = rng.standard_normal(operand).astype(dtype) if dtype is not np.bool_ else \
            rng.integers(0, 2, operand).astype(bool)
        picks = rng.integers(len(starts), size=max(int(np.prod(ids)), 1))
        i = np.array([starts[k] for k in picks], dtype=idtype).reshape(ids)
        u = np.array(values[int(rng.integers(len(values)))], dtype=dtype).reshape(updates)
        want = kernel(x, i, u)
        before = x.copy()
        kept = x
        assert in_place(x, i, u).tobytes() == want.tobytes()  # x held twice: a copy
        assert kept.tobytes() == before.tobytes()
        del kept
        y = x.copy()
        out = in_place(y, i, u)
        assert out.tobytes() == want.tobytes() and out.dtype == want.dtype
        wrote += out is y
    assert wrote == 30
