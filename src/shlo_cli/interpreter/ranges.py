"""Integer ranges of a generated loop's Python-int steps (codegen.py's scalar mode).

A fori_loop's counter pays, each step, for a wrap-around test on `i + 1`, and JAX's
`x[i]` for a test `i < 0`, an `i + n`, a select and the element read's clamp to the
array's bounds: a third of a scalar RNN step. None of them can change anything when the
counter's range is known: the condition `i < 1000` bounds it from above in the body, and
a counter that only grows (`i + c`, c > 0, which cannot wrap below that bound) stays at
or above its entry value. So the loop is generated twice (loopgen.py): a general version
knowing only what the condition bounds, and, taken when a test of the entry values holds,
a version knowing more: such counters start at 0 or above, and counters stepped alike
that start equal (a fori_loop carries its index twice: the while's and the step's) are
one value. Here the bounds known at the body's entry are propagated through its 0-d
integer steps: sums that cannot leave the type need no wrap test, comparisons the ranges
decide are constants, selects on them are the operand they pick, steps nobody reads then
are dropped, and element reads whose index is in bounds need no clamp.
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ..ir.core import Value
from .pyscalar import classify, kind_of

Bound = tuple[int, int]

_DECIDE = {
    operator.lt: lambda x, y: True if x[1] < y[0] else False if x[0] >= y[1] else None,
    operator.le: lambda x, y: True if x[1] <= y[0] else False if x[0] > y[1] else None,
    operator.gt: lambda x, y: True if x[0] > y[1] else False if x[1] <= y[0] else None,
    operator.ge: lambda x, y: True if x[0] >= y[1] else False if x[1] < y[0] else None,
    operator.eq: lambda x, y: (False if x[1] < y[0] or y[1] < x[0]
                               else True if x[0] == x[1] == y[0] == y[1] else None),
    operator.ne: lambda x, y: (True if x[1] < y[0] or y[1] < x[0]
                               else False if x[0] == x[1] == y[0] == y[1] else None),
}
_SAME_TYPE = frozenset(("stablehlo.broadcast_in_dim", "stablehlo.reshape"))
_FLIP = {operator.lt: operator.gt, operator.le: operator.ge, operator.gt: operator.lt,
         operator.ge: operator.le}


class Facts:
    """What the ranges tell codegen about a block's steps (by index): int sums that cannot
    wrap, comparisons decided, selects' picked operand position, steps to drop; and the
    bound of each value known."""

    __slots__ = ("no_wrap", "decided", "picked", "dead", "bounds")

    def __init__(self) -> None:
        self.no_wrap: set[int] = set()
        self.decided: dict[int, bool] = {}
        self.picked: dict[int, int] = {}
        self.dead: set[int] = set()
        self.bounds: dict[Value, Bound] = {}

    def within(self, v: Value, low: int, high: int) -> bool:
        """Whether v's values are known to lie in [low, high]."""
        b = self.bounds.get(v)
        return b is not None and low <= b[0] and b[1] <= high


def constant_int(step: Any) -> int | None:
    """The value of a 0-d integer (or bool) constant step, else None."""
    op = step.op
    if op.name != "stablehlo.constant" or len(op.results) != 1:
        return None
    kind = kind_of(op.results[0])
    if kind is None or kind.is_float:
        return None
    try:
        return int(np.asarray(step.fn()))
    except Exception:  # noqa: BLE001 - not ours to decide here
        return None


