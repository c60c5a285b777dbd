"""Shape reification of StableHLO ops (upstream's reifyReturnTypeShapes): the run-time result
shape as `tensor<rank x index>`, built from `tensor.dim` / `tensor.extract` and `arith` index
arithmetic. As MLIR's createOrFold does, static sizes become constants, constant arithmetic
folds, `x + 0`, `x - 0`, `x * 1` and `x / 1` fold to `x`, and constants are shared and hoisted
to the top of the function.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir import registry
from ..ir.attributes import IntegerAttr
from ..ir.core import Block, Operation, Value
from ..ir.types import BOOL, DYNAMIC, I64, IndexType, TensorType, Type
from .speculatability import as_struct

INDEX = IndexType()


class IndexBuilder:
    """Builds index computations in front of `anchor` (constants at the top of its function)."""

    def __init__(self, anchor: Operation) -> None:
        self.anchor = anchor
        self.ops: list[Operation] = []
        self.constants: list[Operation] = []
        self.known: dict[int, int] = {}  # id(value) -> its constant
        self._by_value: dict[int, Value] = {}
        self.entry = _function_entry(anchor)
        for op in self.entry.operations if self.entry is not None else []:
            value = op.properties.get("value")
            if (op.name == "arith.constant" and op.results
                    and isinstance(op.results[0].type, IndexType)
                    and isinstance(value, IntegerAttr)):
                self._by_value.setdefault(int(value.value), op.results[0])
                self.known[id(op.results[0])] = int(value.value)

    def _create(self, name: str, operands: list[Value], result: Type,
                properties: dict | None = None) -> Value:
        op = Operation(name, operands, [result], dict(properties or {}),
                       location=self.anchor.location, opdef=registry.lookup(name))
        self.ops.append(op)
        return op.results[0]

    def const(self, n: int) -> Value:
        found = self._by_value.get(n)
        if found is None:
            op = Operation("arith.constant", [], [INDEX], {"value": IntegerAttr(n, INDEX)},
                           location=self.anchor.location,
                           opdef=registry.lookup("arith.constant"))
            self.constants.append(op)
            found = self._by_value[n] = op.results[0]
            self.known[id(found)] = n
        return found

    def dim(self, value: Value, i: int) -> Value:
        t = value.type
        if isinstance(t, TensorType) and t.shape[i] != DYNAMIC:
            return self.const(t.shape[i])
        return self._create("tensor.dim", [value, self.const(i)], INDEX)

    def extract(self, value: Value, i: int) -> Value:
        return self._create("tensor.extract", [value, self.const(i)], INDEX)

    def _binary(self, name: str, a: Value, b: Value, fold: Callable[[int, int], int],
                identity: int | None) -> Value:
        x, y = self.known.get(id(a)), self.known.get(id(b))
        if x is not None and y is not None:
            return self.const(fold(x, y))
        if identity is not None and y == identity:
            return a
        if identity is not None and x == identity and name in ("arith.addi", "arith.muli"):
            return b
        if name == "arith.muli" and 0 in (x, y):
            return self.const(0)
        return self._create(name, [a, b], INDEX)

    def add(self, a: Value, b: Value) -> Value:
        return self._binary("arith.addi", a, b, lambda x, y: x + y, 0)

    def sub(self, a: Value, b: Value) -> Value:
        return self._binary("arith.subi", a, b, lambda x, y: x - y, 0)

    def mul(self, a: Value, b: Value) -> Value:
        return self._binary("arith.muli", a, b, lambda x, y: x * y, 1)

    def div(self, a: Value, b: Value) -> Value:
        return self._binary("arith.divsi", a, b, lambda x, y: int(x / y) if y else 0, 1)

    def less(self, a: Value, b: Value) -> Value:
        return self._create("arith.cmpi", [a, b], BOOL, {"predicate": IntegerAttr(2, I64)})

    def select(self, cond: Value, a: Value, b: Value) -> Value:
        return self._create("arith.select", [cond, a, b], INDEX)

    def shape(self, sizes: list[Value]) -> Value:
        return self._create("tensor.from_elements", sizes, TensorType((len(sizes),), INDEX))

    def commit(self) -> None:
        """Insert the built ops before the anchor and the new constants at the top."""
        block = self.anchor.parent
        assert block is not None
        at = block.operations.index(self.anchor)
        for op in self.ops:
            op.parent = block
        block.operations[at:at] = self.ops
        entry = self.entry or block
        for op in self.constants:
            op.parent = entry
        entry.operations[0:0] = self.constants


def _function_entry(op: Operation) -> Block | None:
    current: Operation | None = op
    while current is not None and current.name != "func.func":
        current = current.parent_op
    return current.regions[0].blocks[0] if current is not None and current.regions else None


def _ints(op: Operation, name: str) -> list[int]:
    attr = op.attr(name)
    return [int(v) for v in attr.value] if attr is not None else []


def _rank(value: Value) -> int | None:
    return len(value.type.shape) if isinstance(value.type, TensorType) else None


def _reduce(b: IndexBuilder, op: Operation) -> list[Value] | None:
    dims = set(_ints(op, "dimensions"))
    out = []
    for v in op.operands[:len(op.operands) // 2]:
        rank = _rank(v)
        if rank is None:
            return None
        out.append(b.shape([b.dim(v, i) for i in range(rank) if i not in dims]))
    return out


def _gather(b: IndexBuilder, op: Operation) -> list[Value] | None:
    operand, indices = op.operands[0], op.operands[1]
    dims = as_struct(op.attr("dimension_numbers"))
    sizes = _ints(op, "slice_sizes")
    if dims is None or _rank(operand) is None or _rank(indices) is None:
        return None
    offset_dims = [int(d) for d in dims.get("offset_dims") or []]
    dropped = set(dims.get("collapsed_slice_dims") or []) | set(
        dims.get("operand_batching_dims") or [])
    index_dim = dims.get("index_vector_dim")
    kept = iter([s for i, s in enumerate(sizes) if i not in dropped])
    batch = iter([i for i in range(_rank(indices) or 0) if i != index_dim])
    rank = len(offset_dims) + (_rank(indices) or 0) - (
        1 if index_dim is not None and index_dim < (_rank(indices) or 0) else 0)
    batch_sizes = [b.dim(indices, i) for i in list(batch)]
    batch_iter = iter(batch_sizes)
    sizes_out = [b.const(next(kept)) if i in offset_dims else next(batch_iter)
                 for i in range(rank)]
    return [b.shape(sizes_out)]


def _pad(b: IndexBuilder, op: Operation) -> list[Value] | None:
    operand = op.operands[0]
    rank = _rank(operand)
    low, high = _ints(op, "edge_padding_low"), _ints(op, "edge_padding_high")
    interior = _ints(op, "interior_padding")
    if rank is None or not len(low) == len(high) == len(interior) == rank:
        return None
    sizes = []
    for i in range(rank):
        size = b.dim(operand, i)
        grown = b.mul(b.const(interior[i]), b.sub(size, b.const(1)))
        sizes.append(b.add(b.add(b.add(size, b.const(low[i])), b.const(high[i])), grown))
    return [b.shape(sizes)]


def _concatenate(b: IndexBuilder, op: Operation) -> list[Value] | None:
    attr = op.attr("dimension")
    rank = _rank(op.operands[0])
    if attr is None or rank is None:
        return None
    d = int(attr.value)
    sizes = [b.dim(op.operands[0], i) for i in range(rank)]
    others = [b.dim(v, d) for v in op.operands[1:]]
    for size in others:
        sizes[d] = b.add(sizes[d], size)
    return [b.shape(sizes)]


def _real_dynamic_slice(b: IndexBuilder, op: Operation) -> list[Value] | None:
    rank = _rank(op.operands[0])
    if rank is None:
        return None
    sizes = []
    for i in range(rank):
        start, limit, stride = (b.extract(v, i) for v in op.operands[1:4])
        span = b.add(stride, b.sub(limit, start))
        sizes.append(b.div(b.sub(span, b.const(1)), stride))
    return [b.shape(sizes)]


def _dot_general(b: IndexBuilder, op: Operation) -> list[Value] | None:
    lhs, rhs = op.operands[0], op.operands[1]
    dims = as_struct(op.attr("dot_dimension_numbers"))
    if dims is None or _rank(lhs) is None or _rank(rhs) is None:
        return None
    lb = [int(d) for d in dims.get("lhs_batching_dimensions") or []]
    rb = [int(d) for d in dims.get("rhs_batching_dimensions") or []]
    lc = [int(d) for d in dims.get("lhs_contracting_dimensions") or []]
    rc = [int(d) for d in dims.get("rhs_contracting_dimensions") or []]
    sizes = [b.dim(lhs, i) for i in lb]
    sizes += [b.dim(lhs, i) for i in range(_rank(lhs) or 0) if i not in lb + lc]
    sizes += [b.dim(rhs, i) for i in range(_rank(rhs) or 0) if i not in rb + rc]
    return [b.shape(sizes)]


def _dynamic_pad(b: IndexBuilder, op: Operation) -> list[Value] | None:
    operand = op.operands[0]
    rank = _rank(operand)
    if rank is None:
        return None
    sizes = []
    for i in range(rank):
        size = b.dim(operand, i)
        low, high, interior = (b.extract(v, i) for v in op.operands[2:5])
        one, zero = b.const(1), b.const(0)
        gaps = b.select(b.less(size, one), zero, b.sub(size, one))
        sizes.append(b.add(b.add(b.add(b.mul(interior, gaps), size), low), high))
    return [b.shape(sizes)]


def _broadcast(b: IndexBuilder, op: Operation) -> list[Value] | None:
    rank = _rank(op.operands[0])
    if rank is None:
        return None
    sizes = [b.const(s) for s in _ints(op, "broadcast_sizes")]
    return [b.shape(sizes + [b.dim(op.operands[0], i) for i in range(rank)])]


def _transpose(b: IndexBuilder, op: Operation) -> list[Value] | None:
    rank = _rank(op.operands[0])
    perm = _ints(op, "permutation")
    if rank is None or sorted(perm) != list(range(rank)):
        return None
    dims = [b.dim(op.operands[0], i) for i in range(rank)]
    return [b.shape([dims[p] for p in perm])]


RULES: dict[str, Callable[[IndexBuilder, Operation], list[Value] | None]] = {
    "stablehlo.reduce": _reduce, "stablehlo.gather": _gather, "stablehlo.pad": _pad,
    "stablehlo.concatenate": _concatenate, "stablehlo.real_dynamic_slice": _real_dynamic_slice,
    "stablehlo.dot_general": _dot_general, "stablehlo.dynamic_pad": _dynamic_pad,
    "stablehlo.broadcast": _broadcast, "stablehlo.transpose": _transpose,
}


def reify(anchor: Operation, source: Operation) -> list[Value] | None:
    """`source`'s result shapes built in front of `anchor`, or None if it has no rule."""
    rule = RULES.get(source.name)
    if rule is None:
        return None
    builder = IndexBuilder(anchor)
    try:
        shapes = rule(builder, source)
    except (AttributeError, IndexError, TypeError, ValueError, StopIteration,
            ZeroDivisionError):
        shapes = None  # operands the rule does not cover
    if shapes is None:
        return None
    builder.commit()
    return shapes
