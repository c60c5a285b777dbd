"""`--cse`: MLIR's common subexpression elimination.

Walks each region in order with a scoped table of the ops seen so far; an op free of effects
(passes/effects) that equals an earlier one in scope — same name, operands, properties,
attributes, result types and structurally equal regions — is replaced by it. A region of an
op isolated from above (a function) starts a fresh scope; other regions see the enclosing
scope (MLIR's dominance order for single-block regions).
"""

from __future__ import annotations

from typing import Any

from ..ir.attributes import entries_key
from ..ir.core import Block, Module, Operation, Value
from . import register_pass, statistic
from .effects import has_no_effect, is_trivially_dead


@register_pass("cse", "Eliminate common sub-expressions")
def cse(module: Module) -> None:
    used = {id(v) for op in module.op.walk() for v in op.operands}
    replacements: dict[Value, Value] = {}
    for region in module.op.regions:
        for block in region.blocks:
            _simplify_block(block, [{}], replacements, used)


def _simplify_block(block: Block, scopes: list[dict[Any, Operation]],
                    replacements: dict[Value, Value], used: set[int]) -> None:
    """CSE one block; `used` holds the ids of values used anywhere before the pass (an op
    unused then is dead and erased, as MLIR's CSE does)."""
    scopes.append({})
    kept: list[Operation] = []
    for op in block.operations:
        if any(v in replacements for v in op.operands):
            op.operands = [replacements.get(v, v) for v in op.operands]
        if is_trivially_dead(op, any(id(r) in used for r in op.results)):
            op.parent = None
            statistic("cse", "num-dce'd", "Number of operations DCE'd")
            continue
        for region in op.regions:
            isolated = op.opdef is not None and op.opdef.isolated
            for inner in region.blocks:
                _simplify_block(inner, [{}] if isolated else scopes, replacements, used)
        if op.results and has_no_effect(op) and len(_block_count(op)) <= 1:
            key = _key(op)
            earlier = _find(scopes, key)
            if earlier is not None:
                for old, new in zip(op.results, earlier.results, strict=True):
                    replacements[old] = new
                op.parent = None
                statistic("cse", "num-cse'd", "Number of operations CSE'd")
                continue
            scopes[-1][key] = op
        kept.append(op)
    block.operations = kept
    scopes.pop()


def _block_count(op: Operation) -> list[Block]:
    """Blocks of a region with more than one block (MLIR's CSE leaves those ops alone)."""
    return [b for r in op.regions if len(r.blocks) > 1 for b in r.blocks]


def _find(scopes: list[dict[Any, Operation]], key: Any) -> Operation | None:
    for scope in reversed(scopes):
        found = scope.get(key)
        if found is not None:
            return found
    return None


def _key(op: Operation) -> Any:
    return (op.name, tuple(map(id, op.operands)), entries_key(op.properties),
            entries_key(op.attributes), tuple(op.result_types),
            tuple(_region_key(r.blocks) for r in op.regions))


def _region_key(blocks: list[Block]) -> Any:
    """A structural key of a region: its ops with operands numbered by definition order
    inside the region (values from outside keep their identity)."""
    numbers: dict[Value, int] = {}
    ops_key = []
    for block in blocks:
        for arg in block.arguments:
            numbers[arg] = len(numbers)
        arg_types = tuple(a.type for a in block.arguments)
        body = []
        for op in _nested(block):
            operands = tuple(("in", numbers[v]) if v in numbers else ("out", id(v))
                             for v in op.operands)
            for result in op.results:
                numbers[result] = len(numbers)
            for region in op.regions:
                for inner in region.blocks:
                    for arg in inner.arguments:
                        numbers[arg] = len(numbers)
            body.append((op.name, operands, entries_key(op.properties),
                         entries_key(op.attributes), tuple(op.result_types)))
        ops_key.append((arg_types, tuple(body)))
    return tuple(ops_key)


def _nested(block: Block) -> list[Operation]:
    out: list[Operation] = []
    for op in block.operations:
        out.append(op)
        for region in op.regions:
            for inner in region.blocks:
                out.extend(_nested(inner))
    return out