def analyse(steps: Sequence[Any], scalar_steps: Mapping[int, str],
            bounds: Mapping[Value, Bound], keep: Collection[Value]) -> Facts:
    """Propagate `bounds` (of values at the block's entry) through the scalar-mode steps;
    `keep`: values read after the block (its terminator, nested regions)."""
    facts = Facts()
    b = facts.bounds
    b.update(bounds)
    for i, step in enumerate(steps):
        op = step.op
        if len(op.results) != 1:
            continue
        result = op.results[0]
        value = constant_int(step)
        if value is not None:
            b[result] = (value, value)
            continue
        tag = scalar_steps.get(i)
        if tag is None:
            continue
        known = [b.get(v) for v in op.operands]
        first = known[0] if known else None
        if tag == "same" and first is not None:
            b[result] = first
        elif tag == "arith" and len(known) == 2 and known[0] and known[1]:
            kind = kind_of(result)
            span = _arith(step.fn, known[0], known[1])
            if kind is not None and not kind.is_float and span is not None \
                    and kind.low <= span[0] and span[1] <= kind.high:
                facts.no_wrap.add(i)
                b[result] = span
        elif tag == "compare" and known[0] and known[1]:
            decide = _DECIDE.get(step.fn)
            verdict = decide(known[0], known[1]) if decide is not None else None
            if verdict is not None:
                facts.decided[i] = verdict
                b[result] = (int(verdict), int(verdict))
        elif tag == "select" and known[0] is not None and known[0][0] == known[0][1]:
            k = 1 if known[0][0] else 2
            facts.picked[i] = k
            picked = known[k]
            if picked is not None:
                b[result] = picked
        elif tag == "select" and (t := known[1]) is not None and (f := known[2]) is not None:
            b[result] = (min(t[0], f[0]), max(t[1], f[1]))
    needed = set(keep)
    for i in range(len(steps) - 1, -1, -1):
        op = steps[i].op
        tag = scalar_steps.get(i)
        if tag in ("arith", "compare", "select", "same") and op.results[0] not in needed:
            facts.dead.add(i)  # pure Python arithmetic: nothing to raise
        elif i in facts.picked:
            needed.add(op.operands[facts.picked[i]])
        elif i not in facts.decided:
            needed.update(op.operands)
    return facts


def _arith(fn: Any, x: Bound, y: Bound) -> Bound | None:
    if fn is operator.add:
        return x[0] + y[0], x[1] + y[1]
    if fn is operator.sub:
        return x[0] - y[1], x[1] - y[0]
    if fn is operator.mul:
        products = [a * c for a in x for c in y]
        return min(products), max(products)
    return None


def cond_bounds(arguments: Sequence[Value], steps: Sequence[Any], returned: Value
                ) -> dict[int, Bound]:
    """The bounds on condition arguments (by index) that hold when the condition does:
    each conjunct of the condition that compares an argument with a constant (`i < 1000`,
    and `(i < 1000) & (abs(h) < 100)`, a while loop with an extra test, bounds its `i`)."""
    producer = {s.op.results[0]: s for s in steps if len(s.op.results) == 1}
    found: dict[int, Bound] = {}
    for value in conjuncts(returned, producer):
        bound = compare_bound(arguments, value, producer)
        if bound is not None:
            k, (low, high) = bound
            old = found.get(k)
            found[k] = (low, high) if old is None else (max(low, old[0]), min(high, old[1]))
    return {k: b for k, b in found.items() if b[0] <= b[1]}


def conjuncts(value: Value, producer: Mapping[Value, Any], depth: int = 8) -> list[Value]:
    """The 0-d bools whose conjunction `value` is (through `and`s, a bool's conversion to
    bool and its comparison `!= false`: JAX's `convert_element_type` of a bool): all hold
    when `value` does."""
    step = producer.get(value)
    kind = kind_of(value)
    if step is None or depth == 0 or kind is None or kind.dtype.kind != "b":
        return [value]
    op = step.op
    operands = list(op.operands)
    if op.name == "stablehlo.and" and classify(step) == "logic" and len(operands) == 2:
        return [*conjuncts(operands[0], producer, depth - 1),
                *conjuncts(operands[1], producer, depth - 1)]
    if op.name == "stablehlo.convert" and classify(step) == "convert" \
            and kind_of(operands[0]) is kind:
        return conjuncts(operands[0], producer, depth - 1)
    if classify(step) == "compare" and step.fn in (operator.ne, np.not_equal) \
            and kind_of(operands[0]) is kind:
        for x, y in (operands, operands[::-1]):
            if _constant_of(y, producer) == 0:  # `b != false`: b
                return conjuncts(x, producer, depth - 1)
    return [value]


