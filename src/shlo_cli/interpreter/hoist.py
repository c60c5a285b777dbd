"""Elementwise ops hoisted above sibling slices while a block is planned.

An LSTM or GRU cell computes all its gates with one matrix product and then splits the
result: `slice` x4 of a 1x256 tensor, each slice followed by the same logistic chain
(negate, exponential, add 1, divide). On small tensors each numpy call costs the same
whatever its size, so four chains on 64 elements cost four times one chain on 256. When
several slices of one value each feed the same elementwise op (same name and attributes,
the slice in the same operand position, any other operand a broadcast of one scalar, or
the same window of one other value of the same shape: a GRU's gates add slices of two
products), the op is evaluated once on the whole value and each former result becomes a
slice of that:

    %s_i = slice %x [...]          %y   = op %x, broadcast(%c)       (once, x's shape)
    %u_i = op %s_i, broadcast(%c)  ->  %u_i = slice %y [...]         (same windows)

Repeated until nothing changes, a whole chain moves above the slices. Each element goes
through the same scalar operation as before, so results are bit for bit the same: only
ops whose value at an element depends on that element alone are hoisted, on float
elements (no integer division errors can appear on the elements no slice selected), and
only when the slices cover at least half of the value (the extra elements cost less than
the calls saved). The module is not changed: the plan runs new detached ops, and each
hoisted op's result value is defined by its new slice, so later ops read it unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from ..ir.core import Operation, Value
from ..ir.types import TensorType, is_float

SLICE = "stablehlo.slice"
BROADCAST = "stablehlo.broadcast_in_dim"
CONSTANT = "stablehlo.constant"

# Elementwise ops whose result at an element is a function of the operands at that element
# alone (no array-wide decisions change an element's bits).
UNARY = frozenset("stablehlo." + n for n in (
    "negate", "exponential", "exponential_minus_one", "log", "log_plus_one", "tanh",
    "logistic", "sine", "cosine", "tan", "sqrt", "rsqrt", "cbrt", "abs", "floor", "ceil",
    "round_nearest_even", "round_nearest_afz"))
BINARY = frozenset("stablehlo." + n for n in ("add", "subtract", "multiply", "divide"))

_MAX_ROUNDS = 256  # hoists per block (each round hoists one group)


def _static_float(value: Value) -> TensorType | None:
    t = value.type
    if isinstance(t, TensorType) and t.is_static and is_float(t.element):
        return t
    return None


def _size(value: Value) -> int:
    t = value.type
    return math.prod(t.shape) if isinstance(t, TensorType) else 1


def _attr_key(op: Operation) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, str(v)) for k, v in (*op.properties.items(),
                                                 *op.attributes.items())))


class _Block:
    """Uses and definitions of the current op list."""

    def __init__(self, ops: Sequence[Operation], pinned: set[Value]) -> None:
        self.defs: dict[Value, Operation] = {}
        self.users: dict[Value, list[int]] = {}
        for i, op in enumerate(ops):
            for r in op.results:
                self.defs[r] = op
            for v in op.operands:
                self.users.setdefault(v, []).append(i)
        self.pinned = pinned

    def single_user(self, value: Value) -> int | None:
        users = self.users.get(value, ())
        if len(users) != 1 or value in self.pinned:
            return None
        return users[0]

    def splat(self, value: Value) -> tuple[Any, Operation] | None:
        """(identity of the scalar, the broadcast op) when `value` is a broadcast of a
        0-d value; constants are identified by their value."""
        op = self.defs.get(value)
        if op is None or op.name != BROADCAST or len(op.operands) != 1:
            return None
        scalar = op.operands[0]
        t = scalar.type
        if not isinstance(t, TensorType) or t.shape != ():
            return None
        source = self.defs.get(scalar)
        if source is not None and source.name == CONSTANT and not source.operands:
            return ("constant", str(t), _attr_key(source)), op
        return scalar, op

    def sibling_slice(self, value: Value, slice_op: Operation) -> Operation | None:
        """The slice defining `value` when it cuts `slice_op`'s window from another value of
        the same shape, and `value` has one user (the op reading both)."""
        op = self.defs.get(value)
        if (op is None or op.name != SLICE or len(op.operands) != 1
                or op.operands[0] is slice_op.operands[0]
                or self.single_user(value) is None
                or _static_float(op.operands[0]) is None
                or op.operands[0].type != slice_op.operands[0].type
                or _attr_key(op) != _attr_key(slice_op)):
            return None
        return op


def _user_key(block: _Block, user: Operation, value: Value) -> tuple[Any, Any] | None:
    """What makes `user` (reading the slice result `value`) hoistable together with
    others: (key, its splat broadcast or None)."""
    if len(user.results) != 1 or user.regions or _static_float(user.results[0]) is None:
        return None
    operands = user.operands
    if user.name in UNARY and len(operands) == 1:
        return (user.name, _attr_key(user), 0, None), None
    if user.name in BINARY and len(operands) == 2 and (operands[0] is value) != (
            operands[1] is value):
        position = 0 if operands[0] is value else 1
        other = operands[1 - position]
        splat = block.splat(other)
        if splat is not None:
            return (user.name, _attr_key(user), position, splat[0]), splat[1]
        partner = block.sibling_slice(other, block.defs[value])
        if partner is not None:
            return (user.name, _attr_key(user), position, partner.operands[0]), partner
    return None


def _clone(op: Operation, operands: list[Value], result: TensorType,
           defines: Value | None = None) -> Operation:
    """A detached copy of `op` reading `operands`, with one result of type `result` (the
    value `defines` itself when given)."""
    new = Operation(op.name, operands, [result], dict(op.properties), dict(op.attributes),
                    location=op.location, opdef=op.opdef)
    if defines is not None:
        new.results = [defines]
    return new


def _hoist_once(ops: list[Operation], pinned: set[Value]) -> list[Operation] | None:
    block = _Block(ops, pinned)
    groups: dict[tuple[Value, Any], list[tuple[int, int, Any]]] = {}
    for i, op in enumerate(ops):
        if op.name != SLICE or len(op.operands) != 1 or len(op.results) != 1:
            continue
        source, result = op.operands[0], op.results[0]
        if _static_float(source) is None or _static_float(result) is None:
            continue
        j = block.single_user(result)
        if j is None:
            continue
        found = _user_key(block, ops[j], result)
        if found is not None:
            groups.setdefault((source, found[0]), []).append((i, j, found[1]))
    for (source, key), members in groups.items():
        if len(members) < 2:
            continue
        source_type = source.type
        assert isinstance(source_type, TensorType)
        covered = sum(_size(ops[i].results[0]) for i, _, _ in members)
        if 2 * covered < math.prod(source_type.shape):
            continue
        return _rewrite(ops, source, source_type, key[2], members)
    return None


def _rewrite(ops: list[Operation], source: Value, source_type: TensorType, position: int,
             members: list[tuple[int, int, Any]]) -> list[Operation]:
    first = min(j for _, j, _ in members)
    i0, j0, extra = next(m for m in members if m[1] == first)
    user = ops[j0]
    element = user.results[0].type.element  # type: ignore[attr-defined]
    whole = TensorType(tuple(source_type.shape), element)
    inserted: list[Operation] = []
    operands = [source]
    removed = {i for i, _, _ in members}
    if extra is not None and extra.name == SLICE:  # the other operand: a sibling slice
        operands.insert(1 - position, extra.operands[0])
        removed.update(ops.index(partner) for _, _, partner in members)
    elif extra is not None:  # a splat, broadcast to the whole shape
        scalar_type = extra.results[0].type
        wide = _clone(extra, list(extra.operands),
                      TensorType(tuple(source_type.shape), scalar_type.element))
        inserted.append(wide)
        operands.insert(1 - position, wide.results[0])
    hoisted = _clone(user, operands, whole)
    inserted.append(hoisted)
    replaced = {j: _clone(ops[i], [hoisted.results[0]], ops[j].results[0].type,  # type: ignore[arg-type]
                          defines=ops[j].results[0])
                for i, j, _ in members}
    out: list[Operation] = []
    for k, op in enumerate(ops):
        if k == first:
            out.extend(inserted)
        if k in removed:
            continue
        out.append(replaced.get(k, op))
    return out


def hoist_slices(ops: Iterable[Operation], pinned: set[Value]) -> list[Operation]:
    """`ops` (a block's ops before its terminator) with elementwise ops hoisted above
    sibling slices; `pinned` values (returned, read by nested regions) keep their
    definitions."""
    current = list(ops)
    for _ in range(_MAX_ROUNDS):
        rewritten = _hoist_once(current, pinned)
        if rewritten is None:
            break
        current = rewritten
    return current
