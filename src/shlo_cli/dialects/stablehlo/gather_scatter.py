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

from ...ir.attributes import DialectAttr, int_values
from ...ir.core import Operation, Value
from ...ir.diagnostics import Diagnostic, EvaluationError
from ...ir.memory import check_elements
from ...ir.parser import (
    DIALECT_ATTR_PARSERS,
    STRUCT_FIELD_ORDER,
    canonical_fields,
    format_field,
)
from ...ir.record import Record, set_field
from ...ir.types import (
    DYNAMIC,
    ComplexType,
    FloatType,
    IntegerType,
    TensorType,
    Type,
    numpy_dtype,
)
from ...ir.verifier import inference_error, inferred_type_mismatch
from ...lazy_imports import lazy
from ..registry import define_op
from .data_movement import (
    compatible_dim,
    constant_ints,
    op_error,
    require_static_int_tensor,
    result_array,
)
from .dimension_numbers import parse_dimension_struct
from .reducer import is_promotable, verify_reducer_arity

Fail = Callable[[str], Diagnostic]  # makes the diagnostic for a failed check

# ---- index maps -----------------------------------------------------------------------------


def _field(dims: Any, name: str) -> list[int]:
    value = dims.get(name, []) if dims is not None else []
    return [int(v) for v in value]


def _index_vector_dim(dims: Any) -> int:
    return int(dims.get("index_vector_dim", 0)) if dims is not None else 0


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
    """For each operand dimension, its index for every element of the `batch + window` grid
    (one int64 array per operand dimension: checked against the memory budget):
    start index (clamped to `operand_shape - clamp_to` when given) + batching index + window
    offset."""
    cells = int(np.prod(vectors.shape[:-1], dtype=np.int64)) * int(np.prod(window_shape,
                                                                           dtype=np.int64))
    check_elements((cells, max(len(operand_shape), 1)), 8, "the index arrays")
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


@define_op("stablehlo.gather", operands=("operand", "start_indices"), results=1,
           attributes=("dimension_numbers", "slice_sizes", "indices_are_sorted?"),
           verify=lambda op: verify_gather(op))
def gather(operand: np.ndarray, start_indices: np.ndarray, *, dimension_numbers: Any,
           slice_sizes: Any, indices_are_sorted: Any, result_type: TensorType) -> np.ndarray:
    """result[result_index] = operand[full_start_index + full_batching_index +
    full_offset_index], the start index clamped so the whole slice is in bounds."""
    sizes = [int(x) for x in np.ravel(np.asarray(slice_sizes))]
    return _gather(operand, start_indices, dimension_numbers, sizes, result_type)


@define_op("stablehlo.dynamic_gather", operands=("operand", "start_indices", "slice_sizes"),
           results=1, attributes=("dimension_numbers", "indices_are_sorted?"),
           verify=lambda op: verify_dynamic_gather(op))
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
    index_vector_dim = _index_vector_dim(dims)
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
    if any(sizes[d] == 0 for d in collapsed_slice_dims + operand_batching_dims):
        # A collapsed dimension of slice size 0: every slice is empty, yet the result keeps
        # its batch elements. The spec's formula would read past the operand there; there is
        # no element to read, so they are zeros (as XLA gives).
        grid = np.zeros(vectors.shape[:-1] + tuple(window_shape), operand.dtype)
    else:
        index = _operand_indices(operand.shape, vectors, start_index_map,
                                 operand_batching_dims, start_indices_batching_dims,
                                 index_vector_dim, offset_operand_dims, window_shape,
                                 clamp_to=sizes)
        grid = operand[tuple(index)] if operand.ndim else np.broadcast_to(
            operand, vectors.shape[:-1] + tuple(window_shape))
    result = np.transpose(grid, _layout(rank, batch_dims, offset_dims))
    return result_array(result, result_type)


# ---- scatter: how the update computation combines values ------------------------------------

