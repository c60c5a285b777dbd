"""`--hlo-test-broadcast`: upstream's test-only pass for NumPy-style broadcasting with bounded
dynamism. Each `hlo_test_broadcast.numpy_broadcast` op has its operands broadcast to their
common shape and becomes `stablehlo.custom_call @numpy_broadcasted` (side-effecting, so it
stays put). A bounded dimension (`?` with `#stablehlo.bounds<N>`) broadcasts to its bound; an
operand that needs the bounded size gets a broadcast to the padded size then
`get_dimension_size` / `set_dimension_size` from the operand that carries the bound.

Operands that cannot be broadcast (sizes 10 and 5, a bounded against a static dimension,
a non-tensor, no operand at all) get upstream's error and the op is left unchanged; the pass
itself does not fail, as upstream's pattern just does not apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from ..ir import registry
from ..ir.attributes import BoolAttr, DenseArrayAttr, DialectAttr, IntegerAttr, StringAttr
from ..ir.core import Block, Location, Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import DYNAMIC, I32, I64, TensorType, Type
from . import emit, register_pass

TEST_OP = "hlo_test_broadcast.numpy_broadcast"


class BroadcastError(Exception):
    """Operands that do not broadcast; carries the diagnostic to emit."""

    def __init__(self, diag: Diagnostic) -> None:
        super().__init__(diag.message)
        self.diag = diag


@dataclass(frozen=True)
class Dim:
    """One dimension of a broadcast shape: its size (the bound, for a bounded dimension)
    and, when bounded, the value and dimension whose run-time size it takes."""

    size: int
    source: Value | None = None
    source_dim: int = 0


@register_pass("hlo-test-broadcast", "Test NumPy-style broadcasting of operands.")
def hlo_test_broadcast(module: Module) -> None:
    for op in list(module.op.walk()):
        if op.name == TEST_OP and op.parent is not None:
            try:
                _rewrite(op)
            except BroadcastError as e:
                emit(e.diag)


def _rewrite(op: Operation) -> None:
    built: list[Operation] = []
    shape = broadcast_shape(op, op.operands)
    operands = [_broadcast(op, v, shape, built) for v in op.operands]
    call = Operation("stablehlo.custom_call", operands, op.result_types,
                     {"call_target_name": StringAttr("numpy_broadcasted"),
                      "has_side_effect": BoolAttr(True)},
                     location=op.location, opdef=registry.lookup("stablehlo.custom_call"))
    block = op.parent
    assert block is not None
    at = block.operations.index(op)
    new_ops = [*built, call]
    for new in new_ops:
        new.parent = block
    block.operations[at:at + 1] = new_ops
    op.parent = None
    _replace_uses(block, dict(zip(op.results, call.results, strict=True)))


def _replace_uses(block: Block, mapping: dict[Value, Value]) -> None:
    root = block.parent.parent if block.parent is not None else None
    ops = root.walk() if root is not None else iter(block.operations)
    for user in ops:
        user.operands = [mapping.get(v, v) for v in user.operands]


def _error(at: Operation | Value, message: str) -> BroadcastError:
    loc = _location(at)
    return BroadcastError(Diagnostic(message, line=loc.line or None, col=loc.col or None))


def _location(at: Operation | Value) -> Location:
    """An op's location; a value's is its defining op's, or its block's owner's."""
    if isinstance(at, Operation):
        return at.location
    owner = at.owner
    if isinstance(owner, Operation):
        return owner.location
    if isinstance(owner, Block) and owner.parent is not None and owner.parent.parent:
        return owner.parent.parent.location
    return Location("<unknown>", 0, 0)


def _bounds(t: TensorType) -> list[int | None]:
    encoding = t.encoding
    bounds = encoding.get("bounds") if isinstance(encoding, DialectAttr) else None
    return list(bounds) if bounds and len(bounds) == len(t.shape) else [None] * len(t.shape)


def dimensions(value: Value) -> list[Dim]:
    """The broadcast view of a ranked tensor value's shape."""
    t = value.type
    if not isinstance(t, TensorType):
        raise _error(value, "expected ranked tensor type for broadcast inputs")
    dims = []
    for i, (size, bound) in enumerate(zip(t.shape, _bounds(t), strict=True)):
        if size == DYNAMIC and bound is not None:
            dims.append(Dim(bound, value, i))
        else:
            dims.append(Dim(size))
    return dims


