"""Simplifications of StableHLO's dynamic-shape ops: composed dynamic broadcasts and reshapes
merged, no-op broadcasts removed (or kept as a convert to hold the dynamic type), and dynamic
ops whose shape operands are constants turned into their static forms."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Operation
from ...ir.types import I64
from ..fold.common import constant_attr
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .match import defining, ints, is_iota, merge_attrs

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


PATTERNS: list[RewritePattern] = [
    dynamic_broadcast_of_broadcast, dynamic_broadcast_noop_to_convert,
    dynamic_broadcast_of_dynamic_reshape, dynamic_broadcast_to_own_shape,
    dynamic_reshape_of_dynamic_reshape, shape_of_dynamic_reshape, dynamic_pad_to_pad,
    dynamic_gather_to_gather, real_dynamic_slice_to_slice,
]
