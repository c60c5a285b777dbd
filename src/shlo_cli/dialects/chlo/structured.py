"""CHLO ops with structure beyond elementwise math: constant, constant_like, top_k,
ragged_dot and scan."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...ir.attributes import DenseArrayAttr, IntegerAttr
from ...ir.core import Location, Operation, Region
from ...ir.diagnostics import EvaluationError
from ...ir.types import I32, I64, FunctionType, numpy_dtype
from ..registry import OpDef, define_op
from ..stablehlo.elementwise_numerics import is_float, round_float
from ..syntax import Custom
from .verify import (
    ragged_group_prefix,
    verify_constant_like,
    verify_ragged_dot,
    verify_scan,
    verify_top_k,
)

# ---- constant / constant_like ------------------------------------------------------------


def _parse_constant(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    attributes = p.parse_optional_attr_dict()
    value = p.parse_attribute()
    if not hasattr(value, "type"):
        raise p.error("expected a typed elements attribute")
    return p.build_operation(opdef.name, opdef, [], [value.type], {"value": value}, attributes,
                             [], None, location)


def _print_constant(pr: Any, op: Operation) -> None:
    pr.write(pr.attr_dict(op.attributes) + " " + str(op.properties["value"]))


@define_op("chlo.constant", operands=(), results=1, attributes=("value",),
           syntax=Custom(_parse_constant, _print_constant))
def constant(*, value: np.ndarray) -> np.ndarray:
    """The elements of `value`."""
    return np.array(value)


@define_op("chlo.constant_like", operands=("operand",), results=1, attributes=("value",),
           verify=verify_constant_like)
def constant_like(operand: np.ndarray, *, value: Any, result_type: Any) -> np.ndarray:
    """A tensor shaped like `operand`, every element `value`."""
    dtype = numpy_dtype(result_type.element)
    scalar = np.asarray(value)
    if is_float(np.dtype(dtype)):
        scalar = round_float(scalar.astype(np.float64), np.dtype(dtype))
    return np.full(operand.shape, scalar, dtype=dtype)


# ---- top_k -----------------------------------------------------------------------------------


def _parse_top_k(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    p.expect("(")
    operand = p.parse_operand()
    p.expect(",")
    p.expect_keyword("k")
    p.expect("=")
    k = p.parse_int64()
    p.expect(")")
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    operand_type = p.parse_type()
    p.check_operand_types([operand], [operand_type], tok)
    p.expect("->")
    p.expect("(")
    values = p.parse_type()
    p.expect(",")
    indices = p.parse_type()
    p.expect(")")
    return p.build_operation(opdef.name, opdef, [operand], [values, indices],
                             {"k": IntegerAttr(k, I64)}, attributes, [], None, location)


def _print_top_k(pr: Any, op: Operation) -> None:
    pr.write(f"({pr.name(op.operands[0])}, k = {op.properties['k'].value})")
    pr.write(pr.attr_dict({**op.properties, **op.attributes}, ("k",)))
    values, indices = op.result_types
    pr.write(f" : {op.operand_types[0]} -> ({values}, {indices})")


def order_key(operand: np.ndarray) -> np.ndarray:
    """What top_k orders by: floats as int64 keys of their total order (NaN above +inf,
    +0 above -0, negative NaNs below -inf), other types as themselves."""
    if is_float(operand.dtype):
        bits = operand.astype(np.float64).view(np.int64)
        # negative values: every bit but the sign flipped, without a branch per element
        flip = bits >> np.int64(63)  # all ones where negative, else zero
        flip &= np.int64(0x7FFFFFFFFFFFFFFF)
        flip ^= bits
        return flip
    return operand


def descending_order(operand: np.ndarray) -> np.ndarray:
    """Indices sorting the last dimension in descending order (floats in total order: NaN
    first, +0 before -0), equal values keeping their original order."""
    key = order_key(operand)
    reversed_order = np.argsort(key[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return operand.shape[-1] - 1 - reversed_order


@define_op("chlo.top_k", operands=("operand",), results=2, attributes=("k", "is_stable?"),
           syntax=Custom(_parse_top_k, _print_top_k), verify=verify_top_k,
           asm_result_name=lambda op: ["values", "indices"])
def top_k(operand: np.ndarray, *, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k largest entries of the last dimension and their indices (stable for ties)."""
    if operand.ndim == 0 or k > operand.shape[-1] or k < 0:
        raise EvaluationError(f"top_k: k = {k} exceeds the last dimension")
    order = descending_order(operand)[..., :k]
    return np.take_along_axis(operand, order, axis=-1), order.astype(np.int32)


# ---- ragged_dot ------------------------------------------------------------------------------


def _dims(dn: Any, name: str) -> tuple[int, ...]:
    value = dn.get(name, [])
    return tuple(int(v) for v in (value or []))


