"""Structured CHLO decompositions for `--chlo-legalize-to-stablehlo`, after upstream:
`chlo.scan` becomes a `stablehlo.while` over (index, carries..., output arrays...) whose body
slices the inputs at the (possibly reversed) position, inlines the scan body and writes the
outputs with dynamic_update_slice; `chlo.ragged_dot` becomes one masked `dot_general` per
group (summed for a ragged non-contracting dimension, concatenated along a new leading
dimension for a ragged contracting one) or a plain `dot_general` for a ragged batch
dimension; complex `cosh`/`sinh` use the e^(+-x + log 1/2) formulas; `mulhi` widens (or
works on 32-bit halves for 64-bit integers)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir import registry
from ..ir.attributes import DenseArrayAttr, DenseElementsAttr, DialectAttr, IntegerAttr
from ..ir.clone import clone_op
from ..ir.core import Block, Operation, Region, Value
from ..ir.types import BOOL, I32, I64, ComplexType, IntegerType, TensorType, numpy_dtype
from .chlo_builder import Ex
from .chlo_legalize import ChloRewriter, Real, Rewriter, pattern


def _scalar_constant(rw: Rewriter, value: Any, element: Any) -> Value:
    t = TensorType((), element)
    data = np.array(value).astype(numpy_dtype(element)).reshape(())
    return rw.create("stablehlo.constant", [], t, {"value": DenseElementsAttr(t, data, True)})


class _BlockBuilder(Rewriter):
    """A Rewriter that appends to a block instead of replacing an op."""

    def __init__(self, op: Operation, block: Block) -> None:
        super().__init__(op)
        self.block = block
        self.ops = _Appender(block)  # type: ignore[assignment]


class _Appender(list):  # type: ignore[type-arg]
    def __init__(self, block: Block) -> None:
        super().__init__()
        self.block = block

    def append(self, op: Operation) -> None:  # type: ignore[override]
        self.block.append(op)


def _segments(op: Operation) -> tuple[int, int]:
    sizes = op.attr("operandSegmentSizes")
    if sizes is None:
        return len(op.operands), 0
    return int(sizes.value[0]), int(sizes.value[1])


@pattern("chlo.scan")
def _scan(rw: Rewriter) -> list[Value] | None:
    op = rw.op
    n_inputs, n_inits = _segments(op)
    inputs, inits = op.operands[:n_inputs], op.operands[n_inputs:]
    results = op.result_types
    n_outputs = len(results) - n_inits
    dim = int(op.attr("dimension").value)
    reverse = op.attr("is_reverse") is not None and bool(op.attr("is_reverse").value)
    if not all(isinstance(t, TensorType) for t in (*[v.type for v in op.operands], *results)):
        return None
    if not inputs and not all(t.is_static for t in results[:n_outputs]):  # type: ignore
        return None  # no input to take a dynamic output shape from (upstream fails too)
    if not op.regions or len(op.regions[0].blocks) != 1:
        return None
    scalar_i64 = TensorType((), I64)
    if inputs:
        size32 = rw.create("stablehlo.get_dimension_size", [inputs[0]], TensorType((), I32),
                           {"dimension": IntegerAttr(dim, I64)})
    else:
        size32 = _scalar_constant(rw, results[0].shape[dim], I32)  # type: ignore[union-attr]
    size = rw.create("stablehlo.convert", [size32], scalar_i64)
    initial = [_scalar_constant(rw, 0, I64), *inits]
    for i, t in enumerate(results[:n_outputs]):
        zero = _scalar_constant(rw, 0, t.element)  # type: ignore[union-attr]
        if t.is_static:  # type: ignore[union-attr]
            initial.append(rw.broadcast(zero, t, ()))  # type: ignore[arg-type]
        else:  # shaped like the matching input, as upstream
            reference = inputs[i] if i < n_inputs else inputs[0]
            initial.append(rw.dynamic_broadcast(zero, rw.shape_of(reference), t, ()))  # type: ignore
    types = [v.type for v in initial]

    cond_block = Block(list(types))
    cb = _BlockBuilder(op, cond_block)
    less = cb.compare("LT", cond_block.arguments[0], size, TensorType((), BOOL))
    cond_block.append(_return(op, [less]))

    body_block = Block(list(types))
    bb = _BlockBuilder(op, body_block)
    index = body_block.arguments[0]
    carries = body_block.arguments[1:1 + n_inits]
    outputs = body_block.arguments[1 + n_inits:]
    position = index
    if reverse:
        one = _scalar_constant(bb, 1, I64)
        last = bb.create("stablehlo.subtract", [size, one], scalar_i64)
        position = bb.create("stablehlo.subtract", [last, index], scalar_i64)
    sliced = [_slice_at(bb, value, dim, position) for value in inputs]
    scan_body = op.regions[0].entry
    mapping: dict[Value, Value] = dict(zip(scan_body.arguments, [*sliced, *carries],
                                           strict=True))
    for inner in scan_body.operations[:-1]:
        body_block.append(clone_op(inner, mapping))
    yielded = [mapping.get(v, v) for v in scan_body.operations[-1].operands]
    new_elements, new_carries = yielded[:n_outputs], yielded[n_outputs:]
    updated = []
    for current, element in zip(outputs, new_elements, strict=True):
        t = current.type
        shape = list(t.shape)  # type: ignore[union-attr]
        shape[dim] = 1
        piece_type = TensorType(tuple(shape), t.element)  # type: ignore[union-attr]
        if piece_type.is_static:
            piece = bb.create("stablehlo.reshape", [element], piece_type)
        else:
            sizes = [bb.dimension_size(current, d) if d != dim else _scalar_constant(bb, 1, I64)
                     for d in range(len(shape))]
            piece = bb.create("stablehlo.dynamic_reshape", [element, bb.shape_tensor(sizes)],
                              piece_type)
        starts = [_scalar_constant(bb, 0, I64)] * len(shape)
        starts[dim] = position
        updated.append(bb.create("stablehlo.dynamic_update_slice", [current, piece, *starts],
                                 t))
    next_index = bb.create("stablehlo.add", [index, _scalar_constant(bb, 1, I64)], scalar_i64)
    body_block.append(_return(op, [next_index, *new_carries, *updated]))

    loop = Operation("stablehlo.while", initial, types, {}, {},
                     [Region([cond_block]), Region([body_block])], location=op.location,
                     opdef=registry.lookup("stablehlo.while"))
    rw.ops.append(loop)
    values = loop.results
    return [*values[1 + n_inits:], *values[1:1 + n_inits]]


def _slice_at(bb: Rewriter, value: Value, dim: int, position: Value) -> Value:
    """value[..., position, ...] along `dim`, that dimension dropped: dynamic_slice and
    reshape for static shapes; real_dynamic_slice and dynamic_reshape (sizes read at run
    time) for dynamic ones, as upstream."""
    t = value.type
    assert isinstance(t, TensorType)
    shape = list(t.shape)
    shape[dim] = 1
    piece_type = TensorType(tuple(shape), t.element)
    reduced = TensorType(tuple(s for d, s in enumerate(shape) if d != dim), t.element)
    zero_index = _scalar_constant(bb, 0, I64)  # one per slice, as upstream
    if t.is_static:
        starts = [zero_index] * len(shape)
        starts[dim] = position
        piece = bb.create("stablehlo.dynamic_slice", [value, *starts], piece_type,
                          {"slice_sizes": DenseArrayAttr(I64, tuple(shape))})
        return bb.create("stablehlo.reshape", [piece], reduced)
    one = _scalar_constant(bb, 1, I64)
    sizes = [bb.dimension_size(value, d) for d in range(t.rank)]
    limits = list(sizes)
    limits[dim] = bb.create("stablehlo.add", [position, one], TensorType((), I64))
    start_list = [zero_index] * t.rank
    start_list[dim] = position
    strides = bb.shape_tensor([one] * t.rank)
    piece = bb.create("stablehlo.real_dynamic_slice",
                      [value, bb.shape_tensor(start_list), bb.shape_tensor(limits), strides],
                      piece_type)
    if reduced.is_static:
        return bb.create("stablehlo.reshape", [piece], reduced)
    kept = [size for d, size in enumerate(sizes) if d != dim]
    if not kept:
        return bb.create("stablehlo.reshape", [piece], reduced)
    return bb.create("stablehlo.dynamic_reshape", [piece, bb.shape_tensor(kept)], reduced)


def _broadcast_like(rw: Rewriter, value: Value, like: Value, target: TensorType,
                    dims: tuple[int, ...]) -> Value:
    """broadcast_in_dim to `target`, or dynamic_broadcast_in_dim to the run-time shape of
    `like` when `target` is dynamic."""
    if target.is_static:
        return rw.broadcast(value, target, dims)
    if isinstance(rw, ChloRewriter):  # upstream's shape.shape_of
        return rw.dynamic_broadcast(value, rw.index_shape_of(like), target, dims)
    return rw.dynamic_broadcast(value, rw.shape_of(like), target, dims)


def _return(op: Operation, values: list[Value]) -> Operation:
    return Operation("stablehlo.return", values, [], {}, {}, location=op.location,
                     opdef=registry.lookup("stablehlo.return"))


# ---- ragged_dot ----------------------------------------------------------------------------


def _dims(dn: Any, name: str) -> tuple[int, ...]:
    return tuple(int(v) for v in (dn.get(name, []) or []))


def _dot_attr(lb: tuple[int, ...], rb: tuple[int, ...], lc: tuple[int, ...],
              rc: tuple[int, ...]) -> DialectAttr:
    fields = [("lhs_batching_dimensions", list(lb)), ("rhs_batching_dimensions", list(rb)),
              ("lhs_contracting_dimensions", list(lc)), ("rhs_contracting_dimensions", list(rc))]
    body = ", ".join(f"{k} = [{', '.join(map(str, v))}]" for k, v in fields if v)
    return DialectAttr("stablehlo", "dot", body, tuple(fields))


def _stablehlo_precision(op: Operation) -> dict[str, Any]:
    config = op.attr("precision_config")
    if config is None:
        return {}
    from ..ir.attributes import ArrayAttr

    words = [DialectAttr("stablehlo", "", f"precision {a.value}") for a in config.elements]
    return {"precision_config": ArrayAttr(tuple(words))}


@pattern("chlo.ragged_dot")
def _ragged_dot(rw: Rewriter) -> list[Value] | None:
    op = rw.op
    lhs, rhs, group_sizes = op.operands
    result = op.result_types[0]
    lt, rt, gt = lhs.type, rhs.type, group_sizes.type
    if not all(isinstance(t, TensorType) for t in (lt, rt, gt, result)):
        return None
    if gt.rank < 1 or not gt.is_static:  # type: ignore[union-attr]
        return None  # the group count must be known (upstream needs it too)
    dn = op.attr("ragged_dot_dimension_numbers")
    lb, rb = _dims(dn, "lhs_batching_dimensions"), _dims(dn, "rhs_batching_dimensions")
    lc, rc = _dims(dn, "lhs_contracting_dimensions"), _dims(dn, "rhs_contracting_dimensions")
    ragged_dims = _dims(dn, "lhs_ragged_dimensions")
    group_dims = _dims(dn, "rhs_group_dimensions")
    if len(ragged_dims) != 1:
        return None
    (ragged,) = ragged_dims
    props = {"dot_dimension_numbers": _dot_attr(lb, rb, lc, rc), **_stablehlo_precision(op)}
    if ragged in lb:  # mode 3: an ordinary batched dot
        return [rw.create("stablehlo.dot_general", [lhs, rhs], result, props)]
    groups = gt.shape[-1]  # type: ignore[union-attr]
    # group_sizes may carry leading batch dimensions (one set of groups per batch element,
    # matching the lhs batching dimensions).
    batch_shape = tuple(gt.shape[:-1])  # type: ignore[union-attr]
    if len(batch_shape) > len(lb):
        return None
    group_dims_in_lhs = tuple(lb[:len(batch_shape)])
    i64_element = gt.element  # type: ignore[union-attr]
    iota_shape = [1] * lt.rank  # type: ignore[union-attr]
    iota_shape[ragged] = lt.shape[ragged]  # type: ignore[union-attr]
    iota_type = TensorType(tuple(iota_shape), i64_element)
    full_index = TensorType(lt.shape, i64_element)  # type: ignore[union-attr]
    start = (rw.constant(0, TensorType(batch_shape, i64_element)) if batch_shape
             else _scalar_constant(rw, 0, i64_element))
    if lt.is_static:  # type: ignore[union-attr]
        iota = rw.create("stablehlo.iota", [], iota_type,
                         {"iota_dimension": IntegerAttr(ragged, I64)})
    else:  # [1, ..., run-time size of the ragged dimension, ..., 1] as upstream
        unit = TensorType((1,), I64)
        one = rw.create("stablehlo.constant", [], unit, {
            "value": DenseElementsAttr(unit, np.ones(1, np.int64), False)})
        extent = rw.create("stablehlo.reshape", [rw.dimension_size(lhs, ragged)], unit)
        pieces_of_shape = [extent if d == ragged else one
                           for d in range(lt.rank)]  # type: ignore[union-attr]
        iota = rw.create("stablehlo.dynamic_iota", [rw.shape_tensor_of(pieces_of_shape)],
                         iota_type, {"iota_dimension": IntegerAttr(ragged, I64)})
    zero = rw.constant(0.0, lt)  # type: ignore[arg-type]
    pred = TensorType(lt.shape, BOOL)  # type: ignore[union-attr]
    scalar_index = TensorType(batch_shape, i64_element)
    dots: list[Value] = []
    pieces: list[Value] = []
    for g in range(groups):
        one_size = rw.create("stablehlo.slice", [group_sizes], TensorType(
            (*batch_shape, 1), i64_element), {
            "start_indices": DenseArrayAttr(I64, (0,) * len(batch_shape) + (g,)),
            "limit_indices": DenseArrayAttr(I64, (*batch_shape, g + 1)),
            "strides": DenseArrayAttr(I64, (1,) * (len(batch_shape) + 1))})
        size = rw.create("stablehlo.reshape", [one_size], scalar_index)
        limit = rw.create("stablehlo.add", [start, size], scalar_index)
        low = _broadcast_like(rw, start, lhs, full_index, group_dims_in_lhs)
        high = _broadcast_like(rw, limit, lhs, full_index, group_dims_in_lhs)
        rows = _broadcast_like(rw, iota, lhs, full_index,
                               tuple(range(lt.rank)))  # type: ignore[union-attr]
        in_group = rw.create("stablehlo.and", [rw.compare("GE", rows, low, pred),
                                               rw.compare("LT", rows, high, pred)], pred)
        masked = rw.create("stablehlo.select", [in_group, lhs, zero], lt)
        if group_dims:  # mode 1: ragged non-contracting dimension, one rhs per group
            (g_dim,) = group_dims
            shape = list(rt.shape)  # type: ignore[union-attr]
            starts = [0] * len(shape)
            starts[g_dim] = g
            limits = list(shape)
            limits[g_dim] = g + 1
            shape[g_dim] = 1
            reduced = tuple(s for d, s in enumerate(shape) if d != g_dim)
            if rt.is_static:  # type: ignore[union-attr]
                part = rw.create("stablehlo.slice", [rhs], TensorType(tuple(shape), rt.element),
                                 {"start_indices": DenseArrayAttr(I64, tuple(starts)),
                                  "limit_indices": DenseArrayAttr(I64, tuple(limits)),
                                  "strides": DenseArrayAttr(I64, (1,) * len(shape))})
                rhs_g = rw.create("stablehlo.reshape", [part], TensorType(reduced, rt.element))
            else:
                position = _scalar_constant(rw, g, I64)
                rhs_g = _slice_at(rw, rhs, g_dim, position)
            rb_g = tuple(d - 1 if d > g_dim else d for d in rb)
            rc_g = tuple(d - 1 if d > g_dim else d for d in rc)
            group_props = {"dot_dimension_numbers": _dot_attr(lb, rb_g, lc, rc_g),
                **_stablehlo_precision(op)}
            dot = rw.create("stablehlo.dot_general", [masked, rhs_g], result, group_props)
            # A running sum, as upstream.
            pieces = [rw.create("stablehlo.add", [pieces[0], dot], result) if pieces else dot]
        else:  # mode 2: ragged contracting dimension, one result per group
            inner = TensorType(result.shape[1:], result.element)  # type: ignore[union-attr]
            dot = rw.create("stablehlo.dot_general", [masked, rhs], inner, props)
            if inner.is_static:
                dots.append(dot)
            else:  # reshaped at once, to [1, run-time extents of the dot] (as upstream)
                unit = TensorType((1,), I64)
                extents = [rw.create("stablehlo.constant", [], unit, {
                    "value": DenseElementsAttr(unit, np.ones(1, np.int64), False)})]
                for d in range(inner.rank):
                    size = rw.create("stablehlo.get_dimension_size", [dot], TensorType((), I32),
                                     {"dimension": IntegerAttr(d, I64)})
                    size = rw.create("stablehlo.convert", [size], TensorType((), I64))
                    extents.append(rw.create("stablehlo.reshape", [size], unit))
                pieces.append(rw.create(
                    "stablehlo.dynamic_reshape", [dot, rw.shape_tensor_of(extents)],
                    TensorType((1, *inner.shape), inner.element)))
        start = limit
    for dot in dots:  # mode 2, static: each group's result gets a leading unit dimension
        inner = dot.type  # type: ignore[assignment]
        pieces.append(rw.create("stablehlo.reshape", [dot],
                                TensorType((1, *inner.shape), inner.element)))
    if group_dims:
        return [pieces[0]]
    return [rw.create("stablehlo.concatenate", pieces, result,
                      {"dimension": IntegerAttr(0, I64)})]


# ---- complex cosh / sinh -------------------------------------------------------------------


def _complex_operand(rw: Rewriter) -> tuple[Value, Real] | None:
    (x,) = rw.op.operands
    t = x.type
    if not (isinstance(t, TensorType) and isinstance(t.element, ComplexType)):
        return None
    return x, Real(rw, t)


# ---- mulhi ---------------------------------------------------------------------------------


@pattern("chlo.mulhi")
def _mulhi(rw: Rewriter) -> list[Value] | None:
    """The high half of the double-width product: up to 32 bits by widening (convert,
    multiply, shift right by the width, convert back); 64 bits from 32-bit halves in ui64,
    corrected for signed operands (hi_s = hi_u - (a < 0 ? b : 0) - (b < 0 ? a : 0))."""
    lhs, rhs = rw.op.operands
    t = lhs.type
    if not (isinstance(t, TensorType) and isinstance(t.element, IntegerType)
            and t.element.width in (8, 16, 32, 64) and rhs.type == t):
        return None
    width, signed = t.element.width, t.element.signedness != "u"
    if width <= 32:
        wide = TensorType(t.shape, IntegerType(2 * width, t.element.signedness))
        a = rw.create("stablehlo.convert", [lhs], wide)
        b = rw.create("stablehlo.convert", [rhs], wide)
        product = rw.create("stablehlo.multiply", [a, b], wide)
        shift = "shift_right_arithmetic" if signed else "shift_right_logical"
        high = rw.create(f"stablehlo.{shift}", [product, rw.constant(width, wide)], wide)
        return [rw.create("stablehlo.convert", [high], t)]
    e = Ex(rw)
    if signed:
        # Two's complement: hi_s = hi_u - (a < 0 ? b : 0) - (b < 0 ? a : 0), in ui64.
        u = TensorType(t.shape, IntegerType(64, "u"))
        high = e.chlo("mulhi", e("convert", lhs, result=u), e("convert", rhs, result=u))
        fix_a = e.select(e.cmp("LT", lhs, e.const(0, lhs)), e("convert", rhs, result=u),
                         e.const(0, e("convert", rhs, result=u)))
        high = e("subtract", high, fix_a)
        fix_b = e.select(e.cmp("LT", rhs, e.const(0, rhs)), e("convert", lhs, result=u),
                         e.const(0, e("convert", lhs, result=u)))
        return [e("convert", e("subtract", high, fix_b), result=t)]
    # From 32-bit halves: a_hi b_hi + (mid1 >> 32) + (mid2 >> 32) with
    # mid1 = a_lo b_hi + (a_lo b_lo >> 32), mid2 = a_hi b_lo + (mid1 & 0xFFFFFFFF).
    p3 = e("multiply", a_hi := e("shift_right_logical", lhs, e.const(32, lhs)),
           b_hi := e("shift_right_logical", rhs, e.const(32, rhs)))
    mid1 = e("add", e("multiply", a_lo := e("and", lhs, e.const(0xFFFFFFFF, lhs)), b_hi),
             e("shift_right_logical", e("multiply", a_lo, b_lo := e(
                 "and", rhs, e.const(0xFFFFFFFF, rhs))), e.const(32, lhs)))
    top = e("add", p3, e("shift_right_logical", mid1, e.const(32, lhs)))
    mid2 = e("add", e("multiply", a_hi, b_lo), e("and", mid1, e.const(0xFFFFFFFF, lhs)))
    return [e("add", top, e("shift_right_logical", mid2, e.const(32, lhs)))]
