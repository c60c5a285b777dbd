"""Data-movement ops (spec: broadcast_in_dim, concatenate, dynamic_slice, dynamic_update_slice,
get_dimension_size, pad, reshape, reverse, slice, transpose).

Each evaluator follows the spec's semantics section with whole-array numpy operations
(views, strided assignment); results are returned contiguous so later kernels may reinterpret
their bytes. The assembly formats are upstream's (StablehloOps.td).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...interpreter.engine import EvaluationError
from ...ir.attributes import Attribute, DenseArrayAttr, IntegerAttr
from ...ir.core import Location, Operation, Value
from ...ir.lexer import PERCENT
from ...ir.types import DYNAMIC, I64, FunctionType, TensorType, Type, numpy_dtype
from ..asm import Format
from ..registry import OpDef, define_op
from ..syntax import Custom

# ---- shared helpers --------------------------------------------------------------------------


def ints(value: Any) -> tuple[int, ...]:
    """An i64 list attribute's value (`array<i64: ...>` or legacy `dense<...>`) as ints."""
    if value is None:
        return ()
    return tuple(int(x) for x in np.ravel(np.asarray(value)))


def result_array(array: np.ndarray, result_type: TensorType) -> np.ndarray:
    """`array` as a fresh contiguous array of the result's dtype (its shape checked against the
    static dimensions of the result type)."""
    out = np.asarray(array, dtype=numpy_dtype(result_type.element), order="C")
    if not out.flags.writeable:  # a broadcast view: give later kernels a real array
        out = out.copy()
    expected = tuple(result_type.shape)
    if len(out.shape) != len(expected) or any(
            e not in (n, DYNAMIC) for n, e in zip(out.shape, expected, strict=True)):
        raise EvaluationError(
            f"result shape {list(out.shape)} does not match {result_type}")
    return out


def shape_operand(value: np.ndarray) -> tuple[int, ...]:
    """A 1-d integer tensor operand (output shape, paddings...) as ints."""
    return tuple(int(x) for x in np.asarray(value).astype(np.int64).reshape(-1))


def parse_i64_list(p: Any) -> DenseArrayAttr:
    """`[1, 2]` (custom<DenseI64Array>)."""
    p.expect("[")
    values: list[int] = []
    if not p.at("]"):
        values.append(p.parse_integer())
        while p.accept(","):
            values.append(p.parse_integer())
    p.expect("]")
    return DenseArrayAttr(I64, tuple(values))


def format_i64_list(attr: Attribute | None) -> str:
    return "[" + ", ".join(str(v) for v in ints(attr.value if attr is not None else ())) + "]"


def parse_functional_type(p: Any, operands: list[Value], tok: Any) -> list[Type]:
    """`: (A, B) -> R` after the operands, checking operand types; returns result types."""
    p.expect(":")
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", tok)
    p.check_operand_types(operands, list(ftype.inputs), tok)
    return list(ftype.results)


def print_tail(pr: Any, op: Operation, elided: Sequence[str]) -> None:
    """The extra attribute dictionary and the functional type."""
    extra = {k: v for k, v in op.properties.items() if k not in elided}
    extra.update(op.attributes)
    pr.write(pr.attr_dict(extra))
    pr.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))


def _operands_then_keyword(p: Any) -> list[Value]:
    """custom<VariadicOperandWithAttribute>: `%a, %b, ` up to the next keyword."""
    values: list[Value] = []
    while p.tok.kind == PERCENT:
        values.append(p.parse_operand())
        p.expect(",")
    return values


# ---- broadcast_in_dim ------------------------------------------------------------------------


@define_op("stablehlo.broadcast_in_dim",
           syntax=Format("$operand `,` `dims` `=` $broadcast_dimensions", operands=("operand",),
                         types="functional", attrs={"broadcast_dimensions": "array"}),
           properties=("broadcast_dimensions",))
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
    try:
        return np.broadcast_to(arranged.reshape(expanded), shape)
    except ValueError:
        raise EvaluationError(
            f"cannot broadcast {list(operand.shape)} to {list(shape)}") from None


@define_op("stablehlo.dynamic_broadcast_in_dim",
           syntax=Format("$operand `,` $output_dimensions `,` `dims` `=` $broadcast_dimensions",
                         operands=("operand", "output_dimensions"), types="functional",
                         attrs={"broadcast_dimensions": "array"}),
           properties=("broadcast_dimensions", "known_expanding_dimensions",
                       "known_nonexpanding_dimensions"))
