"""`scatter` of whole rows along the first axis (`x.at[ids].add(rows)`, a segment sum),
specialized once per op when the plan is built (an engine binding hook).

jax exports `x.at[ids].op(rows)` as a scatter whose windows are whole rows:
`inserted_window_dims = scatter_dims_to_operand_dims = [0]`, the update's window dimensions
last and as large as the operand's rows. The general evaluator builds the spec's full index
grid per update element for that; here each update row has one target row, in bounds
exactly when 0 <= id < rows (the window's other indices start at 0 and span the row), and
the update computation is a single ufunc (`ufunc.at`, applied in update order, as the general
path applies it element by element) or a plain replacement (the last update of a row wins).
Anything else, or operands of other shapes, goes to the general evaluator.

A scatter of a single element (`x.at[i].set(v)` with a scalar `i`: jax's LU pivots loop runs
two per iteration on a 128-element vector) is a copy and one assignment: its one update lands
at the start index (the window has only size-1 dimensions, so its offset is 0), skipped when
any coordinate is out of bounds, as the general path skips it; a ufunc region applies
`ufunc.at` to that one element (what the general path runs, on a one-element index list).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from ..quiet import switches
from .gather_scatter import _KEEP, _REPLACE, _combiners, _last_occurrences
from .specialize import _native_types
from .specialize_gather import _ints, index_batch

Kernel = Callable[..., Any]


def _row_batch(dims: Any, operand: tuple[int, ...], indices: tuple[int, ...],
               updates: tuple[int, ...]) -> tuple[int, ...] | None:
    """The update rows' batch shape when `dims` scatter whole rows along axis 0, else None."""
    window = _ints(dims, "update_window_dims")
    inserted = _ints(dims, "inserted_window_dims")
    to_operand = _ints(dims, "scatter_dims_to_operand_dims")
    batching = _ints(dims, "input_batching_dims")
    index_batching = _ints(dims, "scatter_indices_batching_dims")
    try:
        vector_dim = int(dims.get("index_vector_dim", 0))
    except (TypeError, ValueError):
        return None
    if (inserted != [0] or to_operand != [0] or batching or index_batching
            or not operand or operand[0] == 0):
        return None
    batch = index_batch(vector_dim, indices)
    if batch is None:
        return None
    if window != list(range(len(batch), len(batch) + len(operand) - 1)):
        return None
    return batch if updates == batch + operand[1:] else None


def bind_scatter(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A row-scatter kernel, or None (the general evaluator)."""
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
    batch = _row_batch(dims, operand, indices, updates)
    combiners = _combiners(op, 1, [dtypes[0]])
    if batch is None or combiners is None:
        return None
    combine = combiners[0]
    general = bind_after(bind_scatter, op, opdef, kwargs)
    count, rows = int(np.prod(batch, dtype=np.int64)), operand[0]
    row_shape = (count, *operand[1:])
    quiet, loud = switches()

    def kernel(x: Any, ids: Any, new: Any) -> Any:
        if (x.__class__ is not np.ndarray or ids.__class__ is not np.ndarray
                or new.__class__ is not np.ndarray or x.shape != operand
                or ids.shape != indices or new.shape != updates):
            return general(x, ids, new)
        result = np.array(x, order="C")
        if combine is _KEEP or count == 0:
            return result
        targets = ids.reshape(count).astype(np.intp)
        values = new.reshape(row_shape)
        inside = (targets >= 0) & (targets < rows)
        if not inside.all():
            targets, values = targets[inside], values[inside]
        if combine is _REPLACE:
            last = _last_occurrences(targets)
            result[targets[last]] = values[last]
            return result
        token = quiet()
        try:
            combine.at(result, targets, values)
        finally:
            loud(token)
        return result

    return kernel


register_bind_hook(bind_scatter, 60)


def _element_position(dims: Any, operand: tuple[int, ...], indices: tuple[int, ...],
                      updates: tuple[int, ...]) -> list[int] | None:
    """For each operand dimension, which entry of the index vector starts it (-1: starts at
    0), when `dims` scatter one update element to one operand element; else None."""
    window = _ints(dims, "update_window_dims")
    inserted = _ints(dims, "inserted_window_dims")
    to_operand = _ints(dims, "scatter_dims_to_operand_dims")
    batching = _ints(dims, "input_batching_dims")
    index_batching = _ints(dims, "scatter_indices_batching_dims")
    try:
        vector_dim = int(dims.get("index_vector_dim", 0))
    except (TypeError, ValueError):
        return None
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
    starts = _element_position(dims, operand, indices, updates)
    combiners = _combiners(op, 1, [dtypes[0]])
    if starts is None or combiners is None:
        return None
    general = bind_after(bind_scatter_element, op, opdef, kwargs)
    return _element_kernel(operand, indices, updates, dtypes[0], starts, combiners[0], general)


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
                    combine: Any, general: Kernel) -> Kernel:
    """Copy the operand, then combine its one addressed element with the update."""
    locate = _locator(starts, operand)
    quiet, loud = switches()
    ndarray, generic, scalar = np.ndarray, np.generic, dtype.type

    def kernel(x: Any, ids: Any, new: Any) -> Any:
        if new.__class__ is scalar and not updates:
            value = new
        elif new.__class__ is ndarray and new.shape == updates and new.dtype == dtype:
            value = new.reshape(())
        else:
            return general(x, ids, new)
        if (x.__class__ is not ndarray or x.shape != operand
                or not (ids.shape == indices if ids.__class__ is ndarray
                        else isinstance(ids, generic) and not indices)):
            return general(x, ids, new)
        result = x.copy()  # C order, as the general path's np.array(x, order="C")
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

    return kernel


register_bind_hook(bind_scatter_element, 59)
