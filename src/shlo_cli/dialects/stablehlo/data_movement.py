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

from ...ir.attributes import Attribute, DenseArrayAttr, IntegerAttr
from ...ir.core import Location, Operation, Value
from ...ir.diagnostics import Diagnostic, EvaluationError
from ...ir.lexer import PERCENT
from ...ir.types import (
    DYNAMIC,
    I64,
    FunctionType,
    IndexType,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    numpy_dtype,
)
from ...ir.verifier import inference_error, inferred_type_mismatch
from ...ir.verifier import op_error as verifier_op_error
from ..asm import Format
from ..registry import OpDef, define_op
from ..syntax import Custom
from .elementwise_verify import bounds_of
from .quantization_verify import (
    check_broadcast_quantization,
    check_reshape_quantization,
    check_same_per_tensor_params,
    check_transpose_quantization,
)
from .reductions import parse_dim_list

# ---- shared helpers --------------------------------------------------------------------------


def ints(value: Any) -> tuple[int, ...]:
    """An i64 list attribute's value (`array<i64: ...>` or legacy `dense<...>`) as ints."""
    if value is None:
        return ()
    if type(value) is tuple and all(type(x) is int for x in value):
        return value  # already decoded (`array<i64: ...>`): skip numpy on every kernel call
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
    return DenseArrayAttr(I64, tuple(parse_dim_list(p)))


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
           properties=("broadcast_dimensions",),
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
    try:  # filled in place: a fresh array at once, cheaper than broadcast_to + copy
        out = np.empty(shape, operand.dtype)
        out[...] = arranged.reshape(expanded)
        return out
    except ValueError:
        raise EvaluationError(
            f"cannot broadcast {list(operand.shape)} to {list(shape)}") from None


@define_op("stablehlo.dynamic_broadcast_in_dim",
           syntax=Format("$operand `,` $output_dimensions `,` `dims` `=` $broadcast_dimensions",
                         operands=("operand", "output_dimensions"), types="functional",
                         attrs={"broadcast_dimensions": "array"}),
           properties=("broadcast_dimensions", "known_expanding_dimensions",
                       "known_nonexpanding_dimensions"),
           verify=lambda op: verify_dynamic_broadcast_in_dim(op))
def dynamic_broadcast_in_dim(operand: np.ndarray, output_dimensions: np.ndarray, *,
                             broadcast_dimensions: Any, result_type: TensorType) -> np.ndarray:
    """broadcast_in_dim to the shape held in `output_dimensions`."""
    return result_array(_broadcast(operand, ints(broadcast_dimensions),
                                   shape_operand(output_dimensions)), result_type)


@define_op("stablehlo.broadcast",
           syntax=Format("$operand `,` `sizes` `=` $broadcast_sizes", operands=("operand",),
                         types="functional", attrs={"broadcast_sizes": "array"}),
           properties=("broadcast_sizes",),
           verify=lambda op: verify_broadcast(op))
def broadcast(operand: np.ndarray, *, broadcast_sizes: Any, result_type: TensorType) -> np.ndarray:
    """The operand repeated over new leading dimensions of `broadcast_sizes`."""
    shape = ints(broadcast_sizes) + operand.shape
    return result_array(np.broadcast_to(operand, shape), result_type)


# ---- concatenate -----------------------------------------------------------------------------


def _parse_concatenate(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    inputs = _operands_then_keyword(p)
    p.expect_keyword("dim")
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
           properties=("dimension",),
           verify=lambda op: verify_concatenate(op))
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
           properties=("slice_sizes",),
           verify=lambda op: verify_dynamic_slice(op))
def dynamic_slice(operand: np.ndarray, *start_indices: np.ndarray, slice_sizes: Any,
                  result_type: TensorType) -> np.ndarray:
    """The `slice_sizes` window at the clamped start indices."""
    sizes = ints(slice_sizes)
    start = clamped_start(start_indices, operand.shape, sizes)
    window = tuple(slice(s, s + k) for s, k in zip(start, sizes, strict=True))
    return result_array(operand[window], result_type)


@define_op("stablehlo.dynamic_update_slice",
           syntax=Format("$operands", operands=("operands*",), types="functional"),
           verify=lambda op: verify_dynamic_update_slice(op))
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
           properties=("dimension",),
           verify=lambda op: verify_get_dimension_size(op))
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
           properties=("edge_padding_low", "edge_padding_high", "interior_padding"),
           verify=lambda op: verify_pad(op))
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
           syntax=Format("$operands", operands=("operands*",), types="functional"),
           verify=lambda op: verify_dynamic_pad(op))
