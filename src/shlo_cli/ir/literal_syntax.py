"""The first syntax error of a `dense<...>` literal, found as MLIR's TensorLiteralParser
finds it: over the file's own tokens, from the `<` on.

The attribute parser reads a literal in one pass (its body runs to the first `>`), which
is fast but, once a literal is malformed, knows neither which token broke it nor what
MLIR expected there. This walk runs only after that pass has failed: it follows
TensorLiteralParser's grammar (a hex string, or an element or `[`-list of them, then `>`)
and raises MLIR's message at MLIR's place, so a cut-short or garbled literal is reported
as MLIR reports it ("expected ']'" right after the last element, "expected element literal
of primitive type" at the token that is none, the lexer's own complaints first). A
literal it finds well formed raises nothing: the caller's own error stands.
"""

from __future__ import annotations

from .lexer import EOF, FLOAT, INT, INVALID, PUNCT, STRING, Token, lex_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .diagnostics import Diagnostic
    from .parse_host import ParserHost

_RANKS = "tensor literal is invalid; ranks are not consistent between elements"


class _Walk:
    """A cursor over the literal's tokens; errors come from the parser's helpers."""

    def __init__(self, parser: ParserHost, start: int) -> None:
        self.parser = parser
        self.tok = lex_at(parser.src, start)
        self.check_lexed()

    def check_lexed(self) -> None:
        """MLIR's lexer reports text it cannot read as soon as it lexes it."""
        if self.tok.kind == INVALID:
            raise self.parser.error("", self.tok)

    def advance(self) -> Token:
        tok = self.tok
        self.tok = lex_at(self.parser.src, tok.end)
        self.check_lexed()
        return tok

    def is_punct(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind == PUNCT

    def error(self, message: str) -> Diagnostic:
        """MLIR's emitError: at the current token (one character back at the end)."""
        tok = self.tok
        if tok.kind == EOF and tok.start:
            return self.parser.error(message, offset=tok.start - 1)
        return self.parser.error(message, tok)

    def expect(self, text: str, message: str) -> None:
        """MLIR's parseToken: a missing token is reported after the previous code."""
        if not self.is_punct(text):
            self.parser.tok = self.tok
            raise self.parser.wrong_token_error(message)
        self.advance()

    def literal(self) -> None:
        if self.tok.kind == STRING:  # hex data
            self.advance()
        elif self.is_punct("["):
            self.list()
        else:
            self.element()
        self.expect(">", "expected '>'")

    def list(self) -> list[int]:
        """A `[...]` list's shape: its size, then its items' common shape."""
        self.advance()  # the `[`
        if self.is_punct("]"):
            self.advance()
            return [0]
        first: list[int] | None = None
        size = 0
        while True:
            inner: list[int] = []
            if self.is_punct("["):
                inner = self.list()
            else:
                self.element()
            size += 1
            if first is None:
                first = inner
            elif inner != first:
                raise self.error(_RANKS)
            if not self.is_punct(","):
                break
            self.advance()
        self.expect("]", "expected ']'")
        return [size, *first]

    def element(self) -> None:
        tok = self.tok
        if tok.kind in (INT, FLOAT, STRING) or tok.text in ("true", "false"):
            self.advance()
        elif self.is_punct("-"):
            self.advance()
            if self.tok.kind not in (INT, FLOAT):
                raise self.error("expected integer or floating point literal")
            self.advance()
        elif self.is_punct("("):
            self.advance()
            self.element()
            self.expect(",", "expected ',' between complex elements")
            self.element()
            self.expect(")", "expected ')' after complex elements")
        else:
            raise self.error("expected element literal of primitive type")


def check_literal(parser: ParserHost, body_start: int) -> None:
    """Raise MLIR's first syntax error of the literal whose body starts at `body_start`
    (right after `dense<`), if it has one."""
    walk = _Walk(parser, body_start)
    if walk.is_punct(">"):  # `dense<>`
        return
    walk.literal()
