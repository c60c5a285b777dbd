"""Quantized dot, dot_general and convolution for `--stablehlo-legalize-quant-to-math`.

Integer path (lhs per-tensor; rhs and result both per-tensor or both per-axis):

    result = dot(lhs, rhs) * combined_scale + (zp_res - zp_offset * combined_scale)
    zp_offset = zp_r * sum_K(lhs) + zp_l * sum_K(rhs) - zp_l * zp_r * |K|

with the dot (or convolution) itself accumulating in i32, the row/column sums as
`stablehlo.reduce` broadcast back to the result shape (dynamic_broadcast_in_dim to the
run-time shape when it is not static), and the scaling skipped when combined_scale is within
0.001 of 1. A convolution's rhs must have zero zero points; its lhs is padded explicitly with
its zero point (so padding contributes zero after the offset). Only NHWC/NCHW 2-D and
NDHWC/NCDHW 3-D convolutions without lhs dilation are taken, as upstream.

Hybrid path (float lhs and result, quantized rhs: weight-only quantization): the rhs is
dequantized behind an `optimization_barrier` (so constant folding keeps the weights
quantized) and the op runs in float.

Anything else returns None, and the driver falls back to dequantize -> float op ->
quantize.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..dialects.stablehlo.attr_conv import decode_conv_dims
from ..dialects.stablehlo.attr_dot import dot_dimension_attr
from ..ir.attributes import DenseArrayAttr, DenseElementsAttr, IntegerAttr
from ..ir.core import Value
from ..ir.diagnostics import EvaluationError
from ..ir.types import DYNAMIC, F32, I32, I64, IntegerType, QuantizedType, TensorType, Type
from .chlo_legalize import Rewriter
from .expanders.build import binary_region, create
from .quant_math_build import chlo, constant, convert, quant_params, storage_of, tensor
from .quant_types import quant_of


@dataclass(frozen=True)
class DotDims:
    """Roles of the operand axes; a convolution's spatial axes are summed like contracting
    ones for the zero-point offset."""

    lhs_batch: tuple[int, ...]
    lhs_spatial: tuple[int, ...]
    lhs_contract: tuple[int, ...]
    rhs_batch: tuple[int, ...]
    rhs_spatial: tuple[int, ...]
    rhs_contract: tuple[int, ...]


def _is_hybrid(before: list[Type], result: Type) -> bool | None:
    """False: integer path; True: weight-only hybrid; None: neither applies."""
    if not all(isinstance(t, TensorType) for t in (*before, result)):
        return None
    lq, rq, oq = quant_of(before[0]), quant_of(before[1]), quant_of(result)
    lhs_tensor = lq is not None and lq.quantized_dimension is None
    if lhs_tensor and rq is not None and oq is not None and (
            (rq.quantized_dimension is None) == (oq.quantized_dimension is None)):
        return False
    if lq is None and rq is not None and oq is None:
        return True
    return None


def _hybrid(rw: Rewriter, before: list[Type]) -> list[Value]:
    op = rw.op
    lhs, rhs = op.operands
    barrier = create(rw, "stablehlo.optimization_barrier", [rhs], [rhs.type]).results[0]
    q = quant_of(before[1])
    assert q is not None and isinstance(before[1], TensorType)
    f32 = before[1].with_element(F32)
    scale, zp, dims = quant_params(rw, q, zero_point_float=True)
    weights = convert(rw, barrier, f32)
    if any(q.zero_points):
        weights = chlo(rw, "subtract", weights, zp, f32, dims)
    weights = chlo(rw, "multiply", weights, scale, f32, dims)
    new = create(rw, op.name, [lhs, weights], op.result_types, op.properties)
    new.attributes = dict(op.attributes)
    return list(new.results)


# ---- zero-point offset -------------------------------------------------------------------


def _partial_offset(rw: Rewriter, x: Value, other_zp: int, dims: Sequence[int]) -> Value:
    """sum of `x` over `dims` (in i32) times the other operand's zero point."""
    t = tensor(x)
    kept = tuple(d for i, d in enumerate(t.shape) if i not in dims)
    x32 = convert(rw, x, t.with_element(I32))
    init = constant(rw, 0, I32)
    total = create(rw, "stablehlo.reduce", [x32, init], [TensorType(kept, I32)],
                   {"dimensions": DenseArrayAttr(I64, tuple(dims))},
                   [binary_region(rw, I32)]).results[0]
    return chlo(rw, "multiply", total, constant(rw, other_zp, I32))


