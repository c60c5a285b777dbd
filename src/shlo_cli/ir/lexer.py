"""On-demand MLIR tokenizer. The parser asks for one token at a time so type parsing can
switch to character-level scanning (`4x2xf32`) without re-tokenizing the file."""

from __future__ import annotations

import sys

from . import regex_programs

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# Token kinds.
EOF = "eof"
PERCENT = "%"
CARET = "^"
AT = "@"
HASH = "#"
BANG = "!"
INT = "int"
FLOAT = "float"
STRING = "string"
BARE = "bare"
PUNCT = "punct"
INVALID = "invalid"

class _LazyPattern:
    """A regex compiled on first use: compiling costs 0.2-0.5 ms a pattern at import, paid
    by every tool launch, while most launches use only some of the fast-path patterns.
    The first attribute read compiles it and binds the pattern's methods here, so later
    calls cost what calling the compiled pattern costs."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        compiled = regex_programs.compile(*self._source)
        for attr in ("match", "fullmatch", "search", "finditer", "findall", "sub", "split",
                     "groups", "groupindex", "pattern", "flags"):
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)


def lazy_regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)` on first use (see `_LazyPattern`): for module-level
    patterns that only some programs need. Use its methods only (no `isinstance`)."""
    return _LazyPattern(pattern, flags)  # type: ignore[return-value]


# Possessive quantifiers (`*+`, `++`, ...): Python 3.11 and later.
POSSESSIVE = sys.version_info >= (3, 11)

# What the lexer skips before a token: whitespace and `//` comments, read in one pass that
# never gives any back (a comment runs to its line's end, so the text splits into them one
# way only): a regex failing after it fails in linear time, and never ends a comment early
# to read its text as code. Possessive quantifiers (Python 3.11) read it in 60-80% of the time
# the lookahead form (for older Pythons: each run and comment read whole) takes.
if POSSESSIVE:
    SKIP = r"[ \t\r\n]*+(?://[^\n]*+[ \t\r\n]*+)*+"
else:
    SKIP = r"(?:[ \t\r\n]+(?![ \t\r\n])|//[^\n]*(?![^\n]))*"


def possessive(pattern: str) -> str:
    """`pattern`, whose `*+`, `++`, `?+` and `{m,n}+` runs are possessive on Python 3.11, with
    greedy ones before it. For a part that matches at most one text wherever it starts (a run
    followed by what the run cannot read), so that it matches the same either way: possessive
    runs skip the steps that save places to backtrack to (a statement's regex in 60-70% of
    the time)."""
    if POSSESSIVE:
        return pattern
    for quantifier in ("*", "+", "?", "}"):
        pattern = pattern.replace(quantifier + "+", quantifier)
    return pattern


# A plain tensor type (`tensor<4x?xf32>`, `tensor<complex<f64>>`: dims, then a scalar or
# complex element), as the fast paths' regexes read it.
TENSOR = possessive(
    r"tensor<(?:(?:[0-9]++|\?)x)*+(?:[A-Za-z][A-Za-z0-9]*+|complex<[a-z0-9]++>)>")
# An SSA value name (`%x`, `%r#1`) read whole, and no `#` after it (a regex backtracking past
# its `#N` must not read `%x` alone): its runs possessive, or checked by lookaheads.
if POSSESSIVE:
    VALUE = r"%[A-Za-z0-9_$.\-]++(?:#[0-9]++)?+(?!#)"
else:
    VALUE = r"%[A-Za-z0-9_$.\-]+(?![A-Za-z0-9_$.\-])(?:#[0-9]+(?![0-9]))?(?!#)"

