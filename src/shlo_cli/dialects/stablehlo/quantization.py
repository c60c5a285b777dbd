"""Quantization: `uniform_quantize`, `uniform_dequantize`, and every other op applied to
`!quant.uniform` values.

Quantized tensors are held as their storage integers (so constants of quantized type hold
storage values). A binding hook (registry.register_bind_hook) picks, once per op:

- data movement and region-carrying ops (reshape, transpose, gather, pad, select, while,
  reduce_window, ...) run on the storage values unchanged, as upstream's quant-to-int
  lowering does (reduce, reduce_window and sort without their native fast paths, so the
  region's own quantization-aware ops run);
- `dot_general`, `dot`, `convolution` and `dynamic_conv` with quantized lhs and rhs
  accumulate exactly in integers (storage minus zero point) and rescale once by
  lhs_scale * rhs_scale / result_scale; with a float lhs (hybrid) the rhs is dequantized and
  the op runs in floating point; other mixes (per-axis lhs, float rhs) dequantize all;
- every other op follows the spec's dequantize_op_quantize: dequantize the quantized
  operands, evaluate in the expressed type, quantize the quantized results.

Arithmetic follows upstream's lowering: dequantize is (storage - zero_point) * scale and
quantize is clamp(x / scale + zero_point, storage_min, storage_max) rounded half to even,
both in f32 (scales and zero points as f32) when the expressed type is f32.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import (
    DYNAMIC,
    I64,
    QuantizedType,
    TensorType,
    Type,
    element_type,
    numpy_dtype,
)
from ..registry import define_op
from .elementwise import UNARY
from .elementwise_verify import check_elementwise_shapes, error

# ---- quantization parameters -------------------------------------------------------------


def quant_of(t: Type) -> QuantizedType | None:
    e = element_type(t)
    return e if isinstance(e, QuantizedType) else None


def compute_dtype(q: QuantizedType) -> np.dtype:
    """The float type dequantized values are computed in: the expressed type when numpy
    has it as f32/f64, else f32 (upstream's lowering always uses f32)."""
    try:
        dtype = numpy_dtype(q.expressed)
    except ValueError:
        return np.dtype(np.float32)
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)


def storage_range(q: QuantizedType) -> tuple[int, int]:
    width = q.storage.width
    if q.storage.is_unsigned:
        lo, hi = 0, (1 << width) - 1
    else:
        lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if q.storage_min is not None:
        lo = q.storage_min
    if q.storage_max is not None:
        hi = q.storage_max
    return lo, hi