def _constant_of(value: Value, producer: Mapping[Value, Any]) -> int | None:
    """The value of a 0-d integer (or bool) constant, also through broadcasts and reshapes
    to its own type (JAX's `broadcast_in_dim` of a 0-d constant to 0-d); else None."""
    for _ in range(4):
        step = producer.get(value)
        if step is None:
            return None
        op = step.op
        if op.name not in _SAME_TYPE or len(op.operands) != 1 \
                or op.operands[0].type != value.type:
            return constant_int(step)
        value = op.operands[0]
    return None


def compare_bound(arguments: Sequence[Value], value: Value, producer: Mapping[Value, Any]
                  ) -> tuple[int, Bound] | None:
    """(index, bound) of the argument that `value` bounds when true, a comparison of it
    with a constant; else None."""
    step = producer.get(value)
    if step is None or classify(step) != "compare" or step.fn not in _FLIP:
        return None
    x, y = step.op.operands
    fn = step.fn
    if x not in arguments:  # `1000 > i`
        x, y, fn = y, x, _FLIP[fn]
    c = _constant_of(y, producer)
    kind = kind_of(x)
    if x not in arguments or c is None or kind is None or kind.is_float:
        return None
    low, high = kind.low, kind.high
    if fn is operator.lt:
        high = c - 1
    elif fn is operator.le:
        high = c
    elif fn is operator.gt:
        low = c + 1
    else:
        low = c
    return list(arguments).index(x), (max(low, kind.low), min(high, kind.high))


def entry_facts(arguments: Sequence[Value], steps: Sequence[Any],
                terminator: Sequence[Value], slots: Collection[int],
                bounds: Mapping[int, Bound]
                ) -> tuple[list[str], dict[int, Bound], dict[int, int],
                           tuple[str, int, int] | None]:
    """The versioned loop's facts: tests of the entry values (Python source on the
    carried names `a{i}`), the bounds at the body's entry when they hold, and the carried
    values that are another one (index -> its representative). A counter (`a + c`, c > 0,
    at most `bounds`' high - c before: it cannot wrap) never falls below its entry value:
    tested to be at least 0; counters of one type stepped by the same constant that start
    equal stay equal. Last, for such a counter bounded by the condition, the number of
    iterations it makes (a Python expression on the entry values), its index and its step
    c; or None."""
    producer = {s.op.results[0]: s for s in steps if len(s.op.results) == 1}
    steps_by: dict[tuple[Any, int], list[int]] = {}
    for k in sorted(slots):
        c = _increment(arguments[k], terminator[k], producer)
        kind = kind_of(arguments[k])
        if c is not None and kind is not None:
            steps_by.setdefault((kind, c), []).append(k)
    tests: list[str] = []
    known = dict(bounds)
    alias: dict[int, int] = {}
    trips: tuple[str, int, int] | None = None
    for (kind, c), group in steps_by.items():
        rep = next((k for k in group if k in bounds), group[0])
        for k in group:
            if k != rep:
                tests.append(f"a{k} == a{rep}")
                alias[k] = rep
        if rep in bounds and c > 0 and bounds[rep][1] + c <= kind.high:
            trips = f"({bounds[rep][1]} - a{rep}) // {c} + 1", rep, c
            if bounds[rep][0] < 0:
                tests.append(f"a{rep} >= 0")
                known[rep] = (0, bounds[rep][1])
        for k in alias:
            if alias[k] == rep and rep in known:
                known[k] = known[rep]
    return tests, known, alias, trips


def _increment(arg: Value, returned: Value, producer: Mapping[Value, Any]) -> int | None:
    """c when the body returns `arg + c` (or `c + arg`) for this carried value."""
    step = producer.get(returned)
    if step is None or step.op.name != "stablehlo.add" or classify(step) != "arith":
        return None
    x, y = step.op.operands
    if y is arg:
        x, y = y, x
    if x is not arg or y not in producer:
        return None
    return constant_int(producer[y])
