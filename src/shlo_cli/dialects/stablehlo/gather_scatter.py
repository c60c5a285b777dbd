"""`stablehlo.gather` and `stablehlo.scatter` (printed in generic form, as upstream does).

Both ops map every element of the result (gather) or of the updates (scatter) to an operand
index. The evaluators build that map for all elements at once as integer index arrays, laid
out "batch dimensions first, then window dimensions", and then use numpy fancy indexing.

Scatter applies `update_computation` to elements in the row-major order of `updates`, as the
reference interpreter does. When the region is a single known binary op (or returns the
update / the current value) a numpy `ufunc.at` or a direct assignment does the work; any other
region runs vectorized in rounds, each round holding at most one update per result element, so
duplicate indices are still combined in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...interpreter.engine import EvaluationError
from ...ir.core import Operation, Value
from ...ir.diagnostics import Diagnostic
from ...ir.types import TensorType, numpy_dtype
from ..registry import define_op
from .data_movement import result_array

# ---- index maps -----------------------------------------------------------------------------


def _field(dims: Any, name: str) -> list[int]:
    value = dims.get(name, []) if dims is not None else []
    return [int(v) for v in value]


def _index_vectors(indices: np.ndarray, index_vector_dim: int) -> np.ndarray:
    """The index tensor as `batch shape + (index vector,)`."""
    as_int = indices.astype(np.int64)
    if index_vector_dim == as_int.ndim:
        as_int = as_int[..., None]
    return np.moveaxis(as_int, index_vector_dim, -1)


def _axis_iota(size: int, axis: int, rank: int) -> np.ndarray:
    shape = [1] * rank
    shape[axis] = size
    return np.arange(size, dtype=np.int64).reshape(shape)


def _operand_indices(operand_shape: Sequence[int], vectors: np.ndarray, index_map: list[int],
                     operand_batching_dims: list[int], indices_batching_dims: list[int],
                     index_vector_dim: int, window_dims: list[int], window_shape: list[int],
                     clamp_to: Sequence[int] | None) -> list[np.ndarray]:
    """For each operand dimension, its index for every element of the `batch + window` grid:
    start index (clamped to `operand_shape - clamp_to` when given) + batching index + window
    offset."""
    batch_shape = vectors.shape[:-1]
    nb = len(batch_shape)
    rank = nb + len(window_shape)
    grid = tuple(batch_shape) + tuple(window_shape)
    out = []
    for d, size in enumerate(operand_shape):
        index = np.zeros((1,) * rank, dtype=np.int64)
        if d in index_map:
            start = vectors[..., index_map.index(d)]
            if clamp_to is not None:
                start = np.clip(start, 0, max(size - clamp_to[d], 0))
            index = index + start.reshape(tuple(batch_shape) + (1,) * len(window_shape))
        if d in operand_batching_dims:
            dim = indices_batching_dims[operand_batching_dims.index(d)]
            axis = dim if dim < index_vector_dim else dim - 1
            index = index + _axis_iota(batch_shape[axis], axis, rank)
        if d in window_dims:
            j = window_dims.index(d)
            index = index + _axis_iota(window_shape[j], nb + j, rank)
        out.append(np.broadcast_to(index, grid))
    return out


def _layout(dims: int, batch_dims: list[int], window_dims: list[int]) -> list[int]:
    """For each axis of a `dims`-rank tensor, its axis in the `batch + window` grid."""
    return [batch_dims.index(a) if a in batch_dims else len(batch_dims) + window_dims.index(a)
            for a in range(dims)]


# ---- gather ---------------------------------------------------------------------------------


@define_op("stablehlo.gather",
           properties=("dimension_numbers", "slice_sizes", "indices_are_sorted"))
def gather(operand: np.ndarray, start_indices: np.ndarray, *, dimension_numbers: Any,
           slice_sizes: Any, indices_are_sorted: Any, result_type: TensorType) -> np.ndarray:
    """result[result_index] = operand[full_start_index + full_batching_index +
    full_offset_index], the start index clamped so the whole slice is in bounds."""
    sizes = [int(x) for x in np.ravel(np.asarray(slice_sizes))]
    return _gather(operand, start_indices, dimension_numbers, sizes, result_type)


@define_op("stablehlo.dynamic_gather",
           properties=("dimension_numbers", "indices_are_sorted"))
def dynamic_gather(operand: np.ndarray, start_indices: np.ndarray, slice_sizes: np.ndarray, *,
                   dimension_numbers: Any, indices_are_sorted: Any,
                   result_type: TensorType) -> np.ndarray:
    """gather with `slice_sizes` given as a tensor."""
    sizes = [int(x) for x in np.asarray(slice_sizes).astype(np.int64).reshape(-1)]
    return _gather(operand, start_indices, dimension_numbers, sizes, result_type)


def _gather(operand: np.ndarray, start_indices: np.ndarray, dims: Any, sizes: list[int],
            result_type: TensorType) -> np.ndarray:
    """The spec's gather with the slice sizes already decoded."""
    offset_dims = _field(dims, "offset_dims")
    collapsed_slice_dims = _field(dims, "collapsed_slice_dims")
    operand_batching_dims = _field(dims, "operand_batching_dims")
    start_indices_batching_dims = _field(dims, "start_indices_batching_dims")
    start_index_map = _field(dims, "start_index_map")
    index_vector_dim = int(dims.get("index_vector_dim", 0)) if dims is not None else 0
    if len(sizes) != operand.ndim:
        raise EvaluationError("slice_sizes must have one entry per operand dimension")
    vectors = _index_vectors(start_indices, index_vector_dim)
    # Offset dimensions of the result walk the non-collapsed, non-batching slice dimensions.
    offset_operand_dims = [d for d in range(operand.ndim)
                           if d not in collapsed_slice_dims and d not in operand_batching_dims]
    window_shape = [sizes[d] for d in offset_operand_dims]
    rank = vectors.ndim - 1 + len(window_shape)
    batch_dims = [d for d in range(rank) if d not in offset_dims]
    if (len(offset_dims) != len(window_shape) or vectors.ndim - 1 != len(batch_dims)
            or vectors.shape[-1] != len(start_index_map)):
        raise EvaluationError("start_indices do not match the result's batch dimensions")
    index = _operand_indices(operand.shape, vectors, start_index_map, operand_batching_dims,
                             start_indices_batching_dims, index_vector_dim,
                             offset_operand_dims, window_shape, clamp_to=sizes)
    grid = operand[tuple(index)] if operand.ndim else np.broadcast_to(
        operand, vectors.shape[:-1] + tuple(window_shape))
    result = np.transpose(grid, _layout(rank, batch_dims, offset_dims))
    return result_array(result, result_type)


