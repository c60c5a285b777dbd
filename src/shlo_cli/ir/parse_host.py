"""What the parsing mixins (TypeParsing, AttributeParsing, LocationParsing) use from `Parser`.

`Parser` defines all of it; the declarations here exist for the type checker only, so a mixin
method calling `self.expect(...)` or `self.parse_type()` is checked against one signature.
Nothing else is defined at run time: the mixins keep finding `Parser`'s own methods.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .attributes import Attribute
    from .diagnostics import Diagnostic, SourceFile
    from .lexer import Token
    from .locations import LocationAttr
    from .parser import Parser
    from .types import Type


class ParserHost:
    """The token cursor, error helpers, alias tables and cross-mixin entry points."""

    def as_parser(self) -> Parser:
        """This mixin as the `Parser` it only lives in (for hooks declared on Parser)."""
        return self  # type: ignore[return-value]

    if TYPE_CHECKING:
        source: SourceFile
        src: str
        tok: Token
        attr_aliases: dict[str, Attribute]
        type_aliases: dict[str, Type]
        resources: dict[str, Any]
        allow_unregistered: bool
        custom_ops: list[str | None]
        loc_aliases: dict[str, LocationAttr]
        loc_alias_uses: list[Token]

        def advance(self) -> Token: ...
        def peek_next(self) -> Token: ...
        def error(self, message: str, tok: Token | None = None,
                  offset: int | None = None) -> Diagnostic: ...
        def op_error(self, message: str, tok: Token | None = None) -> Diagnostic: ...
        def wrong_token_error(self, message: str) -> Diagnostic: ...
        def at(self, text: str) -> bool: ...
        def accept(self, text: str) -> bool: ...
        def expect(self, text: str, context: str = "") -> Token: ...
        def expect_keyword(self, word: str) -> None: ...
        def parse_keyword(self) -> str: ...
        def parse_integer(self) -> int: ...
        def parse_symbol_name(self) -> str: ...
        def parse_location(self) -> LocationAttr: ...
        def parse_type(self) -> Type: ...
        def parse_attribute(self, type_hint: Type | None = None) -> Attribute: ...
        def _balanced_end(self, start: int, open_ch: str, close_ch: str) -> int: ...
