"""`gather` and `scatter` of any form (batching dimensions included) as one kernel per op,
their index arithmetic computed once when the plan is built (an engine binding hook).

jax emits gathers and scatters with `operand_batching_dims` for vmapped indexing
(`jax.vmap(lambda x, i: x[i])`, `jnp.take_along_axis`, a batched `x.at[i].add(v)`, the LU
pivots loop of `lu_pivots_to_permutation`), and window forms (`x.at[i, 1:3].set(v)`,
`lax.dynamic_slice` as a gather) that the one-axis kernels of specialize_gather.py and
specialize_scatter.py do not take. The general evaluator re-reads the dimension numbers and
rebuilds one index grid per operand dimension on every call: ~70 us per op on an 8x6 operand,
which is most of a batched LU loop.

Every element of a gather's result (a scatter's updates) reads (writes) the operand element
at flat position `base + sum_k start_k * stride_k`: `base` is the part the shapes fix (window
offsets and batching positions, an array of the result's / updates' shape built here), the
sum the part the start indices give (one start vector per batch position, broadcast over the
window). So the kernel is: the start vectors (one transpose or reshape), gather clamping
(the spec's clamp of each start to [0, size - slice_size]) or scatter bounds, one product
with the strides, one add, then `take` (gather) or `ufunc.at` / an assignment (scatter).

Scatter applies the updates in the updates' row-major order and skips an update element
whose operand index is out of bounds in any coordinate, as the general evaluator does
(`gather_scatter._scatter_into`): the same target list in the same order goes to the same
`ufunc.at`, so duplicates combine in the same order and give the same bits; a replacement
keeps the last update of each target. Regions other than one add/mul/max/min/and/or/xor or a
replacement, several operands and quantized element types stay general.

Dynamically shaped tensors (symbolic-shape exports) and `dynamic_gather` (slice sizes as an
operand) get the kernel of each run-time shape met, built on its first use.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ...ir.memory import check_elements
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from ..quiet import switches
from .gather_scatter import _KEEP, _REPLACE, _combiners
from .specialize import ranked_types
from .specialize_gather import _ints
from .specialize_scatter import _distinct, _last_writes

Kernel = Callable[..., Any]
Shape = tuple[int, ...]

# Largest result / updates (elements) whose position table is built here (8 bytes each, and
# as much again per call); larger ones, or ones the memory budget refuses, stay with the
# general evaluator, which reports the refusal when it runs.
_LARGEST = 1 << 21


class _Addressing:
    """Where each grid element (a gather's result, a scatter's updates) lands in the flat
    operand: `base` (the grid's shape) plus the start vectors times `strides`, placed on the
    grid's batch axes (`spread`)."""

    __slots__ = ("base", "strides", "spread", "batch", "perm", "count")

    def __init__(self, base: np.ndarray, strides: list[int], spread: Shape, batch: Shape,
                 perm: list[int] | None, count: int) -> None:
        self.base = base
        self.strides = strides  # per entry of the index vector
        self.spread = spread  # the grid's shape with 1 on the window axes
        self.batch = batch  # the index batch shape
        self.perm = perm  # transposes the indices to batch + (vector,); None: a reshape
        self.count = count  # entries of the index vector

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The start vectors as intp, shape `batch + (count,)`."""
        if self.perm is not None:
            ids = ids.transpose(self.perm)
        return ids.astype(np.intp).reshape(self.batch + (self.count,))


def _strides(shape: Shape) -> list[int]:
    return [math.prod(shape[d + 1:]) for d in range(len(shape))]


def _iota(size: int, axis: int, rank: int) -> np.ndarray:
    shape = [1] * rank
    shape[axis] = size
    return np.arange(size, dtype=np.intp).reshape(shape)


def _affordable(grid: Shape) -> bool:
    """Whether the memory budget allows the position table and its per-call copy."""
    try:
        check_elements(grid, 16, "a gather / scatter position table")
    except EvaluationError:
        return False
    return True


def _addressing(shape: Shape, index_shape: Shape, vector_dim: int, index_map: list[int],
                batching: list[int], index_batching: list[int], window: list[int],
                window_axes: list[int], grid: Shape) -> _Addressing | None:
    """The addressing of a grid whose `window_axes` walk the operand dimensions `window`
    and whose other axes are the index batch dimensions in order; None when the shapes do
    not fit together (the general evaluator reports that)."""
    rank = len(shape)
    if not 0 <= vector_dim <= len(index_shape) or len(batching) != len(index_batching):
        return None
    count = index_shape[vector_dim] if vector_dim < len(index_shape) else 1
    batch = index_shape[:vector_dim] + index_shape[vector_dim + 1:]
    batch_axes = [a for a in range(len(grid)) if a not in window_axes]
    used = [*index_map, *batching, *window]
    if (count != len(index_map) or len(window) != len(window_axes)
            or len(set(window_axes)) != len(window_axes)
            or any(not 0 <= a < len(grid) for a in window_axes)
            or any(not 0 <= d < rank for d in used) or len(set(index_map)) != len(index_map)
            or len(batch_axes) != len(batch)
            or any(grid[a] != n for a, n in zip(batch_axes, batch, strict=True))
            or any(not 0 <= d < len(index_shape) or d == vector_dim for d in index_batching)
            or math.prod(grid) > _LARGEST or not _affordable(grid)):
        return None
    steps = _strides(shape)
    base = np.zeros((1,) * len(grid), np.intp)
    for d, a in zip(window, window_axes, strict=True):
        base = base + _iota(grid[a], a, len(grid)) * steps[d]
    for d, i in zip(batching, index_batching, strict=True):
        axis = batch_axes[i if i < vector_dim else i - 1]
        if grid[axis] != shape[d]:
            return None
        base = base + _iota(grid[axis], axis, len(grid)) * steps[d]
    base = np.array(np.broadcast_to(base, grid), order="C")  # (0-d stays 0-d)
    spread = tuple(n if a in batch_axes else 1 for a, n in enumerate(grid))
    perm = None
    if vector_dim < len(index_shape) - 1 and count > 1:
        perm = [d for d in range(len(index_shape)) if d != vector_dim] + [vector_dim]
    return _Addressing(base, [steps[d] for d in index_map], spread, batch, perm, count)


def _shapes(op: Operation) -> list[Shape] | None:
    types = [*op.operand_types, *op.result_types]
    if not all(isinstance(t, TensorType) and t.is_static for t in types):
        return None
    return [tuple(t.shape) for t in types]  # type: ignore[attr-defined]


def _index_type_ok(dtype: np.dtype) -> bool:
    """Integer start indices intp holds (the general path reads them as int64)."""
    return dtype.kind in "iu" and not (dtype.kind == "u" and dtype.itemsize >= 8)


# ---- gather ---------------------------------------------------------------------------------


def bind_gather_plan(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A planned gather (or dynamic_gather) kernel, or None (the general evaluator)."""
    sliced = op.name == "stablehlo.gather"
    if (not sliced and op.name != "stablehlo.dynamic_gather" or len(op.results) != 1
            or len(op.operands) != (2 if sliced else 3)):
        return None
    dtypes = ranked_types(op)
    dims = kwargs.get("dimension_numbers")
    if (dtypes is None or not _index_type_ok(dtypes[1]) or dtypes[0] != dtypes[-1]
            or dims is None or not hasattr(dims, "get")
            or not sliced and dtypes[2].kind not in "iu"):
        return None
    names = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
             "start_indices_batching_dims", "start_index_map")
    found = [_ints(dims, name) for name in names]
    try:
        vector_dim = int(dims.get("index_vector_dim", 0))
        sizes = [int(v) for v in np.ravel(np.asarray(kwargs.get("slice_sizes")))] if sliced \
            else []
    except (TypeError, ValueError):
        return None
    if any(f is None for f in found):
        return None
    offset, collapsed, batching, index_batching, index_map = (f or [] for f in found)
    dtype = dtypes[0]

    def build(shape: Shape, index_shape: Shape, sizes: list[int], general: Kernel,
              declared: Shape | None = None) -> Kernel | None:
        """The kernel for these operand, index and slice shapes (and the result type's shape
        when static), or None."""
        window = [d for d in range(len(shape)) if d not in collapsed and d not in batching]
        if (len(sizes) != len(shape) or len(offset) != len(window)
                or not 0 <= vector_dim <= len(index_shape)
                or any(not 0 <= k <= n for k, n in zip(sizes, shape, strict=True))):
            return None
        batch = iter(index_shape[:vector_dim] + index_shape[vector_dim + 1:])
        rank = len(index_shape) - (vector_dim < len(index_shape)) + len(offset)
        result = tuple(sizes[window[offset.index(a)]] if a in offset else next(batch, -1)
                       for a in range(rank))
        if -1 in result or next(batch, None) is not None or declared not in (None, result):
            return None
        if any(sizes[d] == 0 for d in (*collapsed, *batching)) or 0 in result:
            # (an empty slice along a collapsed dimension: zeros, as the general path gives)
            return _fixed_kernel(shape, index_shape, result, dtype, general)
        plan = _addressing(shape, index_shape, vector_dim, index_map, batching,
                           index_batching, window, offset, result)
        if plan is None:
            return None
        highest = [max(shape[d] - sizes[d], 0) for d in index_map]
        return _gather_kernel(plan, shape, index_shape, highest, general)

    general = bind_after(bind_gather_plan, op, opdef, kwargs)
    shapes = _shapes(op)
    if sliced and shapes is not None:
        return build(shapes[0], shapes[1], sizes, general, shapes[2])
    return _per_shape_gather(build, sizes if sliced else None, general)


