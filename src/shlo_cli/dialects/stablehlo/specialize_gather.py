"""`gather` of whole slices along one axis (an embedding lookup, a column gather),
specialized once per op when the plan is built (an engine binding hook).

`jnp.take(table, ids, axis=a)` and `table[ids]` export as a gather whose slices span every
dimension but one: `start_index_map = [a]`, slice sizes the operand's with 1 at `a`, and
`a` collapsed (or kept as a unit dimension of the result). The general evaluator builds
the spec's full index grids for that (hundreds of microseconds for a 32-token lookup); it
is `np.take(..., axis=a)` with the start indices clamped into the operand (`mode="clip"`:
the spec clamps each start index to [0, size - 1] for a one-wide slice; the other
dimensions start at 0), which returns a fresh C-ordered array of the same elements with
the batch dimensions where axis `a` was. When the result puts them elsewhere
(`offset_dims`), a transposed C-ordered copy. Anything else, or operands of other shapes,
goes to the general evaluator.

A gather of single points along several axes (`img[ys, xs]`, jnp's multi-axis indexing:
those axes collapsed, the others whole) is `np.ravel_multi_index(..., mode="clip")` (each
index clamped to [0, size - 1], as the spec clamps a one-wide slice's start) and one
`np.take` of the operand's rows, the indexed axes moved first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from .specialize import _native_types

Kernel = Callable[..., Any]


def _ints(dims: Any, name: str) -> list[int] | None:
    try:
        return [int(v) for v in dims.get(name, None) or ()]
    except (TypeError, ValueError, AttributeError):
        return None


def index_batch(vector_dim: int, index_shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The batch shape of one-element index vectors along `vector_dim` (the last dimension
    of size 1, or past the last), else None."""
    if vector_dim == len(index_shape):
        return index_shape
    if vector_dim == len(index_shape) - 1 and index_shape[-1] == 1:
        return index_shape[:-1]
    return None


def _take_layout(axis: int, batch: int, rank: int, kept: bool,
                 offset: list[int]) -> list[int] | None:
    """For each result dimension, its dimension in `np.take(operand, ids, axis)` (operand
    dimensions before `axis`, the `batch` index dimensions, a unit dimension standing for
    `axis` when it is `kept` as a one-wide slice dimension, then the rest), when the slice
    dimensions sit at `offset`; else None."""
    extra = 1 if kept else 0
    dims = batch + rank - 1 + extra
    if len(offset) != rank - 1 + extra or sorted(set(offset)) != offset or any(
            not 0 <= d < dims for d in offset):
        return None
    slices = [d if d < axis else d + batch + extra - 1 for d in range(rank)
              if d != axis or kept]
    layout, seen = [], 0
    for d in range(dims):
        if d in offset:
            layout.append(slices[offset.index(d)])
        else:
            layout.append(axis + seen)
            seen += 1
    return layout