# Known single-op regions: (ufunc for numbers, ufunc for i1).
_UFUNCS: dict[str, tuple[np.ufunc, np.ufunc]] = lazy(lambda: {
    "stablehlo.add": (np.add, np.logical_or),
    "stablehlo.multiply": (np.multiply, np.logical_and),
    "stablehlo.maximum": (np.maximum, np.logical_or),
    "stablehlo.minimum": (np.minimum, np.logical_and),
    "stablehlo.and": (np.bitwise_and, np.logical_and),
    "stablehlo.or": (np.bitwise_or, np.logical_or),
    "stablehlo.xor": (np.bitwise_xor, np.logical_xor),
})
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
    element = current.type.element if isinstance(current.type, TensorType) else None
    if (current.type != update.type or not isinstance(element, (IntegerType, FloatType,
                                                                  ComplexType))
            or np.dtype(dtype) != numpy_dtype(element)):
        return None  # quantized (or odd) element types go through the region itself
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


@define_op("stablehlo.scatter", operands=("*inputs", "scatter_indices", "*updates"), results="*",
           attributes=("scatter_dimension_numbers", "indices_are_sorted?", "unique_indices?"),
           regions=("update_computation",), verify=lambda op: verify_scatter(op))
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
    index_vector_dim = _index_vector_dim(dims)
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


# ---- verification (upstream TypeInference.cpp wording and order) ----------------------------


def _dims_text(dims: Sequence[int]) -> str:
    return ", ".join(str(d) for d in dims)


def _in_bounds(fail: Fail, dims: Sequence[int], bound: int, name: str,
               bound_name: str) -> None:
    for d in dims:
        if d < 0 or d >= bound:
            raise fail(f"Expects each element of {name} to be in range [0, {bound_name}) "
                       f"i.e. [0, {bound}). got: {d}.")


def _index_dim_in_bounds(fail: Fail, dim: int, rank: int, rank_name: str) -> None:
    if dim < 0 or dim > rank:
        raise fail(f"Expects index_vector_dim to be in range [0, {rank_name}] "
                   f"i.e. [0, {rank}]. got: {dim}.")


def _distinct(fail: Fail, lhs: Sequence[int], rhs: Sequence[int], lhs_name: str,
              rhs_name: str) -> None:
    seen: set[int] = set()
    for d in (*lhs, *rhs):
        if d in seen:
            raise fail(f"has duplicated dimension from {lhs_name} and {rhs_name}: {d}")
        seen.add(d)


def _shape(t: Type) -> tuple[int, ...]:
    return tuple(t.shape) if isinstance(t, TensorType) else ()


def _sorted(dims: Sequence[int]) -> bool:
    return all(a <= b for a, b in zip(dims, dims[1:], strict=False))


def _unique(dims: Sequence[int]) -> bool:
    return len(set(dims)) == len(dims)


class _Spelling(Record):
    """How one op's upstream verifier names and words the dimension-number checks that scatter
    and gather share: scatter writes sentences ("Expects X to be sorted; got: [..]."), gather
    does not ("expects X to be sorted, got: [..]")."""

    __slots__ = ("window_dims", "operand_batching_dims", "indices_batching_dims", "indices",
                 "sentences")
    window_dims: str  # the operand dimensions the index vectors do not cover
    operand_batching_dims: str
    indices_batching_dims: str
    indices: str  # the index operand
    sentences: bool

    def __init__(self, window_dims: str, operand_batching_dims: str, indices_batching_dims: str,
                 indices: str, sentences: bool) -> None:
        set_field(self, "window_dims", window_dims)
        set_field(self, "operand_batching_dims", operand_batching_dims)
        set_field(self, "indices_batching_dims", indices_batching_dims)
        set_field(self, "indices", indices)
        set_field(self, "sentences", sentences)

    @property
    def end(self) -> str:
        return "." if self.sentences else ""

    def _got(self, dims: Sequence[int]) -> str:
        return f"{'; ' if self.sentences else ', '}got: [{_dims_text(dims)}]{self.end}"

    def _expects(self) -> str:
        return "Expects" if self.sentences else "expects"

    def check_sorted(self, fail: Fail, dims: Sequence[int], name: str) -> None:
        if not _sorted(dims):
            raise fail(f"{self._expects()} {name} to be sorted{self._got(dims)}")

    def check_unique(self, fail: Fail, dims: Sequence[int], name: str) -> None:
        if not _unique(dims):
            raise fail(f"{self._expects()} {name} to not repeat{self._got(dims)}")


