"""Simplifications of StableHLO's dynamic-shape ops: composed dynamic broadcasts and reshapes
merged, no-op broadcasts removed (or kept as a convert to hold the dynamic type), and dynamic
ops whose shape operands are constants turned into their static forms."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Operation, Value
from ...ir.types import I64, TensorType
from ..fold.common import constant_attr
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .match import defining, ints, is_iota, is_static, merge_attrs, same_operands_and_result_shape

_BROADCAST = "stablehlo.dynamic_broadcast_in_dim"
_RESHAPE = "stablehlo.dynamic_reshape"


def _i64s(values: list[int]) -> DenseArrayAttr:
    return DenseArrayAttr(I64, tuple(int(v) for v in values))


@pattern(_BROADCAST, benefit=2)
def dynamic_broadcast_of_broadcast(op: Operation, rewriter: PatternRewriter) -> bool:
    inner = defining(op.operands[0], _BROADCAST)
    if inner is None:
        return False
    outer_dims = ints(op, "broadcast_dimensions") or []
    merged = [outer_dims[d] for d in ints(inner, "broadcast_dimensions") or []]
    props = {"broadcast_dimensions": _i64s(merged),
             "known_expanding_dimensions": _i64s([]),
             "known_nonexpanding_dimensions": _i64s([])}
    rewriter.replace_op_with(op, _BROADCAST, [inner.operands[0], op.operands[1]], props,
                             dict(op.attributes))
    return True


@pattern(_BROADCAST)
def dynamic_broadcast_noop_to_convert(op: Operation, rewriter: PatternRewriter) -> bool:
    """All dimensions kept and known non-expanding: a convert keeps the dynamic type."""
    dims = ints(op, "broadcast_dimensions") or []
    nonexpanding = ints(op, "known_nonexpanding_dimensions")
    rank = getattr(op.result_types[0], "rank", None)
    if not is_iota(dims) or nonexpanding is None or len(nonexpanding) != rank:
        return False
    rewriter.replace_op_with(op, "stablehlo.convert", [op.operands[0]], {},
                             dict(op.attributes))
    return True


@pattern(_BROADCAST, benefit=2)
def dynamic_broadcast_of_dynamic_reshape(op: Operation, rewriter: PatternRewriter) -> bool:
    inner = defining(op.operands[0], _RESHAPE)
    if (inner is None or inner.operands[1] is not op.operands[1]
            or not is_iota(ints(op, "broadcast_dimensions") or [])):
        return False
    rewriter.replace_op_with(op, _RESHAPE, [inner.operands[0], inner.operands[1]], {},
                             dict(op.attributes))
    return True


@pattern(_BROADCAST, benefit=2)
def dynamic_broadcast_to_own_shape(op: Operation, rewriter: PatternRewriter) -> bool:
    shape = defining(op.operands[1], "shape.shape_of")
    if (shape is None or shape.operands[0] is not op.operands[0]
            or not is_iota(ints(op, "broadcast_dimensions") or [])):
        return False
    merge_attrs(op, op.operands[0])
    rewriter.replace_op(op, [op.operands[0]])
    return True


@pattern(_RESHAPE, benefit=2)
def dynamic_reshape_of_dynamic_reshape(op: Operation, rewriter: PatternRewriter) -> bool:
    inner = defining(op.operands[0], _RESHAPE)
    if inner is None:
        return False
    rewriter.replace_op_with(op, _RESHAPE, [inner.operands[0], op.operands[1]], {},
                             dict(op.attributes))
    return True


@pattern("shape.shape_of", benefit=2)
def shape_of_dynamic_reshape(op: Operation, rewriter: PatternRewriter) -> bool:
    inner = defining(op.operands[0], _RESHAPE)
    if inner is None or inner.operands[1].type != op.result_types[0]:
        return False
    merge_attrs(op, inner.operands[1])
    rewriter.replace_op(op, [inner.operands[1]])
    return True


def _constant_ints(value: object) -> list[int] | None:
    attr = constant_attr(value)  # type: ignore[arg-type]
    if attr is None or attr.value.dtype.kind not in "iu":
        return None
    return [int(v) for v in np.asarray(attr.value).reshape(-1)]


@pattern("stablehlo.dynamic_pad")
def dynamic_pad_to_pad(op: Operation, rewriter: PatternRewriter) -> bool:
    low, high, interior = (_constant_ints(v) for v in op.operands[2:5])
    if low is None or high is None or interior is None:
        return False
    rewriter.replace_op_with(op, "stablehlo.pad", op.operands[:2],
                             {"edge_padding_low": _i64s(low), "edge_padding_high": _i64s(high),
                              "interior_padding": _i64s(interior)}, dict(op.attributes))
    return True


@pattern("stablehlo.dynamic_gather", benefit=2)
def dynamic_gather_to_gather(op: Operation, rewriter: PatternRewriter) -> bool:
    if defining(op.operands[2], "stablehlo.constant") is None:
        return False
    sizes = _constant_ints(op.operands[2])
    if sizes is None:
        return False
    props = {k: v for k, v in op.properties.items()}
    props["slice_sizes"] = _i64s(sizes)
    rewriter.replace_op_with(op, "stablehlo.gather", op.operands[:2], props,
                             dict(op.attributes))
    return True


@pattern("stablehlo.real_dynamic_slice")
def real_dynamic_slice_to_slice(op: Operation, rewriter: PatternRewriter) -> bool:
    start, limit, strides = (_constant_ints(v) for v in op.operands[1:4])
    if start is None or limit is None or strides is None:
        return False
    rewriter.replace_op_with(op, "stablehlo.slice", [op.operands[0]],
                             {"start_indices": _i64s(start), "limit_indices": _i64s(limit),
                              "strides": _i64s(strides)}, dict(op.attributes))
    return True


def _refine_with(rewriter: PatternRewriter, op: Operation, name: str, operands: list[Value],
                 result: TensorType, properties: dict) -> None:
    """Upstream's refineOpWithNewOp: the new op has the more static `result` type; where a
    user of another dialect (func.return) needs the old type, a convert restores it."""
    rewriter.set_insertion_point(op)
    new = rewriter.create(name, operands, [result], properties, location=op.location)
    value = new.results[0]
    old = op.results[0]
    if any(user.dialect != op.dialect for user in rewriter.users(old)):
        value = rewriter.create("stablehlo.convert", [value], [old.type],
                                location=op.location).results[0]
    rewriter.replace_op(op, [value])


@pattern(_BROADCAST)
def dynamic_broadcast_not_actually_dynamic(op: Operation, rewriter: PatternRewriter) -> bool:
    """A static operand broadcast to a static result, or to constant output dimensions, is a
    broadcast_in_dim (of the refined type)."""
    if not is_static(op.operands[0]):
        return False
    result = op.result_types[0]
    props = {"broadcast_dimensions": op.properties["broadcast_dimensions"]}
    if result.is_static:
        rewriter.replace_op_with(op, "stablehlo.broadcast_in_dim", [op.operands[0]], props)
        return True
    shape = _constant_ints(op.operands[1])
    if shape is None:
        return False
    _refine_with(rewriter, op, "stablehlo.broadcast_in_dim", [op.operands[0]],
                 TensorType(tuple(shape), result.element), props)
    return True


@pattern(_RESHAPE)
def dynamic_reshape_is_static(op: Operation, rewriter: PatternRewriter) -> bool:
    if not op.result_types[0].is_static:
        return False
    rewriter.replace_op_with(op, "stablehlo.reshape", [op.operands[0]])
    return True


@pattern(_RESHAPE)
def dynamic_reshape_of_same_shape_op(op: Operation, rewriter: PatternRewriter) -> bool:
    """dynamic_reshape(f(dynamic_reshape(x, s)), s) is f(...) when f keeps its operand's
    shape (SameOperandsAndResultShape)."""
    inner = op.operands[0].owner
    if not isinstance(inner, Operation) or not inner.operands \
            or not same_operands_and_result_shape(inner):
        return False
    reshape = defining(inner.operands[0], _RESHAPE)
    if reshape is None or reshape.operands[1] is not op.operands[1]:
        return False
    rewriter.replace_op(op, [inner.results[0]])
    return True


# Registered after the generic patterns, as upstream adds its dynamism refinements last.
LATE: list[RewritePattern] = [dynamic_broadcast_not_actually_dynamic, dynamic_reshape_is_static]

PATTERNS: list[RewritePattern] = [
    dynamic_broadcast_of_broadcast, dynamic_broadcast_noop_to_convert,
    dynamic_broadcast_of_dynamic_reshape, dynamic_broadcast_to_own_shape,
    dynamic_reshape_of_dynamic_reshape, shape_of_dynamic_reshape, dynamic_pad_to_pad,
    dynamic_gather_to_gather, real_dynamic_slice_to_slice, dynamic_reshape_of_same_shape_op,
]
