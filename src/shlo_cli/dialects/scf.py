"""The `scf` dialect ops mixed-dialect programs carry (upstream's VHLO tests put StableHLO
inside an `scf.for`): `scf.for` and `scf.yield`, parsed and printed; not interpreted."""

from __future__ import annotations

from typing import Any

from ..ir.core import Location, Operation
from ..ir.lexer import PERCENT
from ..ir.types import IndexType, Type
from .func import print_values_and_types
from .registry import OpDef, declare_op
from .syntax import Custom

# Format: `%iv = %lb to %ub step %step (: type)? (iter_args(%a = %init, ...) -> (types))?
#          region attr-dict`


def _parse_for(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    iv_tok = p.tok
    if iv_tok.kind != PERCENT:
        raise p.error("expected SSA operand")
    p.advance()
    p.expect("=")
    lower = p.parse_operand()
    p.expect_keyword("to")
    upper = p.parse_operand()
    p.expect_keyword("step")
    step = p.parse_operand()
    iv_type: Type = IndexType()
    if p.accept(":"):
        iv_type = p.parse_type()
    p.check_operand_types([lower, upper, step], [iv_type] * 3, iv_tok)
    entry_args = [(iv_tok, iv_type, None)]
    inits = []
    result_types: list[Type] = []
    if p.accept("iter_args"):
        p.expect("(")
        names = []
        while True:
            names.append(p.tok)
            p.advance()
            p.expect("=")
            inits.append(p.parse_operand())
            if not p.accept(","):
                break
        p.expect(")")
        p.expect("->")
        result_types = p.parse_function_result_types()
        p.check_operand_types(inits, result_types, iv_tok)
        entry_args += [(tok, t, None) for tok, t in zip(names, result_types, strict=True)]
    region = p.parse_region(entry_args=entry_args)
    attributes = p.parse_optional_attr_dict()
    return p.build_operation(opdef.name, opdef, [lower, upper, step, *inits], result_types, {},
                             attributes, [region], None, location)


def _print_for(pr: Any, op: Operation) -> None:
    lower, upper, step, *inits = op.operands
    body = op.regions[0].entry
    iv, *iter_args = body.arguments
    pr.write(f" {pr.name(iv)} = {pr.name(lower)} to {pr.name(upper)} step {pr.name(step)}")
    if not isinstance(iv.type, IndexType):
        pr.write(f" : {iv.type}")
    if inits:
        pairs = ", ".join(f"{pr.name(a)} = {pr.name(v)}"
                          for a, v in zip(iter_args, inits, strict=True))
        pr.write(f" iter_args({pairs}) -> (" + ", ".join(map(str, op.result_types)) + ")")
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_args=False)
    pr.write(pr.attr_dict(op.attributes))


def _parse_yield(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    attributes = p.parse_optional_attr_dict()
    operands = p.parse_operand_list()
    if operands:
        p.expect(":")
        p.check_operand_types(operands, p.parse_type_list(), tok)
    return p.build_operation(opdef.name, opdef, operands, [], {}, attributes, [], None,
                             location)


declare_op("scf.for", operands=("lowerBound", "upperBound", "step", "*initArgs"), results="*",
           syntax=Custom(_parse_for, _print_for), regions=("region",))
declare_op("scf.yield", operands=("*results",), results=0,
           syntax=Custom(_parse_yield, print_values_and_types), terminator=True)