def bind_gather(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A one-axis gather kernel, or None (the general evaluator)."""
    if op.name != "stablehlo.gather" or len(op.operands) != 2 or len(op.results) != 1:
        return None
    dtypes = _native_types(op)
    if dtypes is None or dtypes[1].kind not in "iu" or dtypes[0] != dtypes[2]:
        return None
    operand, indices, result = op.operand_types[0], op.operand_types[1], op.result_types[0]
    assert isinstance(operand, TensorType) and isinstance(indices, TensorType)
    assert isinstance(result, TensorType)
    dims = kwargs.get("dimension_numbers")
    if dims is None or not hasattr(dims, "get"):
        return None
    offset, collapsed = _ints(dims, "offset_dims"), _ints(dims, "collapsed_slice_dims")
    index_map = _ints(dims, "start_index_map")
    batching = _ints(dims, "operand_batching_dims")
    index_batching = _ints(dims, "start_indices_batching_dims")
    try:
        vector_dim = int(dims.get("index_vector_dim", 0))
        sizes = [int(v) for v in np.ravel(np.asarray(kwargs.get("slice_sizes")))]
    except (TypeError, ValueError):
        return None
    shape, index_shape = tuple(operand.shape), tuple(indices.shape)
    if (offset is not None and collapsed is not None and index_map is not None
            and len(index_map) > 1 and not batching and not index_batching
            and (dtypes[1].itemsize < 8 or dtypes[1].kind == "i")):  # (intp holds them)
        return _points(op, opdef, kwargs, shape, index_shape, tuple(result.shape), offset,
                       collapsed, index_map, vector_dim, sizes)
    if (offset is None or collapsed not in ([], index_map) or index_map is None
            or len(index_map) != 1 or batching or index_batching):
        return None
    axis, kept = index_map[0], not collapsed
    if (not 0 <= axis < len(shape) or shape[axis] == 0
            or sizes != [1 if d == axis else n for d, n in enumerate(shape)]):
        return None
    batch = index_batch(vector_dim, index_shape)
    if batch is None:
        return None
    layout = _take_layout(axis, len(batch), len(shape), kept, offset)
    picks = batch + (1,) * kept
    taken = shape[:axis] + picks + shape[axis + 1:]
    if layout is None or tuple(result.shape) != tuple(taken[d] for d in layout):
        return None
    general = bind_after(bind_gather, op, opdef, kwargs)
    return _take_kernel(shape, index_shape, picks, axis, layout, general)


def _take_kernel(shape: tuple[int, ...], index_shape: tuple[int, ...],
                 picks: tuple[int, ...], axis: int, layout: list[int],
                 general: Kernel) -> Kernel:
    """`np.take` along `axis` with clamped indices (as an array of shape `picks`),
    transposed to the result's layout."""
    take, transpose, contiguous = np.take, np.transpose, np.ascontiguousarray
    same = layout == list(range(len(layout)))
    if math.prod(index_shape) == 1:
        return _one_take(shape, index_shape, picks, axis, layout, general)

    def kernel(table: Any, ids: Any) -> Any:
        if (table.__class__ is not np.ndarray or ids.__class__ is not np.ndarray
                or table.shape != shape or ids.shape != index_shape):
            return general(table, ids)
        out = take(table, ids.reshape(picks), axis=axis, mode="clip")
        return out if same else contiguous(transpose(out, layout))
    return kernel


def _one_take(shape: tuple[int, ...], index_shape: tuple[int, ...],
              picks: tuple[int, ...], axis: int, layout: list[int],
              general: Kernel) -> Kernel:
    """`_take_kernel` of a single index (`x[:, i]` with a traced `i`, jnp's dynamic
    indexing): the one-wide window at the clamped index, a basic slice (a view where it
    is contiguous, as a static slice's kernel returns; else a copy), not a take."""
    top = shape[axis] - 1
    before: tuple[slice, ...] = (slice(None),) * axis
    taken = shape[:axis] + picks + shape[axis + 1:]
    same = layout == list(range(len(layout)))
    array = np.ndarray

    def kernel(table: Any, ids: Any) -> Any:
        if (table.__class__ is not array or ids.__class__ is not array
                or table.shape != shape or ids.shape != index_shape):
            return general(table, ids)
        i = ids.item()
        if i < 0:
            i = 0
        elif i > top:
            i = top
        out = table[before + (slice(i, i + 1),)].reshape(taken)
        if not same:
            out = out.transpose(layout)
        flags = out.flags
        return out if flags.c_contiguous and flags.writeable else np.array(out, order="C")
    return kernel


def _points(op: Operation, opdef: Any, kwargs: dict[str, Any], shape: tuple[int, ...],
            index_shape: tuple[int, ...], result: tuple[int, ...], offset: list[int],
            collapsed: list[int], index_map: list[int], vector_dim: int,
            sizes: list[int]) -> Kernel | None:
    """A gather of single points along the `index_map` axes (collapsed), the other axes
    whole: the clamped flat positions of the points in the operand with those axes first,
    then one take of its rows; or None."""
    picked = len(index_map)
    rest = [d for d in range(len(shape)) if d not in index_map]
    if (sorted(collapsed) != sorted(index_map) or len(set(index_map)) != picked
            or any(not 0 <= d < len(shape) or shape[d] == 0 for d in index_map)
            or sizes != [1 if d in index_map else n for d, n in enumerate(shape)]
            or not 0 <= vector_dim < len(index_shape) or index_shape[vector_dim] != picked
            or offset != sorted(set(offset)) or len(offset) != len(rest)):
        return None
    batch = index_shape[:vector_dim] + index_shape[vector_dim + 1:]
    rank = len(batch) + len(rest)
    if any(not 0 <= d < rank for d in offset):
        return None
    batch_dims = [d for d in range(rank) if d not in offset]
    layout = [len(batch) + offset.index(d) if d in offset else batch_dims.index(d)
              for d in range(rank)]
    taken = batch + tuple(shape[d] for d in rest)
    if result != tuple(taken[d] for d in layout):
        return None
    order = (*index_map, *rest)
    rows = (math.prod(shape[d] for d in index_map), *(shape[d] for d in rest))
    extents = tuple(shape[d] for d in index_map)
    same = layout == list(range(rank))
    general = bind_after(bind_gather, op, opdef, kwargs)
    ravel, take, moveaxis = np.ravel_multi_index, np.take, np.moveaxis

    def kernel(table: Any, ids: Any) -> Any:
        if (table.__class__ is not np.ndarray or ids.__class__ is not np.ndarray
                or table.shape != shape or ids.shape != index_shape):
            return general(table, ids)
        flat = ravel(moveaxis(ids, vector_dim, 0), extents, mode="clip")
        out = take(table.transpose(order).reshape(rows), flat, axis=0)
        return out if same else np.ascontiguousarray(out.transpose(layout))
    return kernel


register_bind_hook(bind_gather, 60, ops=("stablehlo.gather",))
