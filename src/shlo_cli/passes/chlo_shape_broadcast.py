"""The shape-dialect form of `--chlo-legalize-to-stablehlo`'s dynamic broadcasts, as
upstream's ChloLegalizeToStablehlo emits it (its CHECK lines record it): the operands'
`shape.shape_of`, a `shape.cstr_broadcastable` witness, and a `shape.assuming` region that
computes the result extents (`shape.broadcast`), broadcasts every operand to them
(`dynamic_broadcast_in_dim`) and applies the op. Ops built with upstream's createOrFold are
folded as they are built (a static shape_of is a const_shape, constant operands of the
commutative shape ops move last).

Only the `chlo-legalize-to-stablehlo` pass asks for this form; hlo-expand and the
pre-serialization pipeline keep the run-time-size form of chlo_legalize.py, which holds no
shape ops (upstream's shape legalization refuses witnesses)."""

from __future__ import annotations

from collections.abc import Callable

from ..dialects.shape import WITNESS
from ..ir import registry
from ..ir.attributes import DenseArrayAttr
from ..ir.core import Block, Operation, Region, Value
from ..ir.types import DYNAMIC, I64, IndexType, TensorType, Type
from .chlo_legalize import Rewriter
from .rewrite import fold_op, materialize_constant


def _build(rw: Rewriter, name: str, operands: list[Value], result: Type,
           fold: bool) -> Value:
    """A new op (folded first when `fold`, as createOrFold does) appended to `rw`."""
    op = Operation(name, operands, [result], {}, {}, location=rw.op.location,
                   opdef=registry.lookup(name))
    folded = fold_op(op) if fold else None
    if folded:
        item = folded[0]
        if isinstance(item, Value):
            return item
        constant = materialize_constant("shape", item, result, rw.op.location)
        if constant is not None:
            rw.ops.append(constant)
            return constant.results[0]
    rw.ops.append(op)
    return op.results[0]


def _extent_type(rank: int) -> TensorType:
    return TensorType((rank,), IndexType())


def _shape_of(rw: Rewriter, value: Value, fold: bool) -> Value:
    return _build(rw, "shape.shape_of", [value], _extent_type(value.type.rank),  # type: ignore
                  fold)


def _assuming(rw: Rewriter, witness: Value, result: Type,
              body: Callable[[], Value]) -> Value:
    """`shape.assuming witness -> (result) { body; shape.assuming_yield }`."""
    outer, rw.ops = rw.ops, []
    value = body()
    inner, rw.ops = rw.ops, outer
    block = Block()
    for op in inner:
        block.append(op)
    block.append(Operation("shape.assuming_yield", [value], [], location=rw.op.location,
                           opdef=registry.lookup("shape.assuming_yield")))
    op = Operation("shape.assuming", [witness], [result], {}, {}, [Region([block])],
                   location=rw.op.location, opdef=registry.lookup("shape.assuming"))
    rw.ops.append(op)
    return op.results[0]


def _broadcast_each(rw: Rewriter, operands: list[Value], extents: Value, result: TensorType,
                    keep_scalar: Value | None = None) -> list[Value]:
    out = []
    for value in operands:
        t = value.type
        assert isinstance(t, TensorType)
        if value is keep_scalar:
            out.append(value)
            continue
        dims = tuple(range(result.rank - t.rank, result.rank))
        out.append(rw.create("stablehlo.dynamic_broadcast_in_dim", [value, extents],
                             TensorType(result.shape, t.element),
                             {"broadcast_dimensions": DenseArrayAttr(I64, dims)}))
    return out


def broadcast_binary(rw: Rewriter, lhs: Value, rhs: Value, result: TensorType,
                     make: Callable[[Value, Value], Value]) -> Value:
    """Upstream's ConvertRankedDynamicBroadcastBinaryOp: `make` builds the op on the
    broadcast operands inside the assuming region."""
    shapes = [_shape_of(rw, lhs, False), _shape_of(rw, rhs, False)]
    witness = _build(rw, "shape.cstr_broadcastable", shapes, WITNESS, False)

    def body() -> Value:
        inner = [_shape_of(rw, v, True) for v in (lhs, rhs)]
        rank = max(v.type.shape[0] for v in inner)  # type: ignore[attr-defined]
        extents = _build(rw, "shape.broadcast", inner, _extent_type(rank), True)
        return make(*_broadcast_each(rw, [lhs, rhs], extents, result))

    return _assuming(rw, witness, result, body)


def broadcast_select(rw: Rewriter, result: TensorType) -> Value:
    """Upstream's ConvertSelectOp: a 0-d predicate is left to select's own broadcast."""
    operands = list(rw.op.operands)
    shapes = [_shape_of(rw, v, True) for v in operands]
    witness = _build(rw, "shape.cstr_broadcastable", shapes, WITNESS, True)

    def body() -> Value:
        extents = _build(rw, "shape.broadcast", shapes, _extent_type(DYNAMIC), True)
        extents = _build(rw, "tensor.cast", [extents], _extent_type(result.rank), True)
        pred = operands[0]
        scalar = pred if pred.type.rank == 0 else None  # type: ignore[attr-defined]
        values = _broadcast_each(rw, operands, extents, result, scalar)
        return rw.create("stablehlo.select", values, result)

    return _assuming(rw, witness, result, body)