_SCATTER = _Spelling("inserted_window_dims", "input_batching_dims",
                     "scatter_indices_batching_dims", "scatter_indices", sentences=True)
_GATHER = _Spelling("collapsed_slice_dims", "operand_batching_dims",
                    "start_indices_batching_dims", "start_indices", sentences=False)


def _verify_batching_dims(fail: Fail, s: _Spelling, operand: Sequence[int],
                          indices: Sequence[int], window_dims: list[int],
                          operand_batching: list[int], indices_batching: list[int],
                          index_vector_dim: int) -> None:
    """The checks scatter and gather share, in upstream's order: the operand's window and
    batching dimensions are disjoint, sorted and in range; the index batching dimensions are
    unique, in range, not the index vector dimension, and pair up with the operand's in number
    and size."""
    _distinct(fail, window_dims, operand_batching, s.window_dims, s.operand_batching_dims)
    s.check_sorted(fail, window_dims, s.window_dims)
    _in_bounds(fail, window_dims, len(operand), s.window_dims, "rank-of('operand')")
    s.check_sorted(fail, operand_batching, s.operand_batching_dims)
    _in_bounds(fail, operand_batching, len(operand), s.operand_batching_dims,
               "rank-of('operand')")
    s.check_unique(fail, indices_batching, s.indices_batching_dims)
    _in_bounds(fail, indices_batching, len(indices), s.indices_batching_dims,
               f"rank-of('{s.indices}')")
    if index_vector_dim in indices_batching:
        raise fail(f"expects {s.indices_batching_dims} not to include index_vector_dim "
                   f"{index_vector_dim}{s.end}")
    if len(operand_batching) != len(indices_batching):
        raise fail(f"{s.operand_batching_dims} and {s.indices_batching_dims} should have the "
                   f"same size{s.end}")
    for i, (d_op, d_idx) in enumerate(zip(operand_batching, indices_batching, strict=True)):
        if not compatible_dim(operand[d_op], indices[d_idx]):
            raise fail(f"{s.operand_batching_dims}[{i}] and {s.indices_batching_dims}[{i}] must "
                       f"have compatible sizes, but got {operand[d_op]} and "
                       f"{indices[d_idx]}{s.end}")


def verify_update_region(op: Operation, input_elements: Sequence[Type],
                         update_types: Sequence[Type]) -> None:
    """The update computation: (E_i..., E_i...) -> (E_i...), E_i widened from the operands."""
    n = len(input_elements)
    if not op.regions or not op.regions[0].blocks:
        raise op_error(op, "expects a non-empty update_computation region")
    block = op.regions[0].entry
    returned = verify_reducer_arity(op, block, n)
    for i in range(n):
        result = returned[i].type
        for index in (i, n + i):
            arg = block.arguments[index].type
            if arg != result:
                raise op_error(op, "The type of reduction-region's parameter at index "
                                   f"{index} is different than the corresponding result type: "
                                   f"'{arg}' vs '{result}'")
        init = TensorType((), update_types[i].element)
        if not is_promotable(init.element, result.element):
            raise op_error(op, "The element-type of reduction-region's result type at index "
                               f"{i} is expected to be promotable from the op's corresponding "
                               f"init-value element-type: '{result}' vs '{init}'")
        arg_element = block.arguments[n + i].type.element
        if not is_promotable(input_elements[i], arg_element):
            raise op_error(op, "The element-type of reduction-region's argument at index "
                               f"{n + i} is expected to be promotable from "
                               f"'{input_elements[i]}', but got '{arg_element}'")


