"""Algebraic simplifications of elementwise StableHLO ops (upstream's declarative patterns):
constants to the right of commutative ops, identities (x+0, x*1, x&1, x|0, x^0, x-0),
annihilators (x*0, x&0, x|1, x-x, x^x), compare/convert/select/complex no-ops."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.core import Operation
from ...ir.types import IntegerType, TensorType
from ..fold.common import make_attr
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .match import (
    defining,
    is_any_one,
    is_any_zero,
    is_int_all_ones,
    is_int_one,
    is_int_zero,
    is_static,
    merge_attrs,
)

_COMMUTATIVE = tuple(f"stablehlo.{n}" for n in
                     ("add", "and", "maximum", "minimum", "multiply", "or", "xor"))


@pattern(*_COMMUTATIVE, benefit=2)
def constant_to_rhs(op: Operation, rewriter: PatternRewriter) -> bool:
    """op(cst, X) -> op(X, cst) when X is not a constant."""
    lhs, rhs = op.operands
    if defining(lhs, "stablehlo.constant") is None or defining(rhs, "stablehlo.constant"):
        return False
    rewriter.replace_op_with(op, op.name, [rhs, lhs], dict(op.properties),
                             dict(op.attributes))
    return True


def _replace(op: Operation, rewriter: PatternRewriter, index: int, merge: bool = True) -> bool:
    """Replace `op` by its operand `index` (moving its discardable attributes there)."""
    if merge:
        merge_attrs(op, op.operands[index])
    rewriter.replace_op(op, [op.operands[index]])
    return True


@pattern("stablehlo.add")
def add_zero(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_any_zero(op.operands[1], True) and _replace(op, rewriter, 0)


@pattern("stablehlo.and", benefit=2)
def and_zero(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_int_zero(op.operands[1]) and _replace(op, rewriter, 1, False)


@pattern("stablehlo.and", benefit=2)
def and_all_ones(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_int_all_ones(op.operands[1]) and _replace(op, rewriter, 0)


@pattern("stablehlo.or", benefit=2)
def or_all_ones(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_int_all_ones(op.operands[1]) and _replace(op, rewriter, 1)


@pattern("stablehlo.or", benefit=2)
def or_zero(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_int_zero(op.operands[1]) and _replace(op, rewriter, 0)


@pattern("stablehlo.multiply", benefit=2)
def multiply_zero(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_int_zero(op.operands[1]) and _replace(op, rewriter, 1)


@pattern("stablehlo.multiply", benefit=2)
def multiply_one(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_any_one(op.operands[1]) and _replace(op, rewriter, 0)


@pattern("stablehlo.subtract", benefit=2)
def subtract_zero(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_any_zero(op.operands[1]) and _replace(op, rewriter, 0)


def _zero_like(op: Operation, rewriter: PatternRewriter) -> bool:
    type = op.result_types[0]
    rewriter.set_insertion_point(op)
    zero = rewriter.constant(make_attr(type, np.zeros(type.shape)), type, location=op.location)
    rewriter.replace_op(op, [zero])
    return True


@pattern("stablehlo.subtract")
def subtract_self(op: Operation, rewriter: PatternRewriter) -> bool:
    lhs, rhs = op.operands
    if lhs is not rhs or not is_static(lhs) or not isinstance(lhs.type.element, IntegerType):
        return False
    return _zero_like(op, rewriter)


@pattern("stablehlo.xor")
def xor_self(op: Operation, rewriter: PatternRewriter) -> bool:
    lhs, rhs = op.operands
    return lhs is rhs and is_static(lhs) and _zero_like(op, rewriter)


@pattern("stablehlo.xor")
def xor_zero(op: Operation, rewriter: PatternRewriter) -> bool:
    return is_int_zero(op.operands[1], True) and _replace(op, rewriter, 0, False)


def _direction(op: Operation) -> str:
    attr = op.attr("comparison_direction")
    return str(getattr(attr, "value", attr))


def _is_pred(value: object) -> bool:
    type = getattr(value, "type", None)
    return (isinstance(type, TensorType) and isinstance(type.element, IntegerType)
            and type.element.width == 1)


@pattern("stablehlo.compare", benefit=2)
def compare_ne_false(op: Operation, rewriter: PatternRewriter) -> bool:
    rhs = op.operands[1]
    return (_direction(op) == "NE" and _is_pred(rhs) and is_int_zero(rhs)
            and _replace(op, rewriter, 0, False))


@pattern("stablehlo.compare", benefit=2)
def compare_eq_true(op: Operation, rewriter: PatternRewriter) -> bool:
    rhs = op.operands[1]
    return (_direction(op) == "EQ" and _is_pred(rhs) and is_int_one(rhs)
            and _replace(op, rewriter, 0, False))


@pattern("stablehlo.convert")
def convert_noop(op: Operation, rewriter: PatternRewriter) -> bool:
    return op.operands[0].type == op.result_types[0] and _replace(op, rewriter, 0)


@pattern("stablehlo.complex", benefit=3)
def complex_of_real_imag(op: Operation, rewriter: PatternRewriter) -> bool:
    real = defining(op.operands[0], "stablehlo.real")
    imag = defining(op.operands[1], "stablehlo.imag")
    if real is None or imag is None or real.operands[0] is not imag.operands[0]:
        return False
    rewriter.replace_op(op, [real.operands[0]])
    return True


@pattern("stablehlo.real", "stablehlo.imag", benefit=2)
def part_of_complex(op: Operation, rewriter: PatternRewriter) -> bool:
    source = defining(op.operands[0], "stablehlo.complex")
    if source is None:
        return False
    rewriter.replace_op(op, [source.operands[0 if op.name == "stablehlo.real" else 1]])
    return True


@pattern("stablehlo.select", benefit=2)
def select_not_predicate(op: Operation, rewriter: PatternRewriter) -> bool:
    """select(not(p), t, f) -> select(p, f, t)."""
    negated = defining(op.operands[0], "stablehlo.not")
    if negated is None:
        return False
    pred, on_true, on_false = negated.operands[0], op.operands[1], op.operands[2]
    rewriter.replace_op_with(op, op.name, [pred, on_false, on_true], dict(op.properties),
                             dict(op.attributes))
    return True


@pattern("stablehlo.select", benefit=3)
def select_broadcast_not_predicate(op: Operation, rewriter: PatternRewriter) -> bool:
    """select(broadcast(not(p)), t, f) -> select(broadcast(p), f, t) (one use)."""
    broadcast = defining(op.operands[0], "stablehlo.broadcast_in_dim")
    if broadcast is None or not rewriter.has_one_use(broadcast.results[0]):
        return False
    negated = defining(broadcast.operands[0], "stablehlo.not")
    if negated is None:
        return False
    rewriter.set_insertion_point(op)
    new_broadcast = rewriter.create("stablehlo.broadcast_in_dim", [negated.operands[0]],
                                    broadcast.result_types, dict(broadcast.properties),
                                    location=broadcast.location)
    rewriter.replace_op_with(op, op.name, [new_broadcast.results[0], op.operands[2],
                                           op.operands[1]])
    return True


PATTERNS: list[RewritePattern] = [
    constant_to_rhs, add_zero, and_zero, and_all_ones, or_all_ones, or_zero, multiply_zero,
    multiply_one, subtract_zero, subtract_self, xor_self, xor_zero, compare_ne_false,
    compare_eq_true, convert_noop, complex_of_real_imag, part_of_complex,
    select_not_predicate, select_broadcast_not_predicate,
]
