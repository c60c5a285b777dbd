"""Two calls of one costly elementwise kernel on small arrays as one call (codegen.py).

A GRU step computes its two gates' `exp` on two 64-element vectors: each call of the
correctly rounded f32 kernel (dialects/libm.py, marked `batch`) costs about ten numpy
calls whatever the size, so both vectors stacked along their first dimension cost one
call and a concatenation. The kernel is elementwise and its results do not depend on the
array they are computed in, so each element is what it was. The second call's operand
must not depend on the first call's result; the pure steps it depends on that stand
between the two calls move up, before the first (an order of pure steps is free), and the
second call moves next to the first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

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


def batch_pairs(steps: Sequence[Any], captured: set[Value]
                ) -> tuple[list[Any], dict[int, int]]:
    """`steps` reordered, and the pairs (first index -> second, in the new order) whose
    kernel runs once on both operands at the first: the second's operand is computed
    before the first by then."""
    order = list(steps)
    pairs: dict[int, int] = {}
    i = 0
    while i < len(order):
        shape = _batchable(order[i], captured)
        partner, moved = None, set()
        for j in range(i + 1, len(order)) if shape is not None else ():
            if (order[j].fn is order[i].fn and _batchable(order[j], captured) == shape
                    and order[j].op.operands[0].type == order[i].op.operands[0].type):
                found = _ancestors(order, i, j)
                if found is not None:
                    partner, moved = j, found
                    break
        if partner is None:
            i += 1
            continue
        rest = [k for k in range(i, partner) if k not in moved]
        order[i:partner] = [order[k] for k in sorted(moved)] + [order[k] for k in rest]
        first = i + len(moved)
        # the second's operand is computed before the first now: it moves next to it (both
        # results are defined there), and a pair may start among the steps it passed
        order.insert(first + 1, order.pop(partner))
        pairs[first] = first + 1
        i = first + 2
    return order, pairs


def _ancestors(order: Sequence[Any], i: int, j: int) -> set[int] | None:
    """The steps between i and j that step j depends on, or None when one of them (or j)
    depends on step i or may not move."""
    producer = {r: k for k in range(i, j) for r in order[k].op.results}
    found: set[int] = set()
    stack = list(order[j].op.operands)
    while stack:
        k = producer.get(stack.pop())
        if k is None or k in found:
            continue
        if k == i or order[k].op.name not in _PURE or order[k].op.regions:
            return None
        found.add(k)
        stack.extend(order[k].op.operands)
    return found


class Chain:
    """A pair's batched run extended to the numpy ufunc steps around it that do the same to
    both halves (a gate's `-x` before its `exp`, `1 + e` and `1 / s` after): `before`, the
    pairs of unary steps whose results only the next step of each half reads, outermost
    first; `after`, the pairs reading the previous result (alone, or with equal splat
    constants at `position`), each with that position (None: unary)."""

    __slots__ = ("before", "after")

    def __init__(self) -> None:
        self.before: list[tuple[int, int]] = []
        self.after: list[tuple[int, int, int | None]] = []

    def steps(self) -> set[int]:
        return {k for pair in self.before for k in pair} | {
            k for u, w, _ in self.after for k in (u, w)}


def extend(steps: Sequence[Any], i: int, j: int, kept: set[Value], skipped: set[int],
           splat: Callable[[Any], tuple[int, Any] | None]) -> Chain:
    """The chain around pair (i, j) of `batch_pairs`' order; `skipped` steps stay out;
    `splat(step)`: its splat constant operand's position and 0-d value, or None."""
    producer = {r: k for k, s in enumerate(steps) for r in s.op.results}
    readers: dict[Value, list[int]] = {}
    for k, s in enumerate(steps):
        for v in s.op.operands:
            readers.setdefault(v, []).append(k)
    chain = Chain()

    def only(v: Value) -> int | None:
        users = readers.get(v, [])
        return users[0] if len(users) == 1 and v not in kept else None

    a, b = i, j
    while True:  # unary ufunc steps feeding both halves
        p = producer.get(steps[a].op.operands[0])
        q = producer.get(steps[b].op.operands[0])
        if p is None or q is None or p == q or p in skipped or q in skipped:
            break
        if not (_unary(steps[p]) and steps[q].fn is steps[p].fn and _unary(steps[q])
                and only(steps[p].op.results[0]) == a and only(steps[q].op.results[0]) == b
                and steps[p].op.operands[0].type == steps[q].op.operands[0].type):
            break
        chain.before.insert(0, (p, q))
        a, b = p, q
    a, b = i, j
    while True:  # ufunc steps reading both halves' results
        u, w = only(steps[a].op.results[0]), only(steps[b].op.results[0])
        if u is None or w is None or u == w or u in skipped or w in skipped \
                or steps[u].fn is not steps[w].fn or not isinstance(steps[u].fn, np.ufunc) \
                or steps[u].op.results[0].type != steps[w].op.results[0].type \
                or steps[u].op.results[0].type != steps[a].op.results[0].type:
            break
        if _unary(steps[u]):
            position = None
        else:
            found, other = splat(steps[u]), splat(steps[w])
            if found is None or other is None or found[0] != other[0] \
                    or steps[u].op.operands[1 - found[0]] is not steps[a].op.results[0] \
                    or steps[w].op.operands[1 - found[0]] is not steps[b].op.results[0] \
                    or found[1].dtype != other[1].dtype \
                    or found[1].tobytes() != other[1].tobytes():
                break
            position = found[0]
        chain.after.append((u, w, position))
        a, b = u, w
    return chain


def _unary(step: Any) -> bool:
    op = step.op
    return (isinstance(step.fn, np.ufunc) and step.fn.nin == 1 and step.fn.nout == 1
            and len(op.operands) == 1 and len(op.results) == 1 and not op.regions
            and op.operands[0].type == op.results[0].type)
