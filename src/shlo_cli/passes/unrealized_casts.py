"""`builtin.unrealized_conversion_cast` bookkeeping for conversions that leave ops of other
dialects in place (`--stablehlo-legalize-to-vhlo=allow-other-dialects`).

After a conversion has retyped the values its converted ops define, a use that still wants
the other type gets a cast, where MLIR's dialect conversion puts one: right after the
defining op, or at the top of the block for a block argument (each new one above the
earlier ones). One cast per value and direction serves every such use. The way back drops
the casts that have become identities.
"""

from __future__ import annotations

from ..ir import registry
from ..ir.core import Block, Module, Operation, Value
from ..ir.types import Type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

CAST = "builtin.unrealized_conversion_cast"


def _cast(value: Value, to: Type, location: object) -> Operation:
    op = Operation(CAST, [value], [to], opdef=registry.lookup(CAST))
    op.location = location  # type: ignore[assignment]
    return op


def _place(cast: Operation, value: Value) -> None:
    owner = value.owner
    if isinstance(owner, Block):
        cast.parent = owner
        owner.operations.insert(0, cast)
        return
    assert isinstance(owner, Operation) and owner.parent is not None
    block = owner.parent
    cast.parent = block
    index = block.operations.index(owner) + 1
    while index < len(block.operations) and _is_cast_of(block.operations[index], owner):
        index += 1  # casts of earlier results of the same op stay first
    block.operations.insert(index, cast)


def _is_cast_of(op: Operation, owner: Operation) -> bool:
    return op.name == CAST and bool(op.operands) and op.operands[0].owner is owner


def insert_casts(module: Module, converted: Callable[[Operation], bool],
                 original: dict[int, Type], convert_type: Callable[[Type], Type]) -> None:
    """Cast every value whose (converted or not) type does not suit one of its users.

    ``converted(op)`` tells converted ops apart; ``original`` maps id(value) to the type a
    converted value had before; ``convert_type`` gives the converted type of the others."""
    casts: dict[tuple[int, bool], Operation] = {}
    for op in list(module.op.walk())[1:]:
        if op.name == CAST:
            continue
        user_converted = converted(op)
        for i, value in enumerate(op.operands):
            value_converted = id(value) in original
            if value_converted == user_converted:
                continue
            key = (id(value), user_converted)
            cast = casts.get(key)
            if cast is None:
                to = convert_type(value.type) if user_converted else original[id(value)]
                if to == value.type:
                    continue
                cast = _cast(value, to, op.location)
                _place(cast, value)
                casts[key] = cast
            op.operands[i] = cast.results[0]


def remove_identity_casts(module: Module) -> None:
    """Drop casts whose operand already has the result type, rewiring their users."""
    replaced: dict[int, Value] = {}
    for op in list(module.op.walk())[1:]:
        op.operands = [replaced.get(id(v), v) for v in op.operands]
        if (op.name == CAST and len(op.operands) == 1 and len(op.results) == 1
                and op.operands[0].type == op.results[0].type and op.parent is not None):
            replaced[id(op.results[0])] = op.operands[0]
            op.parent.operations.remove(op)
