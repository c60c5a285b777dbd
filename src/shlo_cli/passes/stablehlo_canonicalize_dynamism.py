"""`--stablehlo-canonicalize-dynamism`: turn dynamic ops whose shape operands are constants
into their static forms (dynamic_reshape -> reshape, dynamic_iota -> iota, ...), and drop
the shape operands of custom calls that name them in `indices_of_shape_operands`.

Facts (which rewrite applies when) from upstream's StablehloCanonicalizeDynamism.cpp; the
patterns run per function with the greedy driver, top-down, at most two iterations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.attributes import ArrayAttr, DenseArrayAttr, DenseElementsAttr
from ..ir.core import Module, Operation, Value
from ..ir.types import I64, TensorType
from . import register_pass
from .rewrite import GreedyConfig, PatternRewriter, RewritePattern, apply_patterns_greedily, pattern
from .shape_facts import constant_attr, is_static, match_ints, op_error, shape_refinements


def i64_array(values: list[int]) -> DenseArrayAttr:
    return DenseArrayAttr(I64, tuple(int(v) for v in values))


@pattern("stablehlo.custom_call")
def custom_call_shape_operands(op: Operation, rw: PatternRewriter) -> bool:
    """Drop the constant shape operands (and their layouts) once every result is static."""
    if shape_refinements(op) is None:
        return False
    indices = set(op.attributes["indices_of_shape_operands"].value.reshape(-1).tolist())
    if not all(is_static(t) for t in op.result_types[:len(indices)]):
        return False
    properties = dict(op.properties)
    layouts = properties.get("operand_layouts")
    if isinstance(layouts, ArrayAttr):
        properties["operand_layouts"] = ArrayAttr(tuple(
            a for i, a in enumerate(layouts.elements) if i not in indices))
    attributes = {k: v for k, v in op.attributes.items() if k != "indices_of_shape_operands"}
    operands = [v for i, v in enumerate(op.operands) if i not in indices]
    new = rw.create(op.name, operands, op.result_types, properties, attributes,
                    location=op.location)
    rw.replace_op(op, new.results)
    return True


@pattern("stablehlo.dynamic_broadcast_in_dim")
def dynamic_broadcast_in_dim(op: Operation, rw: PatternRewriter) -> bool:
    if not is_static(op.operands[0].type) or match_ints(op.operands[1]) is None:
        return False
    if not is_static(op.result_types[0]):
        return False
    rw.replace_op_with(op, "stablehlo.broadcast_in_dim", [op.operands[0]],
                       {"broadcast_dimensions": op.properties["broadcast_dimensions"]})
    return True


@pattern("stablehlo.dynamic_conv")
def dynamic_conv(op: Operation, rw: PatternRewriter) -> bool:
    padding = match_ints(op.operands[2])
    if padding is None:
        return False
    properties = dict(op.properties)
    attr = DenseElementsAttr(TensorType((len(padding) // 2, 2), I64),
                             np.array(padding, dtype=np.int64))
    ordered = {}
    for key, value in properties.items():
        ordered[key] = value
        if key == "window_strides":
            ordered["padding"] = attr
    ordered.setdefault("padding", attr)
    rw.replace_op_with(op, "stablehlo.convolution", op.operands[:2], ordered, op.attributes)
    return True


@pattern("stablehlo.dynamic_gather")
def dynamic_gather(op: Operation, rw: PatternRewriter) -> bool:
    sizes = match_ints(op.operands[2])
    if sizes is None:
        return False
    properties = dict(op.properties)
    properties["slice_sizes"] = i64_array(sizes)
    rw.replace_op_with(op, "stablehlo.gather", op.operands[:2], properties, op.attributes)
    return True


@pattern("stablehlo.dynamic_iota")
def dynamic_iota(op: Operation, rw: PatternRewriter) -> bool:
    if match_ints(op.operands[0]) is None or not is_static(op.result_types[0]):
        return False
    rw.replace_op_with(op, "stablehlo.iota", [],
                       {"iota_dimension": op.properties["iota_dimension"]})
    return True


@pattern("stablehlo.dynamic_pad")
def dynamic_pad(op: Operation, rw: PatternRewriter) -> bool:
    low, high, interior = (match_ints(v) for v in op.operands[2:5])
    if low is None or high is None or interior is None:
        return False
    rw.replace_op_with(op, "stablehlo.pad", op.operands[:2], {
        "edge_padding_low": i64_array(low), "edge_padding_high": i64_array(high),
        "interior_padding": i64_array(interior)})
    return True


@pattern("stablehlo.dynamic_reshape")
def dynamic_reshape(op: Operation, rw: PatternRewriter) -> bool:
    if match_ints(op.operands[1]) is None or not is_static(op.result_types[0]):
        return False
    rw.replace_op_with(op, "stablehlo.reshape", [op.operands[0]])
    return True


def _is_add_of(value: Value, start: Value) -> DenseElementsAttr | None:
    """The constant C when `value` is `add(start, C)` or `add(C, start)`."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name != "stablehlo.add":
        return None
    lhs, rhs = owner.operands
    if lhs is start:
        return constant_attr(rhs)
    if rhs is start:
        return constant_attr(lhs)
    return None