def dynamic_pad(operand: np.ndarray, padding_value: np.ndarray, edge_padding_low: np.ndarray,
                edge_padding_high: np.ndarray, interior_padding: np.ndarray, *,
                result_type: TensorType) -> np.ndarray:
    """pad with the paddings given as tensors."""
    return result_array(_pad(operand, padding_value, shape_operand(edge_padding_low),
                             shape_operand(edge_padding_high), shape_operand(interior_padding)),
                        result_type)


# ---- reshape / reverse / transpose -----------------------------------------------------------


@define_op("stablehlo.reshape",
           syntax=Format("$operand", operands=("operand",), types="functional"),
           verify=lambda op: verify_reshape(op))
def reshape(operand: np.ndarray, *, result_type: TensorType) -> np.ndarray:
    """The same elements in row-major order, in the result's shape."""
    if operand.size != result_type.num_elements:
        raise EvaluationError(f"cannot reshape {list(operand.shape)} into {result_type}")
    return result_array(operand.reshape(tuple(result_type.shape)), result_type)


@define_op("stablehlo.dynamic_reshape",
           syntax=Format("$operands", operands=("operands*",), types="functional"),
           verify=lambda op: verify_dynamic_reshape(op))
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
           properties=("dimension",),
           verify=lambda op: verify_set_dimension_size(op))
def set_dimension_size(operand: np.ndarray, size: np.ndarray, *, dimension: int,
                       result_type: TensorType) -> np.ndarray:
    """Static shapes only: the data is unchanged (the size is bookkeeping for XLA)."""
    return result_array(operand, result_type)


@define_op("stablehlo.reverse",
           syntax=Format("$operand `,` `dims` `=` $dimensions", operands=("operand",),
                         types="same", attrs={"dimensions": "array"}),
           properties=("dimensions",),
           verify=lambda op: verify_reverse(op))
def reverse(operand: np.ndarray, *, dimensions: Any, result_type: TensorType) -> np.ndarray:
    """Element order reversed along each of `dimensions`."""
    dims = ints(dimensions)
    return result_array(np.flip(operand, axis=dims) if dims else operand, result_type)


@define_op("stablehlo.transpose",
           syntax=Format("$operand `,` `dims` `=` $permutation", operands=("operand",),
                         types="functional", attrs={"permutation": "array"}),
           properties=("permutation",),
           verify=lambda op: verify_transpose(op))
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
           properties=("start_indices", "limit_indices", "strides"),
           verify=lambda op: verify_slice(op))
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


# ---- verification (upstream StablehloOps.cpp / TypeInference.cpp wording) --------------------
# Each verifier raises a Diagnostic at the op for the first violated constraint; messages from
# shape inference carry no `'op' op` prefix, as upstream emits them at the op's location.


def op_error(op: Operation, message: str) -> Diagnostic:
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


def _dims(t: Type) -> tuple[int, ...]:
    return tuple(t.shape) if isinstance(t, TensorType) else ()


def _ranked(*types: Type) -> bool:
    return all(isinstance(t, TensorType) for t in types)


def compatible_dim(a: int, b: int) -> bool:
    return a == b or DYNAMIC in (a, b)


def _type_text(t: Type) -> str:
    return f"'{t}'"


def check_inferred(op: Operation, inferred: Sequence[TensorType]) -> None:
    """`inferred type(s) ... are incompatible with return type(s) of operation ...`."""
    actual = [r.type for r in op.results]
    ok = len(actual) == len(inferred) and all(
        isinstance(a, TensorType) and _compatible_element(a.element, i.element)
        and len(a.shape) == len(i.shape)
        and all(compatible_dim(x, y) for x, y in zip(a.shape, i.shape, strict=True))
        for a, i in zip(actual, inferred, strict=False))
    if not ok:
        raise inferred_type_mismatch(op, ", ".join(map(_type_text, inferred)))


def _compatible_element(a: Type, b: Type) -> bool:
    """Equal, or both quantized over the same expressed type (parameters may differ)."""
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType):
        return a.expressed == b.expressed and a.storage.width == b.storage.width
    return a == b