def _combine(at: Value, a: list[Dim], b: list[Dim]) -> list[Dim]:
    """NumPy's rule from the right: a size-1 side takes the other; else sizes must agree
    and be both bounded or both static."""
    rank = max(len(a), len(b))
    result: list[Dim] = []
    for i in range(1, rank + 1):
        x = a[-i] if i <= len(a) else Dim(1)
        y = b[-i] if i <= len(b) else Dim(1)
        if x.size == 1:
            result.append(y)
        elif y.size == 1:
            result.append(x)
        elif x.size != y.size:
            raise _error(at, f"incompatible shapes for broadcasting {x.size} and {y.size}")
        elif (x.source is None) != (y.source is None):
            raise _error(at, "cannot mix bounded and static dimensions in broadcast")
        else:
            result.append(x)
    return result[::-1]


def broadcast_shape(op: Operation, values: list[Value]) -> list[Dim]:
    if not values:
        raise _error(op, "requires at least one operand to broadcast")
    shape = dimensions(values[0])
    for value in values[1:]:
        shape = _combine(value, shape, dimensions(value))
    return shape


def tensor_type(dims: list[Dim], element: Type) -> TensorType:
    shape = tuple(DYNAMIC if d.source is not None else d.size for d in dims)
    bounds = [d.size if d.source is not None else None for d in dims]
    return TensorType(shape, element, _bounds_attr(bounds))


def _bounds_attr(bounds: list[int | None]) -> DialectAttr | None:
    if all(b is None for b in bounds):
        return None
    text = ", ".join("?" if b is None else str(b) for b in bounds)
    return DialectAttr("stablehlo", "bounds", text, (("bounds", bounds),))


def _broadcast(op: Operation, value: Value, shape: list[Dim],
               built: list[Operation]) -> Value:
    """`value` broadcast to `shape`: broadcast_in_dim to the padded size, then
    set_dimension_size where the target is bounded but `value`'s dimension is not."""
    t = value.type
    if not isinstance(t, TensorType):
        raise _error(value, "expected ranked tensor type for broadcast inputs")
    target = tensor_type(shape, t.element)
    if t == target:
        return value
    rank, out_rank = len(t.shape), len(shape)
    if rank > out_rank:
        raise _error(value, f"input rank must be <= output rank, got {rank} vs {out_rank}")
    offset = out_rank - rank
    padded = list(shape)
    for i, dim in enumerate(dimensions(value)):
        want = shape[i + offset]
        if dim.size != 1 and dim.size != want.size:
            raise _error(value, f"Cannot broadcast input: {t} to target shape "
                                f"tensor<{'x'.join(_dim_text(d) for d in shape)}>")
        if dim.source is None and want.source is not None:
            padded[i + offset] = Dim(want.size)
    for i in range(offset):
        padded[i] = Dim(shape[i].size)
    result = _create(op, built, "stablehlo.broadcast_in_dim", [value],
                     tensor_type(padded, t.element),
                     {"broadcast_dimensions": DenseArrayAttr(I64, tuple(range(offset,
                                                                               out_rank)))})
    if result.type == target:
        return result
    for i, (have, want) in enumerate(zip(padded, shape, strict=True)):
        if have.source is None and want.source is not None:
            size = _create(op, built, "stablehlo.get_dimension_size", [want.source],
                           TensorType((), I32), {"dimension": IntegerAttr(want.source_dim, I64)})
            result_type = _with_dynamic(cast(TensorType, result.type), i, want.size)
            result = _create(op, built, "stablehlo.set_dimension_size", [result, size],
                             result_type, {"dimension": IntegerAttr(i, I64)})
    return result


def _dim_text(d: Dim) -> str:
    return f"b{d.size}" if d.source is not None else str(d.size)


def _with_dynamic(t: TensorType, dim: int, bound: int) -> TensorType:
    """`t` with dimension `dim` made `?` bounded by `bound` (set_dimension_size's result)."""
    shape, bounds = list(t.shape), _bounds(t)
    shape[dim], bounds[dim] = DYNAMIC, bound
    return TensorType(tuple(shape), t.element, _bounds_attr(bounds))


def _create(op: Operation, built: list[Operation], name: str, operands: list[Value],
            result_type: Type, properties: dict) -> Value:
    new = Operation(name, operands, [result_type], properties, {}, location=op.location,
                    opdef=registry.lookup(name))
    built.append(new)
    return new.results[0]
