"""Ops that keep every element and change only the shape or axis order: `reshape`,
`dynamic_reshape`, `transpose`, `reverse`, `get_dimension_size` and `set_dimension_size`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ...ir.types import (
    DYNAMIC,
    I32,
    TensorType,
    numpy_dtype,
)
from ...ir.verifier import inference_error
from ..asm import Format
from ..registry import define_op
from .data_movement import (
    attr_ints,
    check_inferred,
    compatible_element,
    constant_ints,
    dims_of,
    ints,
    non_negative_dimension,
    op_error,
    ranked,
    require_static_dimension_tensor,
    result_array,
    shape_operand,
    verify_output_shape,
)
from .quantization_verify import (
    check_reshape_quantization,
    check_transpose_quantization,
)

# ---- get_dimension_size ----------------------------------------------------------------------


@define_op("stablehlo.get_dimension_size", operands=("operand",), results=1,
           attributes=("dimension",),
           syntax=Format("$operand `,` `dim` `=` $dimension", operands=("operand",),
                         types="functional", attrs={"dimension": "int"}),
           verify=lambda op: verify_get_dimension_size(op))
def get_dimension_size(operand: np.ndarray, *, dimension: int,
                       result_type: TensorType) -> np.ndarray:
    """The size of `dimension` as a 0-d tensor of the result type."""
    return np.array(operand.shape[dimension], dtype=numpy_dtype(result_type.element))


# ---- reshape / reverse / transpose -----------------------------------------------------------


@define_op("stablehlo.reshape", operands=("operand",), results=1,
           syntax=Format("$operand", operands=("operand",), types="functional"),
           verify=lambda op: verify_reshape(op))
def reshape(operand: np.ndarray, *, result_type: TensorType) -> np.ndarray:
    """The same elements in row-major order, in the result's shape."""
    if operand.size != result_type.num_elements:
        raise EvaluationError(f"cannot reshape {list(operand.shape)} into {result_type}")
    return result_array(operand.reshape(tuple(result_type.shape)), result_type)


@define_op("stablehlo.dynamic_reshape", operands=("operand", "output_shape"), results=1,
           syntax=Format("$operands", operands=("operands*",), types="functional"),
           verify=lambda op: verify_dynamic_reshape(op))
def dynamic_reshape(operand: np.ndarray, output_shape: np.ndarray, *,
                    result_type: TensorType) -> np.ndarray:
    """reshape to the shape held in `output_shape`."""
    shape = shape_operand(output_shape)
    if operand.size != int(np.prod(shape, dtype=np.int64)) or min(shape, default=0) < 0:
        raise EvaluationError(f"cannot reshape {list(operand.shape)} into {list(shape)}")
    return result_array(operand.reshape(shape), result_type)


@define_op("stablehlo.set_dimension_size", operands=("operand", "size"), results=1,
           attributes=("dimension",),
           syntax=Format("$operand `,` $size `,` `dim` `=` $dimension",
                         operands=("operand", "size"), types="functional",
                         attrs={"dimension": "int"}),
           verify=lambda op: verify_set_dimension_size(op))
def set_dimension_size(operand: np.ndarray, size: np.ndarray, *, dimension: int,
                       result_type: TensorType) -> np.ndarray:
    """The data is unchanged, but for a dynamic (bounded) result dimension, whose run-time
    size `size` is: the elements past it are XLA's padding, dropped here, as run-time shapes
    are the arrays' own."""
    if result_type.shape[dimension] == DYNAMIC:
        count = int(np.asarray(size))
        if not 0 <= count <= operand.shape[dimension]:
            raise EvaluationError(f"size {count} is outside [0, {operand.shape[dimension]}] "
                                  f"for dimension {dimension}")
        operand = operand[(slice(None),) * dimension + (slice(0, count),)]
    return result_array(operand, result_type)


@define_op("stablehlo.reverse", operands=("operand",), results=1, attributes=("dimensions",),
           syntax=Format("$operand `,` `dims` `=` $dimensions", operands=("operand",),
                         types="same", attrs={"dimensions": "array"}),
           verify=lambda op: verify_reverse(op))
def reverse(operand: np.ndarray, *, dimensions: Any, result_type: TensorType) -> np.ndarray:
    """Element order reversed along each of `dimensions`."""
    dims = ints(dimensions)
    return result_array(np.flip(operand, axis=dims) if dims else operand, result_type)


@define_op("stablehlo.transpose", operands=("operand",), results=1, attributes=("permutation",),
           syntax=Format("$operand `,` `dims` `=` $permutation", operands=("operand",),
                         types="functional", attrs={"permutation": "array"}),
           verify=lambda op: verify_transpose(op))
def transpose(operand: np.ndarray, *, permutation: Any, result_type: TensorType) -> np.ndarray:
    """result[i] = operand[j] with i[d] = j[permutation[d]]."""
    return result_array(np.transpose(operand, ints(permutation)), result_type)