# ---- scatter: how the update computation combines values ------------------------------------

# Known single-op regions: (ufunc for numbers, ufunc for i1).
_UFUNCS: dict[str, tuple[np.ufunc, np.ufunc]] = {
    "stablehlo.add": (np.add, np.logical_or),
    "stablehlo.multiply": (np.multiply, np.logical_and),
    "stablehlo.maximum": (np.maximum, np.logical_or),
    "stablehlo.minimum": (np.minimum, np.logical_and),
    "stablehlo.and": (np.bitwise_and, np.logical_and),
    "stablehlo.or": (np.bitwise_or, np.logical_or),
    "stablehlo.xor": (np.bitwise_xor, np.logical_xor),
}
_KEEP = "keep"
_REPLACE = "replace"


def _combiners(op: Operation, n: int, dtypes: list[np.dtype]) -> list[Any] | None:
    """Per result: `_KEEP`, `_REPLACE` or a ufunc when the region is that simple, else None."""
    if not op.regions or len(op.regions[0].blocks) != 1:
        return None
    block = op.regions[0].entry
    args = block.arguments
    if len(args) != 2 * n or not block.operations:
        return None
    *body, terminator = block.operations
    if len(terminator.operands) != n:
        return None
    producers: dict[int, Operation] = {id(o.results[0]): o for o in body if len(o.results) == 1}
    used: set[int] = set()
    found: list[Any] = []
    for i, value in enumerate(terminator.operands):
        found.append(_combiner(value, args[i], args[n + i], producers, used, dtypes[i]))
        if found[-1] is None:
            return None
    return found if len(used) == len(body) else None