def verify_scatter(op: Operation) -> None:
    """Upstream's scatter checks (scatter_c1..c24), first failure reported. They are the
    op's own verify(), so no 'failed to infer returned types' follows them."""
    if not all(isinstance(v.type, TensorType) for v in op.operands):
        return  # unranked or non-tensor operands are the type constraints' business

    def fail(message: str) -> Diagnostic:
        return op_error(op, message)

    n = (len(op.operands) - 1) // 2
    inputs = [v.type for v in op.operands[:n]]
    indices_type = op.operands[n].type
    updates = [v.type for v in op.operands[n + 1:]]
    dims = op.attr("scatter_dimension_numbers")
    update_window_dims = _field(dims, "update_window_dims")
    inserted_window_dims = _field(dims, "inserted_window_dims")
    input_batching_dims = _field(dims, "input_batching_dims")
    scatter_indices_batching_dims = _field(dims, "scatter_indices_batching_dims")
    scatter_dims_to_operand_dims = _field(dims, "scatter_dims_to_operand_dims")
    index_vector_dim = _index_vector_dim(dims)
    if any(len(_shape(t)) != len(_shape(inputs[0])) or not all(
            compatible_dim(a, b) for a, b in zip(_shape(t), _shape(inputs[0]), strict=False))
           for t in inputs):
        raise fail("Not all inputs have compatible shapes.")
    if any(len(_shape(t)) != len(_shape(updates[0])) or not all(
            compatible_dim(a, b) for a, b in zip(_shape(t), _shape(updates[0]), strict=False))
           for t in updates):
        raise fail("Not all updates have compatible shapes.")
    indices_shape = list(_shape(indices_type))
    _index_dim_in_bounds(fail, index_vector_dim, len(indices_shape), "rank-of('scatter_indices')")
    verify_update_region(op, [t.element for t in inputs], updates)
    expanded = indices_shape + ([1] if index_vector_dim == len(indices_shape) else [])
    for t in updates:
        expected = len(expanded) - 1 + len(update_window_dims)
        if len(_shape(t)) != expected:
            raise fail(f"expects updates tensor must be of rank {expected} ( == "
                       "rank-of('scatter_indices') - 1 + size-of('update_window_dims'), "
                       "where 'scatter_indices' is expanded by a trailing 1 dimension if "
                       "'index_vector_dim' == rank-of('scatter_indices')), but got "
                       f"{len(_shape(t))}.")
    for operand, update in zip(inputs, updates, strict=True):
        _verify_scatter_dims(fail, _shape(operand), expanded, _shape(update), update_window_dims,
                             inserted_window_dims, input_batching_dims,
                             scatter_indices_batching_dims, scatter_dims_to_operand_dims,
                             index_vector_dim)
    for operand, update in zip(inputs, updates, strict=True):
        _verify_scatter_bounds(fail, _shape(operand), expanded, _shape(update), update_window_dims,
                               inserted_window_dims, input_batching_dims, index_vector_dim)
    # Results: the inputs' shapes with the update computation's (possibly wider) types.
    returned = op.regions[0].entry.terminator.operands
    inferred = [t.with_element(v.type.element) for t, v in zip(inputs, returned, strict=True)]
    actual = [r.type for r in op.results]
    if len(actual) != len(inferred) or not all(
            isinstance(a, TensorType) and a.element == i.element and len(a.shape) == len(i.shape)
            and all(compatible_dim(x, y) for x, y in zip(a.shape, i.shape, strict=True))
            for a, i in zip(actual, inferred, strict=False)):
        raise inferred_type_mismatch(op, ", ".join(f"'{t}'" for t in inferred))