# One pattern: leading whitespace/comments, then at most one token group. Nothing follows the
# group, so the first alternative that matches, each run read whole, is the token: its runs
# are possessive (each is followed by what it cannot read; the punctuation's character class
# is left out of `possessive`, whose fallback would read its `?+` as a quantifier).
_TOKEN = regex_programs.compile(
    SKIP + possessive(r"""
    (?:
      (%[A-Za-z0-9_$.\-]++(?:\#[0-9]++)?+)          # 1 value id, with optional #N
    | (\^[A-Za-z0-9_$.\-]++)                        # 2 block id; 3 symbol (next)
    | (@(?:[A-Za-z_][A-Za-z0-9_$.\-]*+|"[^"\\\n]*+(?:\\(?:["\\nt]|[0-9A-Fa-f]{2})[^"\\\n]*+)*+"))
    | (\#-\}|\#[A-Za-z0-9_$.\-]++)                  # 4 attribute alias / dialect attr
    | (![A-Za-z0-9_$.\-]++)                         # 5 type alias / dialect type
    | (0x[0-9A-Fa-f]++|[0-9]++\.[0-9]*+(?:[eE][-+]?[0-9]++)?+|[0-9]++)  # 6 number
    | ("[^"\\\n]*+(?:\\(?:["\\nt]|[0-9A-Fa-f]{2})[^"\\\n]*+)*+")  # 7 string (MLIR's escapes)
    | ([A-Za-z_][A-Za-z0-9_$.]*+)                   # 8 bare identifier
    """) + r"""
    | (->|\.\.\.|\{-\#|[(){}\[\]<>,:=*?+\-|])      # 9 punctuation
    | (\S)                                          # 10 invalid character
    )?
    """,
    regex_programs.VERBOSE,
)
_KINDS = (EOF, PERCENT, CARET, AT, HASH, BANG, INT, STRING, BARE, PUNCT, INVALID)
_match = _TOKEN.match


class Token:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind: str, text: str, start: int, end: int) -> None:
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, {self.start})"


_new_object = object.__new__


def new_token(kind: str, text: str, start: int, end: int) -> Token:
    """`Token(kind, text, start, end)` by fewer steps: a class call runs `__init__` through the
    interpreter's slow path for classes (Python 3.11 specializes calls to functions, not to
    classes), and the parser makes a token for most statements it reads."""
    tok: Token = _new_object(Token)
    tok.kind = kind
    tok.text = text
    tok.start = start
    tok.end = end
    return tok


def lex_at(src: str, pos: int) -> Token:
    """The token starting at or after `pos` (whitespace and `//` comments skipped)."""
    m = _match(src, pos)
    assert m is not None  # every part of the pattern is optional: it always matches
    group = m.lastindex
    end = m.end()
    tok: Token = _new_object(Token)  # (`new_token`, inline)
    tok.end = end
    if group is None:
        tok.kind = EOF
        tok.text = ""
        tok.start = end
        return tok
    text = m.group(group)
    kind = _KINDS[group]
    if group == 6:
        if "." in text and text[1] != "x":
            kind = FLOAT
    elif group == 4 and text == "#-}":
        kind = PUNCT
    tok.kind = kind
    tok.text = text
    tok.start = end - len(text)
    return tok


_ESCAPE = regex_programs.compile(r"\\(?:([0-9A-Fa-f]{2})|(.))", regex_programs.DOTALL)


def unescape_string(literal: str) -> str:
    """The text of an MLIR string literal (quotes included in `literal`). Bytes that are not
    UTF-8 (read with `surrogateescape`) stay the bytes they were."""
    body = literal[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(body):
        out += body[pos:m.start()].encode("utf-8", "surrogateescape")
        if m.group(1):
            out.append(int(m.group(1), 16))
        else:
            ch = m.group(2)
            out += {"n": b"\n", "t": b"\t"}.get(ch, ch.encode("utf-8", "surrogateescape"))
        pos = m.end()
    out += body[pos:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", errors="surrogateescape")


def string_error(src: str, quote: int) -> tuple[str, int]:
    """Why the string literal opening at `quote` does not lex, and where (MLIR's lexString):
    an escape other than \\" \\\\ \\n \\t or two hex digits, or a line (or the file) ending
    before the closing quote."""
    pos = quote + 1
    n = len(src)
    while pos < n:
        ch = src[pos]
        if ch == '"':
            break
        if ch in "\n\v\f":
            return "expected '\"' in string literal", pos
        if ch == "\\":
            nxt = src[pos + 1:pos + 3]
            if nxt[:1] in ('"', "\\", "n", "t"):
                pos += 2
                continue
            if len(nxt) == 2 and all(c in "0123456789abcdefABCDEF" for c in nxt):
                pos += 3
                continue
            return "unknown escape in string literal", pos
        pos += 1
    return "expected '\"' in string literal", min(pos, n)



def invalid_token_error(src: str, tok: Token) -> tuple[str, int]:
    """MLIR's lexer error for text it cannot read (an `INVALID` token), and its place: a
    string's complaint (also of `@"...`), a `.` not starting `...` (reported at the
    character after it, where MLIR's lexEllipsis looks), else an unexpected character."""
    quote = tok.start + (tok.text == "@")
    if tok.text in ('"', "@") and src.startswith('"', quote):
        return string_error(src, quote)
    if tok.text == ".":
        return "expected three consecutive dots for an ellipsis", tok.start + 1
    return "unexpected character", tok.start