def _combiner(value: Value, current: Value, update: Value, producers: dict[int, Operation],
              used: set[int], dtype: np.dtype) -> Any:
    if value is update:
        return _REPLACE
    if value is current:
        return _KEEP
    producer = producers.get(id(value))
    if producer is None or producer.name not in _UFUNCS or len(producer.operands) != 2:
        return None
    if {id(v) for v in producer.operands} != {id(current), id(update)}:
        return None
    if current.type != update.type or np.dtype(dtype) != numpy_dtype(current.type.element):
        return None
    number_fn, bool_fn = _UFUNCS[producer.name]
    if dtype == np.bool_:
        fn = bool_fn
    elif np.issubdtype(dtype, np.complexfloating) and number_fn in (np.maximum, np.minimum):
        return None
    elif not np.issubdtype(dtype, np.integer) and number_fn in (
            np.bitwise_and, np.bitwise_or, np.bitwise_xor):
        return None
    else:
        fn = number_fn
    used.add(id(producer))
    return fn


def _occurrence(targets: np.ndarray) -> np.ndarray:
    """For each target, how many earlier entries name the same target."""
    n = targets.size
    order = np.argsort(targets, kind="stable")
    ordered = targets[order]
    first = np.ones(n, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - group_start
    return rank


def _last_occurrences(targets: np.ndarray) -> np.ndarray:
    """Positions of the final entry for each distinct target (later updates win)."""
    order = np.argsort(targets, kind="stable")
    ordered = targets[order]
    last = np.ones(targets.size, dtype=bool)
    last[:-1] = ordered[:-1] != ordered[1:]
    return order[last]


def _apply_in_rounds(results: list[np.ndarray], updates: list[np.ndarray],
                     targets: np.ndarray, region: Callable[..., list[Any]]) -> None:
    """Run the region on whole arrays, one round per level of target repetition."""
    rank = _occurrence(targets)
    for level in range(int(rank.max()) + 1 if rank.size else 0):
        chosen = np.flatnonzero(rank == level)
        where = targets[chosen]
        args = [r[where] for r in results] + [u[chosen] for u in updates]
        try:
            values = _call_region(region, args, where.shape, [r.dtype for r in results])
        except Diagnostic:
            # A region op whose kernel only takes 0-d tensors: run this round's updates one
            # by one (any genuine error recurs there and propagates).
            values = _call_elementwise(region, args, [r.dtype for r in results])
        for r, v in zip(results, values, strict=True):
            r[where] = v


def _call_region(region: Callable[..., list[Any]], args: list[np.ndarray],
                 shape: tuple[int, ...], dtypes: list[np.dtype]) -> list[np.ndarray]:
    values = region(*args)
    if len(values) != len(dtypes):
        raise EvaluationError("update_computation returned the wrong number of values")
    return [np.broadcast_to(np.asarray(v, dtype=dt), shape) for v, dt in zip(values, dtypes,
                                                                             strict=True)]


def _call_elementwise(region: Callable[..., list[Any]], args: list[np.ndarray],
                      dtypes: list[np.dtype]) -> list[np.ndarray]:
    out = [np.empty(args[0].shape, dtype=dt) for dt in dtypes]
    for i in range(args[0].size):
        values = _call_region(region, [a[i] for a in args], (), dtypes)
        for o, v in zip(out, values, strict=True):
            o[i] = v
    return out


# ---- scatter --------------------------------------------------------------------------------


@define_op("stablehlo.scatter",
           properties=("scatter_dimension_numbers", "indices_are_sorted", "unique_indices"),
           regions=("update_computation",))
def scatter(*operands: np.ndarray, scatter_dimension_numbers: Any, indices_are_sorted: Any,
            unique_indices: Any, update_computation: Callable[..., list[Any]], op: Operation,
            result_types: list[TensorType]) -> np.ndarray | list[np.ndarray]:
    """results = inputs, then for every update element (row-major) whose result_index =
    full_start_index + full_batching_index + full_window_index is in bounds:
    results[result_index] = update_computation(results[result_index], updates[update_index])."""
    n = (len(operands) - 1) // 2
    inputs, scatter_indices, updates = operands[:n], operands[n], operands[n + 1:]
    dtypes = [numpy_dtype(t.element) for t in result_types]
    results = [np.array(x, dtype=dt, order="C") for x, dt in zip(inputs, dtypes, strict=True)]
    _scatter_into(results, scatter_indices, updates, scatter_dimension_numbers,
                  update_computation, op)
    return results[0] if n == 1 else results


def _scatter_into(results: list[np.ndarray], scatter_indices: np.ndarray,
                  updates: Sequence[np.ndarray], dims: Any,
                  update_computation: Callable[..., list[Any]], op: Operation) -> None:
    """Apply every in-bounds update to `results` in place."""
    n = len(results)
    dtypes = [r.dtype for r in results]
    update_window_dims = _field(dims, "update_window_dims")
    inserted_window_dims = _field(dims, "inserted_window_dims")
    input_batching_dims = _field(dims, "input_batching_dims")
    scatter_indices_batching_dims = _field(dims, "scatter_indices_batching_dims")
    scatter_dims_to_operand_dims = _field(dims, "scatter_dims_to_operand_dims")
    index_vector_dim = int(dims.get("index_vector_dim", 0)) if dims is not None else 0
    if not updates or updates[0].size == 0 or results[0].size == 0:
        return
    update_shape = updates[0].shape
    update_scatter_dims = [d for d in range(len(update_shape)) if d not in update_window_dims]
    vectors = _index_vectors(scatter_indices, index_vector_dim)
    if vectors.shape[:-1] != tuple(update_shape[d] for d in update_scatter_dims):
        raise EvaluationError("scatter_indices do not match the updates' scatter dimensions")
    window_operand_dims = [d for d in range(results[0].ndim)
                           if d not in inserted_window_dims and d not in input_batching_dims]
    window_shape = [update_shape[d] for d in update_window_dims]
    grid_index = _operand_indices(results[0].shape, vectors, scatter_dims_to_operand_dims,
                                  input_batching_dims, scatter_indices_batching_dims,
                                  index_vector_dim, window_operand_dims, window_shape,
                                  clamp_to=None)
    # Back to the updates' own layout so that ravel() walks update indices row-major.
    layout = _layout(len(update_shape), update_scatter_dims, update_window_dims)
    result_index = [np.transpose(ix, layout).ravel() for ix in grid_index]
    in_bounds = np.ones(updates[0].size, dtype=bool)
    for ix, size in zip(result_index, results[0].shape, strict=True):
        in_bounds &= (ix >= 0) & (ix < size)
    chosen = np.flatnonzero(in_bounds)
    if chosen.size == 0:
        return
    targets = (np.ravel_multi_index([ix[chosen] for ix in result_index], results[0].shape)
               if results[0].ndim else np.zeros(chosen.size, dtype=np.int64))
    values = [u.reshape(-1)[chosen].astype(dt, copy=False)
              for u, dt in zip(updates, dtypes, strict=True)]
    flat = [r.reshape(-1) for r in results]
    combiners = _combiners(op, n, dtypes)
    if combiners is None:
        _apply_in_rounds(flat, values, targets, update_computation)
        return
    for result, value, combine in zip(flat, values, combiners, strict=True):
        if combine is _KEEP:
            continue
        if combine is _REPLACE:
            last = _last_occurrences(targets)
            result[targets[last]] = value[last]
        else:
            with np.errstate(all="ignore"):
                combine.at(result, targets, value)
