"""Upstream's struct grammar for `#stablehlo.<name><key = value, ...>` dimension numbers.

`#stablehlo.dot<...>`, `#stablehlo.gather<...>` and `#stablehlo.scatter<...>` share it
(hlo::parseStruct): entries in any order, each at most once, an optional trailing comma, and
every failure followed by the note `failed parsing <name> dimension numbers`. Plain `[1, 2]`
dimension lists (parse_dim_list) are read here too.
"""

from __future__ import annotations

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Operation
from ...ir.diagnostics import Diagnostic
from ...ir.lexer import BARE, lex_at
from ...ir.types import BOOL, I64
from ...ir.verifier import TYPE_CONSTRAINTS, op_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def parse_dimension_struct(p: Any, name: str, keywords: Sequence[str], body: str, offset: int,
                           integer_fields: Sequence[str] = ()) -> list[tuple[str, Any]]:
    """The `(key, value)` entries of the struct body at `offset`, in source order. Values
    are `[dims]` lists, or single integers for the keys in `integer_fields`."""
    after = p.tok
    p.tok = lex_at(p.src, offset)
    try:
        fields = _parse_entries(p, keywords, offset + len(body), integer_fields)
    except Diagnostic as bad:
        bad.notes.append(p.error(f"failed parsing {name} dimension numbers"))
        raise
    p.tok = after
    return fields


def _parse_entries(p: Any, keywords: Sequence[str], end: int,
                   integer_fields: Sequence[str]) -> list[tuple[str, Any]]:
    """Entries up to the closing `>` at offset `end`."""
    fields: list[tuple[str, Any]] = []
    seen: set[str] = set()
    while p.tok.start < end:
        progressed = False
        for keyword in keywords:
            if p.tok.start >= end or not (p.tok.kind == BARE and p.tok.text == keyword):
                continue
            p.advance()
            if keyword in seen:
                raise p.error(f"duplicated `{keyword}` entry")
            p.expect("=")
            value = p.parse_int64() if keyword in integer_fields else parse_dim_list(p)
            fields.append((keyword, value))
            seen.add(keyword)
            if not p.accept(",") and p.tok.start < end:
                raise p.wrong_token_error("expected '>'")
            progressed = True
        if not progressed:
            raise p.error("expected one of: " + ", ".join(f"`{k}`" for k in keywords))
    return fields


def parse_dim_list(p: Any) -> list[int]:
    """`[1, 2]` (possibly empty), each an int64 (MLIR's `parseInteger<int64_t>`: a larger
    value is `integer value too large`, never an overflow in numpy later)."""
    p.expect("[")
    values: list[int] = []

    def one() -> None:
        values.append(p.parse_int64())

    if not p.at("]"):
        one()
        while p.accept(","):
            one()
    p.expect("]")
    return values



# ---- dense array properties: ODS's DenseI64ArrayAttr / DenseBoolArrayAttr -------------------

_BOOL_ARRAYS = frozenset({"window_reversal"})


def check_dense_array_properties(op: Operation) -> None:
    """A StableHLO or CHLO op's `array<...>` properties hold i64 (i1 for window_reversal), as
    the ODS attribute constraints require; another element type would reach the kernels."""
    if not op.name.startswith(("stablehlo.", "chlo.")):
        return
    for name, value in op.properties.items():
        if not isinstance(value, DenseArrayAttr) or name.endswith("SegmentSizes"):
            continue  # (segment sizes are i32, checked with the operands they count)
        want, what = (BOOL, "i1") if name in _BOOL_ARRAYS else (I64, "i64")
        if value.element != want:
            raise op_error(op, f"attribute '{name}' failed to satisfy constraint: {what} dense "
                               "array attribute")


if check_dense_array_properties.__qualname__ not in (c.__qualname__ for c in TYPE_CONSTRAINTS):
    TYPE_CONSTRAINTS.append(check_dense_array_properties)
