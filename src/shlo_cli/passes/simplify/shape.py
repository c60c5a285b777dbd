"""Simplifications of StableHLO data-movement ops: no-op reverse/broadcast/reshape/transpose/
pad/slice/convert, composed broadcasts, reshapes and transposes merged, broadcasts and
transposes that only reshape, concatenate flattening, and constant predicates of select."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Operation
from ...ir.types import I64, TensorType
from ..fold.common import constant_attr, make_attr, splat_attr, splat_scalar
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .match import defining, ints, is_iota, is_static, merge_attrs, num_elements


def _replace(op: Operation, rewriter: PatternRewriter, value: object,
             merge: bool = False) -> bool:
    """Replace `op` by `value` (with `merge`, moving its discardable attributes there)."""
    if merge:
        merge_attrs(op, value)
    rewriter.replace_op(op, [value])  # type: ignore[list-item]
    return True


def _i64s(values: list[int]) -> DenseArrayAttr:
    return DenseArrayAttr(I64, tuple(int(v) for v in values))


@pattern("stablehlo.reverse")
def reverse_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    operand = op.operands[0]
    dims = ints(op, "dimensions") or []
    if not dims:
        return _replace(op, rewriter, operand)
    if is_static(operand) and (num_elements(operand) == 0
                               or all(operand.type.shape[d] == 1 for d in dims)):
        return _replace(op, rewriter, operand)
    return False


@pattern("stablehlo.reverse", benefit=2)
def reverse_splat(op: Operation, rewriter: PatternRewriter) -> bool:
    if defining(op.operands[0], "stablehlo.constant") is None:
        return False
    return splat_attr(op.operands[0]) is not None and _replace(op, rewriter, op.operands[0])


@pattern("stablehlo.broadcast_in_dim")
def broadcast_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    dims = ints(op, "broadcast_dimensions") or []
    return (is_iota(dims) and op.operands[0].type == op.result_types[0]
            and _replace(op, rewriter, op.operands[0], True))


def _reducible_to_reshape(inner: Operation) -> bool:
    """The inner broadcast could become a reshape (static, same element count, sorted dims)."""
    operand = inner.operands[0]
    if not (is_static(operand) and isinstance(inner.result_types[0], TensorType)
            and inner.result_types[0].is_static):
        return False
    dims = ints(inner, "broadcast_dimensions") or []
    return (num_elements(operand) == int(np.prod(inner.result_types[0].shape))
            and dims == sorted(dims))


@pattern("stablehlo.broadcast_in_dim", benefit=2)
def broadcast_of_broadcast(op: Operation, rewriter: PatternRewriter) -> bool:
    inner = defining(op.operands[0], "stablehlo.broadcast_in_dim")
    if inner is None or _reducible_to_reshape(inner):
        return False
    outer_dims = ints(op, "broadcast_dimensions") or []
    inner_dims = ints(inner, "broadcast_dimensions") or []
    merged = [outer_dims[d] for d in inner_dims]
    rewriter.replace_op_with(op, op.name, [inner.operands[0]],
                             {**op.properties, "broadcast_dimensions": _i64s(merged)},
                             dict(op.attributes))
    return True


@pattern("stablehlo.broadcast_in_dim", benefit=2)
def broadcast_is_reshape(op: Operation, rewriter: PatternRewriter) -> bool:
    operand = op.operands[0]
    dims = ints(op, "broadcast_dimensions") or []
    result = op.result_types[0]
    if (not is_static(operand) or dims != sorted(dims)
            or num_elements(operand) != num_elements(op.results[0])):
        return False
    rewriter.replace_op_with(op, "stablehlo.reshape", [operand], {}, dict(op.attributes))
    del result
    return True


@pattern("stablehlo.broadcast_in_dim")
def broadcast_is_transpose(op: Operation, rewriter: PatternRewriter) -> bool:
    operand = op.operands[0]
    dims = ints(op, "broadcast_dimensions") or []
    if (not is_static(operand) or num_elements(operand) != num_elements(op.results[0])
            or operand.type.rank != op.result_types[0].rank):
        return False
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    rewriter.replace_op_with(op, "stablehlo.transpose", [operand],
                             {"permutation": _i64s(inverse)}, dict(op.attributes))
    return True


@pattern("stablehlo.reshape", benefit=2)
def reshape_of_reshape(op: Operation, rewriter: PatternRewriter) -> bool:
    inner = defining(op.operands[0], "stablehlo.reshape")
    if inner is None:
        return False
    rewriter.replace_op_with(op, op.name, [inner.operands[0]], dict(op.properties),
                             dict(op.attributes))
    return True


@pattern("stablehlo.reshape")
def reshape_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    return op.operands[0].type == op.result_types[0] and _replace(op, rewriter, op.operands[0],
                                                                  True)


@pattern("stablehlo.transpose")
def transpose_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    return (is_iota(ints(op, "permutation") or [])
            and _replace(op, rewriter, op.operands[0], True))


@pattern("stablehlo.transpose", benefit=2)
def transpose_of_transpose(op: Operation, rewriter: PatternRewriter) -> bool:
    inner = defining(op.operands[0], "stablehlo.transpose")
    if inner is None:
        return False
    inner_perm = ints(inner, "permutation") or []
    outer_perm = ints(op, "permutation") or []
    merged = [inner_perm[p] for p in outer_perm]
    rewriter.replace_op_with(op, op.name, [inner.operands[0]],
                             {**op.properties, "permutation": _i64s(merged)},
                             dict(op.attributes))
    return True


@pattern("stablehlo.transpose")
def transpose_is_reshape(op: Operation, rewriter: PatternRewriter) -> bool:
    operand = op.operands[0]
    if not is_static(operand) or not is_static(op.results[0]):
        return False
    moved = [p for p in ints(op, "permutation") or [] if operand.type.shape[p] != 1]
    if moved != sorted(moved):
        return False
    rewriter.replace_op_with(op, "stablehlo.reshape", [operand], {}, dict(op.attributes))
    return True


@pattern("stablehlo.pad")
def pad_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    if any(any(ints(op, name) or []) for name in
           ("edge_padding_low", "edge_padding_high", "interior_padding")):
        return False
    return op.operands[0].type == op.result_types[0] and _replace(op, rewriter, op.operands[0])


@pattern("stablehlo.slice")
def slice_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    operand = op.operands[0]
    return is_static(operand) and operand.type == op.result_types[0] and _replace(
        op, rewriter, operand, True)


@pattern("stablehlo.iota")
def iota_of_unit_dim(op: Operation, rewriter: PatternRewriter) -> bool:
    type = op.result_types[0]
    dim = op.attr("iota_dimension").value
    if not isinstance(type, TensorType) or not type.is_static or type.shape[dim] != 1:
        return False
    rewriter.set_insertion_point(op)
    zero = rewriter.constant(make_attr(type, np.zeros(type.shape)), type, location=op.location)
    return _replace(op, rewriter, zero)


@pattern("stablehlo.dynamic_update_slice")
def dynamic_update_slice_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    operand, update = op.operands[0], op.operands[1]
    attr = constant_attr(update)
    if attr is not None and 0 in tuple(attr.type.shape):
        return _replace(op, rewriter, operand, True)
    if not (is_static(operand) and is_static(update) and operand.type == update.type):
        return False
    for index in op.operands[2:]:
        start = splat_attr(index)
        if start is None or np.any(splat_scalar(start)):
            return False
    return _replace(op, rewriter, update, True)


@pattern("stablehlo.get_tuple_element", benefit=2)
def get_tuple_element_of_tuple(op: Operation, rewriter: PatternRewriter) -> bool:
    tuple_op = defining(op.operands[0], "stablehlo.tuple")
    if tuple_op is None:
        return False
    return _replace(op, rewriter, tuple_op.operands[op.attr("index").value])


@pattern("stablehlo.concatenate")
def concatenate_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    return (len(op.operands) == 1 and op.operands[0].type == op.result_types[0]
            and _replace(op, rewriter, op.operands[0]))


@pattern("stablehlo.concatenate")
def concatenate_drop_empty(op: Operation, rewriter: PatternRewriter) -> bool:
    dim = op.attr("dimension").value
    kept = [v for v in op.operands
            if not (isinstance(v.type, TensorType) and v.type.shape[dim] == 0)]
    if not kept or len(kept) == len(op.operands):
        return False
    rewriter.set_operands(op, kept)
    return True


@pattern("stablehlo.concatenate")
def concatenate_flatten(op: Operation, rewriter: PatternRewriter) -> bool:
    dim = op.attr("dimension").value
    flat = []
    changed = False
    for value in op.operands:
        inner = defining(value, "stablehlo.concatenate")
        if (inner is not None and rewriter.has_one_use(value)
                and inner.attr("dimension").value == dim):
            flat += inner.operands
            changed = True
        else:
            flat.append(value)
    if not changed:
        return False
    rewriter.set_operands(op, flat)
    return True


def select_known(limit: int) -> RewritePattern:
    @pattern("stablehlo.select")
    def select_op_canon(op: Operation, rewriter: PatternRewriter) -> bool:
        """select with equal outcomes or a constant predicate (elementwise when both
        outcomes are constants too, up to `limit` elements)."""
        pred, on_true, on_false = op.operands
        if on_true is on_false:
            return _replace(op, rewriter, on_true)
        cond = constant_attr(pred)
        if cond is None:
            return False
        if splat_attr(pred) is not None:
            return _replace(op, rewriter, on_true if splat_scalar(cond)[0] else on_false)
        if cond.data.size > limit:
            return False
        true_attr, false_attr = constant_attr(on_true), constant_attr(on_false)
        if true_attr is None or false_attr is None:
            return False
        chosen = np.where(cond.value, true_attr.value, false_attr.value)
        rewriter.set_insertion_point(op)
        value = rewriter.constant(make_attr(op.result_types[0], chosen), op.result_types[0],
                                  location=op.location)
        return _replace(op, rewriter, value)

    return select_op_canon


PATTERNS: list[RewritePattern] = [
    reverse_noop, reverse_splat, broadcast_noop, broadcast_of_broadcast, broadcast_is_reshape,
    broadcast_is_transpose, reshape_of_reshape, reshape_noop, transpose_noop,
    transpose_of_transpose, transpose_is_reshape, pad_noop, slice_noop, iota_of_unit_dim,
    dynamic_update_slice_noop, get_tuple_element_of_tuple, concatenate_noop,
    concatenate_drop_empty, concatenate_flatten,
]
