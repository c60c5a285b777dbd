"""Scatter into a vector (`x.at[ids].add(v)`, bincount, a segment sum into a vector:
dialects/stablehlo/specialize_scatter.py) runs `ufunc.at` on the whole vector, never the
rounds, and gives the general evaluator's bits and those of applying each update in update
order: repeated, negative and out-of-range ids, NaN payloads, -0.0, infinities, empty and
fully out-of-bounds updates, untrusted sorted / unique flags, many element types."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_scatter

ELEMENTS: dict[str, Any] = {
    "i1": np.bool_, "i8": np.int8, "ui8": np.uint8, "i32": np.int32, "ui64": np.uint64,
    "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
    "complex<f32>": np.complex64,
}
# region op -> (ufunc for numbers, ufunc for i1), as the general evaluator reads regions
REGIONS = {"add": (np.add, np.logical_or), "multiply": (np.multiply, np.logical_and),
           "maximum": (np.maximum, np.logical_or), "minimum": (np.minimum, np.logical_and),
           "and": (np.bitwise_and, np.logical_and), "or": (np.bitwise_or, np.logical_or),
           "xor": (np.bitwise_xor, np.logical_xor)}


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _program(operand: tuple[int, ...], ids: tuple[int, ...], updates: tuple[int, ...],
             elem: str, ielem: str, region: str, flags: str = "false",
             window: str = "[]") -> str:
    s = _t((), elem)
    return f"""
func.func @main(%x: {_t(operand, elem)}, %i: {_t(ids, ielem)}, %u: {_t(updates, elem)}) -> {_t(operand, elem)} {{
  %0 = "stablehlo.scatter"(%x, %i, %u) <{{indices_are_sorted = {flags}, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {window}, inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = {flags}}}> ({{
  ^bb0(%a: {s}, %b: {s}):
    %r = stablehlo.{region} %a, %b : {s}
    stablehlo.return %r : {s}
  }}) : ({_t(operand, elem)}, {_t(ids, ielem)}, {_t(updates, elem)}) -> {_t(operand, elem)}
  func.return %0 : {_t(operand, elem)}
}}
"""


def _specials(dtype: Any) -> np.ndarray:
    """NaNs of both signs and two payloads, signed zeros, infinities, a tiny number."""
    base = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-6], dtype)
    if dtype is np.complex64:
        return base
    width = np.dtype(f"u{np.dtype(dtype).itemsize}")
    payload = np.array(np.nan, dtype).view(width) | np.array(3, width)  # quiet NaN, payload 3
    return np.concatenate([base, np.array([payload, payload | (width.type(1) << width.type(
        8 * width.itemsize - 1))], width).view(dtype)])


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Random values over the type's range; for floats, the specials at random places."""
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    if dtype is np.complex64:
        x = x + 1j * (rng.standard_normal(shape) * 4).astype(np.float32)
    flat = x.reshape(-1)
    special = _specials(dtype)
    if flat.size:
        spots = rng.integers(0, flat.size, 2 * special.size)
        flat[spots] = np.tile(special, 2)
    return x


# numpy's own elementwise loop and `ufunc.at`'s differ here (the general path runs the latter,
# as does the kernel): f16's picks another NaN's sign or payload, complex multiply rounds once
# more or less (an FMA) in the last bit.
LOOSE = {("f16", "add"), ("f16", "multiply"), ("complex<f32>", "multiply")}


def _in_order(x: np.ndarray, ids: np.ndarray, values: np.ndarray, combine: Any) -> np.ndarray:
    """The spec's scatter done naively: each in-bounds update combined in update order."""
    out = x.copy()
    with np.errstate(all="ignore"):
        for target, value in zip(ids.reshape(-1).tolist(), values, strict=True):
            if 0 <= target < out.size:
                out[target] = combine(out[target:target + 1], value.reshape(1))[0]
    return out


def _cases() -> list[tuple[str, str]]:
    found = []
    for elem, dtype in ELEMENTS.items():
        for region in REGIONS:
            floating = not (dtype is np.bool_ or np.issubdtype(dtype, np.integer))
            if floating and region in ("and", "or", "xor"):
                continue
            if dtype is np.complex64 and region in ("maximum", "minimum"):
                continue
            found.append((elem, region))
    return found


# (rows, updates, lowest id, index type, shape of ids): many repeats per row (where the
# rounds ran before), few repeats, no updates, every id outside, ids without a vector dim
LAYOUTS = [(190, 2000, -5, "i32", "column"), (1000, 40, -3, "i64", "column"),
           (9, 0, 0, "i32", "column"), (4, 30, 4, "i32", "column"),
           (12, 300, -2, "i64", "flat")]


