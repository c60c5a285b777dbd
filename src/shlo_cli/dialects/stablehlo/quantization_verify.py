"""Verifier checks of quantized StableHLO programs, shared by many ops.

Two kinds, as upstream splits them:

- ODS type constraints (Base.td), checked for every stablehlo op before its own verifier
  (registered in ir.verifier.TYPE_CONSTRAINTS): a quantized element type must be a valid
  StableHLO one (4/8/16/32-bit signless or unsigned storage, zero points inside the storage
  range), a per-axis type's quantized dimension must be inside the rank with one scale per
  element of that dimension, and ops declared with `HLO_Tensor` reject per-axis types.
  Reported like MLIR's ODS: `'op' op operand #i must be ranked tensor of ..., but got 'T'`.
- The quantization constraints of single ops (TypeInference.cpp), which their verifiers
  call at the point upstream checks them: broadcast_in_dim (c1, c6), transpose (c1, c4),
  reshape (c1, c3), dot_general (c14..c20) and convolution (c28..c34). These are
  emitOptionalError messages: no `'op' op` prefix and no `failed to infer` follow-up.
"""

from __future__ import annotations

from ...ir.core import Operation
from ...ir.diagnostics import Diagnostic
from ...ir.types import DYNAMIC, QuantizedType, TensorType, Type, UnrankedTensorType
from ...ir.verifier import TYPE_CONSTRAINTS, op_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# ---- ODS: valid quantized element types and tensors --------------------------------------

_STORAGE_WIDTHS = (4, 8, 16, 32)


def storage_range(q: QuantizedType) -> tuple[int, int]:
    """The storage type's [min, max]: the declared range or the storage integer's full one."""
    width = q.storage.width
    full = ((0, (1 << width) - 1) if q.storage.is_unsigned
            else (-(1 << (width - 1)), (1 << (width - 1)) - 1))
    low = q.storage_min if q.storage_min is not None else full[0]
    high = q.storage_max if q.storage_max is not None else full[1]
    return low, high


def valid_quantized_element(q: QuantizedType) -> bool:
    """HLO_QuantizedInt / HLO_PerAxisQuantizedInt: 4/8/16/32-bit signless (QI) or unsigned
    (QUI) storage, every zero point inside the storage range (quantized_type_c7, c8)."""
    if q.storage.width not in _STORAGE_WIDTHS or q.storage.signedness == "s":
        return False
    low, high = storage_range(q)
    return all(low <= z <= high for z in q.zero_points)


def valid_quantized_dimension(t: Type) -> bool:
    """IsValidQuantizedDimension (quantized_type_c12, c13): a per-axis dimension inside the
    rank, whose size (when static) equals the number of scales."""
    if not isinstance(t, TensorType) or not isinstance(t.element, QuantizedType):
        return True
    axis = t.element.quantized_dimension
    if axis is None:
        return True
    if not 0 <= axis < t.rank:
        return False
    size = t.shape[axis]
    return size == DYNAMIC or size == len(t.element.scales)


# Operand/result constraint texts, as ODS describes Base.td's constraints (the wording of
# elementwise_verify.check_types).
_FLOAT = "4/6/8/16/32/64-bit float"
_COMPLEX = "complex type with 32/64-bit float elements"
_TENSOR = (f"{_FLOAT} or bool or 2/4/8/16/32/64-bit integer or {_COMPLEX} or per-tensor "
           "integer quantized")
TENSOR_OR_PER_AXIS = _TENSOR + " or per-axis integer quantized"
_QUANTIZED = "per-tensor integer quantized or per-axis integer quantized"
_FLOAT_OR_QUANT = f"{_FLOAT} or per-tensor integer quantized"

# Ops whose tensor operands and results are `HLO_Tensor` (per-tensor quantization only):
# op -> (variadic operand groups, description, operands checked: None for all + results).
# Most elementwise ops reject per-axis types in their own elementwise_verify.check_types;
# maximum, minimum and multiply are listed because their kinds there include per-axis.
_PER_TENSOR_ONLY: dict[str, tuple[bool, str, int | None]] = {
    **{f"stablehlo.{name}": (True, _TENSOR, None) for name in (
        "all_gather", "all_to_all", "concatenate", "map", "optimization_barrier", "reduce",
        "reduce_window", "scatter", "sort")},
    **{f"stablehlo.{name}": (False, _TENSOR, None) for name in (
        "clamp", "collective_permute", "dynamic_slice", "maximum", "minimum", "multiply",
        "pad", "dynamic_update_slice", "gather", "reduce_scatter", "reverse", "select",
        "slice", "select_and_scatter")},
    **{f"stablehlo.{name}": (False, _FLOAT_OR_QUANT, None) for name in (
        "batch_norm_grad", "batch_norm_inference", "batch_norm_training", "reduce_precision")},
    "stablehlo.cholesky": (False, f"{_FLOAT} or {_COMPLEX} or per-tensor integer quantized",
                           None),  # HLO_FpComplexOrQuantizedIntTensor
    # lhs is HLO_Tensor; rhs and result may be per-axis quantized.
    "stablehlo.dot_general": (False, _TENSOR, 1),
    "stablehlo.convolution": (False, _TENSOR, 1),
}