class _OutputShape:
    """The dot result's run-time shape as tensor<rank x i64>, built once when first needed."""

    def __init__(self, output: Value) -> None:
        self.output = output
        self.value: Value | None = None

    def get(self, rw: Rewriter) -> Value:
        if self.value is None:
            t = tensor(self.output)
            pieces = []
            for i, size in enumerate(t.shape):
                if size == DYNAMIC:
                    d = rw.create("stablehlo.get_dimension_size", [self.output],
                                  TensorType((), I32), {"dimension": IntegerAttr(i, I64)})
                    d = convert(rw, d, TensorType((), I64))
                    pieces.append(rw.create("stablehlo.reshape", [d], TensorType((1,), I64)))
                else:
                    pieces.append(constant(rw, [size], I64, vector=True))
            self.value = rw.create("stablehlo.concatenate", pieces,
                                   TensorType((t.rank,), I64),
                                   {"dimension": IntegerAttr(0, I64)})
        return self.value


def _broadcast_offset(rw: Rewriter, part: Value, reduced: Sequence[int],
                      batch: Sequence[int], first_free: int, result: TensorType,
                      shape: _OutputShape) -> Value:
    """Lay a partial offset out along the result: batch axes first, then this operand's
    free axes from `first_free` on."""
    dims = []
    batch_index, free_index = 0, first_free
    original = 0
    for _ in range(tensor(part).rank):
        while original in reduced:
            original += 1
        if original in batch:
            dims.append(batch_index)
            batch_index += 1
        else:
            dims.append(free_index)
            free_index += 1
        original += 1
    props = {"broadcast_dimensions": DenseArrayAttr(I64, tuple(dims))}
    if result.is_static:
        return rw.create("stablehlo.broadcast_in_dim", [part], result, props)
    return rw.create("stablehlo.dynamic_broadcast_in_dim", [part, shape.get(rw)], result, props)


def _zero_point_offset(rw: Rewriter, lhs: Value, rhs: Value, output: Value, lhs_zp: int,
                       rhs_zp: int, result: TensorType, dims: DotDims) -> Value | None:
    shape = _OutputShape(output)
    offset = None
    if rhs_zp != 0:
        reduced = (*dims.lhs_spatial, *dims.lhs_contract)
        part = _partial_offset(rw, lhs, rhs_zp, reduced)
        offset = _broadcast_offset(rw, part, reduced, dims.lhs_batch, len(dims.lhs_batch),
                                   result, shape)
    if lhs_zp != 0:
        reduced = (*dims.rhs_spatial, *dims.rhs_contract)
        part = _partial_offset(rw, rhs, lhs_zp, reduced)
        first_free = tensor(lhs).rank - len(dims.lhs_contract)
        if dims.lhs_spatial and dims.rhs_spatial:  # convolution: the feature axis
            first_free = dims.lhs_contract[0]
        part = _broadcast_offset(rw, part, reduced, dims.rhs_batch, first_free, result, shape)
        offset = part if offset is None else rw.create("stablehlo.add", [offset, part],
                                                       offset.type)
    if lhs_zp != 0 and rhs_zp != 0:
        assert offset is not None
        static_size = 1
        dynamic_size = constant(rw, 1, I32)
        has_dynamic = False
        rhs_t = tensor(rhs)
        for axis in (*dims.rhs_spatial, *dims.rhs_contract):
            if rhs_t.shape[axis] == DYNAMIC:
                has_dynamic = True
                size = rw.create("stablehlo.get_dimension_size", [rhs], TensorType((), I32),
                                 {"dimension": IntegerAttr(axis, I64)})
                dynamic_size = rw.create("stablehlo.multiply", [dynamic_size, size],
                                         TensorType((), I32))
            else:
                static_size *= rhs_t.shape[axis]
        product = lhs_zp * rhs_zp * static_size  # wraps like upstream's int32 product
        total = constant(rw, (product + 2**31) % 2**32 - 2**31, I32)
        if has_dynamic:
            total = rw.create("stablehlo.multiply", [total, dynamic_size], TensorType((), I32))
        offset = chlo(rw, "subtract", offset, total)
    return offset


