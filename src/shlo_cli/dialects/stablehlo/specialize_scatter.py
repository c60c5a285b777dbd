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
