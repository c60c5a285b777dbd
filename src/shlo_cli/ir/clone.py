"""Deep copies of ops and regions with a value mapping (used by the inliner and rewrites)."""

from __future__ import annotations

from .core import Block, Operation, Region, Value


def clone_op(op: Operation, mapping: dict[Value, Value]) -> Operation:
    """A copy of `op`; operands are looked up in `mapping`, which learns the new results."""
    regions = [clone_region(r, mapping) for r in op.regions]
    new = Operation(op.name, [mapping.get(v, v) for v in op.operands], op.result_types,
                    dict(op.properties), dict(op.attributes), regions, list(op.successors),
                    op.location, op.opdef)
    for old, fresh in zip(op.results, new.results, strict=True):
        mapping[old] = fresh
    return new


def clone_region(region: Region, mapping: dict[Value, Value]) -> Region:
    new = Region()
    for block in region.blocks:
        copy = Block([a.type for a in block.arguments])
        copy.arg_locations = list(block.arg_locations)
        for old, fresh in zip(block.arguments, copy.arguments, strict=True):
            mapping[old] = fresh
        new.add_block(copy)
    for block, copy in zip(region.blocks, new.blocks, strict=True):
        for op in block.operations:
            copy.append(clone_op(op, mapping))
    return new


def replace_uses(root: Operation, replacements: dict[Value, Value]) -> None:
    """Rewrite every operand inside `root` that has a replacement."""
    if not replacements:
        return
    for op in root.walk():
        if any(v in replacements for v in op.operands):
            op.operands = [_follow(v, replacements) for v in op.operands]


def _follow(v: Value, replacements: dict[Value, Value]) -> Value:
    while v in replacements:
        v = replacements[v]
    return v