# ---- integer path ------------------------------------------------------------------------


def _integer(rw: Rewriter, before: list[Type], dims: DotDims, kernel_name: str,
             kernel_props: dict) -> list[Value]:
    op = rw.op
    lhs, rhs = op.operands
    result = op.result_types[0]
    assert isinstance(result, TensorType)
    lq, rq, oq = quant_of(before[0]), quant_of(before[1]), quant_of(result)
    assert lq is not None and rq is not None and oq is not None
    i32 = result.with_element(I32)
    f32 = result.with_element(F32)
    if kernel_name == "stablehlo.convolution":
        lhs, kernel_props = _pad_lhs(rw, lhs, lq, dims, kernel_props)
    kernel = create(rw, kernel_name, [lhs, rhs], [i32], kernel_props)
    kernel.attributes = dict(op.attributes)
    acc = kernel.results[0]
    rhs_zp = rq.zero_points[0] if rq.quantized_dimension is None else 0
    offset = _zero_point_offset(rw, lhs, rhs, acc, lq.zero_points[0], rhs_zp, i32, dims)
    scale = lq.scales[0] * rq.scales[0] / oq.scales[0]
    if abs(scale - 1.0) > 0.001:
        scale_value = constant(rw, scale, F32)
        acc_f = chlo(rw, "multiply", convert(rw, acc, f32), scale_value, f32)
        acc = convert(rw, acc_f, i32)
        if offset is not None:
            ot = tensor(offset).with_element(F32)
            off_f = chlo(rw, "multiply", convert(rw, offset, ot), scale_value, ot)
            offset = convert(rw, off_f, ot.with_element(I32))
    zp = constant(rw, oq.zero_points[0] if oq.quantized_dimension is None else 0, I32)
    if offset is not None:
        zp = chlo(rw, "subtract", zp, offset, i32)
    total = chlo(rw, "add", acc, zp, i32)
    return [convert(rw, total, i32.with_element(storage_of(oq)))]


def _pad_lhs(rw: Rewriter, lhs: Value, lq: QuantizedType, dims: DotDims,
             props: dict) -> tuple[Value, dict]:
    """Pad the convolution's lhs with its zero point and drop the op's own padding."""
    padding = props.get("padding")
    if not isinstance(padding, DenseElementsAttr):
        return lhs, props
    pads = np.asarray(padding.value).reshape(-1)
    if not pads.any():
        return lhs, props
    t = tensor(lhs)
    low, high = [0] * t.rank, [0] * t.rank
    for i, axis in enumerate(dims.lhs_spatial):
        low[axis], high[axis] = int(pads[2 * i]), int(pads[2 * i + 1])
    zp_type = TensorType((), IntegerType(8))
    zp = rw.create("stablehlo.constant", [], zp_type, {"value": DenseElementsAttr(
        zp_type, np.array(np.int64(lq.zero_points[0])).astype(np.int8), True)})
    shape = tuple(DYNAMIC if d == DYNAMIC else d + low[i] + high[i]
                  for i, d in enumerate(t.shape))
    padded = rw.create("stablehlo.pad", [lhs, zp], t.with_shape(shape), {
        "edge_padding_low": DenseArrayAttr(I64, tuple(low)),
        "edge_padding_high": DenseArrayAttr(I64, tuple(high)),
        "interior_padding": DenseArrayAttr(I64, (0,) * t.rank)})
    zeros_type = TensorType((t.rank - 2, 2), I64)
    new_props = dict(props)
    new_props["padding"] = DenseElementsAttr(zeros_type, np.zeros((), np.int64), True)
    return padded, new_props


