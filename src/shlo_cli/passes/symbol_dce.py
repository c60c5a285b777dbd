"""`-symbol-dce`: MLIR's SymbolDCE, which `stablehlo-opt` has through `registerAllPasses`
and pipelines use after inlining or composite rewrites. A symbol (an op with `sym_name`) stays
when it is public or nested-visible, or when a live op refers to it; every op that is not a
symbol is live; a private symbol nothing live refers to (even one only dead symbols call) is
erased, in nested `builtin.module`s too."""

from __future__ import annotations

from ..ir.attributes import SymbolRefAttr, symbol_refs
from ..ir.core import Module, Operation
from . import register_pass, statistic


@register_pass("symbol-dce", "Eliminate dead symbols.")
def symbol_dce(module: Module) -> None:
    live: set[int] = set()
    _mark_live(module.op, live)
    _erase_dead(module.op, live)


def _is_symbol_table(op: Operation) -> bool:
    return op.name == "builtin.module"


def _symbols(table: Operation) -> dict[str, Operation]:
    """The symbols a table defines directly, by name."""
    out = {}
    for op in table.regions[0].entry.operations:
        name = op.attr("sym_name")
        if name is not None:
            out[name.value] = op
    return out


def _is_private(op: Operation) -> bool:
    visibility = op.attr("sym_visibility")
    return visibility is not None and visibility.value == "private"


def _mark_live(table: Operation, live: set[int]) -> None:
    """SymbolDCE's liveness: from the non-symbols and the symbols that cannot be discarded
    (all but private ones), follow every symbol reference a live op (or an op nested in it)
    holds; a nested table gets its own roots when its op is live."""
    worklist = []
    for op in table.regions[0].entry.operations:
        if op.attr("sym_name") is None or not _is_private(op):
            live.add(id(op))
            worklist.append((op, table))
    while worklist:
        op, scope = worklist.pop()
        if _is_symbol_table(op):
            _mark_live(op, live)
        for ref in _references(op):
            for target, target_scope in _resolve(scope, ref):
                if id(target) not in live:
                    live.add(id(target))
                    worklist.append((target, target_scope))


def _resolve(scope: Operation, ref: SymbolRefAttr) -> list[tuple[Operation, Operation]]:
    """Each symbol on the path of `@a::@b` with the table it is in; none when a step is
    missing (MLIR ignores a reference it cannot resolve)."""
    target = _symbols(scope).get(ref.root)
    path = []
    for name in ref.nested:
        if target is None or not _is_symbol_table(target):
            return []
        path.append((target, scope))
        scope, target = target, _symbols(target).get(name)
    return [*path, (target, scope)] if target is not None else []


def _references(op: Operation) -> list[SymbolRefAttr]:
    """The symbol references of `op` and of the ops nested in it, short of nested tables
    (whose references are resolved in their own scope)."""
    out: list[SymbolRefAttr] = []
    stack = [op]
    while stack:
        current = stack.pop()
        for attr in (*current.properties.values(), *current.attributes.values()):
            out.extend(symbol_refs(attr))
        if _is_symbol_table(current) and current is not op:
            continue
        for region in current.regions:
            for block in region.blocks:
                stack.extend(block.operations)
    return out



def _erase_dead(table: Operation, live: set[int]) -> None:
    block = table.regions[0].entry
    kept = [op for op in block.operations if op.attr("sym_name") is None or id(op) in live]
    statistic("symbol-dce", "num-dce'd", "Number of symbols DCE'd",
              len(block.operations) - len(kept))
    block.operations = kept
    for op in block.operations:
        if _is_symbol_table(op):
            _erase_dead(op, live)