def _per_shape_gather(build: Callable[..., Kernel | None], sizes: list[int] | None,
                      general: Kernel) -> Kernel:
    """A gather of dynamically shaped tensors (a symbolic-shape export), or a dynamic_gather
    (`sizes` None: its slice sizes are an operand): the planned kernel of each run-time
    shape met (a few kept), built on its first use; shapes it does not take go to
    `general`."""
    built: dict[tuple[Any, ...], Kernel] = {}
    array = np.ndarray

    def kernel(table: Any, ids: Any, *rest: Any) -> Any:
        if table.__class__ is not array or ids.__class__ is not array or (
                rest and rest[0].__class__ is not array):
            return general(table, ids, *rest)
        slices = sizes if sizes is not None else rest[0].reshape(-1).tolist()
        key = (table.shape, ids.shape, *slices)
        bound = built.get(key)
        if bound is None:
            fixed = rest[0].copy() if rest else None

            def fallback(t: Any, i: Any) -> Any:
                return general(t, i) if fixed is None else general(t, i, fixed)
            bound = build(table.shape, ids.shape, slices, fallback) or fallback
            if len(built) < 8:
                built[key] = bound
        return bound(table, ids)
    return kernel


def _fixed_kernel(shape: Shape, index_shape: Shape, result: Shape, dtype: np.dtype,
                  general: Kernel) -> Kernel:
    """An empty result, or one of zeros (every slice empty along a collapsed dimension)."""
    zeros, array = np.zeros, np.ndarray

    def kernel(table: Any, ids: Any) -> Any:
        if (table.__class__ is not array or ids.__class__ is not array
                or table.shape != shape or ids.shape != index_shape):
            return general(table, ids)
        return zeros(result, dtype)
    return kernel


