"""The careful reader of a dense literal's element list, for the texts the one-pass fast
path leaves to it (complex pairs, odd spacing, malformed input).

It follows MLIR's TensorLiteralParser token by token, so a literal MLIR refuses is refused
here with MLIR's message at MLIR's place: commas between elements and nothing else
(`[1 2]`, `[1,,2]`, `[1,]` are errors), a `-` only before a number (spaces may come
between them), no `+` sign and no `inf`/`nan` words (MLIR's lexer has neither), complex
elements as `(re, im)`, and lists whose items all have the same shape.
"""

from __future__ import annotations

from .lexer import lazy_regex

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays out of the tools' start-up)
    from typing import Any

# One token per match: brackets, comma, parens, a boolean, a number (with the `-` token
# before it, if any), or any other character (which starts no element).
_TOKEN = lazy_regex(
    r"\s*(?:([\[\](),])|((?:true|false)(?![\w$.]))"
    r"|(-?\s*(?:0x[0-9A-Fa-f]+|[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?))|(\S))"
)

_RANKS = "tensor literal is invalid; ranks are not consistent between elements"


class LiteralError(ValueError):
    """A malformed literal: MLIR's message and the offset into the literal's body."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class _Token:
    __slots__ = ("kind", "text", "start")

    def __init__(self, kind: str, text: str, start: int) -> None:
        self.kind = kind  # "[", "]", ",", "(", ")", "elem", "other" or "end"
        self.text = text
        self.start = start


def _tokens(body: str) -> list[_Token]:
    out = []
    for m in _TOKEN.finditer(body):
        if m.group(1):
            out.append(_Token(m.group(1), m.group(1), m.start(1)))
        elif m.group(2):
            out.append(_Token("elem", m.group(2), m.start(2)))
        elif m.group(3):
            out.append(_Token("elem", _joined_sign(m.group(3)), m.start(3)))
        elif m.group(4):
            out.append(_Token("other", m.group(4), m.start(4)))
    out.append(_Token("end", "", len(body)))
    return out


def _joined_sign(text: str) -> str:
    """A number's text with the spaces MLIR allows between `-` and the number dropped."""
    return "-" + text[1:].lstrip() if text.startswith("-") else text


def number_offset(body: str, start: int) -> int:
    """Offset of the number of the element token at `start` (after its `-` and spaces)."""
    if body[start] != "-":
        return start
    at = start + 1
    while at < len(body) and body[at].isspace():
        at += 1
    return at


def element_starts(body: str) -> list[int]:
    """Offsets of the element tokens of `body`, in order (complex parts one by one)."""
    return [t.start for t in _tokens(body) if t.kind == "elem"]


class _Reader:
    """Recursive descent over the tokens; `items` collects element texts (complex pairs as
    tuples) in order."""

    def __init__(self, body: str) -> None:
        self.tokens = _tokens(body)
        self.body = body
        self.at = 0
        self.items: list[Any] = []

    def peek(self) -> _Token:
        return self.tokens[self.at]

    def take(self, kind: str, message: str) -> None:
        if self.peek().kind != kind:
            raise LiteralError(message, self.peek().start)
        self.at += 1

    def literal(self) -> list[int] | None:
        """A list's shape, or None for a single element (a splat)."""
        dims = None
        if self.peek().kind == "[":
            dims = self.list()
        else:
            self.element()
        self.take("end", "expected '>'")
        return dims

    def list(self) -> list[int]:
        self.at += 1  # the `[`
        if self.peek().kind == "]":
            self.at += 1
            return [0]
        first: list[int] | None = None
        size = 0
        while True:
            sub: list[int] = []
            if self.peek().kind == "[":
                sub = self.list()
            else:
                self.element()
            size += 1
            if first is None:
                first = sub
            elif sub != first:
                raise LiteralError(_RANKS, self.peek().start)
            if self.peek().kind != ",":
                break
            self.at += 1
        self.take("]", "expected ']'")
        return [size, *first]

    def element(self) -> None:
        """One element: a number or boolean, or a complex `(re, im)` pair."""
        if self.peek().kind != "(":
            self.items.append(self.scalar())
            return
        self.at += 1
        real = self.scalar()
        self.take(",", "expected ',' between complex elements")
        imag = self.scalar()
        self.take(")", "expected ')' after complex elements")
        self.items.append((real, imag))

    def scalar(self) -> str:
        tok = self.peek()
        if tok.kind != "elem":
            raise self.stray(tok)
        self.at += 1
        return tok.text

    def stray(self, tok: _Token) -> LiteralError:
        """MLIR's complaint about a token that starts no element: after a `-` it wants a
        number (and reports the token after the sign); anything else is no element."""
        if tok.text == "-":
            return LiteralError("expected integer or floating point literal",
                                number_offset(self.body, tok.start))
        return LiteralError("expected element literal of primitive type", tok.start)


def read_literal(body: str) -> tuple[list[Any], list[int] | None]:
    """The element texts of a literal's body (complex pairs as tuples) and the shape its
    lists give (None for a single element)."""
    reader = _Reader(body)
    dims = reader.literal()
    return reader.items, dims
