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
from ...ir.types import BOOL, I32, I64
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
_CONV_ARRAYS = ("window_strides", "lhs_dilation", "rhs_dilation", "window_reversal")

# Op -> its attributes declared DenseI64ArrayAttr (or DenseBoolArrayAttr: window_reversal)
# in StablehloOps.td and ChloOps.td, optional or not. Another attribute kind there (a
# `dense<...>` tensor, a `[...]` list) fails ODS's constraint, as MLIR's verifyInherentAttrs
# reports it, however an op's kernel could read it.
DENSE_ARRAY_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "stablehlo.reduce": ("dimensions",),
    "stablehlo.slice": ("start_indices", "limit_indices", "strides"),
    "stablehlo.dynamic_slice": ("slice_sizes",),
    "stablehlo.broadcast": ("broadcast_sizes",),
    "stablehlo.broadcast_in_dim": ("broadcast_dimensions",),
    "stablehlo.dynamic_broadcast_in_dim": ("broadcast_dimensions", "known_expanding_dimensions",
                                           "known_nonexpanding_dimensions"),
    "stablehlo.convolution": _CONV_ARRAYS,
    "stablehlo.dynamic_conv": _CONV_ARRAYS,
    "stablehlo.fft": ("fft_length",),
    "stablehlo.gather": ("slice_sizes",),
    "stablehlo.map": ("dimensions",),
    "stablehlo.select_and_scatter": ("window_dimensions", "window_strides"),
    "stablehlo.reverse": ("dimensions",),
    "stablehlo.pad": ("edge_padding_low", "edge_padding_high", "interior_padding"),
    "stablehlo.transpose": ("permutation",),
    "stablehlo.reduce_window": ("window_dimensions", "window_strides", "base_dilations",
                                "window_dilations"),
}


def _declared_arrays(op_name: str) -> tuple[str, ...]:
    """The dense-array attributes `op_name` declares (every CHLO broadcasting op but
    broadcast_select has an optional `broadcast_dimensions`)."""
    if op_name.startswith("chlo.broadcast_") and op_name != "chlo.broadcast_select":
        return ("broadcast_dimensions",)
    return DENSE_ARRAY_ATTRIBUTES.get(op_name, ())


def check_dense_array_properties(op: Operation) -> None:
    """A StableHLO or CHLO op's dense-array attributes are `array<i64: ...>` (`array<i1:
    ...>` for window_reversal), as the ODS attribute constraints require: another kind or
    element type would reach the kernels."""
    if not op.name.startswith(("stablehlo.", "chlo.")):
        return
    declared = _declared_arrays(op.name)
    for name in declared:
        value = op.attr(name)
        if value is not None and not isinstance(value, DenseArrayAttr):
            _refuse(op, name)
    for name, value in op.properties.items():
        if name.endswith("SegmentSizes"):  # i32 arrays, their counts checked with the operands
            if not (isinstance(value, DenseArrayAttr) and value.element == I32):
                _refuse(op, name)
        elif isinstance(value, DenseArrayAttr):
            if value.element != (BOOL if name in _BOOL_ARRAYS else I64):
                _refuse(op, name)


def _refuse(op: Operation, name: str) -> None:
    raise op_error(op, _refusal(name))


def _refusal(name: str) -> str:
    what = ("i1" if name in _BOOL_ARRAYS else "i32" if name.endswith("SegmentSizes")
            else "i64")
    return f"attribute '{name}' failed to satisfy constraint: {what} dense array attribute"


def dense_array_error(op_name: str, name: str, attr: object) -> str | None:
    """ODS's complaint about `attr` as the dense-array attribute `name` of `op_name`, or None
    (also for an attribute that is not one of its dense arrays)."""
    if name not in _declared_arrays(op_name):
        return None
    if isinstance(attr, DenseArrayAttr) and attr.element == (BOOL if name in _BOOL_ARRAYS
                                                             else I64):
        return None
    return _refusal(name)


if check_dense_array_properties.__qualname__ not in (c.__qualname__ for c in TYPE_CONSTRAINTS):
    TYPE_CONSTRAINTS.append(check_dense_array_properties)
