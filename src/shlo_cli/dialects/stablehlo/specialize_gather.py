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
"""

from __future__ import annotations

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

    def kernel(table: Any, ids: Any) -> Any:
        if (table.__class__ is not np.ndarray or ids.__class__ is not np.ndarray
                or table.shape != shape or ids.shape != index_shape):
            return general(table, ids)
        out = take(table, ids.reshape(picks), axis=axis, mode="clip")
        return out if same else contiguous(transpose(out, layout))
    return kernel


register_bind_hook(bind_gather, 60)
