"""compare canonicalization: an integer compare of a value with itself is a constant, and a
constant left operand moves to the right with the direction mirrored."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.attributes import DialectAttr
from ...ir.core import Operation
from ..fold.common import constant_attr, make_attr
from ..rewrite import PatternRewriter, RewritePattern, pattern

_MIRROR = {"EQ": "EQ", "NE": "NE", "GE": "LE", "GT": "LT", "LE": "GE", "LT": "GT"}


@pattern("stablehlo.compare")
def compare_canon(op: Operation, rewriter: PatternRewriter) -> bool:
    kind = op.attr("compare_type")
    if kind is None or str(getattr(kind, "value", "")) not in ("SIGNED", "UNSIGNED"):
        return False
    direction_attr = op.attr("comparison_direction")
    direction = str(direction_attr.value)
    lhs, rhs = op.operands
    if lhs is rhs:
        type = op.result_types[0]
        value = direction in ("EQ", "GE", "LE")
        rewriter.set_insertion_point(op)
        cst = rewriter.constant(make_attr(type, np.full(type.shape, value)), type,
                                location=op.location)
        rewriter.replace_op(op, [cst])
        return True
    if constant_attr(lhs) is not None and constant_attr(rhs) is None:
        mirrored = DialectAttr(direction_attr.dialect, direction_attr.name,
                               f"comparison_direction {_MIRROR[direction]}")
        op.set_attr("comparison_direction", mirrored)
        rewriter.set_operands(op, [rhs, lhs])
        return True
    return False


PATTERNS: list[RewritePattern] = [compare_canon]