def _verify_scatter_dims(fail: Fail, operand: tuple[int, ...], indices: list[int],
                         update: tuple[int, ...], update_window_dims: list[int],
                         inserted_window_dims: list[int], input_batching_dims: list[int],
                         indices_batching_dims: list[int], to_operand: list[int],
                         index_vector_dim: int) -> None:
    window = len(update_window_dims) + len(inserted_window_dims) + len(input_batching_dims)
    if len(operand) != window:
        raise fail("Expects rank-of operand to match size-of('update_window_dims') + "
                   "size-of('inserted_window_dims') + size-of('input_batching_dims') "
                   f"i.e. {window} but got {len(operand)}.")
    _SCATTER.check_sorted(fail, update_window_dims, "update_window_dims")
    _SCATTER.check_unique(fail, update_window_dims, "update_window_dims")
    _in_bounds(fail, update_window_dims, len(update), "update_window_dims", "rank-of('updates')")
    _verify_batching_dims(fail, _SCATTER, operand, indices, inserted_window_dims,
                          input_batching_dims, indices_batching_dims, index_vector_dim)
    bound = indices[index_vector_dim]
    if bound != DYNAMIC and len(to_operand) != bound:
        raise fail(f"Scatter op has {len(to_operand)} elements in "
                   "scatter_dims_to_operand_dims and the bound of dimension "
                   f"index_vector_dim={index_vector_dim} of scatter_indices is {bound}. "
                   "These two numbers must be equal.")
    _distinct(fail, to_operand, input_batching_dims, "scatter_dims_to_operand_dims",
              "input_batching_dims")
    _in_bounds(fail, to_operand, len(operand), "scatter_dims_to_operand_dims",
               "rank-of('operand')")


def _verify_scatter_bounds(fail: Fail, operand: tuple[int, ...], indices: list[int],
                           update: tuple[int, ...], update_window_dims: list[int],
                           inserted_window_dims: list[int], input_batching_dims: list[int],
                           index_vector_dim: int) -> None:
    window_bounds = [n for d, n in enumerate(operand)
                     if d not in inserted_window_dims and d not in input_batching_dims]
    for d, bound in zip(update_window_dims, window_bounds, strict=False):
        if DYNAMIC not in (update[d], bound) and update[d] > bound:
            raise fail("expects bounds of the window dimensions of updates to not exceed "
                       "the bounds of the corresponding dimensions of operand. For "
                       f"dimension {d}, updates bound is {update[d]}, operand bound is "
                       f"{bound}.")
    seen = 0
    for d, size in enumerate(update):
        if d in update_window_dims:
            continue
        if seen == index_vector_dim:
            seen += 1
        if not compatible_dim(size, indices[seen]):
            raise fail("expects bounds of the scatter dimensions of updates to be same as "
                       "the bounds of the corresponding dimensions of scatter indices. For "
                       f"scatter dimension {d}, updates bound is {size} , scatter_indices "
                       f"bound is {indices[seen]}.")
        seen += 1


def verify_dynamic_gather(op: Operation) -> None:
    """ODS: slice_sizes is HLO_Static1DIntTensor; then gather's checks."""
    require_static_int_tensor(op, 2, 1)
    verify_gather(op)


