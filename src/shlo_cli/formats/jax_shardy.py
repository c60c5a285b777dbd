"""Shardy (`sdy`) ops in jax exports, removed for a run on one device.

jax marks shardings with Shardy ops even in single-device exports: a typed PRNG key argument
(`jax.random.key`) or `with_sharding_constraint` gives `sdy.mesh @m = <[]>` and
`%y = sdy.sharding_constraint %x <@m, [{}]>`; `shard_map` gives `sdy.manual_computation`.
The bytecode keeps them as ops of a dialect we do not know (their attributes undecoded). On
one device every mesh axis has size 1, so a constraint or reshard is its operand, a manual
or named computation is its body run on the whole arrays, and a mesh or sharding group
declares nothing the run needs. Any other Shardy op is refused by name.
"""

from __future__ import annotations

from ..ir.clone import replace_uses
from ..ir.core import Module, Operation, Value
from ..ir.diagnostics import ShloError

_IDENTITY = ("sdy.sharding_constraint", "sdy.reshard", "sdy.propagation_barrier")
_DECLARATIONS = ("sdy.mesh", "sdy.sharding_group")
_BODIES = ("sdy.manual_computation", "sdy.named_computation")


def remove_sharding_ops(module: Module, filename: str) -> dict[str, int]:
    """Remove every `sdy` op (see the module docstring); how many of each name went.
    Raises ShloError for a Shardy op that has a meaning on one device we do not know."""
    replacements: dict[Value, Value] = {}
    removed: dict[str, int] = {}
    for op in list(module.op.walk()):
        if op.dialect != "sdy" or op.name == "sdy.return":
            continue
        if op.name in _IDENTITY and len(op.operands) == len(op.results) == 1:
            replacements[op.results[0]] = op.operands[0]
        elif op.name in _DECLARATIONS and not op.results:
            pass
        elif op.name in _BODIES and _inline_body(op, replacements):
            pass
        else:
            raise ShloError(f"{filename}: Shardy op '{op.name}' (with {len(op.operands)} "
                            f"operands, {len(op.results)} results) is not supported")
        _erase(op)
        removed[op.name] = removed.get(op.name, 0) + 1
    replace_uses(module.op, replacements)
    return removed


def _inline_body(op: Operation, replacements: dict[Value, Value]) -> bool:
    """Move the single-block body of `op` before it: its arguments are the operands, the
    operands of its `sdy.return` the results. False when the shape is not that."""
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        return False
    body = op.regions[0].blocks[0]
    end = body.terminator
    if end is None or end.name != "sdy.return" or len(end.operands) != len(op.results) \
            or len(body.arguments) != len(op.operands):
        return False
    for arg, operand in zip(body.arguments, op.operands, strict=True):
        if arg.type != operand.type:
            return False  # a per-device shape: more than one device
        replacements[arg] = operand
    for result, value in zip(op.results, end.operands, strict=True):
        replacements[result] = value
    block = op.parent
    assert block is not None
    moved = body.operations[:-1]
    at = block.operations.index(op)
    block.operations[at:at] = moved
    for inner in moved:
        inner.parent = block
    body.operations = [end]
    return True


def _erase(op: Operation) -> None:
    block = op.parent
    if block is not None:
        block.operations.remove(op)
    op.parent = None
