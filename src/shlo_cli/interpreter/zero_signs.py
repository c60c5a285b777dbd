"""Products whose +0 normalization a generated block may skip (codegen.py).

A float dot sums from +0, so an all -0.0 sum is +0.0; plan-time product kernels
(`signed_zeros`: specialize_dot.py) add that +0 as a last numpy call, a quarter of an RNN
step's `h @ W`, and skip it when told to (`normalize=False`). That is exact where the
product's only use is an add whose other operand is never -0.0: -0.0 + y and +0.0 + y are
the same for every y but -0.0. Values never -0.0 (`_unsigned`): products, normalized
(dot_general's sums start at +0, whichever kernel computes them, unless this analysis
told it otherwise, which it does only for a product it sees no other use of); their
reshapes, slices, transposes and broadcasts (a scan's `x_t @ W` read back as row `t` of
the whole sequence's products, scan_inputs.py); constants without -0.0; a sum with one
such operand (a - b too when a is one: x + y is -0.0 only for two -0.0, x - y for
x = -0.0 and y = +0.0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ir.core import Operation, Value

# Ops whose result is the same for -0.0 and +0.0 (exp(±0) = 1, cos, logistic, |±0| = +0).
_SIGN_BLIND = frozenset(("stablehlo.exponential", "stablehlo.logistic", "stablehlo.cosine",
                         "stablehlo.abs"))
_PRODUCTS = frozenset(("stablehlo.dot_general", "stablehlo.dot"))
_MOVES = frozenset("stablehlo." + n for n in (
    "reshape", "transpose", "broadcast_in_dim", "slice", "dynamic_slice"))
_DEPTH = 32  # defining ops followed from one value (chains of moves are short)


def signed_zero_sums(steps: Sequence[Any], kept: set[Value], chained: set[int]) -> set[int]:
    """Products (kernels with `signed_zeros`) whose only use is a float add (numpy's) of
    a value never -0.0: another such product (one of each pair: `x @ W + h @ U` in an RNN
    cell; both where the sum's zero sign is lost anyway, `_blind`: a gate's
    sigmoid(x @ W + h @ U)), or any value `_unsigned` finds (a scan's hoisted `x_t @ W`).
    `kept`: values read after the block or by nested regions; `chained`: steps that run
    in fused chains (their kernels are called as they are)."""
    uses: dict[Value, int] = {}
    readers: dict[Value, list[Any]] = {}
    for step in steps:
        for v in step.op.operands:
            uses[v] = uses.get(v, 0) + 1
            readers.setdefault(v, []).append(step)
    producer = {step.op.results[0]: j for j, step in enumerate(steps)
                if getattr(step.fn, "signed_zeros", False) and len(step.op.results) == 1
                and j not in chained}
    local = {r: step for step in steps for r in step.op.results}
    pickable = {v for v in producer if v not in kept and uses.get(v) == 1}

    def unsigned(v: Value) -> bool:
        return _unsigned(v, local, pickable, _DEPTH)

    picked: set[int] = set()
    for step in steps:
        if step.op.name != "stablehlo.add" or step.fn is not np.add or len(step.op.operands) != 2:
            continue
        x, y = step.op.operands
        j, k = producer.get(x), producer.get(y)
        if j is not None and k is not None and j != k:
            if k in picked or x not in pickable:
                continue
            picked.add(j)
            if y in pickable and _blind(step.op.results[0], readers, kept):
                picked.add(k)
        elif j is not None and k is None and x in pickable and unsigned(y):
            picked.add(j)
        elif k is not None and j is None and y in pickable and unsigned(x):
            picked.add(k)
    return picked


def _unsigned(v: Value, local: dict[Value, Any], pickable: set[Value], depth: int) -> bool:
    """Whether `v` is never -0.0 (module docstring). Defined by a step of the block
    (`local`) or else by its owner op; a product this block may leave unnormalized
    (`pickable`: its only use is here) is not taken to be one."""
    if depth <= 0:
        return False
    step = local.get(v)
    op = step.op if step is not None else v.owner
    if not isinstance(op, Operation) or not op.operands and op.name != "stablehlo.constant":
        return False
    name = op.name
    if name in _PRODUCTS:
        return v not in pickable
    if name in _MOVES:
        return _unsigned(op.operands[0], local, pickable, depth - 1)
    if name == "stablehlo.add" and len(op.operands) == 2:
        return any(_unsigned(w, local, pickable, depth - 1) for w in op.operands)
    if name == "stablehlo.subtract" and len(op.operands) == 2:
        return _unsigned(op.operands[0], local, pickable, depth - 1)
    if name == "stablehlo.constant":
        return _no_negative_zero(op)
    return False


def _no_negative_zero(op: Operation) -> bool:
    """A constant holding no -0.0 (a bias)."""
    data = getattr(op.attr("value"), "data", None)
    if not isinstance(data, np.ndarray) or data.dtype.kind != "f":
        return False
    return not np.any((data == 0) & np.signbit(data))


def _blind(v: Value, readers: dict[Value, list[Any]], kept: set[Value]) -> bool:
    """Whether every use of `v` gives the same bits for v's -0.0 as for +0.0: only such
    ops read it, or negations whose results are blind too."""
    users = readers.get(v, [])
    if v in kept or not users:
        return False
    for step in users:
        op = step.op
        if len(op.operands) != 1 or len(op.results) != 1:
            return False
        if op.name == "stablehlo.negate":
            if not _blind(op.results[0], readers, kept):
                return False
        elif op.name not in _SIGN_BLIND:
            return False
    return True
