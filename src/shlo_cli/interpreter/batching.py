"""Two calls of one costly elementwise kernel on small arrays as one call (codegen.py).

A GRU step computes its two gates' `exp` on two 64-element vectors: each call of the
correctly rounded f32 kernel (dialects/libm.py, marked `batch`) costs about ten numpy
calls whatever the size, so both vectors stacked along their first dimension cost one
call and a concatenation. The kernel is elementwise and its results do not depend on the
array they are computed in, so each element is what it was. The second call's operand
must not depend on the first call's result; the pure steps it depends on that stand
between the two calls move up, before the first (an order of pure steps is free).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

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
        pairs[i + len(moved)] = partner
        i = partner + 1  # (the next pair's reordering stays after this one)
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