# Variadic-operand ops with a single result.
_SINGLE_RESULT = frozenset(("stablehlo.concatenate", "stablehlo.map"))

_DESCRIPTIONS = {
    "stablehlo.uniform_quantize": _QUANTIZED,
    "stablehlo.uniform_dequantize": _QUANTIZED,
}


def _ods_error(op: Operation, what: str, index: int, variadic: bool, description: str,
               t: Type) -> Diagnostic:
    of = "variadic of ranked tensor of" if variadic else "ranked tensor of"
    return op_error(op, f"{what} #{index} must be {of} {description} values, but got '{t}'")


def check_quantized_types(op: Operation) -> None:
    """The quantized part of a stablehlo op's ODS operand/result type constraints."""
    if not op.name.startswith("stablehlo."):
        return
    per_tensor = _PER_TENSOR_ONLY.get(op.name)
    variadic, description, checked = per_tensor or (
        False, _DESCRIPTIONS.get(op.name, TENSOR_OR_PER_AXIS), None)
    values = [("operand", i, v.type) for i, v in enumerate(op.operands)]
    values += [("result", i, v.type) for i, v in enumerate(op.results)]
    for position, (what, index, t) in enumerate(values):
        element = getattr(t, "element", None)
        if not isinstance(element, QuantizedType) or not isinstance(
                t, (TensorType, UnrankedTensorType)):
            continue
        in_per_tensor_part = per_tensor is not None and (checked is None or position < checked)
        if (not valid_quantized_element(element) or not valid_quantized_dimension(t)
                or (in_per_tensor_part and element.is_per_axis)):
            if not in_per_tensor_part and per_tensor is not None:
                variadic, description = False, TENSOR_OR_PER_AXIS
            if what == "result" and op.name in _SINGLE_RESULT:
                variadic = False
            raise _ods_error(op, what, index, variadic, description, t)


if check_quantized_types.__qualname__ not in (c.__qualname__ for c in TYPE_CONSTRAINTS):
    TYPE_CONSTRAINTS.append(check_quantized_types)


# ---- single ops' quantization constraints (TypeInference.cpp) ----------------------------


def _error(op: Operation, message: str) -> Diagnostic:
    """emitOptionalError at the op: the bare message."""
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


def _quant(t: Type) -> QuantizedType | None:
    element = getattr(t, "element", None)
    return element if isinstance(element, QuantizedType) else None


def _per_tensor(t: Type) -> QuantizedType | None:
    q = _quant(t)
    return q if q is not None and not q.is_per_axis else None


def _per_axis(t: Type) -> QuantizedType | None:
    q = _quant(t)
    return q if q is not None and q.is_per_axis else None


def check_same_per_tensor_params(op: Operation, a: Type, b: Type) -> None:
    """Both per-tensor quantized: the same quantized element type."""
    qa, qb = _per_tensor(a), _per_tensor(b)
    if qa is not None and qb is not None and qa != qb:
        raise _error(op, f"expect same quantization scale and zero_point but got {a} vs {b}")


def check_same_per_axis_params(op: Operation, a: Type, b: Type) -> None:
    """Both per-axis quantized: pairwise equal scales and zero points."""
    qa, qb = _per_axis(a), _per_axis(b)
    if qa is None or qb is None:
        return
    if any(x != y for x, y in zip(qa.scales, qb.scales, strict=False)) or any(
            x != y for x, y in zip(qa.zero_points, qb.zero_points, strict=False)):
        raise _error(op, f"expect same quantization scales and zero_points but got {a} vs {b}")


def check_broadcast_quantization(op: Operation, dims: Sequence[int]) -> None:
    """broadcast_in_dim_c6 / dynamic_broadcast_in_dim_c6 (per-axis result): the result's
    quantized dimension is where the operand's goes, and a size-1 operand dimension's
    parameters are repeated along it."""
    operand, result = op.operands[0].type, op.results[0].type
    q_in, q_out = _per_axis(operand), _per_axis(result)
    if q_in is None or q_out is None or not isinstance(operand, TensorType) or not isinstance(
            result, TensorType):
        return
    axis_in, axis_out = q_in.quantized_dimension, q_out.quantized_dimension
    if not 0 <= axis_in < len(dims):
        return
    if axis_out != dims[axis_in]:
        raise _error(op, f"result quantization_dimension {axis_out} not same as "
                         f"broadcast_dimensions[{axis_in}] = {dims[axis_in]}")
    if operand.shape[axis_in] != 1 or not 0 <= axis_out < result.rank:
        return
    for i in range(min(max(result.shape[axis_out], 0), len(q_out.scales))):
        if q_out.scales[i] != q_in.scales[0]:
            raise _error(op, f"mismatch result scale {i} ({q_out.scales[i]:e}) and operand "
                             f"scale 0 ({q_in.scales[0]:e})")
        if q_out.zero_points[i] != q_in.zero_points[0]:
            raise _error(op, f"mismatch result zero_point {i} ({q_out.zero_points[i]}) and "
                             f"operand zero_point 0 ({q_in.zero_points[0]})")


