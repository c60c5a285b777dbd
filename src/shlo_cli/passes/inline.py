"""`-inline`: inline every `func.call` to a function of the module, then drop private
functions nobody references any more (as MLIR's inliner does). Like MLIR's InlinerPass,
whose default pipeline is `canonicalize`, it canonicalizes the functions before inlining
and again once calls were inlined."""

from __future__ import annotations

from ..ir.attributes import symbol_refs
from ..ir.clone import clone_op, replace_uses
from ..ir.core import Block, Module, Operation, Value
from . import register_pass
from .canonicalize import canonicalize

_MAX_DEPTH = 64


@register_pass("inline", "Inline function calls.")
def inline(module: Module) -> None:
    canonicalize(module)
    functions = {f.attr("sym_name").value: f for f in module.functions()}
    calls = {name: _direct_callees(f) for name, f in functions.items()}
    inlined = False
    for func in module.functions():
        replacements: dict[Value, Value] = {}
        for region in func.regions:
            for block in region.blocks:
                _inline_block(block, _Callees(functions, calls), replacements,
                              [func.attr("sym_name").value])
        replace_uses(func, replacements)
        inlined = inlined or bool(replacements) or _calls_gone(func, calls)
    _drop_dead_private_functions(module)
    if inlined:
        canonicalize(module)


def _calls_gone(func: Operation, calls: dict[str, set[str]]) -> bool:
    """Whether `func` lost some of its calls (a call without results leaves no
    replacement behind)."""
    return _direct_callees(func) != calls.get(func.attr("sym_name").value, set())


class _Callees:
    """The module's functions by name and, for each, the functions its body calls (the
    call graph's edges, as built before any inlining)."""

    def __init__(self, functions: dict[str, Operation], calls: dict[str, set[str]]) -> None:
        self.functions = functions
        self.calls = calls


def _direct_callees(func: Operation) -> set[str]:
    return {op.attr("callee").value for op in func.walk() if op.name == "func.call"}


def _callee_to_inline(op: Operation, callees: _Callees, stack: list[str]) -> Operation | None:
    """The single-block function `op` calls, unless the call is `no_inline` or too deeply
    nested, the callee is already being inlined here (MLIR's inline history), or its body
    calls itself or the function being inlined into (MLIR's shouldInline leaves
    self-recursive targets and A->B->A cycles alone)."""
    if op.name != "func.call" or op.attr("no_inline") is not None:
        return None
    name = op.attr("callee").value
    callee = callees.functions.get(name)
    if callee is None or len(callee.regions[0].blocks) != 1 or len(stack) > _MAX_DEPTH:
        return None
    edges = callees.calls.get(name, set())
    if name in stack or name in edges or stack[0] in edges:
        return None
    return callee


def _inline_block(block: Block, functions: _Callees,
                  replacements: dict[Value, Value], stack: list[str]) -> None:
    new_ops: list[Operation] = []
    for op in block.operations:
        for region in op.regions:
            for nested in region.blocks:
                _inline_block(nested, functions, replacements, stack)
        callee = _callee_to_inline(op, functions, stack)
        if callee is None:
            new_ops.append(op)
            continue
        body = callee.regions[0].entry
        mapping: dict[Value, Value] = dict(zip(body.arguments, op.operands, strict=False))
        inner_block = Block()
        for inner in body.operations[:-1]:
            inner_block.append(clone_op(inner, mapping))
        stack.append(callee.attr("sym_name").value)
        _inline_block(inner_block, functions, replacements, stack)
        stack.pop()
        terminator = body.operations[-1]
        for result, value in zip(op.results, terminator.operands, strict=False):
            replacements[result] = mapping.get(value, value)
        new_ops.extend(inner_block.operations)
    block.operations = []
    for op in new_ops:
        block.append(op)


def _drop_dead_private_functions(module: Module) -> None:
    while True:
        used: set[str] = set()
        for op in module.op.walk():
            for attr in (*op.properties.values(), *op.attributes.values()):
                used.update(ref.root for ref in symbol_refs(attr))
        dead = [f for f in module.functions()
                if f.attr("sym_visibility") is not None
                and f.attr("sym_visibility").value == "private"
                and f.attr("sym_name").value not in used]
        if not dead:
            return
        module.body.operations = [op for op in module.body.operations if op not in dead]

