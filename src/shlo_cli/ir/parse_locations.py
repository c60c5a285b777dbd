"""`loc(...)` locations: file:line:col (and ranges), names, call sites, fused locations,
`unknown` and `#loc` alias references, read as MLIR's parser reads them."""

from __future__ import annotations

from .lexer import BARE, HASH, STRING, unescape_string
from .locations import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    LocAliasRef,
    LocationAttr,
    NameLoc,
    UnknownLoc,
)
from .parse_host import ParserHost


class LocationParsing(ParserHost):
    """Mixin of `parser.Parser`: location attributes."""

    def parse_location(self) -> LocationAttr:
        """`loc(...)`: file:line:col, name, callsite, fused, unknown or a `#loc` alias."""
        self.expect_keyword("loc")
        self.expect("(", "in location")
        loc = self._parse_location_body()
        self.expect(")", "in location")
        return loc

    def _parse_location_body(self) -> LocationAttr:
        tok = self.tok
        if tok.kind == HASH:
            self.advance()
            self.loc_alias_uses.append(tok)
            return LocAliasRef(tok.text[1:], self.loc_aliases)
        if tok.kind == STRING:
            self.advance()
            text = unescape_string(tok.text)
            if self.accept(":"):
                line = self.parse_integer()
                col = self.parse_integer() if self.accept(":") else 0  # `"f":3` is 3:0
                end_line, end_col = line, col
                if self.tok.kind == BARE and self.tok.text == "to":  # FileLineColRange
                    self.advance()
                    if self.accept(":"):
                        end_col = self.parse_integer()
                    else:
                        end_line = self.parse_integer()
                        self.expect(":", "in file line col location")
                        end_col = self.parse_integer()
                return FileLineColLoc(text, line, col, end_line, end_col)
            if self.accept("("):
                child = self._parse_location_body()
                self.expect(")", "after child location of NameLoc")
                return NameLoc(text, child)
            return NameLoc(text)
        if tok.kind == BARE:
            if tok.text == "unknown":
                self.advance()
                return UnknownLoc()
            if tok.text == "callsite":
                self.advance()
                self.expect("(", "in callsite location")
                callee = self._parse_location_body()
                self.expect_keyword("at")
                caller = self._parse_location_body()
                self.expect(")", "in callsite location")
                return CallSiteLoc(callee, caller)
            if tok.text == "fused":
                self.advance()
                metadata = None
                if self.accept("<"):
                    metadata = self.parse_attribute()
                    self.expect(">", "after fused location metadata")
                self.expect("[", "in fused location")
                locs = [self._parse_location_body()]
                while self.accept(","):
                    locs.append(self._parse_location_body())
                self.expect("]", "in fused location")
                return FusedLoc(tuple(locs), metadata)
        raise self.error("expected location instance")
