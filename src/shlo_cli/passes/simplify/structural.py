"""Simplifications that replace an op by cheaper ones: zero-extent tensors become empty
constants, reductions with nothing to reduce disappear, multi-dimensional iotas become a
broadcast 1-D iota, padding of an empty tensor is a broadcast, static dimension sizes are
constants."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.attributes import DenseArrayAttr, DenseElementsAttr, IntegerAttr
from ...ir.core import Operation, Value
from ...ir.types import DYNAMIC, I64, TensorType, numpy_dtype
from ..effects import has_no_effect
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .match import defining, ints, num_elements


def _zero_extent(type: object) -> bool:
    return (isinstance(type, TensorType) and type.is_static
            and int(np.prod(type.shape, dtype=np.int64)) == 0)


def _empty(rewriter: PatternRewriter, type: TensorType, location: object) -> Value:
    attr = DenseElementsAttr(type, np.zeros((0,), numpy_dtype(type.element)))
    return rewriter.constant(attr, type, location=location)  # type: ignore[arg-type]


@pattern()
def zero_extent_to_empty_constant(op: Operation, rewriter: PatternRewriter) -> bool:
    """op(X : zero-extent) -> constant([]): results and operands with no elements."""
    if op.dialect != "stablehlo" or op.name == "stablehlo.constant" or not has_no_effect(op):
        return False
    changed = False
    rewriter.set_insertion_point(op)
    for result in op.results:
        if _zero_extent(result.type) and rewriter.has_uses(result):
            rewriter.replace_all_uses_with(result, _empty(rewriter, result.type, op.location))
            changed = True
    operands = list(op.operands)
    for i, value in enumerate(operands):
        if _zero_extent(value.type) and defining(value, "stablehlo.constant") is None:
            operands[i] = _empty(rewriter, value.type, op.location)
            changed = True
    if operands != op.operands:
        rewriter.set_operands(op, operands)
    return changed


@pattern("stablehlo.reduce")
def reduce_no_dimensions(op: Operation, rewriter: PatternRewriter) -> bool:
    if ints(op, "dimensions"):
        return False
    count = len(op.results)
    rewriter.replace_op(op, op.operands[:count])
    return True


@pattern("stablehlo.reduce")
def reduce_of_outer_values(op: Operation, rewriter: PatternRewriter) -> bool:
    """The body returns values defined outside it: those are the results."""
    body = op.regions[0].blocks[0]
    ret = body.operations[-1] if body.operations else None
    if ret is None or ret.name != "stablehlo.return":
        return False
    for value in ret.operands:
        owner = value.owner
        block = owner if not isinstance(owner, Operation) else owner.parent
        if block is body:
            return False
    rewriter.replace_op(op, list(ret.operands))
    return True


@pattern("stablehlo.reduce")
def reduce_of_empty(op: Operation, rewriter: PatternRewriter) -> bool:
    """reduce over a tensor with a zero dimension: each result is its init value."""
    count = len(op.results)
    first = op.operands[0].type
    if not isinstance(first, TensorType) or 0 not in first.shape or not first.is_static:
        return False
    rewriter.set_insertion_point(op)
    values = [rewriter.create("stablehlo.broadcast_in_dim", [init], [type],
                              {"broadcast_dimensions": DenseArrayAttr(I64, ())},
                              location=op.location).results[0]
              for init, type in zip(op.operands[count:], op.result_types, strict=True)]
    rewriter.replace_op(op, values)
    return True


@pattern("stablehlo.iota")
def iota_broadcast(op: Operation, rewriter: PatternRewriter) -> bool:
    type = op.result_types[0]
    if not isinstance(type, TensorType) or type.rank < 2:
        return False
    dim = op.attr("iota_dimension").value
    rewriter.set_insertion_point(op)
    line = rewriter.create("stablehlo.iota", [], [TensorType((type.shape[dim],), type.element)],
                           {"iota_dimension": IntegerAttr(0, I64)}, location=op.location)
    rewriter.replace_op_with(op, "stablehlo.broadcast_in_dim", [line.results[0]],
                             {"broadcast_dimensions": DenseArrayAttr(I64, (dim,))})
    return True


@pattern("stablehlo.pad")
def pad_of_empty(op: Operation, rewriter: PatternRewriter) -> bool:
    operand = op.operands[0]
    if num_elements(operand) != 0 or not _static(op.result_types[0]):
        return False
    rewriter.replace_op_with(op, "stablehlo.broadcast_in_dim", [op.operands[1]],
                             {"broadcast_dimensions": DenseArrayAttr(I64, ())})
    return True


def _static(type: object) -> bool:
    return isinstance(type, TensorType) and type.is_static


@pattern("stablehlo.get_dimension_size")
def get_dimension_size_static(op: Operation, rewriter: PatternRewriter) -> bool:
    operand = op.operands[0].type
    dim = op.attr("dimension").value
    if not isinstance(operand, TensorType) or operand.shape[dim] == DYNAMIC:
        return False
    type = op.result_types[0]
    rewriter.set_insertion_point(op)
    attr = DenseElementsAttr(type, np.array([operand.shape[dim]], numpy_dtype(type.element)),
                             splat=True)
    rewriter.replace_op(op, [rewriter.constant(attr, type, location=op.location)])
    return True


PATTERNS: list[RewritePattern] = [
    reduce_no_dimensions, reduce_of_outer_values, reduce_of_empty, iota_broadcast,
    pad_of_empty, get_dimension_size_static,
]
GENERIC: list[RewritePattern] = [zero_extent_to_empty_constant]