def check_transpose_quantization(op: Operation, permutation: Sequence[int]) -> None:
    """transpose_c1 (same parameters) and transpose_c4 (the quantized dimension moves with
    the permutation)."""
    operand, result = op.operands[0].type, op.results[0].type
    check_same_per_tensor_params(op, operand, result)
    check_same_per_axis_params(op, operand, result)
    q_in, q_out = _per_axis(operand), _per_axis(result)
    if q_in is None or q_out is None or not 0 <= q_out.quantized_dimension < len(permutation):
        return
    axis_in, axis_out = q_in.quantized_dimension, q_out.quantized_dimension
    if axis_in != permutation[axis_out]:
        raise _error(op, f"operand quantization_dimension {axis_in} is not same as "
                         f"permutation[{axis_out}] = {permutation[axis_out]}")


def check_reshape_quantization(op: Operation) -> None:
    """reshape_c1 (same parameters) and reshape_c3 (per-axis: the quantized dimension keeps
    its size and the elements before it)."""
    operand, result = op.operands[0].type, op.results[0].type
    if _quant(operand) is None and _quant(result) is None:
        return
    check_same_per_tensor_params(op, operand, result)
    check_same_per_axis_params(op, operand, result)
    q_in, q_out = _per_axis(operand), _per_axis(result)
    if q_in is None or q_out is None or not isinstance(operand, TensorType) or not isinstance(
            result, TensorType):
        return
    axis_in, axis_out = q_in.quantized_dimension, q_out.quantized_dimension
    if not (0 <= axis_in < operand.rank and 0 <= axis_out < result.rank):
        return
    size_in, size_out = operand.shape[axis_in], result.shape[axis_out]
    if DYNAMIC not in (size_in, size_out) and size_in != size_out:
        raise _error(op, f"expect same quantization dimension size for operand and result "
                         f"{operand} and {result}")
    if operand.is_static and result.is_static:
        before_in = _product(operand.shape[:axis_in])
        before_out = _product(result.shape[:axis_out])
        if before_in != before_out:
            raise _error(op, "product of dimensions before quantization dimension must match "
                             f"between operand and result for {before_in} and {before_out}")


def _product(sizes: Sequence[int]) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


def _common_dot_conv(op: Operation) -> None:
    """convolution_c28, c31..c34 / dot_general_c14, c17..c20."""
    lhs, rhs, result = (_element(op.operands[0].type), _element(op.operands[1].type),
                        _element(op.results[0].type))
    if not isinstance(rhs, QuantizedType) or (
            isinstance(lhs, QuantizedType) != isinstance(result, QuantizedType)):
        raise _error(op, "rhs should be quantized for quantized operations and "
                         "is_quantized(lhs)=is_quantized(result) should hold")
    if isinstance(lhs, QuantizedType):
        assert isinstance(result, QuantizedType)
        if lhs.storage != rhs.storage:
            raise _error(op, "mismatched lhs and rhs quantization storage types")
        if lhs.expressed != rhs.expressed or lhs.expressed != result.expressed:
            raise _error(op, "mismatched lhs, rhs and result quantization expressed types")
        if not rhs.is_per_axis and result.is_per_axis:
            raise _error(op, "mismatched rhs and result quantization granularity")
    elif lhs != rhs.expressed or lhs != result:
        raise _error(op, "mismatched rhs quantization expressed type and lhs and result "
                         "element type")


def _element(t: Type) -> Type:
    return getattr(t, "element", t)


def _any_quantized(op: Operation) -> bool:
    return any(_quant(t) is not None for t in (op.operands[0].type, op.operands[1].type,
                                               op.results[0].type))


def check_dot_general_quantization(op: Operation, rhs_contracting: Sequence[int]) -> None:
    """dot_general_c14..c20, once the shapes are verified."""
    if len(op.operands) < 2 or not op.results or not _any_quantized(op):
        return
    rhs = _quant(op.operands[1].type)
    if rhs is not None and not rhs.is_per_axis and rhs.zero_points[0] != 0:
        raise _error(op, "Zero point of rhs should be 0")
    if rhs is not None and rhs.is_per_axis:
        if any(z != 0 for z in rhs.zero_points):
            raise _error(op, "Zero points of rhs should be 0")
        if rhs.quantized_dimension in rhs_contracting:
            raise _error(op, "Quantization dimension of rhs should not be in the contracting "
                             "dimension of rhs")
    _common_dot_conv(op)


def check_convolution_quantization(op: Operation, kernel_output_feature: int,
                                   output_feature: int) -> None:
    """convolution_c28..c34 (and dynamic_conv's), once the shapes are verified."""
    if len(op.operands) < 2 or not op.results or not _any_quantized(op):
        return
    rhs, result = _per_axis(op.operands[1].type), _per_axis(op.results[0].type)
    if rhs is not None and rhs.quantized_dimension != kernel_output_feature:
        raise _error(op, "quantization dimension of rhs should be same with "
                         "kernel_output_feature_dimension")
    if result is not None and result.quantized_dimension != output_feature:
        raise _error(op, "quantization dimension of result should be same with "
                         "output_feature_dimension")
    _common_dot_conv(op)
