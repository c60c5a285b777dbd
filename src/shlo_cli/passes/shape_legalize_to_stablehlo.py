"""`--shape-legalize-to-stablehlo`: rewrite shape computations written with the `shape`,
`tensor` and `arith` dialects (index extents) into StableHLO ops on i32 tensors, with
`unrealized_conversion_cast`s at the index <-> i32 boundary.

A partial dialect conversion, like upstream's (facts from ShapeLegalizeToStablehlo.cpp):
every `shape` and `tensor` op (but `tensor.cast`), `arith.index_cast`, `arith.muli`, and
StableHLO ops with index operands must be rewritten; the first one no rule handles is
"failed to legalize operation ... that was explicitly marked illegal".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.attributes import DenseArrayAttr, DenseElementsAttr, IntegerAttr
from ..ir.core import Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import I32, I64, IndexType, TensorType, Type
from . import register_pass
from .rewrite import PatternRewriter

_CAST = "builtin.unrealized_conversion_cast"
I32_SCALAR = TensorType((), I32)


class Unsupported(Exception):
    """A rule does not apply (the op then stays illegal)."""


def _is_index(t: Type) -> bool:
    return isinstance(t, IndexType) or (isinstance(t, TensorType)
                                        and isinstance(t.element, IndexType))


def _is_i32_tensor(t: Type) -> bool:
    return isinstance(t, TensorType) and t.element == I32


class Builder:
    """Creates ops before the op being converted, remembering them to undo on failure."""

    def __init__(self, rw: PatternRewriter, op: Operation) -> None:
        self.rw, self.op = rw, op
        self.made: list[Operation] = []

    def create(self, name: str, operands: list[Value], result: Type,
               properties: dict | None = None) -> Value:
        self.rw.set_insertion_point(self.op)
        new = self.rw.create(name, operands, [result], properties, location=self.op.location)
        self.made.append(new)
        return new.results[0]

    def constant(self, values: list[int] | int, shape: tuple[int, ...]) -> Value:
        t = TensorType(shape, I32)
        data = np.broadcast_to(np.array(values, dtype=np.int32), shape).copy()
        return self.create("stablehlo.constant", [], t, {"value": DenseElementsAttr(t, data)})

    def to_i32(self, value: Value) -> Value:
        t = value.type
        if isinstance(t, IndexType):
            return self.create(_CAST, [value], I32_SCALAR)
        if isinstance(t, TensorType) and t.is_static:
            if t.element == I32:
                return value
            if isinstance(t.element, IndexType):
                return self.create(_CAST, [value], TensorType(t.shape, I32))
        raise Unsupported

    def to_index(self, value: Value) -> Value:
        t = value.type
        if isinstance(t, TensorType) and t.is_static:
            if isinstance(t.element, IndexType):
                return value
            if t.element == I32:
                target = IndexType() if t.rank == 0 else TensorType(t.shape, IndexType())
                return self.create(_CAST, [value], target)
        if isinstance(t, IndexType):
            return value
        raise Unsupported

    def constant_or_i32(self, value: Value) -> Value:
        index = _constant_index(value)
        if index is not None:
            return self.constant(index, ())
        return self.to_i32(value)

    def slice(self, value: Value, start: list[int], limit: list[int]) -> Value:
        shape = tuple(b - a for a, b in zip(start, limit, strict=True))
        return self.create("stablehlo.slice", [value], TensorType(shape, I32), {
            "start_indices": _array(start), "limit_indices": _array(limit),
            "strides": _array([1] * len(start))})

    def reshape(self, value: Value, shape: tuple[int, ...]) -> Value:
        return self.create("stablehlo.reshape", [value], TensorType(shape, I32))

    def concatenate(self, values: list[Value]) -> Value:
        size = sum(_shape(v)[0] for v in values)
        return self.create("stablehlo.concatenate", values, TensorType((size,), I32),
                           {"dimension": IntegerAttr(0, I64)})


def _shape(value: Value) -> tuple[int, ...]:
    t = value.type
    if not isinstance(t, TensorType):
        raise Unsupported
    return t.shape


def _array(values: list[int]) -> DenseArrayAttr:
    return DenseArrayAttr(I64, tuple(values))


def _constant_index(value: Value) -> int | None:
    """The value of an `arith.constant N : index` defining `value`."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant" \
            and isinstance(value.type, IndexType):
        attr = owner.attr("value")
        if isinstance(attr, IntegerAttr):
            return int(attr.number)
    return None


Rule = Callable[[Operation, Builder], Value]


def _num_elements(op: Operation, b: Builder) -> Value:
    shape = b.to_i32(op.operands[0])
    result = b.constant(1, ())
    for i in range(int(np.prod(_shape(shape)))):
        size = b.reshape(b.slice(shape, [i], [i + 1]), ())
        result = b.create("stablehlo.multiply", [result, size], I32_SCALAR)
    return b.to_index(result)


def _shape_of(op: Operation, b: Builder) -> Value:
    operand = op.operands[0]
    if not isinstance(operand.type, TensorType):
        raise Unsupported
    if operand.type.rank == 0:
        return b.to_index(b.constant([], (0,)))
    sizes = []
    for i in range(operand.type.rank):
        size = b.create("stablehlo.get_dimension_size", [operand], I32_SCALAR,
                        {"dimension": IntegerAttr(i, I64)})
        sizes.append(b.reshape(size, (1,)))
    return b.to_index(b.concatenate(sizes))


