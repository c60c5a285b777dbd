"""Calls of one costly elementwise kernel on small arrays as one call (codegen.py).

A GRU step computes its two gates' `exp` on two 64-element vectors; a Keras-style LSTM
its three gates' logistic on three vectors: each call of the correctly rounded f32
kernel (dialects/libm.py, marked `batch`) costs about ten numpy calls whatever the size,
so all the vectors stacked along their first dimension cost one call and a
concatenation. The kernel is elementwise and its results do not depend on the array
they are computed in, so each element is what it was. A group gathers every later call
of the kernel on operands of the same type whose operand depends on no member's result;
the pure steps it depends on that stand between the group and the call move up, before
the group (an order of pure steps is free), and the call joins the group's end.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..dialects.undispatched import undispatched
from ..ir.core import Value
from ..ir.types import TensorType

# Ops that may move up: no effect but their result (a failing one reports the same error,
# at most before another op's).
_PURE = frozenset("stablehlo." + name for name in (
    "add", "subtract", "multiply", "divide", "negate", "maximum", "minimum", "abs",
    "exponential", "tanh", "logistic", "log", "sqrt", "rsqrt", "select", "compare",
    "convert", "reshape", "broadcast_in_dim", "transpose", "slice", "dynamic_slice",
    "concatenate", "dot_general", "constant"))
_LIMIT = 1024  # elements per operand: larger arrays cost their elements, not the call
_TOTAL = 2048  # elements of a group's concatenation (libm_f32.SMALL: its fast path)
# steps all searches of one block visit: the planning time of a block of thousands of
# dependent calls stays under a second (each search visits all later steps)
_VISITS = 500_000


def _shape(v: Value) -> tuple[int, ...] | None:
    t = v.type
    if not isinstance(t, TensorType) or not t.is_static or not t.shape:
        return None
    return tuple(t.shape)


def _batchable(step: Any, captured: set[Value]) -> tuple[int, ...] | None:
    """The operand shape of a step calling a `batch` kernel on one small array."""
    op = step.op
    if (not getattr(step.fn, "batch", False) or len(op.operands) != 1 or len(op.results) != 1
            or op.results[0] in captured or op.regions):
        return None
    shape = _shape(op.operands[0])
    if shape is None or shape != _shape(op.results[0]) or math.prod(shape) > _LIMIT:
        return None
    return shape


def batch_groups(steps: Sequence[Any], captured: set[Value]
                 ) -> tuple[list[Any], dict[int, int]]:
    """`steps` reordered, and the groups (first index -> member count, the members
    consecutive in the new order) whose kernel runs once on all their operands at the
    first: each member's operand is computed before the first by then."""
    order = list(steps)
    groups: dict[int, int] = {}
    budget = _VISITS
    i = 0
    while i < len(order):
        shape = _batchable(order[i], captured) if budget > 0 else None
        members = 1
        if shape is not None:
            budget -= len(order) - i
            i, members = _gather(order, i, shape, captured)
        if members > 1:
            groups[i] = members
        i += members
    return order, groups


def _gather(order: list[Any], i: int, shape: tuple[int, ...], captured: set[Value]
            ) -> tuple[int, int]:
    """Grow the group of `order[i]` in one pass over the later steps, reordering `order`:
    the group's first index and member count. `blocked` holds the values that depend on a
    member or on a step that may not move: a call reading none of them joins."""
    first, size = order[i], math.prod(shape)
    blocked: set[Value] = set(first.op.results)
    members = 1
    for j in range(i + 1, len(order)):
        if (members + 1) * size > _TOTAL:
            break
        step = order[j]
        if any(v in blocked for v in step.op.operands):
            blocked.update(step.op.results)
        elif (_same_kernel(first.fn, step.fn) and _batchable(step, captured) == shape
              and step.op.operands[0].type == first.op.operands[0].type):
            # the pure steps it needs move up, before the group; it joins the group's end
            # (every member's result is defined there); the steps it passed follow, where
            # a group may start among them, and step j + 1 stays where it was
            moved = _needs(order, i + members, j)
            rest = [k for k in range(i, j) if k not in moved]
            order[i:j] = [order[k] for k in sorted(moved)] + [order[k] for k in rest]
            i += len(moved)
            order.insert(i + members, order.pop(j))
            blocked.update(step.op.results)
            members += 1
        elif step.op.name not in _PURE or step.op.regions:
            blocked.update(step.op.results)
    return i, members


def _same_kernel(f: Any, g: Any) -> bool:
    """Whether two `batch` kernels compute the same: one function, or equal `batch` keys
    (kernels bound per op, such as specialize_math.logistic's, mark their kind so)."""
    key = getattr(f, "batch", None)
    return f is g or (isinstance(key, tuple) and key == getattr(g, "batch", None))


