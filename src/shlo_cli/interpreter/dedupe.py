"""Repeated pure ops of a block planned once.

JAX does not eliminate common subexpressions before export (XLA does it after), and a
callee inlined at two call sites brings its ops twice: a masked Keras RNN step selects
its new state with `_where(mask, h, h_new)` for the carry and again, identically, for the
step's output; a layer norm subtracts the mean twice. Each repeat costs a kernel call per
execution (per loop step, in a loop body). When a block's planned op is one of MERGED (free
of effects, no regions) and equals an earlier one (same name, the same operands once
earlier repeats are resolved, same attributes and result types), its results are defined by an
`optimization_barrier` copy of the earlier op's results instead, as inline.py defines a
call result that aliases another; repeats nothing reads any more are then dropped.

A pure op computes the same bits from the same operands each time it runs (its kernel is
the earlier op's), so results do not change. Constants and what is computed from them
alone (a splat's broadcast) are not merged: the plan folds them, and a runtime copy would
cost more and hide the constant from the kernels that take splats. The module is not
changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ir import registry
from ..ir.attributes import entries_key
from ..ir.core import Operation, Value
from .ifconvert import drop_unread
from .inline import IDENTITY

# Ops of no operands the plan folds: a repeated `jnp.arange` (an iota) stays a constant, so
# what is computed from it alone folds too instead of running as a copy of the first one's.
CONSTANTS = frozenset(("stablehlo.constant", "stablehlo.iota"))
# Ops whose results depend on their operands and attributes alone (no effects, no random
# bits, no regions); an op that fails fails at its first occurrence, before any repeat.
MERGED = frozenset("stablehlo." + name for name in (
    "abs add and atan2 bitcast_convert broadcast_in_dim cbrt ceil clamp compare complex "
    "concatenate convert cosine count_leading_zeros divide dot dot_general dynamic_slice "
    "exponential exponential_minus_one floor gather imag iota is_finite log log_plus_one "
    "logistic maximum minimum multiply negate not or pad popcnt power real reduce_precision "
    "remainder reshape reverse round_nearest_afz round_nearest_even rsqrt select "
    "shift_left shift_right_arithmetic shift_right_logical sign sine slice sqrt subtract "
    "tan tanh transpose xor").split())


def merge_repeats(ops: list[Operation], terminator: Sequence[Value] | None) -> list[Operation]:
    """`ops` (a block's plan, ended by `terminator`) with each repeat of an earlier pure op
    defined by an identity of that op's results, those nothing reads dropped (as
    `drop_unread` sees reads: by later ops, inside their regions, by the terminator)."""
    seen: dict[Any, Operation] = {}
    canonical: dict[Value, Value] = {}  # a repeat's result -> the earlier op's
    constant: set[Value] = set()  # values computed from constants alone
    out: list[Operation] = []
    merged = False
    for op in ops:
        if op.name in CONSTANTS or (op.operands and all(v in constant for v in op.operands)):
            constant.update(op.results)  # (folded by the plan: the repeat costs nothing)
            out.append(op)
            continue
        key = _key(op, canonical) if _mergeable(op) else None
        earlier = None if key is None else seen.get(key)
        if earlier is None:
            if key is not None:
                seen[key] = op
            out.append(op)
            continue
        merged = True
        for result, first in zip(op.results, earlier.results, strict=True):
            canonical[result] = first
            out.append(_identity(first, result, op))
    if not merged:
        return ops
    return drop_unread(out, terminator or ())


def _mergeable(op: Operation) -> bool:
    return (op.name in MERGED and bool(op.results) and not op.regions and not op.successors
            and op.opdef is not None)


def _key(op: Operation, canonical: dict[Value, Value]) -> Any:
    return (op.name, tuple(id(canonical.get(v, v)) for v in op.operands),
            entries_key(op.properties), entries_key(op.attributes),
            tuple(r.type for r in op.results))


def _identity(source: Value, result: Value, op: Operation) -> Operation:
    """An identity op defining `result` (the repeat's own value) as `source`."""
    copy = Operation(IDENTITY, [source], [result.type], location=op.location,
                     opdef=registry.lookup(IDENTITY))
    copy.results = [result]
    return copy
