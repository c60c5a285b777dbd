"""`gather` of whole rows along the first axis (an embedding lookup), specialized once per op
when the plan is built (an engine binding hook).

`jnp.take(table, ids, axis=0)` and `table[ids]` export as a gather whose slices are whole
rows: `collapsed_slice_dims = start_index_map = [0]`, slice sizes `[1, rest...]`, the row
dimensions last in the result. The general evaluator builds the spec's full index grids
for that (hundreds of microseconds for a 32-token lookup); it is `np.take` with the start
indices clamped into the table (`mode="clip"`: the spec clamps each start index to
[0, rows - 1] for a one-row slice), which returns a fresh C-ordered array of the same
elements. Anything else, or operands of other shapes, goes to the general evaluator.
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


def bind_gather(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A row-gather kernel, or None (the general evaluator)."""
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
    if (collapsed != [0] or index_map != [0] or batching or index_batching
            or not shape or shape[0] == 0 or sizes != [1, *shape[1:]]):
        return None
    batch = index_batch(vector_dim, index_shape)
    if batch is None:
        return None
    if offset != list(range(len(batch), len(batch) + len(shape) - 1)):
        return None
    if tuple(result.shape) != batch + shape[1:]:
        return None
    general = bind_after(bind_gather, op, opdef, kwargs)
    take = np.take

    def kernel(table: Any, ids: Any) -> Any:
        if (table.__class__ is not np.ndarray or ids.__class__ is not np.ndarray
                or table.shape != shape or ids.shape != index_shape):
            return general(table, ids)
        return take(table, ids.reshape(batch), axis=0, mode="clip")
    return kernel


register_bind_hook(bind_gather, 60)