def _const_shape(op: Operation, b: Builder) -> Value:
    result = op.results[0].type
    if not isinstance(result, TensorType):
        raise Unsupported
    extents = [int(d) for d in op.properties["shape"].value.reshape(-1)]
    return b.to_index(b.constant(extents, (result.shape[0],)))


def _index_cast(op: Operation, b: Builder) -> Value:
    source, out = op.operands[0], op.results[0].type
    if _is_index(source.type) and not isinstance(source.type, TensorType):
        value = b.to_i32(source)
        if out != I32:
            value = b.create("stablehlo.convert", [value], TensorType((), out))
        return b.create(_CAST, [value], out)
    if not isinstance(source.type, TensorType) and _is_index(out):
        value = b.create(_CAST, [source], TensorType((), source.type))
        return b.create(_CAST, [value], out)
    if _is_index(source.type):
        value = b.to_i32(source)
    elif _is_i32_tensor(source.type):
        value = source
    else:
        raise Unsupported
    if _is_index(out):
        return b.to_index(value)
    if not _is_i32_tensor(out):
        raise Unsupported
    return value


def _muli(op: Operation, b: Builder) -> Value:
    if not all(_is_index(t) for t in (*op.operand_types, op.results[0].type)):
        raise Unsupported
    lhs, rhs = (b.constant_or_i32(v) for v in op.operands)
    return b.to_index(b.create("stablehlo.multiply", [lhs, rhs], lhs.type))


def _broadcast(op: Operation, b: Builder) -> Value:
    if len(op.operands) != 2:
        raise Unsupported
    lhs, rhs = (b.to_i32(v) for v in op.operands)
    n, m = _shape(lhs)[0], _shape(rhs)[0]
    if n < m:
        lhs = b.concatenate([b.constant(1, (m - n,)), lhs])
    elif n > m:
        rhs = b.concatenate([b.constant(1, (n - m,)), rhs])
    return b.to_index(b.create("stablehlo.maximum", [lhs, rhs], lhs.type))


def _dim(op: Operation, b: Builder) -> Value:
    index = _constant_index(op.operands[1])
    if index is None:
        raise Unsupported
    size = b.create("stablehlo.get_dimension_size", [op.operands[0]], I32_SCALAR,
                    {"dimension": IntegerAttr(index, I64)})
    return b.to_index(size)


def _extract(op: Operation, b: Builder) -> Value:
    source, *indices = op.operands
    t: Any = source.type
    start = []
    for axis, value in enumerate(indices):
        index = _constant_index(value)
        if index is None or t.shape[axis] < 0 or index >= t.shape[axis]:
            raise Unsupported
        start.append(index)
    data = b.to_i32(source)
    scalar = b.reshape(b.slice(data, start, [i + 1 for i in start]), ())
    if isinstance(op.results[0].type, IndexType):
        return b.to_index(scalar)
    return b.create(_CAST, [scalar], op.results[0].type)


def _from_elements(op: Operation, b: Builder) -> Value:
    result: Any = op.results[0].type
    if result.rank == 0:
        return b.create(_CAST, [op.operands[0]], result)
    if result.rank != 1 or not _is_index(result):
        raise Unsupported
    pieces = []
    for value in op.operands:
        index = _constant_index(value)
        if index is not None:
            pieces.append(b.constant([index], (1,)))
        else:
            pieces.append(b.reshape(b.to_i32(value), (1,)))
    return b.to_index(b.concatenate(pieces))


RULES: dict[str, Rule] = {
    "shape.const_shape": _const_shape, "arith.muli": _muli, "arith.index_cast": _index_cast,
    "shape.num_elements": _num_elements, "shape.shape_of": _shape_of,
    "shape.broadcast": _broadcast, "tensor.dim": _dim, "tensor.extract": _extract,
    "tensor.from_elements": _from_elements}
_CAST_OPERANDS = ("stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_reshape")


def _illegal(op: Operation) -> bool:
    if op.dialect == "shape" or (op.dialect == "tensor" and op.name != "tensor.cast"):
        return True
    if op.name in ("arith.index_cast", "arith.muli"):
        return True
    return op.dialect == "stablehlo" and any(_is_index(v.type) for v in op.operands)


def _convert(op: Operation, rw: PatternRewriter) -> bool:
    b = Builder(rw, op)
    try:
        if op.name in _CAST_OPERANDS:
            operands = [b.to_i32(v) if _is_index(v.type) else v for v in op.operands]
            b.rw.set_insertion_point(op)
            new = rw.create(op.name, operands, op.result_types, dict(op.properties),
                            dict(op.attributes), location=op.location)
            rw.replace_op(op, new.results)
            return True
        rule = RULES.get(op.name)
        if rule is None:
            return False
        value = rule(op, b)
        if value.type != op.results[0].type:
            raise Unsupported
    except (Unsupported, IndexError, AttributeError):
        for made in reversed(b.made):
            rw.erase_op(made)
        return False
    rw.replace_op(op, [value])
    return True


@register_pass("shape-legalize-to-stablehlo",
               "Legalize shape-related ops to StableHLO.")
def shape_legalize_to_stablehlo(module: Module) -> None:
    rw = PatternRewriter(module.op)
    for op in list(module.op.walk()):
        if op.parent is None or not _illegal(op):
            continue
        if not _convert(op, rw):
            explicit = op.dialect != "stablehlo"
            suffix = " that was explicitly marked illegal" if explicit else ""
            loc = op.location
            raise Diagnostic(f"failed to legalize operation '{op.name}'{suffix}",
                             line=loc.line or 1, col=loc.col or 1)
