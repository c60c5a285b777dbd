"""Simplifications across ops: loop-invariant `while` operands become implicit captures, a
tuple rebuilt from all elements of another tuple is that tuple, and a slice of a concatenate
only keeps the inputs it reads."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Block, Operation, Value
from ...ir.types import DYNAMIC, I64, TensorType
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .match import defining, ints


def _drop_arguments(block: Block, drop: set[int]) -> None:
    kept = [(a, loc) for i, (a, loc) in enumerate(zip(block.arguments, block.arg_locations,
                                                      strict=True)) if i not in drop]
    block.arguments = [a for a, _ in kept]
    block.arg_locations = [loc for _, loc in kept]
    for i, arg in enumerate(block.arguments):
        arg.index = i


@pattern("stablehlo.while")
def while_implicit_capture(op: Operation, rewriter: PatternRewriter) -> bool:
    """while: an operand the body passes through unchanged is used directly instead."""
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    ret = body.operations[-1]
    rows = list(zip(op.operands, cond.arguments, body.arguments, ret.operands, op.results,
                    strict=True))
    invariant = {i for i, (operand, _, arg, out, _) in enumerate(rows)
                 if out is operand or out is arg}
    if not invariant:
        return False
    for i in sorted(invariant):
        operand, cond_arg, body_arg, _, result = rows[i]
        rewriter.replace_all_uses_with(cond_arg, operand)
        rewriter.replace_all_uses_with(body_arg, operand)
        rewriter.replace_all_uses_with(result, operand)
    _drop_arguments(cond, invariant)
    _drop_arguments(body, invariant)
    rewriter.set_operands(ret, [v for i, v in enumerate(ret.operands) if i not in invariant])
    operands = [v for i, v in enumerate(op.operands) if i not in invariant]
    old_results = [r for i, r in enumerate(op.results) if i not in invariant]
    regions = op.regions
    op.regions = []
    new = Operation("stablehlo.while", [], [v.type for v in ret.operands],
                    dict(op.properties), dict(op.attributes), location=op.location,
                    opdef=op.opdef)
    rewriter.set_insertion_point(op)
    rewriter.insert(new)
    rewriter.set_operands(new, operands)
    new.regions = regions
    for region in regions:
        region.parent = new
    for old, value in zip(old_results, new.results, strict=True):
        rewriter.replace_all_uses_with(old, value)
    rewriter.erase_op(op)
    return True


@pattern("stablehlo.tuple")
def tuple_is_repacking(op: Operation, rewriter: PatternRewriter) -> bool:
    if not op.operands:
        return False
    first = defining(op.operands[0], "stablehlo.get_tuple_element")
    if first is None or first.operands[0].type != op.result_types[0]:
        return False
    source = first.operands[0]
    for i, value in enumerate(op.operands):
        element = defining(value, "stablehlo.get_tuple_element")
        if element is None or element.attr("index").value != i or element.operands[0] is not \
                source:
            return False
    rewriter.replace_op(op, [source])
    return True


@pattern("stablehlo.slice")
def slice_of_concatenate(op: Operation, rewriter: PatternRewriter) -> bool:
    """slice(concatenate(...)) reads only some inputs: concatenate just those."""
    result = op.result_types[0]
    concat = defining(op.operands[0], "stablehlo.concatenate")
    if not isinstance(result, TensorType) or not result.is_static or concat is None:
        return False
    dim = concat.attr("dimension").value
    start, limit = ints(op, "start_indices") or [], ints(op, "limit_indices") or []
    lo, hi = start[dim], limit[dim]
    running, front = 0, concat.result_types[0].shape[dim]
    first = last = None
    for i, value in enumerate(concat.operands):
        size = value.type.shape[dim]
        if size == DYNAMIC:
            return False
        if running + size > lo and first is None:
            first, front = i, running
        if running < hi:
            last = i + 1
        running += size
    if first is None or last is None:
        return False
    count = last - first
    if count == len(concat.operands) or count <= 0:
        return False
    if count > 1 and not rewriter.has_one_use(concat.results[0]):
        return False
    inputs: list[Value] = concat.operands[first:last]
    shape = list(concat.result_types[0].shape)
    shape[dim] = sum(v.type.shape[dim] for v in inputs)
    rewriter.set_insertion_point(op)
    new_concat = rewriter.create("stablehlo.concatenate", inputs,
                                 [TensorType(tuple(shape), result.element)],
                                 {"dimension": concat.attr("dimension")},
                                 location=concat.location)
    start[dim] -= front
    limit[dim] -= front
    rewriter.replace_op_with(op, "stablehlo.slice", [new_concat.results[0]],
                             {**op.properties, "start_indices": DenseArrayAttr(I64, tuple(start)),
                              "limit_indices": DenseArrayAttr(I64, tuple(limit))})
    return True


PATTERNS: list[RewritePattern] = [slice_of_concatenate, tuple_is_repacking,
                                  while_implicit_capture]