def _matches_shape(values: Sequence[int], shape: Sequence[int]) -> bool:
    """A constant shape against a result type: equal where the type is static."""
    return len(values) == len(shape) and all(d in (v, DYNAMIC) for v, d in zip(values, shape,
                                                                               strict=True))


def _non_negative_dimension(op: Operation) -> int:
    dimension = int(op.attr("dimension").value) if op.attr("dimension") is not None else 0
    if dimension < 0:
        raise op_error(op, f"'{op.name}' op attribute 'dimension' failed to satisfy constraint: "
                           "64-bit signless integer attribute whose value is non-negative")
    return dimension


def _attr_ints(op: Operation, name: str) -> tuple[int, ...]:
    attr = op.attr(name)
    return ints(attr.value) if attr is not None else ()


def require_static_or_single_bounded(op: Operation) -> None:
    """The ODS result constraint of reshape and broadcast_in_dim: every dimension static,
    except at most one dynamic dimension that has a bound."""
    result = op.results[0].type if op.results else None
    if not isinstance(result, TensorType):
        return
    dynamic = [i for i, d in enumerate(result.shape) if d == DYNAMIC]
    if not dynamic:
        return
    encoding = result.encoding
    bounds = encoding.get("bounds") if getattr(encoding, "name", None) == "bounds" else None
    if len(dynamic) == 1 and bounds and len(bounds) == result.rank and bounds[dynamic[0]] \
            is not None:
        return
    raise op_error(op, f"'{op.name}' op result #0 must be statically shaped or single bounded "
                       f"dimension tensor of any type values, but got '{result}'")


_DIMENSION_VALUES = ("index or 4/8/16/32/64-bit signless integer or 4/8/16/32/64-bit unsigned "
                     "integer")


def _dimension_value(t: Type) -> bool:
    """HLO_DimensionValue: index, or a 4..64-bit signless or unsigned integer."""
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.signedness != "s"
                                        and t.width in (4, 8, 16, 32, 64))


def require_static_dimension_tensor(op: Operation, index: int) -> None:
    """The ODS operand constraint HLO_StaticDimensionTensor (a shape operand)."""
    t = op.operands[index].type
    if not (isinstance(t, TensorType) and t.rank == 1 and t.is_static
            and _dimension_value(t.element)):
        raise verifier_op_error(op, f"operand #{index} must be statically shaped 1-dimensional "
                                    f"tensor of {_DIMENSION_VALUES} values, but got '{t}'")


def verify_broadcast_in_dim(op: Operation) -> None:
    require_static_or_single_bounded(op)
    operand, result = op.operands[0].type, op.results[0].type
    if not _ranked(operand, result):
        return
    check_same_per_tensor_params(op, operand, result)
    dims = _attr_ints(op, "broadcast_dimensions")
    _broadcast_dims(op, _dims(operand), _dims(result), dims)
    for i, (size, d) in enumerate(zip(_dims(operand), dims, strict=True)):
        target = _dims(result)[d]
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
    if not _ranked(operand, result):
        return
    if not _compatible_element(operand.element, result.element):
        raise op_error(op, "expects operand and result to have compatible element type")
    dims = _attr_ints(op, "broadcast_dimensions")
    _broadcast_dims(op, _dims(operand), _dims(result), dims)
    for i, (size, d) in enumerate(zip(_dims(operand), dims, strict=True)):
        target = _dims(result)[d]
        if DYNAMIC not in (size, target) and size not in (1, target):
            raise op_error(op, f"size of operand dimension {i} ({size}) is not compatible with "
                               f"size of result dimension {d} ({target})")
    hints = [*_attr_ints(op, "known_expanding_dimensions"),
             *_attr_ints(op, "known_nonexpanding_dimensions")]
    if len(set(hints)) != len(hints):
        raise op_error(op, "duplicate expansion hint for at least one operand dimension")
    for d in hints:
        if d < 0 or d >= len(_dims(operand)):
            raise op_error(op, f"hint for expanding dimension {d} does not refer to a valid "
                               "operand dimension")
    shape = constant_ints(op.operands[1])
    if shape is None:
        check_broadcast_quantization(op, dims)
        return
    for i, (size, d) in enumerate(zip(_dims(operand), dims, strict=True)):
        if size != DYNAMIC and size not in (1, shape[d]):
            raise op_error(op, f"size of operand dimension {i} ({size}) is not equal to 1 or "
                               f"value of shape at index {d} ({shape[d]})")
    verify_output_shape(op, shape)
    check_broadcast_quantization(op, dims)