def dynamic_broadcast_in_dim(operand: np.ndarray, output_dimensions: np.ndarray, *,
                             broadcast_dimensions: Any, result_type: TensorType) -> np.ndarray:
    """broadcast_in_dim to the shape held in `output_dimensions`."""
    return result_array(_broadcast(operand, ints(broadcast_dimensions),
                                   shape_operand(output_dimensions)), result_type)


@define_op("stablehlo.broadcast",
           syntax=Format("$operand `,` `sizes` `=` $broadcast_sizes", operands=("operand",),
                         types="functional", attrs={"broadcast_sizes": "array"}),
           properties=("broadcast_sizes",))
def broadcast(operand: np.ndarray, *, broadcast_sizes: Any, result_type: TensorType) -> np.ndarray:
    """The operand repeated over new leading dimensions of `broadcast_sizes`."""
    shape = ints(broadcast_sizes) + operand.shape
    return result_array(np.broadcast_to(operand, shape), result_type)


# ---- concatenate -----------------------------------------------------------------------------


def _parse_concatenate(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    inputs = _operands_then_keyword(p)
    p.expect("dim")
    p.expect("=")
    props: dict[str, Attribute] = {"dimension": IntegerAttr(p.parse_integer(), I64)}
    attributes = p.parse_optional_attr_dict()
    results = parse_functional_type(p, inputs, tok)
    return p.build_operation(opdef.name, opdef, inputs, results, props, attributes, [], None,
                             location)


def _print_concatenate(pr: Any, op: Operation) -> None:
    pr.write(" " + "".join(pr.name(v) + ", " for v in op.operands))
    pr.write(f"dim = {op.attr('dimension').value}")
    print_tail(pr, op, ("dimension",))


@define_op("stablehlo.concatenate", syntax=Custom(_parse_concatenate, _print_concatenate),
           properties=("dimension",))
def concatenate(*inputs: np.ndarray, dimension: int, result_type: TensorType) -> np.ndarray:
    """Inputs laid end to end along `dimension`, in operand order."""
    return result_array(np.concatenate(inputs, axis=dimension), result_type)


# ---- dynamic_slice / dynamic_update_slice ----------------------------------------------------


def _parse_dynamic_slice(p: Any, opdef: OpDef, location: Location,
                         num_results: int) -> Operation:
    tok = p.tok
    operands = [p.parse_operand()]
    p.expect(",")
    operands += _operands_then_keyword(p)
    p.expect("sizes")
    p.expect("=")
    props: dict[str, Attribute] = {"slice_sizes": parse_i64_list(p)}
    attributes = p.parse_optional_attr_dict()
    results = parse_functional_type(p, operands, tok)
    return p.build_operation(opdef.name, opdef, operands, results, props, attributes, [], None,
                             location)


def _print_dynamic_slice(pr: Any, op: Operation) -> None:
    pr.write(" " + "".join(pr.name(v) + ", " for v in op.operands))
    pr.write("sizes = " + format_i64_list(op.attr("slice_sizes")))
    print_tail(pr, op, ("slice_sizes",))


def clamped_start(start_indices: Sequence[np.ndarray], operand_shape: Sequence[int],
                  sizes: Sequence[int]) -> list[int]:
    """clamp(0, start_indices, shape(operand) - sizes), one scalar index per dimension."""
    if len(start_indices) != len(operand_shape):
        raise EvaluationError(
            f"expected {len(operand_shape)} start indices, got {len(start_indices)}")
    return [min(max(int(np.asarray(s).astype(np.int64)), 0), max(n - k, 0))
            for s, n, k in zip(start_indices, operand_shape, sizes, strict=True)]


@define_op("stablehlo.dynamic_slice", syntax=Custom(_parse_dynamic_slice, _print_dynamic_slice),
           properties=("slice_sizes",))
def dynamic_slice(operand: np.ndarray, *start_indices: np.ndarray, slice_sizes: Any,
                  result_type: TensorType) -> np.ndarray:
    """The `slice_sizes` window at the clamped start indices."""
    sizes = ints(slice_sizes)
    start = clamped_start(start_indices, operand.shape, sizes)
    window = tuple(slice(s, s + k) for s, k in zip(start, sizes, strict=True))
    return result_array(operand[window], result_type)


@define_op("stablehlo.dynamic_update_slice",
           syntax=Format("$operands", operands=("operands*",), types="functional"))
def dynamic_update_slice(operand: np.ndarray, update: np.ndarray, *start_indices: np.ndarray,
                         result_type: TensorType) -> np.ndarray:
    """`operand` with the window at the clamped start indices replaced by `update`."""
    start = clamped_start(start_indices, operand.shape, update.shape)
    result = np.array(operand, dtype=numpy_dtype(result_type.element), order="C")
    window = tuple(slice(s, s + k) for s, k in zip(start, update.shape, strict=True))
    result[window] = update
    return result_array(result, result_type)


# ---- get_dimension_size ----------------------------------------------------------------------


@define_op("stablehlo.get_dimension_size",
           syntax=Format("$operand `,` `dim` `=` $dimension", operands=("operand",),
                         types="functional", attrs={"dimension": "int"}),
           properties=("dimension",))
def get_dimension_size(operand: np.ndarray, *, dimension: int,
                       result_type: TensorType) -> np.ndarray:
    """The size of `dimension` as a 0-d tensor of the result type."""
    return np.array(operand.shape[dimension], dtype=numpy_dtype(result_type.element))


# ---- pad -------------------------------------------------------------------------------------


@define_op("stablehlo.pad",
           syntax=Format("$operand `,` $padding_value `,` `low` `=` $edge_padding_low `,` "
                         "`high` `=` $edge_padding_high `,` `interior` `=` $interior_padding",
                         operands=("operand", "padding_value"), types="functional",
                         attrs={"edge_padding_low": "array", "edge_padding_high": "array",
                                "interior_padding": "array"}),
           properties=("edge_padding_low", "edge_padding_high", "interior_padding"))
def pad(operand: np.ndarray, padding_value: np.ndarray, *, edge_padding_low: Any,
        edge_padding_high: Any, interior_padding: Any, result_type: TensorType) -> np.ndarray:
    """Operand elements spread `interior_padding + 1` apart, `edge_padding_low/high` added
    (negative values cut) around them, every other element `padding_value`."""
    return result_array(_pad(operand, padding_value, ints(edge_padding_low),
                             ints(edge_padding_high), ints(interior_padding)), result_type)


def _pad(operand: np.ndarray, padding_value: np.ndarray, low: Sequence[int],
         high: Sequence[int], interior: Sequence[int]) -> np.ndarray:
    """The padded array (shared by pad and dynamic_pad)."""
    if not len(low) == len(high) == len(interior) == operand.ndim or min(interior,
                                                                        default=0) < 0:
        raise EvaluationError("invalid padding configuration")
    # Place the operand into a canvas with only the non-negative padding, then cut.
    spread = [(n - 1) * (i + 1) + 1 if n else 0 for n, i in zip(operand.shape, interior,
                                                              strict=True)]
    canvas_shape = [max(lo, 0) + s + max(hi, 0) for lo, s, hi in zip(low, spread, high,
                                                                       strict=True)]
    canvas = np.full(canvas_shape, padding_value, dtype=operand.dtype)
    canvas[tuple(slice(max(lo, 0), max(lo, 0) + s, i + 1)
                 for lo, s, i in zip(low, spread, interior, strict=True))] = operand
    cut = tuple(slice(max(-lo, 0), size - max(-hi, 0))
                for lo, hi, size in zip(low, high, canvas_shape, strict=True))
    return canvas[cut]


@define_op("stablehlo.dynamic_pad",
           syntax=Format("$operands", operands=("operands*",), types="functional"))
def dynamic_pad(operand: np.ndarray, padding_value: np.ndarray, edge_padding_low: np.ndarray,
                edge_padding_high: np.ndarray, interior_padding: np.ndarray, *,
                result_type: TensorType) -> np.ndarray:
    """pad with the paddings given as tensors."""
    return result_array(_pad(operand, padding_value, shape_operand(edge_padding_low),
                             shape_operand(edge_padding_high), shape_operand(interior_padding)),
                        result_type)


# ---- reshape / reverse / transpose -----------------------------------------------------------


@define_op("stablehlo.reshape",
           syntax=Format("$operand", operands=("operand",), types="functional"))
def reshape(operand: np.ndarray, *, result_type: TensorType) -> np.ndarray:
    """The same elements in row-major order, in the result's shape."""
    if operand.size != result_type.num_elements:
        raise EvaluationError(f"cannot reshape {list(operand.shape)} into {result_type}")
    return result_array(operand.reshape(tuple(result_type.shape)), result_type)


@define_op("stablehlo.dynamic_reshape",
           syntax=Format("$operands", operands=("operands*",), types="functional"))
def dynamic_reshape(operand: np.ndarray, output_shape: np.ndarray, *,
                    result_type: TensorType) -> np.ndarray:
    """reshape to the shape held in `output_shape`."""
    shape = shape_operand(output_shape)
    if operand.size != int(np.prod(shape, dtype=np.int64)) or min(shape, default=0) < 0:
        raise EvaluationError(f"cannot reshape {list(operand.shape)} into {list(shape)}")
    return result_array(operand.reshape(shape), result_type)


@define_op("stablehlo.set_dimension_size",
           syntax=Format("$operand `,` $size `,` `dim` `=` $dimension",
                         operands=("operand", "size"), types="functional",
                         attrs={"dimension": "int"}),
           properties=("dimension",))
def set_dimension_size(operand: np.ndarray, size: np.ndarray, *, dimension: int,
                       result_type: TensorType) -> np.ndarray:
    """Static shapes only: the data is unchanged (the size is bookkeeping for XLA)."""
    return result_array(operand, result_type)


@define_op("stablehlo.reverse",
           syntax=Format("$operand `,` `dims` `=` $dimensions", operands=("operand",),
                         types="same", attrs={"dimensions": "array"}),
           properties=("dimensions",))
def reverse(operand: np.ndarray, *, dimensions: Any, result_type: TensorType) -> np.ndarray:
    """Element order reversed along each of `dimensions`."""
    dims = ints(dimensions)
    return result_array(np.flip(operand, axis=dims) if dims else operand, result_type)


@define_op("stablehlo.transpose",
           syntax=Format("$operand `,` `dims` `=` $permutation", operands=("operand",),
                         types="functional", attrs={"permutation": "array"}),
           properties=("permutation",))
def transpose(operand: np.ndarray, *, permutation: Any, result_type: TensorType) -> np.ndarray:
    """result[i] = operand[j] with i[d] = j[permutation[d]]."""
    return result_array(np.transpose(operand, ints(permutation)), result_type)


# ---- slice -----------------------------------------------------------------------------------


def _parse_slice(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`%x [start:limit(:stride)?, ...]` (custom<SliceRanges>)."""
    tok = p.tok
    operand = p.parse_operand()
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []
    p.expect("[")
    if not p.at("]"):
        while True:
            starts.append(p.parse_integer())
            p.expect(":")
            limits.append(p.parse_integer())
            strides.append(p.parse_integer() if p.accept(":") else 1)
            if not p.accept(","):
                break
    p.expect("]")
    props: dict[str, Attribute] = {
        "start_indices": DenseArrayAttr(I64, tuple(starts)),
        "limit_indices": DenseArrayAttr(I64, tuple(limits)),
        "strides": DenseArrayAttr(I64, tuple(strides)),
    }
    attributes = p.parse_optional_attr_dict()
    results = parse_functional_type(p, [operand], tok)
    return p.build_operation(opdef.name, opdef, [operand], results, props, attributes, [], None,
                             location)


def _print_slice(pr: Any, op: Operation) -> None:
    starts = ints(op.attr("start_indices").value)
    limits = ints(op.attr("limit_indices").value)
    strides = ints(op.attr("strides").value)
    ranges = [f"{s}:{lim}" + (f":{k}" if k != 1 else "")
              for s, lim, k in zip(starts, limits, strides, strict=True)]
    pr.write(f" {pr.name(op.operands[0])} [" + ", ".join(ranges) + "]")
    print_tail(pr, op, ("start_indices", "limit_indices", "strides"))


@define_op("stablehlo.slice", syntax=Custom(_parse_slice, _print_slice),
           properties=("start_indices", "limit_indices", "strides"))
def slice_(operand: np.ndarray, *, start_indices: Any, limit_indices: Any, strides: Any,
           result_type: TensorType) -> np.ndarray:
    """result[i] = operand[start_indices + i * strides]."""
    window = tuple(slice(s, lim, k) for s, lim, k in zip(
        ints(start_indices), ints(limit_indices), ints(strides), strict=True))
    return result_array(operand[window], result_type)


@define_op("stablehlo.real_dynamic_slice",
           syntax=Format("$operands", operands=("operands*",), types="functional"))
def real_dynamic_slice(operand: np.ndarray, start_indices: np.ndarray,
                       limit_indices: np.ndarray, strides: np.ndarray, *,
                       result_type: TensorType) -> np.ndarray:
    """slice with start, limit and strides given as tensors."""
    starts, limits, steps = (shape_operand(x) for x in (start_indices, limit_indices, strides))
    if not len(starts) == len(limits) == len(steps) == operand.ndim or any(
            not 0 <= s <= lim <= n or k <= 0
            for s, lim, k, n in zip(starts, limits, steps, operand.shape, strict=True)):
        raise EvaluationError("slice bounds out of range")
    window = tuple(slice(s, lim, k) for s, lim, k in zip(starts, limits, steps, strict=True))
    return result_array(operand[window], result_type)