def verify_transpose(op: Operation) -> None:
    operand = op.operands[0].type
    if op.attr("permutation") is None:
        raise op_error(op, f"'{op.name}' op requires attribute 'permutation'")
    if not ranked(operand):
        return
    perm = attr_ints(op, "permutation")
    rank = len(dims_of(operand))
    if len(perm) != rank:
        raise inference_error(op, f"TransposeOp operand rank {rank} does not match permutation "
                                  f"size {len(perm)}")
    if sorted(perm) != list(range(rank)):
        raise inference_error(op, "attribute permutation must be a permutation of "
                                  f"[{', '.join(map(str, range(rank)))}] but got "
                                  f"{', '.join(map(str, perm))}")
    check_inferred(op, [TensorType(tuple(dims_of(operand)[p] for p in perm), operand.element)])
    check_transpose_quantization(op, perm)


def _int64_product(dims: Sequence[int]) -> int:
    """The product of `dims` wrapped to int64, as numpy's int64 product gives it."""
    return (math.prod(dims) + (1 << 63)) % (1 << 64) - (1 << 63)


def verify_reshape(op: Operation) -> None:
    operand, result = op.operands[0].type, op.results[0].type
    if not ranked(operand, result) or DYNAMIC in dims_of(operand) + dims_of(result):
        check_reshape_quantization(op)
        return
    have, want = _int64_product(dims_of(result)), _int64_product(dims_of(operand))
    if have != want:
        raise op_error(op, f"number of output elements ({have}) doesn't match expected number "
                           f"of elements ({want})")
    check_reshape_quantization(op)


def verify_reverse(op: Operation) -> None:
    dims = attr_ints(op, "dimensions")
    if len(set(dims)) != len(dims):
        raise op_error(op, f"dimensions should be unique. Got: {', '.join(map(str, dims))}")
    rank = len(dims_of(op.operands[0].type))
    for d in dims:
        if d < 0:
            raise op_error(op, f"all dimensions should be non-negative. Got dimension: {d}.")
        if ranked(op.operands[0].type) and d >= rank:
            raise op_error(op, f"all dimensions should be between [0, {rank}). Got dimension: "
                               f"{d}.")
    operand = op.operands[0].type
    if isinstance(operand, TensorType):  # InferTypeOpInterface: the operand's type
        check_inferred(op, [operand])


def _dimension_in_range(op: Operation, dimension: int) -> None:
    rank = len(dims_of(op.operands[0].type))
    if ranked(op.operands[0].type) and dimension >= rank:
        raise inference_error(op, f"requires dimension attribute in range [0, {rank}); found "
                                  f"({dimension})")


def verify_get_dimension_size(op: Operation) -> None:
    """ODS's `I32RankedTensor` result, then inferGetDimensionSizeOp: the dimension in range
    and the result `tensor<i32>` (any other result was accepted)."""
    result = op.result_types[0]
    if not (isinstance(result, TensorType) and result.element == I32):
        raise op_error(op, f"'{op.name}' op result #0 must be ranked tensor of 32-bit signless "
                           "integer values, "
                           f"but got '{result}'")
    _dimension_in_range(op, non_negative_dimension(op))
    check_inferred(op, [TensorType((), I32)])


def verify_set_dimension_size(op: Operation) -> None:
    dimension = non_negative_dimension(op)
    if ranked(op.operands[1].type) and dims_of(op.operands[1].type):
        raise inference_error(op, "size operand should be of rank-0")
    _dimension_in_range(op, dimension)


def verify_dynamic_reshape(op: Operation) -> None:
    """Upstream's verifyDynamicReshapeOp, in its order."""
    require_static_dimension_tensor(op, 1)
    operand, shape_type, result = op.operands[0].type, op.operands[1].type, op.results[0].type
    if not ranked(operand, shape_type, result):
        return
    if not compatible_element(operand.element, result.element):
        raise op_error(op, "expects operand and result to have compatible element type. Got: "
                           f"'{operand}' and '{result}'")
    if DYNAMIC not in dims_of(operand) and DYNAMIC not in dims_of(result):
        have = int(np.prod(dims_of(operand), dtype=np.int64))
        want = int(np.prod(dims_of(result), dtype=np.int64))
        if have != want:
            raise op_error(op, f"number of output elements ({want}) doesn't match expected "
                               f"number of elements ({have})")
    shape = constant_ints(op.operands[1])
    verify_output_shape(op, shape)
    if dims_of(shape_type) and dims_of(shape_type)[0] not in (DYNAMIC, len(dims_of(result))):
        raise op_error(op, "result should have a rank equal to the number of elements in "
                           "output_shape")
    if shape is None:
        check_reshape_quantization(op)
        return
    if DYNAMIC not in dims_of(operand):
        have = int(np.prod(dims_of(operand), dtype=np.int64))
        want = int(np.prod(shape, dtype=np.int64))
        if have != want:
            raise op_error(op, "output_shape is incompatible with input type of operation: "
                               f"input has {have} elements, but output_shape has {want}")
    check_reshape_quantization(op)
