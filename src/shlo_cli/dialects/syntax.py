"""Custom op syntax objects: a parse/print pair given as two functions."""

from __future__ import annotations

from ..ir.core import Operation, SourceLocation
from ..ir.lexer import BARE, Token
from ..ir.record import Record, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..ir.core import Location, Value
    from ..ir.types import Type


def resolve_functional_operands(p: Any, operands: list[Value], types: list[Type],
                                location: Location, tok: Any, operands_at: Any = None) -> None:
    """The operands of an ODS format ending `functional-type(operands, results)` resolved
    against the type's inputs: a count that differs is ODS's resolveOperands complaint,
    which MLIR places where the format's `operands` directive starts (`operands_at`, for
    the formats that read all operands with it) or else at the op's name; a type that
    clashes is reported as usual."""
    if len(operands) != len(types):
        at = operands_at or (Token(BARE, "", location.offset, location.offset)
                             if isinstance(location, SourceLocation) else tok)
        raise p.op_error(f"number of operands and types do not match: got {len(operands)} "
                         f"operands and {len(types)} types", at)
    p.check_operand_types(operands, types, tok)


class Custom(Record):
    """Hand-written syntax: `parse(parser, opdef, location, num_results) -> Operation` and
    `print(printer, op)` (writes what follows the op name)."""

    __slots__ = ("parse_fn", "print_fn", "block_arg_names_fn")
    parse_fn: Callable[..., Operation]
    print_fn: Callable[[Any, Operation], None]
    block_arg_names_fn: Callable[[Operation, Any], list[str]] | None

    def __init__(self, parse_fn: Callable[..., Operation],
                 print_fn: Callable[[Any, Operation], None],
                 block_arg_names_fn: Callable[[Operation, Any], list[str]] | None = None) -> None:
        set_field(self, "parse_fn", parse_fn)
        set_field(self, "print_fn", print_fn)
        set_field(self, "block_arg_names_fn", block_arg_names_fn)

    def parse(self, parser: Any, opdef: Any, location: Any, num_results: int) -> Operation:
        return self.parse_fn(parser, opdef, location, num_results)

    def print(self, printer: Any, op: Operation) -> None:
        self.print_fn(printer, op)

    def block_arg_names(self, op: Operation, region: Any) -> list[str] | None:
        if self.block_arg_names_fn is None:
            return None
        return self.block_arg_names_fn(op, region)


def cast_syntax(*flags: str) -> Custom:
    """MLIR's cast format `$source (flag)* attr-dict : type($source) to type($result)`
    (tensor.cast, arith.index_cast, memref.cast, bufferization.*); each flag is a unit
    property printed by its name."""

    def parse(p: Any, opdef: Any, location: Any, num_results: int) -> Operation:
        from ..ir.attributes import UnitAttr

        tok = p.tok
        source = p.parse_operand()
        properties: dict[str, Any] = {}
        for flag in flags:
            if p.at(flag):
                p.advance()
                properties[flag] = UnitAttr()
        attributes = p.parse_optional_attr_dict()
        p.expect(":")
        p.check_operand_types([source], [p.parse_type()], tok)
        p.expect_keyword("to")
        result = p.parse_type()
        return p.build_operation(opdef.name, opdef, [source], [result], properties,
                                 attributes, [], None, location)

    def print_(pr: Any, op: Operation) -> None:
        pr.write(" " + pr.operands(op.operands))
        for flag in flags:
            if flag in op.properties:
                pr.write(f" {flag}")
        pr.write(pr.attr_dict(op.attributes))
        pr.write(f" : {op.operands[0].type} to {op.results[0].type}")

    return Custom(parse, print_)