def verify_broadcast(op: Operation) -> None:
    operand = op.operands[0].type
    if not _ranked(operand):
        return
    sizes = _attr_ints(op, "broadcast_sizes")
    for size in sizes:
        if size < 0:
            raise inference_error(op, f"Broadcast with negative dimension size {size}")
    check_inferred(op, [TensorType(sizes + _dims(operand), operand.element)])


def verify_concatenate(op: Operation) -> None:
    dimension = _non_negative_dimension(op)
    if not op.operands:
        raise op_error(op, f"'{op.name}' op expected 1 or more operands, but found 0")
    types = [v.type for v in op.operands]
    if not _ranked(*types):
        return
    witness = _dims(types[0])
    rank = len(witness)
    if rank == 0:
        raise inference_error(op, "rank-0 values cannot be concatenated")
    if dimension >= rank:
        raise inference_error(op, f"dimension {dimension} is out-of-bounds for input rank {rank}")
    for i, t in enumerate(types):
        shape = _dims(t)
        if len(shape) != rank:
            raise inference_error(op, f"operands (0) and ({i}) do not match rank")
        for d in range(rank):
            if d != dimension and not compatible_dim(witness[d], shape[d]):
                raise inference_error(op, f"shapes of operand (0) and ({i}) are not compatible at "
                                          f"non-concat index {d}: ({', '.join(map(str, witness))}) "
                                          f"!= ({', '.join(map(str, shape))})")
    inferred = []
    for d in range(rank):
        sizes = [_dims(t)[d] for t in types]
        if d == dimension:
            inferred.append(DYNAMIC if DYNAMIC in sizes else sum(sizes))
        else:
            inferred.append(next((s for s in sizes if s != DYNAMIC), DYNAMIC))
    check_inferred(op, [TensorType(tuple(inferred), types[0].element)])


