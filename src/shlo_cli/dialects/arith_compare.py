"""`arith.cmpi` and `arith.select` on `index` values, which StableHLO's shape reification
builds (upstream's reifyReturnTypeShapes; `tensor.dim`/`extract`/`from_elements` are in
tensor.py). They parse, print and verify here; the interpreter does not run them."""

from __future__ import annotations

from typing import Any

from ..ir.attributes import IntegerAttr
from ..ir.core import Location, Operation
from ..ir.types import BOOL, I64, IndexType, Type
from .registry import OpDef, declare_op
from .syntax import Custom

INDEX = IndexType()

# arith.cmpi predicates, in MLIR's enum order (the attribute stores the number).
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def _build(p: Any, opdef: OpDef, operands: list, result: Type, properties: dict,
           attributes: dict, location: Location) -> Operation:
    return p.build_operation(opdef.name, opdef, operands, [result], properties, attributes,
                             [], None, location)


# ---- arith.cmpi: `$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)` --------------------

def _parse_cmpi(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    predicate = p.parse_keyword()
    if predicate not in CMPI_PREDICATES:
        raise p.error(f"unknown comparison predicate \"{predicate}\"", tok)
    p.expect(",")
    lhs = p.parse_operand()
    p.expect(",")
    rhs = p.parse_operand()
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    p.check_operand_types([lhs, rhs], [t, t], tok)
    return _build(p, opdef, [lhs, rhs], BOOL,
                  {"predicate": IntegerAttr(CMPI_PREDICATES.index(predicate), I64)},
                  attributes, location)


def _print_cmpi(pr: Any, op: Operation) -> None:
    predicate = CMPI_PREDICATES[int(op.properties["predicate"].value)]
    pr.write(f" {predicate}, " + pr.operands(op.operands) + pr.attr_dict(op.attributes)
             + f" : {op.operands[0].type}")


declare_op("arith.cmpi", operands=("lhs", "rhs"), results=1, attributes=("predicate",),
           syntax=Custom(_parse_cmpi, _print_cmpi))


# ---- arith.select: `$condition `,` $true `,` $false attr-dict `:` type($result)` -------------

def _parse_select(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    operands = [p.parse_operand()]
    for _ in range(2):
        p.expect(",")
        operands.append(p.parse_operand())
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    p.check_operand_types(operands, [BOOL, t, t], tok)
    return _build(p, opdef, operands, t, {}, attributes, location)


def _print_select(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + pr.attr_dict(op.attributes)
             + f" : {op.results[0].type}")


declare_op("arith.select", operands=("condition", "true_value", "false_value"), results=1,
           syntax=Custom(_parse_select, _print_select))