@pattern("stablehlo.real_dynamic_slice")
def real_dynamic_slice_to_dynamic_slice(op: Operation, rw: PatternRewriter) -> bool:
    """Unit strides and limit = start + constant: a dynamic_slice of constant sizes."""
    operand, start, limit, strides = op.operands
    steps = match_ints(strides)
    if steps is None or any(s != 1 for s in steps):
        return False
    sizes = _is_add_of(limit, start)
    if sizes is None:
        return False
    start_type: Any = start.type
    element = start_type.element
    starts = []
    for i in range(sizes.value.size):
        piece = rw.create("stablehlo.slice", [start], [TensorType((1,), element)], {
            "start_indices": i64_array([i]), "limit_indices": i64_array([i + 1]),
            "strides": i64_array([1])}, location=op.location)
        scalar = rw.create("stablehlo.reshape", [piece.results[0]], [TensorType((), element)],
                           location=op.location)
        starts.append(scalar.results[0])
    new = rw.create("stablehlo.dynamic_slice", [operand, *starts], op.result_types,
                    {"slice_sizes": i64_array(sizes.value.reshape(-1).tolist())},
                    dict(op.attributes), location=op.location)
    rw.replace_op(op, new.results)
    return True


@pattern("stablehlo.real_dynamic_slice")
def real_dynamic_slice_to_slice(op: Operation, rw: PatternRewriter) -> bool:
    start, limit, strides = (match_ints(v) for v in op.operands[1:4])
    if start is None or limit is None or strides is None:
        return False
    rw.replace_op_with(op, "stablehlo.slice", [op.operands[0]], {
        "start_indices": i64_array(start), "limit_indices": i64_array(limit),
        "strides": i64_array(strides)}, dict(op.attributes))
    return True


PATTERNS: tuple[RewritePattern, ...] = (
    custom_call_shape_operands, dynamic_broadcast_in_dim, dynamic_conv, dynamic_gather,
    dynamic_iota, dynamic_pad, dynamic_reshape, real_dynamic_slice_to_dynamic_slice,
    real_dynamic_slice_to_slice)

CONFIG = GreedyConfig(top_down=True, max_iterations=2, region_dce=True)


@register_pass("stablehlo-canonicalize-dynamism",
               "Canonicalizes dynamic operations into their static counterparts.")
def stablehlo_canonicalize_dynamism(module: Module) -> None:
    for func in module.functions():
        if not apply_patterns_greedily(func, PATTERNS, CONFIG):
            raise op_error(func, "Failed to converge StablehloCanonicalizeDynamism in "
                           f"{CONFIG.max_iterations} iterations", prefix=False)
