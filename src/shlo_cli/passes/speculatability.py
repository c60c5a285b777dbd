"""Speculatability of StableHLO ops (MLIR's ConditionallySpeculatable): whether an op may be
hoisted out of a branch or loop. An op whose result type promises a static size that only a
runtime value decides (a `?` operand dimension, a non-constant shape operand, a process
count) may fail at runtime, so it is not speculatable. The facts are upstream's op traits
(`HLO_SpeculatableIf...`, `Pure`, `RecursivelySpeculatable`) and per-op rules; ops outside the
table have no speculatability at all (None).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

from ..dialects.stablehlo.attr_conv import decode_conv_dims
from ..ir.attributes import DialectAttr
from ..ir.core import Operation, Value
from ..ir.types import DYNAMIC, TensorType, Type
from .effects import is_constant_like


class Speculatability(enum.Enum):
    NOT = "NotSpeculatable"
    SPECULATABLE = "Speculatable"
    RECURSIVE = "RecursivelySpeculatable"  # speculatable if the ops in its regions are


NOT, YES, RECURSIVE = Speculatability.NOT, Speculatability.SPECULATABLE, Speculatability.RECURSIVE



def as_struct(attr: object) -> DialectAttr | None:
    """A `#stablehlo.dot<...>`-style attribute with fields, else None."""
    return attr if isinstance(attr, DialectAttr) else None


def _shape(t: Type) -> tuple[int, ...] | None:
    return t.shape if isinstance(t, TensorType) else None


def _dynamic(t: Type, dim: int) -> bool:
    shape = _shape(t)
    return shape is None or shape[dim] == DYNAMIC


def _static(t: Type) -> bool:
    shape = _shape(t)
    return shape is not None and DYNAMIC not in shape


def is_constant(value: Value) -> bool:
    """MLIR's m_Constant: the value is the result of a constant-like op."""
    owner = value.owner
    return isinstance(owner, Operation) and is_constant_like(owner)


def _int(op: Operation, name: str, default: int = 0) -> int:
    attr = op.attr(name)
    return int(attr.value) if attr is not None else default


def _flag(op: Operation, name: str) -> bool:
    attr = op.attr(name)
    return bool(attr is not None and attr.value)


def _ints(op: Operation, name: str) -> tuple[int, ...]:
    attr = op.attr(name)
    return tuple(int(v) for v in attr.value) if attr is not None else ()


def _output_dims_follow_input(op: Operation, skip: Sequence[int] = ()) -> bool:
    """A static result dimension needs a static operand dimension (operand 0, result 0)."""
    operand, result = op.operands[0].type, op.results[0].type
    rank = len(_shape(result) or ())
    return not any(i not in skip and not _dynamic(result, i) and _dynamic(operand, i)
                   for i in range(rank))


def _static_dim_in_output(op: Operation) -> Speculatability:
    return YES if _output_dims_follow_input(op) else NOT


def _recursive_static_dim_in_output(op: Operation) -> Speculatability:
    return RECURSIVE if _output_dims_follow_input(op) else NOT


def _all_inputs_static(op: Operation) -> Speculatability:
    return YES if all(_static(v.type) for v in op.operands) else NOT


def _recursive_all_inputs_static(op: Operation) -> Speculatability:
    return RECURSIVE if all(_static(v.type) for v in op.operands) else NOT


def _shaped(count: int) -> Callable[[Operation], Speculatability]:
    """Static inputs and the last `count` operands (shapes, paddings) constant."""
    def rule(op: Operation) -> Speculatability:
        shapes = op.operands[len(op.operands) - count:]
        ok = all(_static(v.type) for v in op.operands) and all(map(is_constant, shapes))
        return YES if ok else NOT
    return rule


def _always(op: Operation) -> Speculatability:
    return YES


def _always_recursive(op: Operation) -> Speculatability:
    return RECURSIVE


def _reduce_scatter(op: Operation) -> Speculatability:
    # The scattered dimension's size depends on the process count, known only at runtime.
    dim = _int(op, "scatter_dimension")
    if not _dynamic(op.results[0].type, dim):
        return NOT
    return YES if _output_dims_follow_input(op, skip=(dim,)) else NOT


def _all_gather(op: Operation) -> Speculatability:
    dim = _int(op, "all_gather_dim")
    for operand, result in zip(op.operands, op.results, strict=False):
        if not _dynamic(result.type, dim):
            return NOT
        if any(i != dim and not _dynamic(result.type, i) and _dynamic(operand.type, i)
               for i in range(len(_shape(result.type) or ()))):
            return NOT
    return YES