# ---- the three ops -----------------------------------------------------------------------


def lower_dot(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    hybrid = _is_hybrid(before, rw.op.result_types[0])
    if hybrid is None:
        return None
    if hybrid:
        return _hybrid(rw, before)
    props = dict(rw.op.properties)
    props["dot_dimension_numbers"] = dot_dimension_attr([], [], [1], [0])
    return _integer(rw, before, DotDims((), (), (1,), (), (), (0,)), "stablehlo.dot_general",
                    props)


def lower_dot_general(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    hybrid = _is_hybrid(before, rw.op.result_types[0])
    if hybrid is None:
        return None
    if hybrid:
        return _hybrid(rw, before)
    attr = rw.op.attr("dot_dimension_numbers")

    def get(name: str) -> tuple[int, ...]:
        return tuple(int(v) for v in (attr.get(name, []) or []))  # type: ignore[union-attr]

    dims = DotDims(get("lhs_batching_dimensions"), (), get("lhs_contracting_dimensions"),
                   get("rhs_batching_dimensions"), (), get("rhs_contracting_dimensions"))
    return _integer(rw, before, dims, "stablehlo.dot_general", dict(rw.op.properties))


# (input batch, feature, spatial), (kernel in, out, spatial), (output batch, feature, spatial)
# -> the roles of each axis for the offset.
_CONV_LAYOUTS = {
    ((0, 3, (1, 2)), (2, 3, (0, 1)), (0, 3, (1, 2))):
        DotDims((0,), (1, 2), (3,), (), (0, 1), (2,)),
    ((0, 1, (2, 3)), (1, 0, (2, 3)), (0, 1, (2, 3))):
        DotDims((0,), (2, 3), (1,), (), (2, 3), (1,)),
    ((0, 4, (1, 2, 3)), (3, 4, (0, 1, 2)), (0, 4, (1, 2, 3))):
        DotDims((0,), (1, 2, 3), (4,), (), (0, 1, 2), (3,)),
    ((0, 1, (2, 3, 4)), (0, 1, (2, 3, 4)), (0, 1, (2, 3, 4))):
        DotDims((0,), (2, 3, 4), (1,), (), (2, 3, 4), (1,)),
}


def _conv_dims(rw: Rewriter, before: list[Type]) -> DotDims | None:
    """The convolution's roles when upstream's integer path takes it."""
    op = rw.op
    rq, oq = quant_of(before[1]), quant_of(op.result_types[0])
    assert rq is not None and oq is not None
    if rq.quantized_dimension is None:
        if rq.zero_points[0] != 0:
            return None
    else:
        if any(rq.zero_points) or any(oq.zero_points):
            return None
        if rq.quantized_dimension != tensor(op.operands[1]).rank - 1:
            return None
        ratios = [o / r for o, r in zip(oq.scales, rq.scales, strict=False)]
        if any(abs((x - ratios[0]) / ratios[0]) > 0.001 for x in ratios):
            return None
    dilation = op.attr("lhs_dilation")
    if dilation is not None and any(int(v) != 1 for v in dilation.value):
        return None
    try:
        d = decode_conv_dims(op.attr("dimension_numbers"))
    except EvaluationError:
        return None
    key = ((d.input_batch, d.input_feature, d.input_spatial),
           (d.kernel_input_feature, d.kernel_output_feature, d.kernel_spatial),
           (d.output_batch, d.output_feature, d.output_spatial))
    return _CONV_LAYOUTS.get(key)


def lower_convolution(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    hybrid = _is_hybrid(before, rw.op.result_types[0])
    if hybrid is None:
        return None
    if hybrid:
        return _hybrid(rw, before)
    dims = _conv_dims(rw, before)
    if dims is None:
        return None
    return _integer(rw, before, dims, "stablehlo.convolution", dict(rw.op.properties))
