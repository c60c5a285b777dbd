"""Where an operand was used: MLIR reports a type clash of an operand ("use of value '%x'
expects different type than prior uses") at that operand's own token, named as written
without its `#N` result number, while most op parsers know only where their operand list
or statement starts. Found by reading the statement again from there, only when a clash is
reported, so the common path keeps no per-use record."""

from __future__ import annotations

from .core import Value
from .lexer import EOF, PERCENT, Token, lex_at

# How far to read for the use before giving up (the caller then reports at its own token).
_MAX_TOKENS = 100_000

Scopes = list[tuple[dict[str, Value], bool]]


def _resolve(scopes: Scopes, name: str) -> Value | None:
    """The value `name` refers to in `scopes`, without the parser's side effects."""
    for names, isolated in reversed(scopes):
        v = names.get(name)
        if v is None:
            base, _, index = name.partition("#")
            v = names.get(base + "#0") if not index else names.get(base) if index == "0" else None
        if v is not None:
            return v
        if isolated:
            break
    return None


def use_token(src: str, scopes: Scopes, operands: list[Value], index: int,
              start: Token) -> Token | None:
    """The token of `operands[index]`'s use at or after `start` (None if not found)."""
    target = operands[index]
    skip = sum(1 for v in operands[:index] if v is target)
    pos = start.start
    for _ in range(_MAX_TOKENS):
        tok = lex_at(src, pos)
        if tok.kind == EOF:
            return None
        if tok.kind == PERCENT and _resolve(scopes, tok.text) is target:
            if not skip:
                return tok
            skip -= 1
        pos = tok.end
    return None
