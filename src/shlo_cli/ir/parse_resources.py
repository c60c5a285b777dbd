"""The `{-# dialect_resources: ... #-}` section at the end of a textual module: each
dialect's named resources. A builtin resource is a blob (what `dense_resource<name>` reads),
checked as MLIR's builtin dialect checks it when the entry is read."""

from __future__ import annotations

from . import regex_programs
from .lexer import STRING, Token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .parser import Parser

_HEX_BLOB = regex_programs.compile(r"0x(?:[0-9a-fA-F]{2})*")


def parse_resources(p: Parser) -> dict[str, Any]:
    """`{-# dialect_resources: { builtin: { name: "0x..." } } #-}`: the values by key."""
    p.expect("{-#")
    out: dict[str, Any] = {}
    while not p.at("#-}"):
        p.parse_keyword()
        p.expect(":")
        p.expect("{")
        while not p.accept("}"):
            dialect = p.parse_keyword()
            p.expect(":")
            p.expect("{")
            while not p.accept("}"):
                key = p.advance().text
                p.expect(":")
                value_tok = p.tok
                if p.tok.kind == STRING:
                    out[key] = p.parse_string()
                else:
                    out[key] = p.advance().text
                if dialect == "builtin":
                    _check_blob(p, key, out[key] if value_tok.kind == STRING else None,
                                value_tok)
                p.accept(",")
            p.accept(",")
        p.accept(",")
    p.expect("#-}")
    return out


def _check_blob(p: Parser, key: str, text: str | None, tok: Token) -> None:
    """A builtin resource must be a blob: `"0x"` hex whose first 4 bytes are its
    alignment, a power of two (MLIR's texts); a later use would misread anything else."""
    what = f"expected hex string blob for key '{key}'"
    if text is None or not _HEX_BLOB.fullmatch(text):
        raise p.error(what, tok)
    if len(text) < 10:
        raise p.error(what + " to encode alignment in first 4 bytes", tok)
    alignment = int.from_bytes(bytes.fromhex(text[2:10]), "little")
    if alignment & (alignment - 1) or not alignment:
        raise p.error(what + " to encode alignment in first 4 bytes, but got "
                      f"non-power-of-2 value: {alignment}", tok)