def _group_masks(group_sizes: np.ndarray, lhs_shape: tuple[int, ...], ragged: int,
                 prefix_dims: list[int]) -> list[np.ndarray]:
    """One boolean mask per group, broadcastable to the lhs: row r of the ragged dimension
    belongs to group g when start_g <= r < end_g. group_sizes is [g] (shared) or
    [prefix..., g] with its leading dimensions laid along lhs dimensions `prefix_dims`."""
    sizes = group_sizes.astype(np.int64)
    dims = prefix_dims if sizes.ndim > 1 else []
    if dims:  # leading axes in the order of the lhs dimensions they stand for
        order = sorted(range(len(dims)), key=dims.__getitem__)
        sizes = np.transpose(sizes, [*order, len(dims)])
        dims = [dims[i] for i in order]
    ends = np.cumsum(sizes, axis=-1)
    starts = ends - sizes
    layout = [1] * len(lhs_shape)
    for axis, d in enumerate(dims):
        layout[d] = sizes.shape[axis]
    rows_shape = [1] * len(lhs_shape)
    rows_shape[ragged] = lhs_shape[ragged]
    rows = np.arange(lhs_shape[ragged]).reshape(rows_shape)
    masks = []
    for g in range(sizes.shape[-1]):
        s_g = starts[..., g].reshape(layout)
        e_g = ends[..., g].reshape(layout)
        masks.append((rows >= s_g) & (rows < e_g))
    return masks


def _masked(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return x * mask.astype(x.dtype)


@define_op("chlo.ragged_dot", operands=("lhs", "rhs", "group_sizes"), results=1,
           attributes=("ragged_dot_dimension_numbers", "precision_config?"),
           verify=verify_ragged_dot)
def ragged_dot(lhs: np.ndarray, rhs: np.ndarray, group_sizes: np.ndarray, *,
               ragged_dot_dimension_numbers: Any, result_type: Any) -> np.ndarray:
    """dot_general where the ragged lhs dimension is split into groups of `group_sizes` rows:
    a non-contracting ragged dimension picks rhs group g per row group (mode 1), a contracting
    one yields one result per group (mode 2), a batch one is an ordinary batched dot (mode 3).
    group_sizes is [g] or [prefix..., g] (`verify.ragged_group_prefix`).
    """
    dn = ragged_dot_dimension_numbers
    lb, rb = _dims(dn, "lhs_batching_dimensions"), _dims(dn, "rhs_batching_dimensions")
    lc, rc = _dims(dn, "lhs_contracting_dimensions"), _dims(dn, "rhs_contracting_dimensions")
    raggeds = _dims(dn, "lhs_ragged_dimensions")
    group_dims = _dims(dn, "rhs_group_dimensions")
    if len(raggeds) != 1 or len(lb) != len(rb) or len(lc) != len(rc) or any(
            not 0 <= d < lhs.ndim for d in lb + lc + raggeds) or any(
            not 0 <= d < rhs.ndim for d in rb + rc + group_dims):
        raise EvaluationError("ragged_dot_dimension_numbers do not fit the operands")
    (ragged,) = raggeds
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    lhs_sub = [next(letters) for _ in range(lhs.ndim)]
    rhs_sub = [""] * rhs.ndim
    for l_dim, r_dim in zip(lb + lc, rb + rc, strict=True):
        rhs_sub[r_dim] = lhs_sub[l_dim]
    for d in range(rhs.ndim):
        if not rhs_sub[d]:
            rhs_sub[d] = next(letters)
    rhs_free = [d for d in range(rhs.ndim) if d not in rb + rc + group_dims]
    out_sub = ([lhs_sub[d] for d in lb]
               + [lhs_sub[d] for d in range(lhs.ndim) if d not in lb + lc]
               + [rhs_sub[d] for d in rhs_free])
    ct = np.float64 if is_float(lhs.dtype) else (np.complex128 if lhs.dtype.kind == "c"
                                                  else np.int64)
    a, b = lhs.astype(ct), rhs.astype(ct)
    prefix = ragged_group_prefix(lb, lc, ragged, lhs.ndim)
    masks = _group_masks(group_sizes, lhs.shape, ragged, prefix)
    if group_dims:  # mode 1: ragged non-contracting dimension, rhs has a group dimension
        (g_dim,) = group_dims
        r_sub = [s for d, s in enumerate(rhs_sub) if d != g_dim]
        spec = f"{''.join(lhs_sub)},{''.join(r_sub)}->{''.join(out_sub)}"
        sizes = dict(zip(lhs_sub + rhs_sub, lhs.shape + rhs.shape, strict=True))
        result = sum((np.einsum(spec, _masked(a, m), np.take(b, g, axis=g_dim))
                      for g, m in enumerate(masks)), np.zeros([sizes[c] for c in out_sub], ct))
    elif ragged in lc:  # mode 2: one result per group, leading group dimension
        spec = f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(out_sub)}"
        result = np.stack([np.einsum(spec, _masked(a, m), b) for m in masks])
    else:  # mode 3: ragged batch dimension
        spec = f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(out_sub)}"
        result = np.einsum(spec, a, b)  # groups add no dependencies (upstream: a dot_general)
    dtype = numpy_dtype(result_type.element)
    if is_float(np.dtype(dtype)):
        return round_float(np.asarray(result, np.float64), np.dtype(dtype))
    with np.errstate(all="ignore"):
        return np.asarray(result).astype(dtype)