def _all_to_all(op: Operation) -> Speculatability:
    special = (_int(op, "split_dimension"), _int(op, "concat_dimension"))
    for operand, result in zip(op.operands, op.results, strict=False):
        if not all(_dynamic(result.type, d) for d in special):
            return NOT
        if any(i not in special and not _dynamic(result.type, i) and _dynamic(operand.type, i)
               for i in range(len(_shape(result.type) or ()))):
            return NOT
    return YES


def _dot_general(op: Operation) -> Speculatability:
    # Batching and contracting dimensions must be static (they could disagree at runtime);
    # the other dimensions follow "static in output needs static in input".
    dims = as_struct(op.attr("dot_dimension_numbers"))
    lhs, rhs = op.operands[0].type, op.operands[1].type
    result = op.results[0].type

    def field(name: str) -> list[int]:
        return list(dims.get(name) or []) if dims is not None else []

    lhs_special = field("lhs_batching_dimensions") + field("lhs_contracting_dimensions")
    rhs_special = field("rhs_batching_dimensions") + field("rhs_contracting_dimensions")
    if any(_dynamic(lhs, i) for i in lhs_special) or any(_dynamic(rhs, i) for i in rhs_special):
        return NOT
    index = len(field("lhs_batching_dimensions"))
    for operand, special in ((lhs, lhs_special), (rhs, rhs_special)):
        for i in range(len(_shape(operand) or ())):
            if i in special:
                continue
            if not _dynamic(result, index) and _dynamic(operand, i):
                return NOT
            index += 1
    return YES


def _fft(op: Operation) -> Speculatability:
    # As "static in output needs static in input", and RFFT/IRFFT also need the transformed
    # (last fft_length.size()) operand dimensions static.
    operand, result = op.operands[0].type, op.results[0].type
    rank = len(_shape(operand) or ())
    kind = op.attr("fft_type")
    first_fixed = rank
    if kind is not None and str(kind.value) in ("RFFT", "IRFFT"):
        first_fixed = rank - len(_ints(op, "fft_length"))
    for i in range(rank):
        if _dynamic(operand, i) and (i >= first_fixed or not _dynamic(result, i)):
            return NOT
    return YES


def _gather(op: Operation) -> Speculatability:
    # Unsorted indices under `indices_are_sorted = true` are undefined behaviour.
    return NOT if _flag(op, "indices_are_sorted") else _all_inputs_static(op)


def _scatter(op: Operation) -> Speculatability:
    if _flag(op, "unique_indices") or _flag(op, "indices_are_sorted"):
        return NOT
    return _recursive_all_inputs_static(op)


def _dynamic_iota(op: Operation) -> Speculatability:
    if is_constant(op.operands[0]):
        return YES
    result = op.results[0].type
    return YES if all(d == DYNAMIC for d in _shape(result) or ()) else NOT


def _convolution(op: Operation) -> Speculatability:
    lhs, rhs, result = op.operands[0].type, op.operands[1].type, op.results[0].type
    d = decode_conv_dims(op.attr("dimension_numbers"))
    batch_groups = _int(op, "batch_group_count", 1)
    feature_groups = _int(op, "feature_group_count", 1)
    if _dynamic(lhs, d.input_feature) or _dynamic(rhs, d.kernel_input_feature):
        return NOT
    if _dynamic(lhs, d.input_batch) and (batch_groups > 1
                                         or not _dynamic(result, d.output_batch)):
        return NOT
    if _dynamic(rhs, d.kernel_output_feature) and (
            batch_groups > 1 or feature_groups > 1 or not _dynamic(result, d.output_feature)):
        return NOT
    for i, k, o in zip(d.input_spatial, d.kernel_spatial, d.output_spatial, strict=False):
        if not _dynamic(result, o) and (_dynamic(lhs, i) or _dynamic(rhs, k)):
            return NOT
    return YES


def _bitcast_convert(op: Operation) -> Speculatability:
    # A dimension added or removed by a bit-width change follows from the widths.
    operand, result = op.operands[0].type, op.results[0].type
    rank = min(len(_shape(operand) or ()), len(_shape(result) or ()))
    return NOT if any(not _dynamic(result, i) and _dynamic(operand, i)
                      for i in range(rank)) else YES


def _dynamic_broadcast_in_dim(op: Operation) -> Speculatability:
    operand, result = op.operands[0].type, op.results[0].type
    if not _static(operand):
        return NOT
    shape = _shape(operand) or ()
    if all(d == 1 for d in shape) and all(d == DYNAMIC for d in _shape(result) or ()):
        return YES
    return YES if is_constant(op.operands[1]) else NOT


