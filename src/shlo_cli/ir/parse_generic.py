"""Generic-form operations (`%r = "dialect.op"(%a) <{props}> ({ regions }) {attrs} :
(types) -> types`), read token by token: the `GenericParsing` mixin of `parser.Parser`
(`parse_fast.FastStatements` reads their usual spelling by regex and hands over to these
steps where it stops)."""

from __future__ import annotations

from . import registry
from .core import Block, Location, Operation, Region, Value
from .lexer import CARET, Token, lex_at, unescape_string
from .parse_fast import cached_function
from .parse_host import ParserHost
from .types import FunctionType, Type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .attributes import Attribute


class GenericParsing(ParserHost):
    """Mixin: a generic-form op from its quoted name on (needs `Parser`'s operand, region
    and attribute readers)."""

    if TYPE_CHECKING:  # Parser and the other mixins define them
        block_uses: dict[int, Token]

        def named_block(self, label: str) -> tuple[Block, bool]: ...

        def fast_generic_head(self) -> tuple[Any, str, list[Value]] | None: ...
        def parse_operand_list(self, close: str | None = None) -> list[Value]: ...
        def parse_properties(self) -> dict[str, Attribute]: ...
        def parse_attr_dict_body(self) -> dict[str, Attribute]: ...
        def parse_region(self, entry_args: list[tuple[Token, Type, Any]] | None = None,
                         isolated: bool = False, default_dialect: str = "",
                         stop_at_end: bool = False) -> Region: ...
        def check_operand_types(self, operands: list[Value], types: list[Type],
                                tok: Token) -> None: ...
        def build_operation(self, name: str, opdef: Any, operands: list[Value],
                            result_types: list[Type], properties: dict[str, Attribute],
                            attributes: dict[str, Attribute], regions: list[Region],
                            successors: list[Block] | None,
                            location: Location | int) -> Operation: ...

    def parse_generic_operation(self, location: Location) -> Operation:
        self.custom_ops.append(None)
        try:
            return self._parse_generic_operation(location)
        finally:
            self.custom_ops.pop()

    def _parse_generic_operation(self, location: Location) -> Operation:
        name_tok = self.tok
        opdef, name, operands = self.fast_generic_head() or self._parse_generic_head()
        return self.parse_generic_tail(opdef, name, operands, name_tok, location)

    def parse_generic_tail(self, opdef: Any, name: str, operands: list[Value], name_tok: Token,
                           location: Location) -> Operation:
        """A generic-form op after its operand list: successors, properties, regions,
        attributes and the function type."""
        successors: list[Block] = []
        if self.accept("["):
            successors.append(self.parse_successor())
            while self.accept(","):
                successors.append(self.parse_successor())
            self.expect("]")
        properties: dict[str, Attribute] = {}
        if self.at("<"):
            self.advance()
            properties = self.parse_properties()
            self.expect(">", "to close properties")
        regions: list[Region] = []
        if self.accept("("):
            regions.append(self.parse_region(isolated=opdef.isolated if opdef else False))
            self.parse_more_regions(opdef, regions)
        return self.parse_generic_rest(opdef, name, operands, name_tok, location, properties,
                                       regions, successors)

    def parse_more_regions(self, opdef: Any, regions: list[Region]) -> None:
        """A generic op's region list after its first region, to the `)` closing it."""
        while self.accept(","):
            regions.append(self.parse_region(isolated=opdef.isolated if opdef else False))
        self.expect(")", "to end region list")

    def parse_generic_rest(self, opdef: Any, name: str, operands: list[Value], name_tok: Token,
                           location: Location | int, properties: dict[str, Attribute],
                           regions: list[Region], successors: list[Block]) -> Operation:
        """A generic op after its regions: attributes and the function type."""
        attributes: dict[str, Attribute] = {}
        if self.at("{"):
            attributes = self.parse_attr_dict_body()
        type_tok = self.expect(":", "followed by operation type")
        # A plain function type the fast paths read by regex (the type `parse_type` builds).
        found = cached_function(self.src, self.tok.start) if self.tok.text == "(" else None
        ftype: Type
        if found is not None:
            ftype, end = found
            self.tok = lex_at(self.src, end)
        else:
            ftype = self.parse_type()
        if not isinstance(ftype, FunctionType):
            raise self.error("expected function type", type_tok)
        if len(ftype.inputs) != len(operands):
            count = len(operands)
            raise self.error(f"expected {count} operand type{'' if count == 1 else 's'} but had "
                             f"{len(ftype.inputs)}", type_tok)
        self.check_operand_types(operands, list(ftype.inputs), name_tok)
        return self.build_operation(name, opdef, operands, list(ftype.results), properties,
                                    attributes, regions, successors, location)

    def _parse_generic_head(self) -> tuple[Any, str, list[Value]]:
        """A generic-form op's quoted name and operand list, token by token: its definition
        (None for an unknown op of a known dialect), name and operands."""
        name_tok = self.advance()
        name = unescape_string(name_tok.text)
        opdef = registry.lookup(name)
        dialect = name.split(".", 1)[0] if "." in name else ""
        # An unknown op of a known dialect is built; the verifier rejects it, in MLIR's order.
        if opdef is None and not self.allow_unregistered and not registry.is_known_dialect(
                dialect):
            raise self.error(
                "operation being parsed with an unregistered dialect. If this is intended, "
                "please use -allow-unregistered-dialect with the MLIR tool used", name_tok)
        self.expect("(", "to start operand list")
        operands = self.parse_operand_list(")")
        self.expect(")", "to end operand list")
        return opdef, name, operands

    def parse_successor(self) -> Block:
        tok = self.tok
        if tok.kind != CARET:
            raise self.error("expected block name")
        self.advance()
        block, made = self.named_block(tok.text)
        if made:
            self.block_uses[id(block)] = tok
        return block