# ---- scan ------------------------------------------------------------------------------------


def _parse_scan(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    p.expect("(")
    inputs = p.parse_operand_list(")")
    p.expect(")")
    p.expect_keyword("inits")
    p.expect("(")
    inits = p.parse_operand_list(")")
    p.expect(")")
    p.expect_keyword("dimension")
    p.expect("=")
    properties: dict[str, Any] = {"dimension": IntegerAttr(p.parse_int64(), I64)}
    attributes = p.parse_attr_dict_body() if p.accept("attributes") else {}
    body = p.parse_region()
    p.expect(":")
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", tok)
    p.check_operand_types(inputs + inits, list(ftype.inputs), tok)
    properties["operandSegmentSizes"] = DenseArrayAttr(I32, (len(inputs), len(inits)))
    properties["resultSegmentSizes"] = DenseArrayAttr(
        I32, (len(ftype.results) - len(inits), len(inits)))
    return p.build_operation(opdef.name, opdef, inputs + inits, list(ftype.results), properties,
                             attributes, [body], None, location)


def _segments(op: Operation) -> tuple[int, int]:
    sizes = op.properties.get("operandSegmentSizes")
    if sizes is None:
        return len(op.operands), 0
    return int(sizes.value[0]), int(sizes.value[1])


def _print_scan(pr: Any, op: Operation) -> None:
    n_inputs, _ = _segments(op)
    pr.write(f"({pr.operands(op.operands[:n_inputs])}) inits "
             f"({pr.operands(op.operands[n_inputs:])}) "
             f"dimension={op.properties['dimension'].value} ")
    elided = ("dimension", "operandSegmentSizes", "resultSegmentSizes")
    attrs = {**op.properties, **op.attributes}
    pr.write(pr.attr_dict(attrs, elided, keyword=True))
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_args=True)
    pr.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))


def _scan_arg_names(op: Operation, region: Region) -> list[str]:
    n_inputs, _ = _segments(op)
    count = len(region.entry.arguments) if region.blocks else 0
    return ["input" if i < n_inputs else "carry" for i in range(count)]


@define_op("chlo.scan", operands=("*inputs", "*inits"), results="*",
           attributes=("dimension", "scan_dim_size?", "is_reverse?", "is_associative?",
                       "operandSegmentSizes?", "resultSegmentSizes?"),
           syntax=Custom(_parse_scan, _print_scan, _scan_arg_names), regions=("body",),
           verify=verify_scan)
def scan(*operands: np.ndarray, dimension: int, is_reverse: bool | None,
         operandSegmentSizes: Sequence[int] | None,  # noqa: N803
         body: Callable[..., list[Any]], result_types: Sequence[Any]) -> list[np.ndarray]:
    """Runs `body(input slices..., carries...) -> (outputs..., carries...)` along
    `dimension` of the inputs (backwards when `is_reverse`); outputs stack the per-step
    outputs along `dimension`, the last results are the final carries."""
    n_inputs = operandSegmentSizes[0] if operandSegmentSizes else len(operands)
    inputs, carries = list(operands[:n_inputs]), list(operands[n_inputs:])
    n_outputs = len(result_types) - len(carries)
    # The scanned length: the inputs' (they may be `?`-shaped), else the outputs'.
    length = inputs[0].shape[dimension] if inputs else (
        result_types[0].shape[dimension] if n_outputs else 0)
    steps = range(length - 1, -1, -1) if is_reverse else range(length)
    per_step: list[list[np.ndarray]] = [[None] * length for _ in range(n_outputs)]  # type: ignore
    for i in steps:
        results = body(*[np.take(x, i, axis=dimension) for x in inputs], *carries)
        for j in range(n_outputs):
            per_step[j][i] = np.asarray(results[j])
        carries = list(results[n_outputs:])
    outputs = [np.stack(slices, axis=dimension) if length else
               np.zeros([max(d, 0) for d in t.shape], numpy_dtype(t.element))
               for slices, t in zip(per_step, result_types, strict=False)]
    return [*outputs, *carries]