def _concatenate(op: Operation) -> Speculatability:
    # Every operand dimension static, except the concatenated one when the result's is `?`.
    dim = _int(op, "dimension")
    free = _dynamic(op.results[0].type, dim)
    for v in op.operands:
        shape = _shape(v.type)
        if shape is None:
            return NOT
        if any(size == DYNAMIC and not (i == dim and free) for i, size in enumerate(shape)):
            return NOT
    return YES


def _set_dimension_size(op: Operation) -> Speculatability:
    dim = _int(op, "dimension")
    if not is_constant(op.operands[1]) and not _dynamic(op.results[0].type, dim):
        return NOT
    return YES if _output_dims_follow_input(op, skip=(dim,)) else NOT


def _reshape(op: Operation) -> Speculatability:
    return YES if _static(op.operands[0].type) else NOT


def _transpose(op: Operation) -> Speculatability:
    operand, result = op.operands[0].type, op.results[0].type
    perm = _ints(op, "permutation")
    return NOT if any(not _dynamic(result, i) and _dynamic(operand, p)
                      for i, p in enumerate(perm)) else YES


def _triangular_solve(op: Operation) -> Speculatability:
    # `unit_diagonal` lets the kernel assume ones on a's diagonal, unchecked at runtime.
    if _flag(op, "unit_diagonal"):
        return NOT
    return YES if all(_static(v.type) for v in op.operands[:2]) else NOT


Rule = Callable[[Operation], Speculatability]

_UNARY_ELEMENTWISE = (
    "abs", "cbrt", "ceil", "convert", "count_leading_zeros", "cosine", "exponential",
    "exponential_minus_one", "floor", "imag", "is_finite", "log", "log_plus_one", "logistic",
    "not", "negate", "popcnt", "real", "round_nearest_afz", "round_nearest_even", "rsqrt",
    "sign", "sine", "sqrt", "tan", "tanh", "uniform_quantize", "uniform_dequantize")
_BINARY_ELEMENTWISE = (
    "add", "atan2", "complex", "divide", "maximum", "minimum", "multiply", "power",
    "remainder", "shift_left", "shift_right_arithmetic", "shift_right_logical", "subtract",
    "and", "or", "xor")
_PURE = (
    "constant", "iota", "create_token", "replica_id", "partition_id", "after_all",
    "get_tuple_element", "tuple", "dynamic_slice", "dynamic_update_slice", "broadcast",
    "cross-replica-sum", "dot", "einsum", "unary_einsum", "get_dimension_size", "return",
    "torch_index_select", "optimization_barrier")

RULES: dict[str, Rule] = {}
for _name in _UNARY_ELEMENTWISE + (
        "all_reduce", "slice", "collective_broadcast", "collective_reduce",
        "collective_permute", "reverse", "pad", "rng_bit_generator", "reduce_precision"):
    RULES[_name] = _static_dim_in_output
for _name in _BINARY_ELEMENTWISE + (
        "compare", "batch_norm_grad", "batch_norm_inference", "batch_norm_training",
        "broadcast_in_dim", "clamp", "select"):
    RULES[_name] = _all_inputs_static
for _name in ("reduce", "async_start", "map", "sort", "reduce_window"):
    RULES[_name] = _recursive_all_inputs_static
for _name in _PURE:
    RULES[_name] = _always
for _name in ("if", "case", "while"):
    RULES[_name] = _always_recursive
RULES.update({
    "select_and_scatter": _recursive_static_dim_in_output,
    "dynamic_reshape": _shaped(1), "dynamic_gather": _shaped(1), "dynamic_conv": _shaped(1),
    "real_dynamic_slice": _shaped(3), "dynamic_pad": _shaped(3),
    "reduce_scatter": _reduce_scatter, "all_gather": _all_gather, "all_to_all": _all_to_all,
    "dot_general": _dot_general, "fft": _fft, "gather": _gather, "scatter": _scatter,
    "dynamic_iota": _dynamic_iota, "convolution": _convolution,
    "bitcast_convert": _bitcast_convert, "dynamic_broadcast_in_dim": _dynamic_broadcast_in_dim,
    "concatenate": _concatenate, "set_dimension_size": _set_dimension_size,
    "reshape": _reshape, "transpose": _transpose, "triangular_solve": _triangular_solve,
})

def speculatability(op: Operation) -> Speculatability | None:
    """The op's speculatability, or None when it is not a StableHLO op that declares one."""
    if not op.name.startswith("stablehlo."):
        return None
    rule = RULES.get(op.name[len("stablehlo."):])
    if rule is None:
        return None
    try:
        return rule(op)
    except (AttributeError, IndexError, TypeError, ValueError):
        return None  # an op its verifier would reject: nothing to say about it
