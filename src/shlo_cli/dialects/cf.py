"""The `cf` (control flow) dialect's unconditional branch, `cf.br ^bb(%v : type)`: enough
to read multi-block functions, which StableHLO passes reject with a diagnostic."""

from __future__ import annotations

from typing import Any

from ..ir.core import Location, Operation
from .registry import OpDef, declare_op
from .syntax import Custom


def _parse_br(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    dest = p.parse_successor()
    operands = []
    if p.accept("("):
        tok = p.tok
        operands = p.parse_operand_list(":")
        p.expect(":")
        types = [p.parse_type()]
        while p.accept(","):
            types.append(p.parse_type())
        p.expect(")")
        p.check_operand_types(operands, types, tok)
    attributes = p.parse_optional_attr_dict()
    return p.build_operation(opdef.name, opdef, operands, [], {}, attributes, [], [dest],
                             location)


def _print_br(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.block_name(op.successors[0]))
    if op.operands:
        types = ", ".join(str(t) for t in op.operand_types)
        pr.write(f"({pr.operands(op.operands)} : {types})")
    pr.write(pr.attr_dict(op.attributes))


declare_op("cf.br", operands=("*destOperands",), results=0, syntax=Custom(_parse_br, _print_br),
           terminator=True)
