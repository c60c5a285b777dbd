"""Small callees planned inline at their `func.call` sites.

JAX exports wrap pieces of a program in private functions (`@closed_call`,
`@dynamic_index_in_dim`, `@_where`, ...), often called once per loop iteration. A call
costs a fresh environment, the callee's plan run and the result unpacking, about as much
as a few numpy calls on small tensors, and it hides the callee's ops from the plan-time
rewrites (hoist.py) of the caller. When the callee is one block whose ops' regions (a
reduce body) read nothing from outside them, its ops are planned in the caller's block:
detached copies reading the call's operands, with fresh result values (a callee inlined
twice gets two sets), the values it returns being the call's own results; region-holding
ops share their regions (and so their plans) with the callee's op, but for conditionals
and loops whose regions read the callee's values (and whose calls end a few levels down):
those are copied with their regions (a `lax.switch` step then runs inline in the caller's
loop, branches.py; an inner while loop is a step of the caller's loop, with no call
around it). The module is not changed. Every copy keeps its op's location, so a run-time
error is reported where it was before.

A `stablehlo.composite` is a call of its decomposition (its reference semantics, as the
evaluator runs it) and is inlined the same way (jax exports `jnp.cosh`, `jnp.sinh`, ...
as composites of a few ops: its ops can then be moved out of a loop, licm.py and
loopgen.py's condition invariants), unless a kernel of ours stands in for it
(composite_kernels.py).

Only calls whose operand and result types are the callee's own are inlined (kernels are
specialized by those types), and nested calls only to a few levels (a recursive program
keeps its calls). Small conditionals of the callee are its branches' ops first
(ifconvert.py). A callee that returns one value twice (a scan step's `return %h, %h`) or
returns an argument gets, for each such result, an `optimization_barrier` copy (an
identity) defining the call's result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from ..ir import registry
from ..ir.clone import clone_op
from ..ir.core import Operation, Value
from .ifconvert import if_convert

CALL = "func.call"
COMPOSITE = "stablehlo.composite"
RETURN = "func.return"
MAX_DEPTH = 4
MAX_OPS = 4096  # larger callees keep their call (a plan per call site would be compiled)
IDENTITY = "stablehlo.optimization_barrier"  # defines a call result that aliases another


def _body(call: Operation, lookup: Callable[[str], Operation | None], sole: bool
          ) -> list[Operation] | None:
    """The callee's ops (its `func.return` last) when the call can be inlined, else None;
    `sole`: the block's only call of the callee (its loops may be copied)."""
    callee = _callee(call)
    func = lookup(callee) if isinstance(callee, str) else None
    if func is None or func.name != "func.func" or len(func.regions) != 1:
        return None
    blocks = func.regions[0].blocks
    if len(blocks) != 1:
        return None
    block = blocks[0]
    ops = block.operations
    if not ops or ops[-1].name != RETURN or len(ops) > MAX_OPS:
        return None
    ops = [*if_convert(ops[:-1]), ops[-1]]  # (its conditionals' regions read its values)
    if len(block.arguments) != len(call.operands) or any(
            a.type != v.type for a, v in zip(block.arguments, call.operands, strict=True)):
        return None
    returned = ops[-1].operands
    if len(returned) != len(call.results) or any(
            r.type != v.type for r, v in zip(call.results, returned, strict=True)):
        return None
    aliased = len(set(returned)) != len(returned) or any(v in block.arguments for v in returned)
    if aliased and registry.lookup(IDENTITY) is None:
        return None
    if any(op.successors or (op.regions and not _self_contained(op)
                             and not _clonable(op, lookup, sole)) for op in ops):
        return None
    return list(ops)


def _clonable(op: Operation, lookup: Callable[[str], Operation | None], sole: bool) -> bool:
    """A conditional or a loop whose regions read the callee's values (a `lax.switch` on
    the callee's arguments, an inner while loop reading a constant) and whose calls end
    within MAX_DEPTH levels: copied with its regions, reading the call's operands (a
    recursive program keeps its calls: each copy would be planned anew). A loop is copied
    only at a block's sole call of its callee (a function of a loop called at many places
    keeps one plan, compiled once)."""
    if op.name not in ("stablehlo.if", "stablehlo.case") and not (
            op.name == "stablehlo.while" and sole):
        return False
    return _calls_end(op, lookup, MAX_DEPTH)


