"""Selects on a broadcast of one predicate read that predicate as 0-d.

A masked recurrent layer (Keras with `mask_zero`, jnp.where on a per-step flag) selects
its new state or its old one by a flag broadcast to the state's shape:
`select(broadcast_in_dim(m), new, old)` with `m` of one element. Every element of the
broadcast is `m`, so the select takes one operand whole, which is what a select on the
0-d predicate does (the spec allows a 0-d predicate). Read that way, the generated code
picks an operand in a Python conditional expression (codegen's `picks`) instead of making
the broadcast and a masked copy: two numpy calls less per step.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..ir import registry
from ..ir.core import Operation, Value
from ..ir.types import BOOL, TensorType
from .codegen import region_reads

_BROADCAST, _SELECT, _RESHAPE = ("stablehlo.broadcast_in_dim", "stablehlo.select",
                                 "stablehlo.reshape")


def _one_flag(value: Value) -> bool:
    """Whether `value` is an i1 tensor of exactly one element."""
    t = value.type
    return (isinstance(t, TensorType) and t.is_static and t.element == BOOL
            and math.prod(t.shape) == 1)


def scalar_predicates(ops: list[Operation], kept: Iterable[Value]) -> list[Operation]:
    """`ops` with each select of whole operands on a broadcast one-element predicate
    selecting on that predicate reshaped to 0-d (a copy defining the select's own result);
    a broadcast then read by nothing else (not `kept`, nor a region) is left out."""
    flags = {op.results[0]: op.operands[0] for op in ops
             if op.name == _BROADCAST and len(op.operands) == 1 and _one_flag(op.operands[0])}
    if not flags:  # (before the lookups: they import the ops' modules)
        return ops
    select_def, reshape_def = registry.lookup(_SELECT), registry.lookup(_RESHAPE)
    if select_def is None or reshape_def is None:
        return ops
    out: list[Operation] = []
    scalars: dict[Value, Value] = {}  # a broadcast flag's 0-d form, made once
    for op in ops:
        pred = op.operands[0] if op.name == _SELECT and len(op.operands) == 3 else None
        flag = flags.get(pred) if pred is not None else None
        if flag is None or any(v.type != op.results[0].type for v in op.operands[1:]):
            out.append(op)
            continue
        scalar = scalars.get(flag)
        if scalar is None:
            if flag.type == TensorType((), BOOL):
                scalar = flag
            else:
                reshape = Operation(_RESHAPE, [flag], [TensorType((), BOOL)],
                                    location=op.location, opdef=reshape_def)
                out.append(reshape)
                scalar = reshape.results[0]
            scalars[flag] = scalar
        select = Operation(_SELECT, [scalar, *op.operands[1:]], [op.results[0].type],
                           location=op.location, opdef=select_def)
        select.results = [op.results[0]]
        out.append(select)
    return _without_unread_broadcasts(out, flags, kept)


def _without_unread_broadcasts(ops: list[Operation], flags: dict[Value, Value],
                               kept: Iterable[Value]) -> list[Operation]:
    """`ops` without the broadcasts of `flags` whose results nothing reads any more."""
    read = set(kept) | region_reads(ops)
    for op in ops:
        read.update(op.operands)
    return [op for op in ops
            if not (op.name == _BROADCAST and op.results[0] in flags
                    and op.results[0] not in read)]