def _needs(order: Sequence[Any], start: int, j: int) -> set[int]:
    """The steps from `start` to j that step j depends on."""
    producer = {r: k for k in range(start, j) for r in order[k].op.results}
    found: set[int] = set()
    stack = list(order[j].op.operands)
    while stack:
        k = producer.get(stack.pop())
        if k is not None and k not in found:
            found.add(k)
            stack.extend(order[k].op.operands)
    return found


class Chain:
    """A group's batched run extended to the numpy ufunc steps around it that do the same
    to every member (a gate's `-x` before its `exp`, `1 + e` and `1 / s` after):
    `before`, the unary steps (one per member) whose results only the member's next step
    reads, outermost first; `after`, the steps reading each member's previous result
    (alone, or with equal splat constants at `position`), each with that position (None:
    unary)."""

    __slots__ = ("before", "after")

    def __init__(self) -> None:
        self.before: list[tuple[int, ...]] = []
        self.after: list[tuple[tuple[int, ...], int | None]] = []

    def steps(self) -> set[int]:
        return {k for ks in self.before for k in ks} | {k for ks, _ in self.after for k in ks}


def extend(steps: Sequence[Any], members: Sequence[int], kept: set[Value],
           skipped: set[int], splat: Callable[[Any], tuple[int, Any] | None]) -> Chain:
    """The chain around the group `members` of `batch_groups`' order; `skipped` steps stay
    out; `splat(step)`: its splat constant operand's position and 0-d value, or None."""
    producer = {r: k for k, s in enumerate(steps) for r in s.op.results}
    readers: dict[Value, list[int]] = {}
    for k, s in enumerate(steps):
        for v in s.op.operands:
            readers.setdefault(v, []).append(k)
    chain = Chain()

    def only(v: Value) -> int | None:
        users = readers.get(v, [])
        return users[0] if len(users) == 1 and v not in kept else None

    def distinct(ks: Sequence[int | None]) -> bool:
        return None not in ks and len(set(ks)) == len(ks) and not skipped & set(ks)  # type: ignore[arg-type]

    current = tuple(members)
    while True:  # unary ufunc steps feeding every member
        found = tuple(producer.get(steps[a].op.operands[0]) for a in current)
        if not distinct(found):
            break
        ps = [steps[k] for k in found]  # type: ignore[index]
        if not all(_unary(q) and q.fn is ps[0].fn and only(q.op.results[0]) == a
                   and q.op.operands[0].type == ps[0].op.operands[0].type
                   for q, a in zip(ps, current, strict=True)):
            break
        current = found  # type: ignore[assignment]
        chain.before.insert(0, current)
    current = tuple(members)
    while True:  # ufunc steps reading every member's result
        found = tuple(only(steps[a].op.results[0]) for a in current)
        if not distinct(found):
            break
        us = [steps[k] for k in found]  # type: ignore[index]
        t = steps[current[0]].op.results[0].type
        if not isinstance(us[0].fn, np.ufunc) or any(
                u.fn is not us[0].fn or u.op.results[0].type != t for u in us):
            break
        position: int | None = None
        if not _unary(us[0]):
            consts = [splat(u) for u in us]
            first = consts[0]
            if first is None or any(
                    c is None or c[0] != first[0] or c[1].dtype != first[1].dtype
                    or c[1].tobytes() != first[1].tobytes()
                    or u.op.operands[1 - c[0]] is not steps[a].op.results[0]
                    for c, u, a in zip(consts, us, current, strict=True)):
                break
            position = first[0]
        current = found  # type: ignore[assignment]
        chain.after.append((current, position))
    return chain


def group_line(steps: Sequence[Any], members: Sequence[int], chain: Chain, y: str, p: str,
               ref: Callable[[Value], str], ns: dict[str, Any],
               splat: Callable[[Any], tuple[int, Any] | None]) -> tuple[str, list[int]]:
    """One line computing a group's chain on the concatenation `y` of its operands, and
    the steps (one per member, in order) whose results are its consecutive row blocks."""
    starts = chain.before[0] if chain.before else tuple(members)
    ns["_cat"] = undispatched(np.concatenate)
    line = f"{y} = _cat(({', '.join(ref(steps[a].op.operands[0]) for a in starts)}))"
    for k in [ks[0] for ks in chain.before] + [members[0]]:
        ns[f"{p}K{k}"] = steps[k].fn
        line += f"; {y} = {p}K{k}({y})"
    last = tuple(members)
    for ks, position in chain.after:
        u = ks[0]
        ns[f"{p}K{u}"] = steps[u].fn
        operands = [y]
        if position is not None:
            constant = splat(steps[u])
            assert constant is not None
            ns[f"{p}S{u}"] = constant[1]
            operands.insert(position, f"{p}S{u}")
        line += f"; {y} = {p}K{u}({', '.join(operands)})"
        last = ks
    return line, list(last)


def _unary(step: Any) -> bool:
    op = step.op
    return (isinstance(step.fn, np.ufunc) and step.fn.nin == 1 and step.fn.nout == 1
            and len(op.operands) == 1 and len(op.results) == 1 and not op.regions
            and op.operands[0].type == op.results[0].type)
