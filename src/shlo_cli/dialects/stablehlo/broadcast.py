"""`broadcast_in_dim`, `dynamic_broadcast_in_dim` and `broadcast`: operand axes mapped onto
result axes, size-1 axes repeated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ...ir.memory import check_elements
from ...ir.types import (
    DYNAMIC,
    TensorType,
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
    op_error,
    ranked,
    require_static_dimension_tensor,
    result_array,
    shape_operand,
    verify_output_shape,
)
from .quantization_verify import (
    check_broadcast_quantization,
    check_same_per_tensor_params,
)

# ---- broadcast_in_dim ------------------------------------------------------------------------


@define_op("stablehlo.broadcast_in_dim", operands=("operand",), results=1,
           attributes=("broadcast_dimensions",),
           syntax=Format("$operand `,` `dims` `=` $broadcast_dimensions", operands=("operand",),
                         types="functional", attrs={"broadcast_dimensions": "array"}),
           verify=lambda op: verify_broadcast_in_dim(op))
def broadcast_in_dim(operand: np.ndarray, *, broadcast_dimensions: Any,
                     result_type: TensorType) -> np.ndarray:
    """result[i] = operand[j] with j[d] = i[broadcast_dimensions[d]], or 0 where
    dim(operand, d) == 1."""
    return result_array(_broadcast(operand, ints(broadcast_dimensions),
                                   tuple(result_type.shape)), result_type)


def _broadcast(operand: np.ndarray, dims: Sequence[int], shape: tuple[int, ...]) -> np.ndarray:
    """Operand dimension d becomes result dimension dims[d] (size-1 dimensions repeat)."""
    if len(dims) != operand.ndim:
        raise EvaluationError("broadcast_dimensions must name every operand dimension")
    # Put operand axes in result order, then insert the missing result axes as size 1.
    order = sorted(range(len(dims)), key=lambda d: dims[d])
    arranged = np.transpose(operand, order) if order != list(range(len(dims))) else operand
    expanded = [1] * len(shape)
    for d in order:
        expanded[dims[d]] = operand.shape[d]
    check_elements(shape, operand.dtype.itemsize, "result")  # (a shape read from an operand)
    try:  # filled in place: a fresh array at once, cheaper than broadcast_to + copy
        out = np.empty(shape, operand.dtype)
        out[...] = arranged.reshape(expanded)
        return out
    except ValueError:
        raise EvaluationError(
            f"cannot broadcast {list(operand.shape)} to {list(shape)}") from None


@define_op("stablehlo.dynamic_broadcast_in_dim", operands=("operand", "output_dimensions"),
           results=1,
           attributes=("broadcast_dimensions", "known_expanding_dimensions?",
                       "known_nonexpanding_dimensions?"),
           syntax=Format("$operand `,` $output_dimensions `,` `dims` `=` $broadcast_dimensions",
                         operands=("operand", "output_dimensions"), types="functional",
                         attrs={"broadcast_dimensions": "array"}),
           verify=lambda op: verify_dynamic_broadcast_in_dim(op))
def dynamic_broadcast_in_dim(operand: np.ndarray, output_dimensions: np.ndarray, *,
                             broadcast_dimensions: Any, result_type: TensorType) -> np.ndarray:
    """broadcast_in_dim to the shape held in `output_dimensions`."""
    return result_array(_broadcast(operand, ints(broadcast_dimensions),
                                   shape_operand(output_dimensions)), result_type)


@define_op("stablehlo.broadcast", operands=("operand",), results=1, attributes=("broadcast_sizes",),
           syntax=Format("$operand `,` `sizes` `=` $broadcast_sizes", operands=("operand",),
                         types="functional", attrs={"broadcast_sizes": "array"}),
           verify=lambda op: verify_broadcast(op))
def broadcast(operand: np.ndarray, *, broadcast_sizes: Any, result_type: TensorType) -> np.ndarray:
    """The operand repeated over new leading dimensions of `broadcast_sizes`."""
    shape = ints(broadcast_sizes) + operand.shape
    return result_array(np.broadcast_to(operand, shape), result_type)


def verify_broadcast_in_dim(op: Operation) -> None:
    operand, result = op.operands[0].type, op.results[0].type
    if not ranked(operand, result):
        return
    check_same_per_tensor_params(op, operand, result)
    dims = attr_ints(op, "broadcast_dimensions")
    _broadcast_dims(op, dims_of(operand), dims_of(result), dims)
    for i, (size, d) in enumerate(zip(dims_of(operand), dims, strict=True)):
        target = dims_of(result)[d]
        if DYNAMIC not in (size, target) and size not in (1, target):
            raise op_error(op, f"size of operand dimension {i} ({size}) is not equal to 1 or "
                               f"size of result dimension {d} ({target})")
    check_broadcast_quantization(op, dims)


def _broadcast_dims(op: Operation, operand: tuple[int, ...], result: tuple[int, ...],
                    dims: Sequence[int]) -> None:
    if len(dims) != len(operand):
        raise op_error(op, f"broadcast_dimensions size ({len(dims)}) does not match operand "
                           f"rank ({len(operand)})")
    for d in dims:
        if d < 0 or d >= len(result):
            raise op_error(op, f"broadcast_dimensions contains invalid value {d} for result "
                               f"with rank {len(result)}")
    if len(set(dims)) != len(dims):
        raise op_error(op, "broadcast_dimensions should not have duplicates")


def verify_dynamic_broadcast_in_dim(op: Operation) -> None:
    require_static_dimension_tensor(op, 1)
    operand, result = op.operands[0].type, op.results[0].type
    if not ranked(operand, result):
        return
    if not compatible_element(operand.element, result.element):
        raise op_error(op, "expects operand and result to have compatible element type")
    dims = attr_ints(op, "broadcast_dimensions")
    _broadcast_dims(op, dims_of(operand), dims_of(result), dims)
    for i, (size, d) in enumerate(zip(dims_of(operand), dims, strict=True)):
        target = dims_of(result)[d]
        if DYNAMIC not in (size, target) and size not in (1, target):
            raise op_error(op, f"size of operand dimension {i} ({size}) is not compatible with "
                               f"size of result dimension {d} ({target})")
    hints = [*attr_ints(op, "known_expanding_dimensions"),
             *attr_ints(op, "known_nonexpanding_dimensions")]
    if len(set(hints)) != len(hints):
        raise op_error(op, "duplicate expansion hint for at least one operand dimension")
    for d in hints:
        if d < 0 or d >= len(dims_of(operand)):
            raise op_error(op, f"hint for expanding dimension {d} does not refer to a valid "
                               "operand dimension")
    shape = constant_ints(op.operands[1])
    if shape is None:
        check_broadcast_quantization(op, dims)
        return
    for i, (size, d) in enumerate(zip(dims_of(operand), dims, strict=True)):
        if size != DYNAMIC and size not in (1, shape[d]):
            raise op_error(op, f"size of operand dimension {i} ({size}) is not equal to 1 or "
                               f"value of shape at index {d} ({shape[d]})")
    verify_output_shape(op, shape)
    check_broadcast_quantization(op, dims)


def verify_broadcast(op: Operation) -> None:
    operand = op.operands[0].type
    if not ranked(operand):
        return
    sizes = attr_ints(op, "broadcast_sizes")
    for size in sizes:
        if size < 0:
            raise inference_error(op, f"Broadcast with negative dimension size {size}")
    check_inferred(op, [TensorType(sizes + dims_of(operand), operand.element)])
