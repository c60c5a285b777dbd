"""A loop body's work on its steady operands, done once per execution of the loop.

Through one execution of a `while` loop, the body's arguments it passes on unchanged and
the values of enclosing blocks keep their values: an RNN's weights and biases. Two kinds of
per-step work on them move to the lines a generated loop runs once, before its first step
(codegen.py's `outer`):

- a kernel's `prepare = (index, function)`: that operand in a layout of the kernel's own
  (specialize_dot's shallow dots: weights matmul's own loop reads as they are);
- a product's +0 normalization (zero_signs.py) where its only use is a float add of a
  steady value (a Keras GRU's `h @ U + b`): -0.0 + y and +0.0 + y differ only for a
  -0.0 y, so the product is left as it is when the steady value holds no -0.0, which one
  test per execution finds (the kernel's `normalize` argument is that test's result).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from ..ir.core import Value


def steady_test(steady: Collection[Value], arguments: Sequence[Value], steps: Sequence[Any]
                ) -> Callable[[Value], bool]:
    """Whether a value keeps its value through one execution of the loop: one of the
    `steady` arguments, or a value of an enclosing block (neither an argument nor a
    step's result)."""
    local = {r for step in steps for r in step.op.results}
    inside = set(arguments) - set(steady)
    return lambda v: v not in inside and v not in local


def prepared(step: Any, i: int, steady: Callable[[Value], bool], ref: Callable[[Value], str],
             outer: list[str], ns: dict[str, Any], p: str) -> str | None:
    """Step i's arguments with its kernel's `prepare`d operand, whose preparation joins
    the `outer` lines; None when that operand is not steady."""
    at, prepare = step.fn.prepare
    if at >= len(step.op.operands) or not steady(step.op.operands[at]):
        return None
    operands = [ref(v) for v in step.op.operands]
    ns[f"{p}Q{i}"] = prepare
    outer.append(f"{p}q{i} = {p}Q{i}({operands[at]})")
    operands[at] = f"{p}q{i}"
    return ", ".join(operands)


def steady_sums(steps: Sequence[Any], kept: Collection[Value], skipped: Collection[int],
                steady: Callable[[Value], bool]) -> dict[int, Value]:
    """Products (kernels with `signed_zeros`) whose only use is numpy's add of a steady
    value, step index -> that value; `skipped`: steps left out (normalized already or
    not, chained)."""
    uses: dict[Value, list[Any]] = {}
    for step in steps:
        for v in step.op.operands:
            uses.setdefault(v, []).append(step)
    found: dict[int, Value] = {}
    for i, step in enumerate(steps):
        if (i in skipped or not getattr(step.fn, "signed_zeros", False)
                or len(step.op.results) != 1 or step.op.results[0] in kept):
            continue
        readers = uses.get(step.op.results[0], [])
        add = readers[0].op if len(readers) == 1 else None
        if (add is None or add.name != "stablehlo.add" or readers[0].fn is not np.add
                or len(add.operands) != 2):
            continue
        x, y = add.operands
        other = y if x is step.op.results[0] else x
        if other is not step.op.results[0] and steady(other):
            found[i] = other
    return found


def holds_negative_zero(value: Any) -> bool:
    """Whether a float array (or scalar) has a -0.0 element."""
    x = np.asarray(value)
    return x.dtype.kind == "f" and bool(np.signbit(x[x == 0]).any())
