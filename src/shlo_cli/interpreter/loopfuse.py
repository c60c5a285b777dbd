"""Independent loops of the same trip count planned as one loop.

A Keras `Bidirectional` layer runs its two directions as two `lax.scan`s: two while ops in
one block, of the same length, neither reading the other's results. Run one after the
other, every costly kernel of a step (the correctly rounded `exp` and `tanh` of
dialects/libm.py, about ten numpy calls each on a few dozen elements) runs alone. Planned
as one loop whose body is both bodies, batching.py runs each such call of one direction
together with its twin of the other, and the loop's own costs are paid once.

Two while ops are fused when each counts with one carried value `i` alone deciding its
condition, the conditions are the same function of it, both start it from the same value
and both add the same value to it each step: the two counters are then equal at every
step, so the first loop's condition is the second's. Their bodies must be free of effects
(the steps of the two loops interleave) and neither loop may read the other's results.
The fused loop carries both loops' values and defines both loops' results; the module is
not changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..ir import registry
from ..ir.attributes import entries_key
from ..ir.clone import clone_op
from ..ir.core import Block, Operation, Region, Value
from .codegen import region_reads
from .dedupe import MERGED

WHILE = "stablehlo.while"
CONSTANT = "stablehlo.constant"
RETURNS = frozenset({"stablehlo.return", "func.return"})
# Ops without effects (and without regions, but a call's): steps of two loops may interleave.
PURE = MERGED | frozenset("stablehlo." + name for name in (
    "constant", "iota", "dynamic_update_slice", "optimization_barrier")) | RETURNS
CALL = "func.call"
MAX_DEPTH = 4  # calls followed into callees, at most
MAX_FUSED = 8  # fusions per block, at most

Lookup = Callable[[str], "Operation | None"]


def fuse_loops(ops: list[Operation], lookup: Lookup) -> list[Operation]:
    """`ops` (a block's plan) with each pair of fusable while ops planned as one."""
    for _ in range(MAX_FUSED):
        fused = _fuse_one(ops, lookup)
        if fused is None:
            break
        ops = fused
    return ops


def _fuse_one(ops: list[Operation], lookup: Lookup) -> list[Operation] | None:
    loops = [(i, key) for i, op in enumerate(ops) if op.name == WHILE
             and (key := _loop_key(op, lookup)) is not None]
    for x, (a, key_a) in enumerate(loops):
        for b, key_b in loops[x + 1:]:
            if key_a[1:] != key_b[1:]:
                continue
            between = _split_between(ops, a, b, lookup)
            if between is None:
                continue
            before, after = between
            return [*ops[:a], *before, _fused(ops[a], ops[b]), *after, *ops[b + 1:]]
    return None


def _split_between(ops: list[Operation], a: int, b: int, lookup: Lookup
                   ) -> tuple[list[Operation], list[Operation]] | None:
    """The ops between loops ops[a] and ops[b] as (those that run before the fused loop,
    those that run after it: the ones reading, through any chain, the first loop's results,
    pure ones only, as they move past the second loop); None when the second loop reads
    the first's results."""
    tainted = set(ops[a].results)
    before: list[Operation] = []
    after: list[Operation] = []
    for op in ops[a + 1:b]:
        if (set(op.operands) | region_reads([op])) & tainted:
            if not _pure([op], lookup, 0):
                return None
            tainted.update(op.results)
            after.append(op)
        else:
            before.append(op)
    if (set(ops[b].operands) | region_reads([ops[b]])) & tainted:
        return None
    return before, after


def _loop_key(op: Operation, lookup: Lookup) -> tuple[Any, ...] | None:
    """(counter index, then what two loops of the same trip count share: the condition's
    form, the counter's start, step and type), or None for a loop that is not fused."""
    if len(op.regions) != 2 or not op.operands:
        return None
    blocks = [r.blocks[0] for r in op.regions if len(r.blocks) == 1]
    if len(blocks) != 2:
        return None
    cond, body = blocks
    n = len(op.operands)
    if (len(cond.arguments) != n or len(body.arguments) != n
            or not _ends_in_return(cond, 1) or not _ends_in_return(body, n)
            or not _pure(body.operations, lookup, 0) or not _pure(cond.operations, lookup, 0)):
        return None
    for k in range(n):
        form = _condition_form(cond, k)
        step = _step(body, k) if form is not None else None
        if step is not None:
            return (k, form, step, _outside(op.operands[k]), str(op.operands[k].type))
    return None


def _ends_in_return(block: Block, count: int) -> bool:
    ops = block.operations
    return bool(ops) and ops[-1].name in RETURNS and len(ops[-1].operands) == count


def _pure(ops: Sequence[Operation], lookup: Lookup, depth: int) -> bool:
    """Whether running `ops` has no effect but their results (calls followed)."""
    for op in ops:
        if op.name == CALL:
            callee = getattr(op.attr("callee"), "value", None)
            func = lookup(callee) if isinstance(callee, str) else None
            if (func is None or depth >= MAX_DEPTH or len(func.regions) != 1
                    or not all(_pure(b.operations, lookup, depth + 1)
                               for b in func.regions[0].blocks)):
                return False
        elif op.name not in PURE or op.regions:
            return False
    return True


def _outside(value: Value) -> Any:
    """What identifies a value a loop reads from outside: a constant's type and value (jax
    writes one per use), else the value itself."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == CONSTANT and not owner.operands:
        return ("constant", str(value.type), entries_key(owner.properties))
    return ("value", id(value))


def _condition_form(cond: Block, k: int) -> tuple[Any, ...] | None:
    """The condition's ops as a function of argument `k` alone, or None when it reads
    another argument."""
    index: dict[Value, tuple[int, int]] = {}
    form: list[Any] = []
    ops = cond.operations
    for j, op in enumerate(ops):
        refs: list[Any] = []
        for v in op.operands:
            if v in index:
                refs.append(("op", *index[v]))
            elif v is cond.arguments[k]:
                refs.append(("counter",))
            elif v.owner is cond:
                return None
            else:
                refs.append(_outside(v))
        form.append((op.name, entries_key(op.properties), entries_key(op.attributes),
                     tuple(str(r.type) for r in op.results), tuple(refs)))
        for r, result in enumerate(op.results):
            index[result] = (j, r)
    return tuple(form)


def _step(body: Block, k: int) -> Any:
    """What the body adds to argument `k` each step (a value from outside the body, or a
    constant of it), or None when argument k is not counted that way."""
    counter = body.arguments[k]
    result = body.operations[-1].operands[k]
    add = result.owner
    if (not isinstance(add, Operation) or add.name != "stablehlo.add" or add.parent is not body
            or len(add.operands) != 2 or counter not in add.operands):
        return None
    other = add.operands[1] if add.operands[0] is counter else add.operands[0]
    owner = other.owner
    if isinstance(owner, Operation) and owner.parent is body:
        if owner.name != CONSTANT or owner.operands:
            return None
    elif owner is body:
        return None
    return _outside(other)


def _fused(first: Operation, second: Operation) -> Operation:
    """One while op running both loops: their carried values side by side, the first's
    condition, both bodies; it defines both loops' results."""
    n1 = len(first.operands)
    types = [v.type for v in (*first.operands, *second.operands)]
    cond = _block(types)
    mapping = dict(zip(first.regions[0].entry.arguments, cond.arguments[:n1], strict=True))
    for op in first.regions[0].entry.operations:
        cond.append(clone_op(op, mapping))
    body = _block(types)
    returned: list[Value] = []
    for loop, args in ((first, body.arguments[:n1]), (second, body.arguments[n1:])):
        block = loop.regions[1].entry
        mapping = dict(zip(block.arguments, args, strict=True))
        for op in block.operations[:-1]:
            body.append(clone_op(op, mapping))
        returned += [mapping.get(v, v) for v in block.operations[-1].operands]
    end = first.regions[1].entry.operations[-1]
    body.append(Operation(end.name, returned, [], location=end.location, opdef=end.opdef))
    fused = Operation(WHILE, [*first.operands, *second.operands], types,
                      dict(first.properties), dict(first.attributes),
                      [Region([cond]), Region([body])], location=first.location,
                      opdef=first.opdef or registry.lookup(WHILE))
    fused.results = [*first.results, *second.results]
    return fused


def _block(types: list[Any]) -> Block:
    return Block(list(types))
