"""`--hlo-test-speculatability`: upstream's test-only pass checking op speculatability. Each
`hlo_test_speculatability.is_speculatable` / `is_not_speculatable` /
`is_recursively_speculatable` op whose one operand comes from an op with exactly one use and
that speculatability is erased together with that op; a wrong expectation leaves both in
place, so a test sees it in the output. Ops left unused and free of effects are then erased,
as MLIR's greedy driver does."""

from __future__ import annotations

from ..ir.core import Module, Operation
from . import register_pass
from .effects import is_trivially_dead
from .speculatability import Speculatability, speculatability

EXPECTATIONS = {
    "hlo_test_speculatability.is_speculatable": Speculatability.SPECULATABLE,
    "hlo_test_speculatability.is_not_speculatable": Speculatability.NOT,
    "hlo_test_speculatability.is_recursively_speculatable": Speculatability.RECURSIVE,
}


@register_pass("hlo-test-speculatability", "Test speculatability of StableHLO ops.")
def hlo_test_speculatability(module: Module) -> None:
    uses = use_counts(module.op)
    for op in list(module.op.walk()):
        expected = EXPECTATIONS.get(op.name)
        if expected is None or len(op.operands) != 1 or op.parent is None:
            continue
        source = op.operands[0].owner
        if not isinstance(source, Operation) or source.parent is None:
            continue
        if sum(uses.get(id(r), 0) for r in source.results) != 1:
            continue
        if speculatability(source) is expected:
            erase(op, uses)
            erase(source, uses)
    erase_dead(module.op, uses)


def use_counts(root: Operation) -> dict[int, int]:
    """How many operand slots under `root` name each value (by id)."""
    counts: dict[int, int] = {}
    for op in root.walk():
        for v in op.operands:
            counts[id(v)] = counts.get(id(v), 0) + 1
    return counts


def erase(op: Operation, uses: dict[int, int]) -> None:
    """Remove `op` from its block, dropping the uses its operands (and nested ops) held."""
    for nested in op.walk():
        for v in nested.operands:
            uses[id(v)] = uses.get(id(v), 1) - 1
    assert op.parent is not None
    op.parent.operations.remove(op)
    op.parent = None


def erase_dead(root: Operation, uses: dict[int, int]) -> None:
    """Erase trivially dead ops (no used result, no effects: `effects.is_trivially_dead`)
    until none is left, as MLIR's greedy driver does."""
    changed = True
    while changed:
        changed = False
        for op in list(root.walk()):
            if (op.results and op.parent is not None and is_trivially_dead(
                    op, any(uses.get(id(r), 0) for r in op.results))):
                erase(op, uses)
                changed = True