def _params(q: QuantizedType, shape: tuple[int, ...],
            dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Scales and zero points as arrays broadcastable against a tensor of `shape`; its
    quantized dimension must hold one element per scale (a dynamic one is only known
    here, at evaluation)."""
    scales = np.asarray(q.scales, dtype=np.float64).astype(dtype)
    zero_points = np.asarray(q.zero_points, dtype=np.int64)
    if q.quantized_dimension is None:
        return scales.reshape(()), zero_points.reshape(())
    rank = len(shape)
    if not 0 <= q.quantized_dimension < rank:
        raise EvaluationError("quantized dimension out of range")
    if shape[q.quantized_dimension] != len(q.scales):
        raise EvaluationError(f"quantized dimension {q.quantized_dimension} has "
                              f"{shape[q.quantized_dimension]} elements, but the type has "
                              f"{len(q.scales)} scales")
    along = [1] * rank
    along[q.quantized_dimension] = -1
    return scales.reshape(along), zero_points.reshape(along)


def dequantize(storage: np.ndarray, q: QuantizedType, dtype: np.dtype | None = None) -> np.ndarray:
    """(storage - zero_point) * scale, in the compute type."""
    dtype = dtype or compute_dtype(q)
    scales, zero_points = _params(q, storage.shape, dtype)
    centered = storage.astype(np.int64) - zero_points
    with np.errstate(all="ignore"):
        return (centered.astype(dtype) * scales).astype(dtype)


def quantize(values: np.ndarray, q: QuantizedType) -> np.ndarray:
    """clamp(values / scale + zero_point) rounded half to even, as storage integers."""
    dtype = compute_dtype(q)
    x = np.asarray(values)
    if x.dtype.kind not in "f" or x.dtype.itemsize < dtype.itemsize:
        x = x.astype(dtype)
    x = x.astype(dtype)
    scales, zero_points = _params(q, x.shape, dtype)
    lo, hi = storage_range(q)
    with np.errstate(all="ignore"):
        y = x / scales + zero_points.astype(dtype)
        y = np.clip(y, dtype.type(lo), dtype.type(hi))
        y = np.rint(y)
    y = np.nan_to_num(y, nan=0.0)
    return y.astype(np.int64).clip(lo, hi).astype(numpy_dtype(q.storage))


def expressed_type(t: Type) -> Type:
    """`t` with a quantized element type replaced by its expressed type."""
    q = quant_of(t)
    if q is None:
        return t
    return t.with_element(q.expressed) if isinstance(t, TensorType) else q.expressed


# ---- uniform_quantize / uniform_dequantize -----------------------------------------------

_QUANT_TENSOR = ("ranked tensor of per-tensor integer quantized or per-axis integer quantized "
                 "values")


def valid_quantized_tensor(t: Type) -> bool:
    """ODS's quantized tensor constraint: a per-axis dimension inside the rank, whose size
    (when static) equals the number of scales."""
    q = quant_of(t)
    if q is None or not isinstance(t, TensorType):
        return False
    if q.quantized_dimension is None:
        return True
    if not 0 <= q.quantized_dimension < t.rank:
        return False
    size = t.shape[q.quantized_dimension]
    return size == DYNAMIC or size == len(q.scales)


def verify_uniform_quantize(op: Operation) -> None:
    result = op.results[0].type
    if not valid_quantized_tensor(result):
        raise error(op, f"result #0 must be {_QUANT_TENSOR}, but got '{result}'")
    check_elementwise_shapes(op, same_shape_trait=True)
    operand = op.operands[0].type
    source = quant_of(operand)
    expected = source.expressed if source is not None else element_type(operand)
    expressed = quant_of(result).expressed
    if expected != expressed:
        raise error(op, f"Expressed type of result expected to be '{expected}', but got "
                        f"'{expressed}'", op_prefix=False)


def verify_uniform_dequantize(op: Operation) -> None:
    operand = op.operands[0].type
    if not valid_quantized_tensor(operand):
        raise error(op, f"operand #0 must be {_QUANT_TENSOR}, but got '{operand}'")
    check_elementwise_shapes(op, same_shape_trait=True)


@define_op("stablehlo.uniform_quantize", operands=("operand",), results=1, syntax=UNARY,
           verify=verify_uniform_quantize)
def uniform_quantize(operand: np.ndarray, *, op: Operation) -> np.ndarray:
    """spec uniform_quantize: quantize a float tensor, or requantize a quantized one
    (dequantize with its own parameters, quantize with the result's)."""
    target = quant_of(op.results[0].type)
    if target is None:
        raise EvaluationError("uniform_quantize expects a quantized result type")
    source = quant_of(op.operands[0].type)
    if source is None:
        return quantize(operand, target)
    if source == target:
        return operand.copy()
    if (source.is_per_axis and target.is_per_axis
            and source.quantized_dimension != target.quantized_dimension):
        raise EvaluationError("Cannot requantize while changing quantization_axis")
    return requantize(operand, source, target)


def requantize(storage: np.ndarray, source: QuantizedType, target: QuantizedType) -> np.ndarray:
    """quantize(dequantize(x)) folded as upstream's lowering computes it, in f32:
    x * (source_scale / target_scale) + (target_zp - source_zp * merged_scale), clamped
    and rounded half to even."""
    s_scales, s_zps = _params(source, storage.shape, np.dtype(np.float64))
    t_scales, t_zps = _params(target, storage.shape, np.dtype(np.float64))
    merged_scale = (s_scales / t_scales).astype(np.float32)
    merged_zp = (t_zps - s_zps * (s_scales / t_scales)).astype(np.float32)
    lo, hi = storage_range(target)
    with np.errstate(all="ignore"):
        y = storage.astype(np.float32) * merged_scale
        if np.any(merged_zp != 0):
            y = y + merged_zp
        if target.storage.width < 32:
            y = np.clip(y, np.float32(lo), np.float32(hi))
        y = np.rint(y)
    return np.clip(y.astype(np.int64), lo, hi).astype(numpy_dtype(target.storage))


@define_op("stablehlo.uniform_dequantize", operands=("operand",), results=1, syntax=UNARY,
           verify=verify_uniform_dequantize)
def uniform_dequantize(operand: np.ndarray, *, op: Operation) -> np.ndarray:
    """spec uniform_dequantize: (storage - zero_point) * scale in the expressed type."""
    source = quant_of(op.operands[0].type)
    if source is None:
        raise EvaluationError("uniform_dequantize expects a quantized operand")
    values = dequantize(operand, source)
    return values.astype(numpy_dtype(element_type(op.results[0].type)))


# ---- other ops on quantized values ---------------------------------------------------------

# Ops evaluated per the spec's dequantize_op_quantize (upstream's QDQ fallback list plus the
# remaining elementwise numeric ops).
DEQUANTIZE_OPS = frozenset(f"stablehlo.{name}" for name in (
    "abs", "add", "atan2", "batch_norm_grad", "batch_norm_inference", "batch_norm_training",
    "cbrt", "ceil", "cholesky", "clamp", "compare", "cosine", "divide", "exponential",
    "exponential_minus_one", "floor", "log", "log_plus_one", "logistic", "maximum",
    "minimum", "multiply", "negate", "power", "reduce_precision", "remainder",
    "round_nearest_afz", "round_nearest_even", "rsqrt", "sign", "sine", "sqrt", "subtract",
    "tan", "tanh", "triangular_solve", "is_finite"))
DOT_LIKE = frozenset({"stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution",
                      "stablehlo.dynamic_conv"})
OWN_OPS = frozenset({"stablehlo.uniform_quantize", "stablehlo.uniform_dequantize"})
REGION_FAST_PATHS = frozenset({"stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.sort"})


def _types_of(op: Operation) -> list[Type]:
    return [v.type for v in op.operands] + [r.type for r in op.results]


def _retyped(kwargs: dict[str, Any], op: Operation) -> dict[str, Any]:
    out = dict(kwargs)
    if "result_type" in out and op.results:
        out["result_type"] = expressed_type(op.results[0].type)
    if "result_types" in out:
        out["result_types"] = [expressed_type(r.type) for r in op.results]
    return out


def _dequantize_op_quantize(op: Operation, opdef: Any,
                            kwargs: dict[str, Any]) -> Callable[..., Any]:
    fn = bind_after(bind_quantized, op, opdef, _retyped(kwargs, op))
    operand_quants = [quant_of(v.type) for v in op.operands]
    result_quants = [quant_of(r.type) for r in op.results]
    expressed = [compute_dtype(q) if q is not None else None for q in result_quants]
    single = len(op.results) == 1
    first_quant = next((q for q in operand_quants + result_quants if q is not None), None)
    work = compute_dtype(first_quant) if first_quant is not None else np.dtype(np.float32)

    def kernel(*args: np.ndarray) -> Any:
        inputs = [dequantize(a, q, work) if q is not None else a
                  for a, q in zip(args, operand_quants, strict=False)]
        out = fn(*inputs)
        outs = [out] if single else list(out)
        results = [quantize(np.asarray(v, dtype=e), q) if q is not None else v
                   for v, q, e in zip(outs, result_quants, expressed, strict=False)]
        return results[0] if single else results

    return kernel


def _integer_type(t: Type) -> Type:
    return t.with_element(I64) if isinstance(t, TensorType) else I64


def _dot_like(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    lhs_q, rhs_q = quant_of(op.operands[0].type), quant_of(op.operands[1].type)
    result_q = quant_of(op.results[0].type)
    if lhs_q is None:
        if rhs_q is None or result_q is not None:
            return _dequantize_op_quantize(op, opdef, kwargs)
        # Hybrid (weight-only quantization): dequantize rhs, compute in floating point.
        fn = bind_after(bind_quantized, op, opdef, kwargs)
        dtype = numpy_dtype(element_type(op.operands[0].type))

        def hybrid(lhs: np.ndarray, rhs: np.ndarray, *rest: np.ndarray) -> np.ndarray:
            return fn(lhs, dequantize(rhs, rhs_q, np.dtype(np.float32)).astype(dtype), *rest)

        return hybrid
    if rhs_q is None or lhs_q.is_per_axis:
        return _dequantize_op_quantize(op, opdef, kwargs)
    # Integer accumulation of (lhs - zp) x (rhs - zp), exact in i64, rescaled once.
    int_kwargs = dict(kwargs)
    int_kwargs["result_type"] = _integer_type(op.results[0].type)
    fn = bind_after(bind_quantized, op, opdef, int_kwargs)
    lhs_zp = int(lhs_q.zero_points[0])

    def integer(lhs: np.ndarray, rhs: np.ndarray, *rest: np.ndarray) -> np.ndarray:
        _, rhs_zp = _params(rhs_q, rhs.shape, np.dtype(np.float64))
        acc = fn(lhs.astype(np.int64) - lhs_zp, rhs.astype(np.int64) - rhs_zp, *rest)
        if result_q is None:  # float result: scale to the expressed value
            scale = lhs_q.scales[0] * _out_scales(rhs_q, None, acc.ndim, op)
            dtype = numpy_dtype(element_type(op.results[0].type))
            return (acc.astype(np.float64) * scale).astype(dtype)
        combined = lhs_q.scales[0] * _out_scales(rhs_q, result_q, acc.ndim, op)
        _, result_zp = _params(result_q, acc.shape, np.dtype(np.float64))
        lo, hi = storage_range(result_q)
        with np.errstate(all="ignore"):
            scaled = np.rint(acc.astype(np.float64) * combined) + result_zp
        scaled = np.clip(np.nan_to_num(scaled), lo, hi)
        return scaled.astype(np.int64).astype(numpy_dtype(result_q.storage))

    return integer


def _out_scales(rhs_q: QuantizedType, result_q: QuantizedType | None, rank: int,
                op: Operation) -> Any:
    """rhs_scale / result_scale, per output feature when rhs is per-axis quantized."""
    rhs_scales = np.asarray(rhs_q.scales, dtype=np.float64)
    res_scales = (np.asarray(result_q.scales, dtype=np.float64) if result_q is not None
                  else np.ones(1))
    if not rhs_q.is_per_axis and (result_q is None or not result_q.is_per_axis):
        return float(rhs_scales[0] / res_scales[0])
    ratio = rhs_scales / res_scales if len(res_scales) == len(rhs_scales) or len(
        res_scales) == 1 else rhs_scales / res_scales[0]
    axis = (result_q.quantized_dimension if result_q is not None and result_q.is_per_axis
            else _output_feature_axis(op, rank))
    shape = [1] * rank
    shape[axis] = -1
    return ratio.reshape(shape)


def _output_feature_axis(op: Operation, rank: int) -> int:
    """The result axis carrying rhs's quantized dimension (the output feature)."""
    if op.name in ("stablehlo.convolution", "stablehlo.dynamic_conv"):
        from .attr_conv import decode_conv_dims

        return decode_conv_dims(op.attr("dimension_numbers")).output_feature
    rhs_q = quant_of(op.operands[1].type)
    dims: Any = op.attr("dot_dimension_numbers")
    rhs_type = op.operands[1].type
    if (op.name != "stablehlo.dot_general" or rhs_q is None or dims is None
            or not isinstance(rhs_type, TensorType)):
        return rank - 1
    # dot_general's result is (batch, lhs free, rhs free): rhs's quantized dimension may be a
    # batching dimension or any of its free ones, not only the last.
    def field(name: str) -> list[int]:
        value = dims.get(name)
        return [int(v) for v in value] if value else []

    axis = rhs_q.quantized_dimension
    rhs_batch, rhs_contract = field("rhs_batching_dimensions"), field("rhs_contracting_dimensions")
    if axis in rhs_batch:
        return rhs_batch.index(axis)
    rhs_rank = len(rhs_type.shape)
    rhs_free = [d for d in range(rhs_rank) if d not in rhs_batch and d not in rhs_contract]
    if axis not in rhs_free:
        return rank - 1  # contracting: the verifier refuses it
    return rank - len(rhs_free) + rhs_free.index(axis)


def bind_quantized(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    """The engine hook: a kernel for ops touching quantized types, else None."""
    if op.name in OWN_OPS or not any(quant_of(t) is not None for t in _types_of(op)):
        return None
    if op.name in DOT_LIKE:
        return _dot_like(op, opdef, kwargs)
    if op.name in ("stablehlo.maximum", "stablehlo.minimum"):
        types = {quant_of(t) for t in _types_of(op)}
        if len(types) == 1:  # same parameters: the storage order is the value order
            return None
    if op.name in DEQUANTIZE_OPS and not op.regions:
        return _dequantize_op_quantize(op, opdef, kwargs)
    if op.regions and kwargs.get("op") is not None and op.name in REGION_FAST_PATHS:
        # Their native fast paths would apply the body's op to storage integers; without
        # `op` the kernels run the region, whose ops are themselves quantization-aware.
        return bind_after(bind_quantized, op, opdef, {**kwargs, "op": None})
    return None


# Idempotent even if this module is imported twice under different names. First in the
# chain: the kernels it wraps are bound by the later hooks (`?` result shapes).
register_bind_hook(bind_quantized, 30)