def verify_gather(op: Operation) -> None:
    """Upstream's gather checks (gather_c1..c23), first failure reported. They run in the
    op's result-type inference, so each is followed by 'failed to infer returned types'."""
    if not all(isinstance(v.type, TensorType) for v in op.operands):
        return  # unranked or non-tensor operands are the type constraints' business

    def fail(message: str) -> Diagnostic:
        return inference_error(op, message)

    operand = _shape(op.operands[0].type)
    indices = _shape(op.operands[1].type)
    if op.name == "stablehlo.dynamic_gather":
        sizes_type = _shape(op.operands[2].type)
        sizes = constant_ints(op.operands[2])
    else:
        sizes = int_values(op.attr("slice_sizes"))  # type: ignore[arg-type]  # required
        sizes_type = (len(sizes),)
    dims = op.attr("dimension_numbers")
    offset_dims = _field(dims, "offset_dims")
    collapsed = _field(dims, "collapsed_slice_dims")
    operand_batching = _field(dims, "operand_batching_dims")
    indices_batching = _field(dims, "start_indices_batching_dims")
    start_index_map = _field(dims, "start_index_map")
    index_vector_dim = _index_vector_dim(dims)
    implied = len(offset_dims) + len(collapsed) + len(operand_batching)
    if len(operand) != implied:
        raise fail(f"offset_dims size ({len(offset_dims)}) plus collapse_slice_dims size "
                   f"({len(collapsed)}) plus operand_batching_dims size "
                   f"({len(operand_batching)}) is not equal to operand rank "
                   f"({len(operand)})")
    _index_dim_in_bounds(fail, index_vector_dim, len(indices), "rank-of('start_indices')")
    trailing = index_vector_dim == len(indices)
    if trailing or indices[index_vector_dim] != DYNAMIC:
        size = 1 if trailing else indices[index_vector_dim]
        if size != len(start_index_map):
            raise fail(f"start_index_map size ({len(start_index_map)}) is not equal to "
                       f"size of index dimension ({index_vector_dim}) of start_indices "
                       f"({size})")
    _GATHER.check_sorted(fail, offset_dims, "offset_dims")
    _GATHER.check_unique(fail, offset_dims, "offset_dims")
    _verify_batching_dims(fail, _GATHER, operand, indices, collapsed, operand_batching,
                          indices_batching, index_vector_dim)
    _distinct(fail, start_index_map, operand_batching, "start_index_map", "operand_batching_dims")
    _in_bounds(fail, start_index_map, len(operand), "start_index_map", "rank-of('operand')")
    if len(sizes_type) != 1:
        raise fail(f"slice_sizes.rank != 1 (got {len(sizes_type)})")
    if sizes_type[0] != len(operand):
        raise fail(f"slice_sizes size ({sizes_type[0]}) not equal to operand rank "
                   f"({len(operand)})")
    for name, group in (("collapsed_slice_dims", collapsed),
                        ("operand_batching_dims", operand_batching)):
        for d in group:
            if sizes is not None and sizes[d] > 1:
                raise fail(f"Expects that for each dim in {name}, slice_sizes[dim] "
                           f"should be <= 1, but got {sizes[d]}")
    for i, (size, bound) in enumerate(zip(sizes or [], operand, strict=False)):
        if bound != DYNAMIC and not 0 <= size <= bound:
            raise fail(f"slice size ({size}) is out of bounds for operand dimension "
                       f"({bound}) at index {i}")
    rank = len(offset_dims) + len(indices) + trailing - 1
    _in_bounds(fail, offset_dims, rank, "offset_dims", "implied-result-rank")
    # The result: batch dimensions from start_indices, offset dimensions from slice_sizes.
    known = sizes if sizes is not None else [DYNAMIC] * len(operand)
    kept = [n for d, n in enumerate(known) if d not in collapsed and d not in operand_batching]
    batch = [n for d, n in enumerate(indices) if d != index_vector_dim]
    batch_it, kept_it = iter(batch), iter(kept)
    shape = [next(kept_it) if d in offset_dims else next(batch_it) for d in range(rank)]
    inferred = TensorType(tuple(shape), op.operands[0].type.element)
    actual = op.results[0].type
    if not (isinstance(actual, TensorType) and actual.element == inferred.element
            and len(actual.shape) == rank
            and all(compatible_dim(a, b) for a, b in zip(actual.shape, shape, strict=True))):
        raise inferred_type_mismatch(op, f"'{inferred}'")


# ---- `#stablehlo.gather<...>` / `#stablehlo.scatter<...>` ----------------------------------


def _dimension_numbers_parser(name: str) -> Callable[[Any, str, int], DialectAttr]:
    """The attribute parser of `#stablehlo.<name><...>`: upstream's grammar and errors (see
    dimension_numbers), printed in upstream's field order."""
    keywords = STRUCT_FIELD_ORDER[name]

    def parse(p: Any, body: str, offset: int) -> DialectAttr:
        fields = parse_dimension_struct(p, name, keywords, body, offset,
                                        integer_fields=("index_vector_dim",))
        text = ", ".join(f"{k} = {format_field(v)}" for k, v in canonical_fields(name, fields))
        return DialectAttr("stablehlo", name, text, tuple(fields))

    return parse


for _name in ("gather", "scatter"):
    DIALECT_ATTR_PARSERS[("stablehlo", _name)] = _dimension_numbers_parser(_name)
