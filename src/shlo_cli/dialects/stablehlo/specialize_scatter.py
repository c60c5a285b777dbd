"""`scatter` of whole rows along one axis (`x.at[ids].add(rows)`, a segment sum; `x.at[:, i]
.set(column)`, a decode loop's token history), specialized once per op when the plan is built
(an engine binding hook).

jax exports `x.at[ids].op(rows)` as a scatter whose windows are whole rows:
`inserted_window_dims = scatter_dims_to_operand_dims = [0]`, the update's window dimensions
last and as large as the operand's rows. The general evaluator builds the spec's full index
grid per update element for that; here each update row has one target row, in bounds
exactly when 0 <= id < rows (the window's other indices start at 0 and span the row), and
the update computation is a single ufunc (`ufunc.at`, applied in update order, as the general
path applies it element by element; or the same steps grouped into rounds, below, for rows of
a matrix) or a plain replacement (the last update of a row wins).
Rows along another axis a (`inserted_window_dims = scatter_dims_to_operand_dims = [a]`, the
window the operand without axis a, in order) are the same on the result with axis a moved to
the front (a view: the writes land in the result). Anything else, or operands of other
shapes, goes to the general evaluator.

A scatter of a single element (`x.at[i].set(v)` with a scalar `i`: jax's LU pivots loop runs
two per iteration on a 128-element vector) is a copy and one assignment: its one update lands
at the start index (the window has only size-1 dimensions, so its offset is 0), skipped when
any coordinate is out of bounds, as the general path skips it; a ufunc region applies
`ufunc.at` to that one element (what the general path runs, on a one-element index list).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from ...lazy_imports import lazy
from ..quiet import switches
from .gather_scatter import _KEEP, _REPLACE, _combiners, _last_occurrences
from .in_place import writable_alone
from .specialize import _native_types
from .specialize_gather import _ints, index_batch

Kernel = Callable[..., Any]


Ints = list[int] | None


def _dimension_numbers(dims: Any) -> tuple[Ints, Ints, Ints, Ints, Ints, int] | None:
    """update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
    input_batching_dims, scatter_indices_batching_dims (each None when absent or not
    integers) and index_vector_dim; None when that is not an integer."""
    try:
        vector_dim = int(dims.get("index_vector_dim", 0))
    except (TypeError, ValueError):
        return None
    return (_ints(dims, "update_window_dims"), _ints(dims, "inserted_window_dims"),
            _ints(dims, "scatter_dims_to_operand_dims"), _ints(dims, "input_batching_dims"),
            _ints(dims, "scatter_indices_batching_dims"), vector_dim)


def _row_batch(dims: Any, operand: tuple[int, ...], indices: tuple[int, ...],
               updates: tuple[int, ...]) -> tuple[tuple[int, ...], int] | None:
    """(the update rows' batch shape, the axis) when `dims` scatter whole rows along one
    axis, else None."""
    found = _dimension_numbers(dims)
    if found is None:
        return None
    window, inserted, to_operand, batching, index_batching, vector_dim = found
    if (inserted is None or len(inserted) != 1 or to_operand != inserted or batching
            or index_batching
            or not 0 <= inserted[0] < len(operand) or operand[inserted[0]] == 0):
        return None
    axis = inserted[0]
    batch = index_batch(vector_dim, indices)
    if batch is None:
        return None
    if window != list(range(len(batch), len(batch) + len(operand) - 1)):
        return None
    row = operand[:axis] + operand[axis + 1:]
    return (batch, axis) if updates == batch + row else None


def _one_scatter(op: Operation, kwargs: dict[str, Any]) -> tuple[list[Any], tuple[int, ...],
                                                                  tuple[int, ...],
                                                                  tuple[int, ...], Any] | None:
    """(native dtypes, operand, indices and updates shapes, dimension numbers) of a scatter
    of one operand with integer indices and one element type throughout, else None."""
    if op.name != "stablehlo.scatter" or len(op.operands) != 3 or len(op.results) != 1:
        return None
    dtypes = _native_types(op)
    if (dtypes is None or dtypes[1].kind not in "iu" or dtypes[0] != dtypes[3]
            or dtypes[2] != dtypes[3]):
        return None
    types = [*op.operand_types, op.result_types[0]]
    if not all(isinstance(t, TensorType) for t in types):
        return None
    operand, indices, updates = (tuple(t.shape) for t in types[:3])  # type: ignore[attr-defined]
    dims = kwargs.get("scatter_dimension_numbers")
    if dims is None or not hasattr(dims, "get"):
        return None
    return dtypes, operand, indices, updates, dims


def _point_batch(dims: Any, operand: tuple[int, ...], indices: tuple[int, ...],
                 updates: tuple[int, ...]) -> tuple[tuple[int, ...], list[int]] | None:
    """(the updates' batch shape, the operand dimension of each index coordinate) when
    `dims` scatter single elements at full coordinates (`x.at[i, j].set(v)`: every operand
    dimension inserted, no window, the coordinates along the indices' last dimension), else
    None."""
    found = _dimension_numbers(dims)
    if found is None:
        return None
    window, inserted, to_operand, batching, index_batching, vector_dim = found
    if batching or index_batching or window or inserted is None or to_operand is None:
        return None
    rank = len(operand)
    if (rank < 2 or inserted != list(range(rank)) or sorted(to_operand) != inserted
            or not indices or vector_dim != len(indices) - 1 or indices[-1] != rank
            or 0 in operand):
        return None
    batch = indices[:-1]
    return (batch, to_operand) if updates == batch else None


def _last_writes(targets: np.ndarray, rows: int) -> np.ndarray:
    """Positions of each in-bounds target's last update (the one a replacement keeps): the
    largest position per row by `maximum.at` when the rows are not many more than the
    targets (a stable sort of 65k int64 targets costs ten times more), else by the sort."""
    count = targets.size
    if not count or rows > 16 * count:
        return _last_occurrences(_narrow(targets, rows))
    order = np.arange(count)
    latest = np.full(rows, -1, np.intp)
    np.maximum.at(latest, targets, order)
    return np.flatnonzero(latest[targets] == order)


def _distinct(targets: np.ndarray, rows: int) -> bool:
    """Whether no in-bounds target repeats (then every update is the last of its row, and a
    replacement is one assignment): marks in a bool array of the rows, when they are not
    many more than the targets (ten times cheaper than `_last_writes`' maximum.at)."""
    count = targets.size
    if count < 2 or rows > 16 * count:
        return count < 2
    seen = np.zeros(rows, np.bool_)
    seen[targets] = True
    return bool(np.count_nonzero(seen) == count)


def _combined(combine: Any, in_rounds: bool) -> Callable[[np.ndarray, np.ndarray, np.ndarray,
                                                          int], None]:
    """Writes `values` (one row per target) into `result`'s rows `targets` (in bounds) with
    `combine`, as the general path applies them in update order."""
    quiet, loud = switches()

    def apply(result: np.ndarray, targets: np.ndarray, values: np.ndarray, rows: int) -> None:
        if not targets.size:  # every update out of bounds
            return
        if combine is _REPLACE:
            if _distinct(targets, rows):  # (an unpool's argmax positions: every one once)
                result[targets] = values
                return
            last = _last_writes(targets, rows)
            result[targets[last]] = values[last]
            return
        token = quiet()
        try:
            if (not in_rounds or values.size < _FEW
                    or not _combine_in_rounds(result, targets, values, combine)):
                combine.at(result, targets, values)
        finally:
            loud(token)

    return apply


def bind_scatter(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A row- or point-scatter kernel, or None (the general evaluator)."""
    found = _one_scatter(op, kwargs)
    if found is None:
        return None
    dtypes, operand, indices, updates, dims = found
    combiners = _combiners(op, 1, [dtypes[0]])
    if combiners is None:
        return None
    combine = combiners[0]
    in_rounds = _rounds_pay(combine, dtypes[0], operand)
    found_rows = _row_batch(dims, operand, indices, updates)
    if found_rows is None:
        found_points = _point_batch(dims, operand, indices, updates)
        if found_points is None:
            return None
        # single elements: `ufunc.at` on the flat result is fast, the rounds' sort is not
        return _point_kernel(operand, indices, updates, found_points, combine,
                             _combined(combine, False),
                             bind_after(bind_scatter, op, opdef, kwargs))
    batch, axis = found_rows
    general = bind_after(bind_scatter, op, opdef, kwargs)
    count, rows = int(np.prod(batch, dtype=np.int64)), operand[axis]
    row_shape = (count, *operand[:axis], *operand[axis + 1:])
    apply = _combined(combine, in_rounds)
    front = [axis, *(d for d in range(len(operand)) if d != axis)]
    unsigned = np.dtype(np.uintp)

    def kernel(x: Any, ids: Any, new: Any) -> Any:
        if not _expected(x, ids, new, operand, indices, updates):
            return general(x, ids, new)
        out = x.copy()  # (C order, as np.array(x, order="C"))
        if combine is _KEEP or count == 0:
            return out
        result = out.transpose(front) if axis else out  # writes land in `out`
        targets = ids.reshape(count).astype(np.intp)
        values = new.reshape(row_shape)
        if targets.view(unsigned).max() >= rows:  # (negative ids look huge)
            inside = (targets >= 0) & (targets < rows)
            targets, values = targets[inside], values[inside]
        apply(result, targets, values, rows)
        return out

    return kernel


def _expected(x: Any, ids: Any, new: Any, operand: tuple[int, ...], indices: tuple[int, ...],
              updates: tuple[int, ...]) -> bool:
    """Whether a scatter's operands are arrays of the shapes its kernel was made for (else
    the general evaluator, with its diagnostics)."""
    return (x.__class__ is np.ndarray and ids.__class__ is np.ndarray
            and new.__class__ is np.ndarray and x.shape == operand
            and ids.shape == indices and new.shape == updates)


def _point_kernel(operand: tuple[int, ...], indices: tuple[int, ...], updates: tuple[int, ...],
                  found: tuple[tuple[int, ...], list[int]], combine: Any,
                  apply: Callable[[np.ndarray, np.ndarray, np.ndarray, int], None],
                  general: Kernel) -> Kernel:
    """Single elements at full coordinates: the flat result's elements are the rows, each
    coordinate vector in bounds exactly when every coordinate is (the general path skips an
    update with any coordinate outside), its flat position the C-order offset."""
    batch, to_operand = found
    count, size = math.prod(batch), math.prod(operand)
    rank = len(operand)
    bounds = np.array([operand[d] for d in to_operand], np.intp)
    steps = [math.prod(operand[d + 1:]) for d in range(rank)]
    strides = np.array([steps[d] for d in to_operand], np.intp)

    def kernel(x: Any, ids: Any, new: Any) -> Any:
        if not _expected(x, ids, new, operand, indices, updates):
            return general(x, ids, new)
        out = np.array(x, order="C")
        if combine is _KEEP or count == 0:
            return out
        coords = ids.reshape(count, rank).astype(np.intp)
        values = new.reshape(count)
        if coords.min() < 0 or (coords >= bounds).any():  # (a per-row test costs 5x more)
            inside = ((coords >= 0) & (coords < bounds)).all(axis=1)
            coords, values = coords[inside], values[inside]
        targets = coords @ strides
        apply(out.reshape(-1), targets, values, size)
        return out

    return kernel


register_bind_hook(bind_scatter, 60, ops=("stablehlo.scatter",))

# ---- many updates per row: one round per occurrence --------------------------------------
# `ufunc.at` applies updates one element at a time (~20 ns each). Grouping the updates by
# target row (a stable sort keeps each row's updates in update order) and laying them out
# round-major, round m holding every row's m-th update, turns the work into one whole-array
# `combine(current, update)` per round: per element the same ufunc on the same operands in
# the same order as `ufunc.at`. Rounds pay when rows get many updates each and the layout
# stays dense; a few rows with many updates and many with one would leave it mostly padding.
# A round costs about as much as `ufunc.at` on this many elements: more rounds than the
# elements / this (and than _ROUNDS) are left to `ufunc.at`.
_ELEMENTS_PER_ROUND = 64
# Fewer update elements than this go straight to `ufunc.at`: the rounds' sorting and layout
# cost ~40 us whatever the size, `ufunc.at` ~7 us + ~7 ns per element (x.at[i].add(1.0) on a
# 10x6 matrix: 42 -> 11 us; 4000 elements 52 -> 35 us; 16000 elements still 106 -> 77 us).
_FEW = 4096
_ROUNDS = 16
_EXACT_FLOATS = ("float32", "float64")


def _round_safe(combine: Any, dtype: np.dtype) -> bool:
    """Whether whole-array rounds can give `ufunc.at`'s bits for this element type: integer
    and bool arithmetic always; f32 / f64 when the data passes `_plain_floats` (other floats
    convert through wider types, possibly differently in the two loops)."""
    return dtype.kind in "biu" or (dtype.name in _EXACT_FLOATS and combine in _FLOAT_UFUNCS)


def _rounds_pay(combine: Any, dtype: np.dtype, operand: tuple[int, ...]) -> bool:
    """Whether to try rounds for a ufunc region: where they give `ufunc.at`'s bits, and not
    into a vector (`x.at[ids].add(v)`, bincount), where `ufunc.at`'s one-dimensional indexed
    loop (numpy >= 1.25; measured on 1.26 and 2.4) beats the rounds' sort and gather 3-100x
    for every element type and region (a program adding 50k f32 into 4096: 0.79 -> 0.13 ms),
    applying the same ufunc to the same operands in the same order."""
    return (len(operand) > 1 and combine not in (_KEEP, _REPLACE)
            and _round_safe(combine, dtype))


_FLOAT_UFUNCS = lazy(lambda: (np.add, np.multiply, np.maximum, np.minimum))


def _plain_floats(combine: Any, values: np.ndarray, current: np.ndarray) -> bool:
    """No input where the two loops could choose different bits: a NaN update (two NaN
    operands: which payload wins is the loop's choice) and, for max / min, a NaN or -0.0
    on either side (ties between -0.0 and +0.0, NaN selection)."""
    if np.isnan(values).any():
        return False
    if combine is np.add or combine is np.multiply:
        return True
    if np.isnan(current).any():
        return False
    width = np.dtype(f"u{values.dtype.itemsize}")
    negative_zero = np.array(-0.0, values.dtype).view(width)
    return not ((values.view(width) == negative_zero).any()
                or (current.view(width) == negative_zero).any())


def _narrow(targets: np.ndarray, rows: int) -> np.ndarray:
    """The in-bounds targets as the narrowest unsigned type holding `rows` values: numpy's
    stable sort is a radix sort for 8- and 16-bit keys (8x faster than its int64 merge
    sort), and any stable sort gives the same order (ties keep update order)."""
    for dtype in (np.uint8, np.uint16):
        if rows <= np.iinfo(dtype).max + 1:
            return targets.astype(dtype)
    return targets


def _combine_in_rounds(result: np.ndarray, targets: np.ndarray, values: np.ndarray,
                       combine: Any) -> bool:
    """Apply `values` (one row per target) to `result` in rounds; False (nothing done) when
    the layout would be too sparse or the data needs `ufunc.at`'s own loop."""
    count = targets.size
    order = np.argsort(_narrow(targets, result.shape[0]), kind="stable")
    ordered = targets[order]
    first = np.ones(count, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    starts = np.flatnonzero(first)
    sizes = np.diff(starts, append=count)
    groups, depth = starts.size, int(sizes.max())
    if depth > max(_ROUNDS, count * math.prod(values.shape[1:]) // _ELEMENTS_PER_ROUND):
        return False
    # Rows with more updates first, so each round's live rows are a prefix.
    by_size = np.argsort(-sizes, kind="stable")
    rows, ranked = ordered[starts[by_size]], sizes[by_size]
    current = result[rows]
    if values.dtype.kind == "f" and not _plain_floats(combine, values, current):
        return False
    slot = np.empty(groups, dtype=np.intp)
    slot[by_size] = np.arange(groups)
    live = np.searchsorted(-ranked, -np.arange(depth), side="left")
    offsets = np.zeros(depth + 1, dtype=np.intp)
    np.cumsum(live, out=offsets[1:])
    # Round m is `layout[offsets[m]:offsets[m + 1]]`: the m-th update of each live row.
    rank = np.arange(count) - np.repeat(starts, sizes)
    source = np.empty(count, dtype=np.intp)
    source[offsets[rank] + np.repeat(slot, sizes)] = order
    layout = values.take(source, axis=0)
    bounds = offsets.tolist()
    for m in range(depth):
        start, stop = bounds[m], bounds[m + 1]
        part = current[:stop - start]
        combine(part, layout[start:stop], out=part)
    result[rows] = current
    return True


def _element_position(dims: Any, operand: tuple[int, ...], indices: tuple[int, ...],
                      updates: tuple[int, ...]) -> list[int] | None:
    """For each operand dimension, which entry of the index vector starts it (-1: starts at
    0), when `dims` scatter one update element to one operand element; else None."""
    found = _dimension_numbers(dims)
    if found is None:
        return None
    window, inserted, to_operand, batching, index_batching, vector_dim = found
    if (window is None or inserted is None or to_operand is None or batching
            or index_batching or not operand or 0 in operand or any(d != 1 for d in updates)
            or not 0 <= vector_dim <= len(indices) or len(set(to_operand)) != len(to_operand)
            or any(not 0 <= d < len(operand) for d in to_operand)):
        return None
    length = indices[vector_dim] if vector_dim < len(indices) else 1
    batch = indices[:vector_dim] + indices[vector_dim + 1:]
    scatter_dims = [d for d in range(len(updates)) if d not in window]
    windows = [d for d in range(len(operand)) if d not in inserted]
    if (length != len(to_operand) or any(d != 1 for d in batch)
            or len(batch) != len(scatter_dims) or len(windows) != len(window)):
        return None
    return [to_operand.index(d) if d in to_operand else -1 for d in range(len(operand))]


def bind_scatter_element(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A single-element scatter kernel, or None (the next hook / the general evaluator)."""
    found = _one_scatter(op, kwargs)
    if found is None:
        return None
    dtypes, operand, indices, updates, dims = found
    starts = _element_position(dims, operand, indices, updates)
    combiners = _combiners(op, 1, [dtypes[0]])
    if starts is None or combiners is None:
        return None
    general = bind_after(bind_scatter_element, op, opdef, kwargs)
    return _element_kernel(operand, indices, updates, dtypes[0], starts, combiners[0], general,
                           dtypes[1])


def _locator(starts: list[int], operand: tuple[int, ...]) -> Callable[[Any], Any]:
    """`ids -> the addressed operand index` (None when out of bounds, where the general path
    skips the update); an int for a vector operand."""
    if starts == [0]:
        rows = operand[0]

        def one(ids: Any) -> Any:  # one start index (a numpy integer of any width)
            i = ids.item()
            return i if 0 <= i < rows else None
        if len(operand) == 1:
            return one
    count = max(starts) + 1
    bounds = list(zip(starts, operand, strict=True))

    def many(ids: Any) -> Any:
        vector = ids.reshape(count).tolist() if count else []
        where = tuple(vector[s] if s >= 0 else 0 for s, _ in bounds)
        for i, (_, size) in zip(where, bounds, strict=True):
            if not 0 <= i < size:
                return None
        return where
    return many


def _element_kernel(operand: tuple[int, ...], indices: tuple[int, ...],
                    updates: tuple[int, ...], dtype: np.dtype, starts: list[int],
                    combine: Any, general: Kernel, index_dtype: np.dtype | None = None
                    ) -> Kernel:
    """Copy the operand, then combine its one addressed element with the update; `in_place`
    (for generated plans passing the operand at its last use: in_place.py) combines into
    the operand itself when nothing else holds it (`x.at[t].set(v)` in a fori_loop: no
    copy of the whole array per step)."""
    locate = _locator(starts, operand)
    quiet, loud = switches()
    ndarray, generic, scalar = np.ndarray, np.generic, dtype.type
    count = sys.getrefcount

    def value_of(x: Any, ids: Any, new: Any) -> Any:
        """The update as a numpy scalar, or None: operands the general path takes."""
        if new.__class__ is scalar and not updates:
            value = new
        elif new.__class__ is ndarray and new.shape == updates and new.dtype == dtype:
            value = new.reshape(())
        else:
            return None
        if (x.__class__ is not ndarray or x.shape != operand
                or not (ids.shape == indices if ids.__class__ is ndarray
                        else isinstance(ids, generic) and not indices)):
            return None
        return value

    def kernel(x: Any, ids: Any, new: Any) -> Any:
        value = value_of(x, ids, new)
        if value is None:
            return general(x, ids, new)
        # C order, as the general path's np.array(x, order="C")
        return write(x.copy(), ids, value)

    def in_place(x: Any, ids: Any, new: Any) -> Any:
        seen = count(x)  # a statement of its own (in_place.py)
        if x.__class__ is not ndarray or not writable_alone(x, seen) \
                or not x.flags.c_contiguous:
            return kernel(x, ids, new)
        value = value_of(x, ids, new)
        if value is None:
            return general(x, ids, new)
        return write(x, ids, value)

    def write(result: np.ndarray, ids: Any, value: Any) -> np.ndarray:
        if combine is _KEEP:
            return result
        where = locate(ids)
        if where is None:
            return result
        if combine is _REPLACE:
            result[where] = value
            return result
        token = quiet()
        try:
            combine.at(result, where, value)
        finally:
            loud(token)
        return result

    def write_element(x: Any, value: Any, i: int) -> Any:
        """`in_place` of a vector's element replaced by the Python scalar `value` at the
        Python int `i` (interpreter/scalar_writes.py: numpy's item assignment casts the
        value as its conversion to a numpy scalar would); out of bounds: no update."""
        seen = count(x)  # (as in `in_place`)
        if x.__class__ is not ndarray or not writable_alone(x, seen) \
                or not x.flags.c_contiguous or x.shape != operand:
            if x.__class__ is not ndarray:
                x = np.asarray(x)
            return kernel(x, np.array([i], index_dtype), np.array(value, dtype))
        if 0 <= i < operand[0]:
            x[i] = value
        return x

    kernel.in_place = in_place  # type: ignore[attr-defined]
    if combine is _REPLACE and starts == [0] and len(operand) == 1 and indices == (1,) \
            and not updates and index_dtype is not None:
        in_place.write_element = write_element  # type: ignore[attr-defined]
    return kernel


register_bind_hook(bind_scatter_element, 59, ops=("stablehlo.scatter",))
