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
  test per execution finds (the kernel's `normalize` argument is that test's result);
- the weights of several products of one row by steady weights of one shape (a flax
  LSTM cell's four `h @ W_g`, a GRU's gates), stacked (G, K, N): each step then makes one
  matmul, whose loop over the stack makes, per weight, the call the product's own kernel
  makes (a kernel's `stack = (kind, K, N, dtype)`, specialize_dot: BLAS's gemv on the same
  layouts, or matmul's own loop on weights it cannot give BLAS), so every element is the
  same; the products are views of the result. Where a weight or the row is laid out
  otherwise, each product's own kernel runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from ..dialects.stablehlo.ordered_dot import unblasable
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


def stacked_rows(steps: Sequence[Any], eligible: Callable[[int], bool],
                 steady: Callable[[Value], bool]) -> dict[int, list[int]]:
    """Products (kernels with `stack`) of one row by steady weights, grouped by that row
    and kind, first step -> the group's steps (two or more)."""
    found: dict[tuple[Value, Any], list[int]] = {}
    for i, step in enumerate(steps):
        kind = getattr(step.fn, "stack", None)
        if (kind is not None and len(step.op.operands) == 2 and len(step.op.results) == 1
                and eligible(i) and steady(step.op.operands[1])):
            found.setdefault((step.op.operands[0], kind), []).append(i)
    return {group[0]: group for group in found.values() if len(group) > 1}


def stacked_line(steps: Sequence[Any], group: list[int], ref: Callable[[Value], str],
                 outer: list[str], ns: dict[str, Any], p: str) -> tuple[str, list[str]]:
    """The line computing `group`'s products (its stack made in `outer`), and the names
    it gives their results."""
    first = group[0]
    kind = steps[first].fn.stack
    row = ref(steps[first].op.operands[0])
    weights = [ref(steps[j].op.operands[1]) for j in group]
    ns[f"{p}G{first}"], ns[f"{p}M{first}"] = _stacker(kind), _multiplier(kind)
    outer.append(f"{p}g{first} = {p}G{first}(({', '.join(weights)},))")
    y = f"{p}y{first}"
    parts = [f"{y} = {p}M{first}({row}, {p}g{first})"]
    names = []
    for g, (j, w) in enumerate(zip(group, weights, strict=True)):
        ns[f"{p}K{j}"] = steps[j].fn
        names.append(f"{p}v{j}")
        parts.append(f"{p}v{j} = {y}[{g}] if {y} is not None else {p}K{j}({row}, {w})")
    return "; ".join(parts), names


def _stacker(kind: tuple[str, int, int, np.dtype]) -> Callable[..., Any]:
    """The weights (K, N) of a group stacked (G, K, N) as its kind's kernels read them,
    or None where one is not a C-ordered array of that shape and type."""
    name, k, n, dtype = kind
    array = np.ndarray

    def stack(weights: tuple[Any, ...]) -> np.ndarray | None:
        if any(w.__class__ is not array or w.dtype != dtype or w.shape != (k, n)
               or not w.flags.c_contiguous for w in weights):
            return None
        stacked = np.stack(weights)
        return unblasable(stacked) if name == "loop" else stacked
    return stack


def _multiplier(kind: tuple[str, int, int, np.dtype]) -> Callable[..., Any]:
    """row x stack -> (G, 1, N) (BLAS's sums normalized from +0, as the products' kernels
    do), or None where the row is not a C-ordered (1, K) array of the kind's type."""
    name, k, _, dtype = kind
    array, matmul, add = np.ndarray, np.matmul, np.add
    strides = (k * dtype.itemsize, dtype.itemsize)
    zero = np.array(0, dtype)

    def multiply(x: Any, stack: np.ndarray | None) -> np.ndarray | None:
        if (stack is None or x.__class__ is not array or x.dtype != dtype
                or x.shape != (1, k) or x.strides != strides):
            return None
        out = matmul(x, stack)
        if name == "dot":
            add(out, zero, out)
        return out  # type: ignore[no-any-return]
    return multiply
