"""CHLO assembly formats (ChloOps.td): unlike StableHLO's, they never collapse types.

- unary: `chlo.acos %x : tensor<f32> -> tensor<f32>`
- non-broadcasting binary: `chlo.zeta %x, %q : tensor<f32>, tensor<f32> -> tensor<f32>`
- broadcasting binary: `chlo.broadcast_add %a, %b : (tensor<2xf32>, tensor<1x2xf32>) -> ...`
"""

from __future__ import annotations

from typing import Any

from ...ir.core import Location, Operation
from ..asm import Format
from ..registry import OpDef
from ..syntax import Custom


def _parse_operands_arrow(p: Any, opdef: OpDef, location: Location, num_results: int,
                          arity: int) -> Operation:
    """`%a (, %b)* attr-dict : A (, B)* -> R`."""
    tok = p.tok
    operands = [p.parse_operand()]
    for _ in range(arity - 1):
        p.expect(",")
        operands.append(p.parse_operand())
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    types = [p.parse_type()]
    for _ in range(arity - 1):
        p.expect(",")
        types.append(p.parse_type())
    p.check_operand_types(operands, types, tok)
    p.expect("->")
    result = p.parse_type()
    return p.build_operation(opdef.name, opdef, operands, [result], {}, attributes, [], None,
                             location)


def _print_operands_arrow(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands))
    attrs = {**op.properties, **op.attributes}
    pr.write(pr.attr_dict(attrs))
    pr.write(" : " + ", ".join(map(str, op.operand_types)) + f" -> {op.result_types[0]}")


UNARY = Custom(lambda p, d, loc, n: _parse_operands_arrow(p, d, loc, n, 1),
               _print_operands_arrow)
BINARY = Custom(lambda p, d, loc, n: _parse_operands_arrow(p, d, loc, n, 2),
                _print_operands_arrow)
BROADCAST_BINARY = Format("$lhs `,` $rhs", operands=("lhs", "rhs"), types="functional")
BROADCAST_SELECT = Format("$pred `,` $on_true `,` $on_false",
                          operands=("pred", "on_true", "on_false"), types="functional")
