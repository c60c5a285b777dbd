"""Ops that cut out or join rectangular pieces: `slice`, `real_dynamic_slice`, `dynamic_slice`,
`dynamic_update_slice`, `concatenate`, `pad` and `dynamic_pad`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ir.attributes import Attribute, DenseArrayAttr, IntegerAttr
from ...ir.core import Location, Operation
from ...ir.diagnostics import EvaluationError
from ...ir.memory import check_elements
from ...ir.types import (
    DYNAMIC,
    I64,
    TensorType,
    numpy_dtype,
)
from ...ir.verifier import inference_error
from ..asm import Format
from ..registry import OpDef, define_op
from ..syntax import Custom
from .data_movement import (
    attr_ints,
    check_inferred,
    compatible_dim,
    constant_ints,
    dims_of,
    format_i64_list,
    ints,
    non_negative_dimension,
    op_error,
    operands_then_keyword,
    parse_functional_type,
    parse_i64_list,
    print_tail,
    ranked,
    require_static_dimension_tensor,
    result_array,
    shape_operand,
)
from .elementwise_verify import bounds_of

# ---- concatenate -----------------------------------------------------------------------------


def _parse_concatenate(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    inputs = operands_then_keyword(p)
    p.expect_keyword("dim")
    p.expect("=")
    props: dict[str, Attribute] = {"dimension": IntegerAttr(p.parse_int64(), I64)}
    attributes = p.parse_optional_attr_dict()
    results = parse_functional_type(p, inputs, tok, location)
    return p.build_operation(opdef.name, opdef, inputs, results, props, attributes, [], None,
                             location)


def _print_concatenate(pr: Any, op: Operation) -> None:
    pr.write(" " + "".join(pr.name(v) + ", " for v in op.operands))
    pr.write(f"dim = {op.attr('dimension').value}")
    print_tail(pr, op, ("dimension",))


@define_op("stablehlo.concatenate", operands=("*inputs",), results=1, attributes=("dimension",),
           syntax=Custom(_parse_concatenate, _print_concatenate),
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
    operands += operands_then_keyword(p)
    p.expect("sizes")
    p.expect("=")
    props: dict[str, Attribute] = {"slice_sizes": parse_i64_list(p)}
    attributes = p.parse_optional_attr_dict()
    results = parse_functional_type(p, operands, tok, location)
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


@define_op("stablehlo.dynamic_slice", operands=("operand", "*start_indices"), results=1,
           attributes=("slice_sizes",), syntax=Custom(_parse_dynamic_slice, _print_dynamic_slice),
           verify=lambda op: verify_dynamic_slice(op))
def dynamic_slice(operand: np.ndarray, *start_indices: np.ndarray, slice_sizes: Any,
                  result_type: TensorType) -> np.ndarray:
    """The `slice_sizes` window at the clamped start indices."""
    sizes = ints(slice_sizes)
    start = clamped_start(start_indices, operand.shape, sizes)
    window = tuple(slice(s, s + k) for s, k in zip(start, sizes, strict=True))
    return result_array(operand[window], result_type)


@define_op("stablehlo.dynamic_update_slice", operands=("operand", "update", "*start_indices"),
           results=1, syntax=Format("$operands", operands=("operands*",), types="functional"),
           verify=lambda op: verify_dynamic_update_slice(op))
def dynamic_update_slice(operand: np.ndarray, update: np.ndarray, *start_indices: np.ndarray,
                         result_type: TensorType) -> np.ndarray:
    """`operand` with the window at the clamped start indices replaced by `update`."""
    start = clamped_start(start_indices, operand.shape, update.shape)
    result = np.array(operand, dtype=numpy_dtype(result_type.element), order="C")
    window = tuple(slice(s, s + k) for s, k in zip(start, update.shape, strict=True))
    result[window] = update
    return result_array(result, result_type)



# ---- pad -------------------------------------------------------------------------------------


@define_op("stablehlo.pad", operands=("operand", "padding_value"), results=1,
           attributes=("edge_padding_low", "edge_padding_high", "interior_padding"),
           syntax=Format("$operand `,` $padding_value `,` `low` `=` $edge_padding_low `,` "
                         "`high` `=` $edge_padding_high `,` `interior` `=` $interior_padding",
                         operands=("operand", "padding_value"), types="functional",
                         attrs={"edge_padding_low": "array", "edge_padding_high": "array",
                                "interior_padding": "array"}), verify=lambda op: verify_pad(op))
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
    check_elements(tuple(canvas_shape), operand.dtype.itemsize, "pad")
    canvas = np.full(canvas_shape, padding_value, dtype=operand.dtype)
    canvas[tuple(slice(max(lo, 0), max(lo, 0) + s, i + 1)
                 for lo, s, i in zip(low, spread, interior, strict=True))] = operand
    cut = tuple(slice(max(-lo, 0), size - max(-hi, 0))
                for lo, hi, size in zip(low, high, canvas_shape, strict=True))
    return canvas[cut]


@define_op("stablehlo.dynamic_pad",
           operands=("operand", "padding_value", "edge_padding_low", "edge_padding_high",
                     "interior_padding"),
           results=1, syntax=Format("$operands", operands=("operands*",), types="functional"),
           verify=lambda op: verify_dynamic_pad(op))
def dynamic_pad(operand: np.ndarray, padding_value: np.ndarray, edge_padding_low: np.ndarray,
                edge_padding_high: np.ndarray, interior_padding: np.ndarray, *,
                result_type: TensorType) -> np.ndarray:
    """pad with the paddings given as tensors, their result shape checked before any padding
    is made (a huge padding that cannot match the result type is no allocation)."""
    low, high = shape_operand(edge_padding_low), shape_operand(edge_padding_high)
    interior = shape_operand(interior_padding)
    if len(low) == len(high) == len(interior) == operand.ndim == len(result_type.shape):
        shape = [lo + ((n - 1) * (i + 1) + 1 if n else 0) + hi
                 for n, lo, hi, i in zip(operand.shape, low, high, interior, strict=True)]
        if any(d not in (n, DYNAMIC) for n, d in zip(shape, result_type.shape, strict=True)):
            raise EvaluationError(f"result shape {shape} does not match {result_type}")
    return result_array(_pad(operand, padding_value, low, high, interior), result_type)


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
            starts.append(p.parse_int64())
            p.expect(":")
            limits.append(p.parse_int64())
            strides.append(p.parse_int64() if p.accept(":") else 1)
            if not p.accept(","):
                break
    p.expect("]")
    props: dict[str, Attribute] = {
        "start_indices": DenseArrayAttr(I64, tuple(starts)),
        "limit_indices": DenseArrayAttr(I64, tuple(limits)),
        "strides": DenseArrayAttr(I64, tuple(strides)),
    }
    attributes = p.parse_optional_attr_dict()
    results = parse_functional_type(p, [operand], tok, location)
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


@define_op("stablehlo.slice", operands=("operand",), results=1,
           attributes=("start_indices", "limit_indices", "strides"),
           syntax=Custom(_parse_slice, _print_slice), verify=lambda op: verify_slice(op))
def slice_(operand: np.ndarray, *, start_indices: Any, limit_indices: Any, strides: Any,
           result_type: TensorType) -> np.ndarray:
    """result[i] = operand[start_indices + i * strides]."""
    window = tuple(slice(s, lim, k) for s, lim, k in zip(
        ints(start_indices), ints(limit_indices), ints(strides), strict=True))
    return result_array(operand[window], result_type)


@define_op("stablehlo.real_dynamic_slice",
           operands=("operand", "start_indices", "limit_indices", "strides"), results=1,
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


def verify_concatenate(op: Operation) -> None:
    dimension = non_negative_dimension(op)
    if not op.operands:
        raise op_error(op, f"'{op.name}' op expected 1 or more operands, but found 0")
    types = [v.type for v in op.operands]
    if not ranked(*types):
        return
    witness = dims_of(types[0])
    rank = len(witness)
    if rank == 0:
        raise inference_error(op, "rank-0 values cannot be concatenated")
    if dimension >= rank:
        raise inference_error(op, f"dimension {dimension} is out-of-bounds for input rank {rank}")
    for i, t in enumerate(types):
        shape = dims_of(t)
        if len(shape) != rank:
            raise inference_error(op, f"operands (0) and ({i}) do not match rank")
        for d in range(rank):
            if d != dimension and not compatible_dim(witness[d], shape[d]):
                raise inference_error(op, f"shapes of operand (0) and ({i}) are not compatible at "
                                          f"non-concat index {d}: ({', '.join(map(str, witness))}) "
                                          f"!= ({', '.join(map(str, shape))})")
    inferred = []
    for d in range(rank):
        sizes = [dims_of(t)[d] for t in types]
        if d == dimension:
            inferred.append(DYNAMIC if DYNAMIC in sizes else sum(sizes))
        else:
            inferred.append(next((s for s in sizes if s != DYNAMIC), DYNAMIC))
    check_inferred(op, [TensorType(tuple(inferred), types[0].element)])


def verify_slice(op: Operation) -> None:
    operand = op.operands[0].type
    if not ranked(operand):
        return
    shape = dims_of(operand)
    starts = attr_ints(op, "start_indices")
    limits = attr_ints(op, "limit_indices")
    strides = attr_ints(op, "strides")
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
        bound = (bounds_of(operand)[d] if n == DYNAMIC and isinstance(operand, TensorType)
                 else None)
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
    if not ranked(operand, *starts):
        return
    sizes = attr_ints(op, "slice_sizes")
    if len(sizes) != len(starts):
        raise inference_error(op, f"has mismatched number of slice sizes ({len(sizes)}) and "
                                  f"number of start indices ({len(starts)})")
    if len(starts) != len(dims_of(operand)):
        raise inference_error(op, f"has mismatched number of start indices ({len(starts)}) and "
                                  f"the rank of operand ({len(dims_of(operand))})")
    if len({t.element for t in starts}) > 1:
        raise inference_error(op, "start indices must have same element type")
    for d, (size, n) in enumerate(zip(sizes, dims_of(operand), strict=True)):
        if size < 0:
            raise inference_error(op, f"has negative size index to dynamic slice: {size}")
        if n != DYNAMIC and size > n:
            raise inference_error(op, f"has slice size {size} greater than dimension size {n} in "
                                      f"dimension {d} of operand")
    check_inferred(op, [TensorType(sizes, operand.element)])


def verify_dynamic_update_slice(op: Operation) -> None:
    types = [v.type for v in op.operands]
    if len(types) < 2 or not ranked(*types):
        return
    operand, update, starts = types[0], types[1], types[2:]
    if len(dims_of(update)) != len(dims_of(operand)):
        raise inference_error(op, "update rank does not match operand rank: "
                                  f"{len(dims_of(update))} vs {len(dims_of(operand))}.")
    if len(starts) != len(dims_of(operand)):
        raise inference_error(op, "expects number of start_indices to match operand rank: "
                                  f"{len(starts)} vs {len(dims_of(operand))}.")
    if len({t.element for t in starts}) > 1:
        raise inference_error(op, "start indices must have same element type")
    for d, (u, n) in enumerate(zip(dims_of(update), dims_of(operand), strict=True)):
        if DYNAMIC not in (u, n) and not 0 <= u <= n:
            raise inference_error(op, f"expects size at dimension {d} of update to be in range "
                                      f"[0, {n}]. Got: {u}.")
    check_inferred(op, [TensorType(dims_of(operand), operand.element)])


def verify_pad(op: Operation) -> None:
    operand, value = op.operands[0].type, op.operands[1].type
    if not ranked(operand, value):
        return
    shape = dims_of(operand)
    low = attr_ints(op, "edge_padding_low")
    high = attr_ints(op, "edge_padding_high")
    interior = attr_ints(op, "interior_padding")
    if dims_of(value):
        raise inference_error(op, f"padding value type should be a rank-0 tensor, is rank "
                                  f"{len(dims_of(value))}")
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
            bound = bounds_of(operand)[d] if isinstance(operand, TensorType) else None
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
    for index in (2, 3, 4):  # ODS: the paddings are HLO_StaticDimensionTensor
        require_static_dimension_tensor(op, index)
    types = [v.type for v in op.operands]
    if len(types) != 5 or not ranked(*types):
        return
    operand, result = types[0], op.results[0].type
    rank = len(dims_of(operand))
    sizes = [dims_of(t)[0] if dims_of(t) else 0 for t in types[2:]]
    if any(s != rank for s in sizes):
        raise op_error(op, f"padding operands size ({next(s for s in sizes if s != rank)}) "
                           f"must match operand rank ({rank})")
    low, high, interior = (constant_ints(v) for v in op.operands[2:])
    if interior is not None:
        for i in interior:
            if i < 0:
                raise op_error(op, f"interior_padding must be non-negative, but got {i}")
    if low is None or high is None or interior is None or not ranked(result):
        return
    if len(dims_of(result)) != rank:  # (upstream's zipped loop asserts equal lengths)
        raise op_error(op, f"result rank ({len(dims_of(result))}) must match operand rank "
                           f"({rank})")
    for d, (n, lo, hi, i, r) in enumerate(zip(dims_of(operand), low, high, interior,
                                             dims_of(result), strict=True)):
        if DYNAMIC in (n, r):
            continue
        expected = lo + hi + n + max(n - 1, 0) * i
        if expected != r:
            raise op_error(op, f"expected output dimension at index {d} to equal {expected}, "
                               f"but got {r}")