def verify_slice(op: Operation) -> None:
    operand = op.operands[0].type
    if not _ranked(operand):
        return
    shape = _dims(operand)
    starts = _attr_ints(op, "start_indices")
    limits = _attr_ints(op, "limit_indices")
    strides = _attr_ints(op, "strides")
    for name, values in (("start_indices", starts), ("limit_indices", limits),
                         ("strides", strides)):
        if len(values) != len(shape):
            raise inference_error(op, f"the number of elements in {name} ({len(values)}) does not "
                                      f"match the rank of the operand ({len(shape)})")
    out = []
    for d, (s, lim, k, n) in enumerate(zip(starts, limits, strides, shape, strict=True)):
        if s < 0:
            raise inference_error(op, f"negative start index {s} in dimension {d}")
        if n != DYNAMIC and lim > n:
            raise inference_error(op, f"limit index {lim} is larger than dimension size {n} in "
                                      f"dimension {d}")
        bound = bounds_of(operand)[d] if n == DYNAMIC else None
        if bound is not None and lim > bound:
            raise inference_error(op, f"limit index {lim} is larger than dimension bound "
                                      f"{bound} in dimension {d}")
        if s > lim:
            raise inference_error(op, f"start index {s} is larger than limit index {lim} in "
                                      f"dimension {d}")
        if k <= 0:
            raise inference_error(op, f"stride must be positive but got {k} in dimension {d}")
        out.append(-(-(lim - s) // k))
    check_inferred(op, [TensorType(tuple(out), operand.element)])


def verify_dynamic_slice(op: Operation) -> None:
    operand = op.operands[0].type
    starts = [v.type for v in op.operands[1:]]
    if not _ranked(operand, *starts):
        return
    sizes = _attr_ints(op, "slice_sizes")
    if len(sizes) != len(starts):
        raise inference_error(op, f"has mismatched number of slice sizes ({len(sizes)}) and "
                                  f"number of start indices ({len(starts)})")
    if len(starts) != len(_dims(operand)):
        raise inference_error(op, f"has mismatched number of start indices ({len(starts)}) and "
                                  f"the rank of operand ({len(_dims(operand))})")
    if len({t.element for t in starts}) > 1:
        raise inference_error(op, "start indices must have same element type")
    for d, (size, n) in enumerate(zip(sizes, _dims(operand), strict=True)):
        if size < 0:
            raise inference_error(op, f"has negative size index to dynamic slice: {size}")
        if n != DYNAMIC and size > n:
            raise inference_error(op, f"has slice size {size} greater than dimension size {n} in "
                                      f"dimension {d} of operand")
    check_inferred(op, [TensorType(sizes, operand.element)])


def verify_dynamic_update_slice(op: Operation) -> None:
    types = [v.type for v in op.operands]
    if len(types) < 2 or not _ranked(*types):
        return
    operand, update, starts = types[0], types[1], types[2:]
    if len(_dims(update)) != len(_dims(operand)):
        raise inference_error(op, "update rank does not match operand rank: "
                                  f"{len(_dims(update))} vs {len(_dims(operand))}.")
    if len(starts) != len(_dims(operand)):
        raise inference_error(op, "expects number of start_indices to match operand rank: "
                                  f"{len(starts)} vs {len(_dims(operand))}.")
    if len({t.element for t in starts}) > 1:
        raise inference_error(op, "start indices must have same element type")
    for d, (u, n) in enumerate(zip(_dims(update), _dims(operand), strict=True)):
        if DYNAMIC not in (u, n) and not 0 <= u <= n:
            raise inference_error(op, f"expects size at dimension {d} of update to be in range "
                                      f"[0, {n}]. Got: {u}.")
    check_inferred(op, [TensorType(_dims(operand), operand.element)])


def verify_transpose(op: Operation) -> None:
    operand = op.operands[0].type
    if op.attr("permutation") is None:
        raise op_error(op, f"'{op.name}' op requires attribute 'permutation'")
    if not _ranked(operand):
        return
    perm = _attr_ints(op, "permutation")
    rank = len(_dims(operand))
    if len(perm) != rank:
        raise inference_error(op, f"TransposeOp operand rank {rank} does not match permutation "
                                  f"size {len(perm)}")
    if sorted(perm) != list(range(rank)):
        raise inference_error(op, "attribute permutation must be a permutation of "
                                  f"[{', '.join(map(str, range(rank)))}] but got "
                                  f"{', '.join(map(str, perm))}")
    check_inferred(op, [TensorType(tuple(_dims(operand)[p] for p in perm), operand.element)])
    check_transpose_quantization(op, perm)


def verify_reshape(op: Operation) -> None:
    require_static_or_single_bounded(op)
    operand, result = op.operands[0].type, op.results[0].type
    if not _ranked(operand, result) or DYNAMIC in _dims(operand) + _dims(result):
        check_reshape_quantization(op)
        return
    have, want = int(np.prod(_dims(result), dtype=np.int64)), int(
        np.prod(_dims(operand), dtype=np.int64))
    if have != want:
        raise op_error(op, f"number of output elements ({have}) doesn't match expected number "
                           f"of elements ({want})")
    check_reshape_quantization(op)


def verify_reverse(op: Operation) -> None:
    dims = _attr_ints(op, "dimensions")
    if len(set(dims)) != len(dims):
        raise op_error(op, f"dimensions should be unique. Got: {', '.join(map(str, dims))}")
    rank = len(_dims(op.operands[0].type))
    for d in dims:
        if d < 0:
            raise op_error(op, f"all dimensions should be non-negative. Got dimension: {d}.")
        if _ranked(op.operands[0].type) and d >= rank:
            raise op_error(op, f"all dimensions should be between [0, {rank}). Got dimension: "
                               f"{d}.")


def _dimension_in_range(op: Operation, dimension: int) -> None:
    rank = len(_dims(op.operands[0].type))
    if _ranked(op.operands[0].type) and dimension >= rank:
        raise inference_error(op, f"requires dimension attribute in range [0, {rank}); found "
                                  f"({dimension})")


def verify_get_dimension_size(op: Operation) -> None:
    _dimension_in_range(op, _non_negative_dimension(op))


def verify_set_dimension_size(op: Operation) -> None:
    dimension = _non_negative_dimension(op)
    if _ranked(op.operands[1].type) and _dims(op.operands[1].type):
        raise inference_error(op, "size operand should be of rank-0")
    _dimension_in_range(op, dimension)


def verify_pad(op: Operation) -> None:
    operand, value = op.operands[0].type, op.operands[1].type
    if not _ranked(operand, value):
        return
    shape = _dims(operand)
    low = _attr_ints(op, "edge_padding_low")
    high = _attr_ints(op, "edge_padding_high")
    interior = _attr_ints(op, "interior_padding")
    if _dims(value):
        raise inference_error(op, f"padding value type should be a rank-0 tensor, is rank "
                                  f"{len(_dims(value))}")
    for name, values in (("edge_padding_low", low), ("edge_padding_high", high),
                         ("interior_padding", interior)):
        if len(values) != len(shape):
            raise inference_error(op, f"{name} length ({len(values)}) must match operand rank "
                                      f"({len(shape)})")
    out = []
    for d, (n, lo, hi, i) in enumerate(zip(shape, low, high, interior, strict=True)):
        if i < 0:
            raise inference_error(op, f"Interior padding cannot be negative: {i}")
        if n == DYNAMIC:
            bound = bounds_of(operand)[d]
            if bound is not None and bound + lo + hi + max(bound - 1, 0) * i < 0:
                raise inference_error(op, f"Padding result in negative bound for dimension {d}")
            out.append(DYNAMIC)
            continue
        size = n + lo + hi + max(n - 1, 0) * i
        if size < 0:
            raise inference_error(op, f"Padding result in negative size for dimension {d}")
        out.append(size)
    check_inferred(op, [TensorType(tuple(out), operand.element)])


def verify_dynamic_pad(op: Operation) -> None:
    types = [v.type for v in op.operands]
    if len(types) != 5 or not _ranked(*types):
        return
    operand, result = types[0], op.results[0].type
    rank = len(_dims(operand))
    sizes = [_dims(t)[0] if _dims(t) else 0 for t in types[2:]]
    if any(s != rank for s in sizes):
        raise op_error(op, f"padding operands size ({next(s for s in sizes if s != rank)}) "
                           f"must match operand rank ({rank})")
    low, high, interior = (constant_ints(v) for v in op.operands[2:])
    if interior is not None:
        for i in interior:
            if i < 0:
                raise op_error(op, f"interior_padding must be non-negative, but got {i}")
    if low is None or high is None or interior is None or not _ranked(result):
        return
    for d, (n, lo, hi, i, r) in enumerate(zip(_dims(operand), low, high, interior,
                                             _dims(result), strict=True)):
        if DYNAMIC in (n, r):
            continue
        expected = lo + hi + n + max(n - 1, 0) * i
        if expected != r:
            raise op_error(op, f"expected output dimension at index {d} to equal {expected}, "
                               f"but got {r}")


def verify_dynamic_reshape(op: Operation) -> None:
    require_static_dimension_tensor(op, 1)
    operand, shape_type, result = op.operands[0].type, op.operands[1].type, op.results[0].type
    if not _ranked(operand, shape_type, result):
        return
    if not _compatible_element(operand.element, result.element):
        raise op_error(op, "expects operand and result to have compatible element type")
    if _dims(shape_type) and _dims(shape_type)[0] not in (DYNAMIC, len(_dims(result))):
        raise op_error(op, "result should have a rank equal to the number of elements in "
                           "output_shape")
    static = DYNAMIC not in _dims(operand) and DYNAMIC not in _dims(result)
    if static and int(np.prod(_dims(operand), dtype=np.int64)) != int(
            np.prod(_dims(result), dtype=np.int64)):
        raise op_error(op, f"number of output elements ({int(np.prod(_dims(result)))}) "
                           "doesn't match expected number of elements")
    shape = constant_ints(op.operands[1])
    if shape is None:
        check_reshape_quantization(op)
        return
    verify_output_shape(op, shape)
    if DYNAMIC not in _dims(operand):
        have = int(np.prod(_dims(operand), dtype=np.int64))
        want = int(np.prod(shape, dtype=np.int64))
        if have != want:
            raise op_error(op, "output_shape is incompatible with input type of operation: "
                               f"input has {have} elements, but output_shape has {want}")
    check_reshape_quantization(op)


def verify_output_shape(op: Operation, shape: Sequence[int] | None) -> None:
    """A constant shape operand must agree with the static dimensions of the result."""
    result = op.results[0].type
    if shape is not None and isinstance(result, TensorType) and not _matches_shape(
            shape, _dims(result)):
        raise op_error(op, f"output shape [{', '.join(map(str, shape))}] is incompatible with "
                           f"return type of operation '{result}'")


def constant_ints(value: Value) -> list[int] | None:
    """The integers of a value defined by `stablehlo.constant`, else None."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name != "stablehlo.constant":
        return None
    attr = owner.attr("value")
    return None if attr is None else [int(x) for x in np.ravel(np.asarray(attr.value))]