@pytest.mark.parametrize("flags", ["false", "true"])
@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
@pytest.mark.parametrize(("elem", "region"), _cases())
def test_vector_scatter_matches_general_and_in_order(elem: str, region: str, layout: int,
                                                     flags: str) -> None:
    """`ufunc.at` on the vector gives the general path's bits and the naive loop's (the
    sorted / unique flags, false for these ids, change nothing)."""
    rows, count, lowest, ielem, ids_shape = LAYOUTS[layout]
    dtype = ELEMENTS[elem]
    ids = (count, 1) if ids_shape == "column" else (count,)
    text = _program((rows,), ids, (count,), elem, ielem, region, flags)
    rng = np.random.default_rng(layout * 1000 + len(elem) * 31 + len(region))
    x, u = _data(rng, (rows,), dtype), _data(rng, (count,), dtype)
    i = rng.integers(lowest, rows + 5, ids).astype(np.int32 if ielem == "i32" else np.int64)
    fast, kernel = run_first_op(text, [x, i, u], specialize_scatter.bind_scatter, True)
    plain, _ = run_first_op(text, [x, i, u], specialize_scatter.bind_scatter, False)
    assert getattr(kernel, "__qualname__", "").startswith("bind_scatter")
    assert fast.dtype == plain.dtype == x.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes() and fast is not x
    combine = REGIONS[region][1 if dtype is np.bool_ else 0]
    naive = _in_order(x, i, u, combine)
    if (elem, region) in LOOSE:
        np.testing.assert_allclose(fast, naive, rtol=2 ** -20, equal_nan=True)
    else:
        assert fast.tobytes() == naive.tobytes()


def _refuse_rounds(*args: Any) -> bool:
    raise AssertionError("rounds into a vector")


@pytest.mark.parametrize("elem", ["f32", "f64", "i32", "i8", "i1"])
@pytest.mark.parametrize("region", ["add", "maximum"])
def test_vector_scatter_never_takes_the_rounds(monkeypatch: pytest.MonkeyPatch, elem: str,
                                               region: str) -> None:
    """2000 updates into 190 entries, about ten per entry: dense enough for the rounds, which
    cost 5-100x `ufunc.at`'s indexed loop into a vector."""
    monkeypatch.setattr(specialize_scatter, "_combine_in_rounds", _refuse_rounds)
    dtype = ELEMENTS[elem]
    rng = np.random.default_rng(5)
    x, u = _data(rng, (190,), dtype), _data(rng, (2000,), dtype)
    x, u = (x, u) if dtype is np.bool_ or np.issubdtype(dtype, np.integer) else (
        np.nan_to_num(x), np.nan_to_num(u))  # data the rounds would have taken
    i = rng.integers(0, 190, (2000, 1)).astype(np.int32)
    text = _program((190,), (2000, 1), (2000,), elem, "i32", region)
    fast, _ = run_first_op(text, [x, i, u], specialize_scatter.bind_scatter, True)
    plain, _ = run_first_op(text, [x, i, u], specialize_scatter.bind_scatter, False)
    assert fast.tobytes() == plain.tobytes()


def test_matrix_rows_keep_the_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows of a matrix (a segment sum of 16-wide rows) still take the rounds: there
    `ufunc.at` walks each row's window per update, 8x slower."""
    calls: list[int] = []
    rounds = specialize_scatter._combine_in_rounds

    def counted(*args: Any) -> bool:
        calls.append(1)
        return rounds(*args)
    monkeypatch.setattr(specialize_scatter, "_combine_in_rounds", counted)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((50, 16)).astype(np.float32)
    u = rng.standard_normal((600, 16)).astype(np.float32)
    i = rng.integers(0, 50, (600, 1)).astype(np.int32)
    text = _program((50, 16), (600, 1), (600, 16), "f32", "i32", "add", window="[1]")
    fast, _ = run_first_op(text, [x, i, u], specialize_scatter.bind_scatter, True)
    plain, _ = run_first_op(text, [x, i, u], specialize_scatter.bind_scatter, False)
    assert calls and fast.tobytes() == plain.tobytes()


def test_few_row_updates_skip_the_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seven 6-wide rows (`x.at[i].add(1.0)` on a 10x6 matrix): the rounds' fixed cost is
    four times `ufunc.at`'s, which gives the same bits."""
    monkeypatch.setattr(specialize_scatter, "_combine_in_rounds", _refuse_rounds)
    rng = np.random.default_rng(8)
    for region in ("add", "multiply", "maximum"):
        x = rng.standard_normal((10, 6)).astype(np.float32)
        u = rng.standard_normal((7, 6)).astype(np.float32)
        i = rng.integers(-2, 12, (7, 1)).astype(np.int32)
        text = _program((10, 6), (7, 1), (7, 6), "f32", "i32", region, window="[1]")
        fast, kernel = run_first_op(text, [x, i, u], specialize_scatter.bind_scatter, True)
        plain, _ = run_first_op(text, [x, i, u], specialize_scatter.bind_scatter, False)
        assert getattr(kernel, "__qualname__", "").startswith("bind_scatter")
        assert fast.tobytes() == plain.tobytes()