def _gather_kernel(plan: _Addressing, shape: Shape, index_shape: Shape, highest: list[int],
                   general: Kernel) -> Kernel:
    """Clamp the starts, place them on the result's batch axes, add the fixed offsets and
    take the elements from the flat operand."""
    base, spread, array = plan.base, plan.spread, np.ndarray
    maximum, minimum, take = np.maximum, np.minimum, np.take
    if plan.count == 1 and spread:
        top, step = highest[0], plan.strides[0]

        def one(table: Any, ids: Any) -> Any:
            if (table.__class__ is not array or ids.__class__ is not array
                    or table.shape != shape or ids.shape != index_shape):
                return general(table, ids)
            starts = ids.astype(np.intp).reshape(spread)
            maximum(starts, 0, out=starts)
            minimum(starts, top, out=starts)
            if step != 1:
                starts *= step
            return take(table, base + starts, mode="clip")
        return one
    tops = np.array(highest, np.intp)
    steps = np.array(plan.strides, np.intp)

    def kernel(table: Any, ids: Any) -> Any:
        if (table.__class__ is not array or ids.__class__ is not array
                or table.shape != shape or ids.shape != index_shape):
            return general(table, ids)
        starts = plan.vectors(ids)
        maximum(starts, 0, out=starts)
        minimum(starts, tops, out=starts)
        return take(table, base + (starts @ steps).reshape(spread), mode="clip")

    def point(table: Any, ids: Any) -> Any:  # a 0-d result: an array, not a numpy scalar
        out = kernel(table, ids)
        return out if out.__class__ is array else np.array(out)
    return kernel if spread else point