def _calls_end(op: Operation, lookup: Callable[[str], Operation | None], depth: int) -> bool:
    """Whether every call inside `op`'s regions reaches functions that call nothing within
    `depth` levels."""
    for inner in _nested(op):
        if inner.name in (CALL, COMPOSITE):
            callee = _callee(inner)
            func = lookup(callee) if callee is not None else None
            if func is None or depth == 0 or not _calls_end(func, lookup, depth - 1):
                return False
    return True


def _nested(op: Operation) -> list[Operation]:
    """The ops inside `op`'s regions, at any depth."""
    found: list[Operation] = []
    stack = list(op.regions)
    while stack:
        for block in stack.pop().blocks:
            for inner in block.operations:
                found.append(inner)
                stack.extend(inner.regions)
    return found


def _callee(op: Operation) -> str | None:
    """The function a call or a composite (its decomposition, when no kernel of ours
    stands in for the composite) runs, else None."""
    if op.name == CALL:
        callee = getattr(op.attr("callee"), "value", None)
    elif op.name == COMPOSITE and not op.regions:
        # (its kernels' modules load with the first composite, not with every launch)
        from ..dialects.stablehlo.composite_kernels import COMPOSITE_KERNELS

        name = getattr(op.attr("name"), "value", None)
        if not isinstance(name, str) or name in COMPOSITE_KERNELS:
            return None
        callee = getattr(op.attr("decomposition"), "value", None)
    else:
        return None
    return callee if isinstance(callee, str) else None


def _self_contained(op: Operation) -> bool:
    """Whether the ops inside `op`'s regions read only values defined inside them (a
    reduce or sort body): the copy can then share the regions themselves."""
    defined: set[Value] = set()
    reads: list[Value] = []
    stack = list(op.regions)
    while stack:
        region = stack.pop()
        for block in region.blocks:
            defined.update(block.arguments)
            for inner in block.operations:
                defined.update(inner.results)
                reads.extend(inner.operands)
                stack.extend(inner.regions)
    return all(v in defined for v in reads)


def _copy(ops: list[Operation], call: Operation) -> list[Operation]:
    """The callee's ops as detached copies reading the call's operands; each call result
    is defined by the copy of the op that returns it, or (a value returned twice, an
    argument returned) by an identity op."""
    block = ops[-1].parent
    assert block is not None
    values: dict[Value, Value] = dict(zip(block.arguments, call.operands, strict=True))
    results: dict[Value, Value] = {}
    aliases: list[tuple[Value, Value]] = []  # (callee value, call result it defines)
    for returned, result in zip(ops[-1].operands, call.results, strict=True):
        if returned in results or returned in values:
            aliases.append((returned, result))
        else:
            results[returned] = result
    out = []
    for op in ops[:-1]:
        if op.regions and not _self_contained(op):  # (its regions read the call's operands)
            new = clone_op(op, dict(values))
        else:
            new = Operation(op.name, [values.get(v, v) for v in op.operands],
                            [r.type for r in op.results], dict(op.properties),
                            dict(op.attributes), location=op.location, opdef=op.opdef)
            new.regions = op.regions  # shared, self-contained (their parent: the callee's op)
        new.results = [results.get(r, n) for r, n in zip(op.results, new.results, strict=True)]
        for r, n in zip(op.results, new.results, strict=True):
            values[r] = n
        out.append(new)
    for returned, result in aliases:
        identity = Operation(IDENTITY, [values[returned]], [result.type],
                             location=call.location, opdef=registry.lookup(IDENTITY))
        identity.results = [result]
        out.append(identity)
    return out


def inline_calls(ops: Iterable[Operation], lookup: Callable[[str], Operation | None],
                 depth: int = 0) -> list[Operation]:
    """`ops` with each inlinable `func.call` replaced by copies of its callee's ops."""
    ops = list(ops)
    calls = Counter(_callee(op) for op in ops if op.name in (CALL, COMPOSITE))
    out: list[Operation] = []
    for op in ops:
        body = (_body(op, lookup, calls[_callee(op)] == 1)
                if op.name in (CALL, COMPOSITE) and depth < MAX_DEPTH else None)
        if body is None:
            out.append(op)
            continue
        out.extend(inline_calls(_copy(body, op), lookup, depth + 1))
    return out