register_bind_hook(bind_gather_plan, 61,
                   ops=("stablehlo.gather", "stablehlo.dynamic_gather"))


# ---- scatter --------------------------------------------------------------------------------


def bind_scatter_plan(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A planned single-operand scatter kernel, or None (the general evaluator)."""
    if op.name != "stablehlo.scatter" or len(op.operands) != 3 or len(op.results) != 1:
        return None
    dtypes = ranked_types(op)
    dims = kwargs.get("scatter_dimension_numbers")
    if (dtypes is None or not _index_type_ok(dtypes[1])
            or not dtypes[0] == dtypes[2] == dtypes[3] or dims is None
            or not hasattr(dims, "get")):
        return None
    combiners = _combiners(op, 1, [dtypes[0]])
    names = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
             "scatter_indices_batching_dims", "scatter_dims_to_operand_dims")
    found = [_ints(dims, name) for name in names]
    try:
        vector_dim = int(dims.get("index_vector_dim", 0))
    except (TypeError, ValueError):
        return None
    if combiners is None or any(f is None for f in found):
        return None
    window_axes, inserted, batching, index_batching, index_map = (f or [] for f in found)
    combine = combiners[0]

    def build(shape: Shape, index_shape: Shape, updates: Shape,
              general: Kernel) -> Kernel | None:
        """The kernel for these operand, index and update shapes, or None."""
        window = [d for d in range(len(shape)) if d not in inserted and d not in batching]
        if (not updates  # (one element: specialize_scatter's element kernel, else general)
                or len(window) != len(window_axes)
                or any(not 0 <= a < len(updates) for a in window_axes)
                or any(updates[a] > shape[d] for a, d in zip(window_axes, window,
                                                              strict=True))):
            return None
        if 0 in updates or 0 in shape or combine is _KEEP:
            return _copy_kernel(shape, index_shape, updates, general)
        plan = _addressing(shape, index_shape, vector_dim, index_map, batching,
                           index_batching, window, window_axes, updates)
        if plan is None:
            return None
        # Per index entry: the last start whose whole window fits, and the window's offsets
        # along that dimension (0 when the dimension is inserted).
        extents = {d: updates[a] for d, a in zip(window, window_axes, strict=True)}
        limits = [shape[d] - extents.get(d, 1) for d in index_map]
        offsets = [_iota(extents[d], window_axes[window.index(d)], len(updates))
                   if d in extents else None for d in index_map]
        bounds = [shape[d] for d in index_map]
        distinct = len(index_batching) == len(plan.batch) or math.prod(plan.batch) == 1
        return _scatter_kernel(plan, shape, index_shape, updates, limits, offsets, bounds,
                               combine, distinct, general)

    general = bind_after(bind_scatter_plan, op, opdef, kwargs)
    shapes = _shapes(op)
    if shapes is not None:
        return build(shapes[0], shapes[1], shapes[2], general)
    built: dict[tuple[Shape, ...], Kernel] = {}
    array = np.ndarray

    def per_shape(x: Any, ids: Any, new: Any) -> Any:
        """Dynamically shaped tensors: the kernel of each run-time shape met (a few kept),
        built on its first use."""
        if x.__class__ is not array or ids.__class__ is not array or new.__class__ is not array:
            return general(x, ids, new)
        key = (x.shape, ids.shape, new.shape)
        bound = built.get(key)
        if bound is None:
            bound = build(*key, general) or general
            if len(built) < 8:
                built[key] = bound
        return bound(x, ids, new)
    return per_shape


def _copy_kernel(shape: Shape, index_shape: Shape, updates: Shape, general: Kernel) -> Kernel:
    """A scatter that changes nothing: no update elements, an empty operand, or a region
    returning the current value."""

    def kernel(x: Any, ids: Any, new: Any) -> Any:
        if not _expected(x, ids, new, shape, index_shape, updates):
            return general(x, ids, new)
        return x.copy()  # (C order, as the general path's np.array(x, order="C"))
    return kernel


def _expected(x: Any, ids: Any, new: Any, shape: Shape, index_shape: Shape,
              updates: Shape) -> bool:
    array = np.ndarray
    return (x.__class__ is array and ids.__class__ is array and new.__class__ is array
            and x.shape == shape and ids.shape == index_shape and new.shape == updates)


def _scatter_kernel(plan: _Addressing, shape: Shape, index_shape: Shape, updates: Shape,
                    limits: list[int], offsets: list[np.ndarray | None], bounds: list[int],
                    combine: Any, distinct: bool, general: Kernel) -> Kernel:
    """The flat targets of every update element in row-major order, those with an operand
    index out of bounds dropped (a whole-window check on the starts first: usually none
    is), then the region's numpy operation on the flat result. `distinct`: no two update
    elements can share a target (each index batch dimension a batching dimension, or one
    start vector), so a replacement is one assignment."""
    base, spread, size = plan.base, plan.spread, math.prod(shape)
    steps = np.array(plan.strides, np.intp)
    tops = np.array(limits, np.intp).astype(np.uintp)  # (never negative: windows fit)
    quiet, loud = switches()
    unsigned, intp = np.dtype(np.uintp), np.intp

    def outside(starts: np.ndarray, new: Any, flat: np.ndarray) -> tuple[np.ndarray, Any]:
        """The targets and values of the update elements inside the operand."""
        inside = np.ones(updates, np.bool_)
        for k, (offset, bound) in enumerate(zip(offsets, bounds, strict=True)):
            at = starts[..., k].reshape(spread)
            if offset is not None:
                at = at + offset
            inside &= at.view(unsigned) < bound
        return flat[inside], new[inside]

    def many(ids: Any, new: Any) -> tuple[np.ndarray, Any]:
        starts = plan.vectors(ids)
        flat = base + (starts @ steps).reshape(spread)
        if (starts.view(unsigned) > tops).any():  # (negative starts look huge)
            return outside(starts, new, flat)
        return flat.reshape(-1), new.reshape(-1)

    top, step = (limits[0], plan.strides[0]) if plan.count == 1 else (0, 1)

    def one(ids: Any, new: Any) -> tuple[np.ndarray, Any]:  # one entry per index vector
        starts = ids.astype(intp).reshape(spread)
        flat = base + (starts * step if step != 1 else starts)
        if starts.view(unsigned).max() > top:
            return outside(starts[..., None], new, flat)
        return flat.reshape(-1), new.reshape(-1)

    targets_of = one if plan.count == 1 and spread else many

    def kernel(x: Any, ids: Any, new: Any) -> Any:
        if not _expected(x, ids, new, shape, index_shape, updates):
            return general(x, ids, new)
        out = x.copy()
        targets, values = targets_of(ids, new)
        if not targets.size:
            return out
        result = out.reshape(-1)
        if combine is _REPLACE:
            if distinct or _distinct(targets, size):
                result[targets] = values
            else:
                last = _last_writes(targets, size)
                result[targets[last]] = values[last]
            return out
        token = quiet()
        try:
            combine.at(result, targets, values)
        finally:
            loud(token)
        return out
    return kernel


register_bind_hook(bind_scatter_plan, 61, ops=("stablehlo.scatter",))
