"""Fast parsers (see `ir.parse_fast`) for the StableHLO ops written most often in their usual
spelling: constant, return, custom_call, compare and concatenate. Each reads a statement only
when the token-level parser in the op's module would read it the same way, else returns None.
"""

from __future__ import annotations

import re
from typing import Any

from ...ir.attributes import (
    Attribute,
    DenseElementsAttr,
    DenseResourceAttr,
    DialectAttr,
    IntegerAttr,
    StringAttr,
)
from ...ir.lexer import BARE, Token, lazy_regex
from ...ir.parse_fast import (
    INT,
    KEYWORD_END,
    SYMBOL,
    VALUE,
    VALUE_LIST,
    WORD,
    WS,
    FastResult,
    functional_tail,
    register_fast_parser,
    same_types,
)
from ...ir.types import I64
from ..func import fast_return
from ..registry import OpDef
from .elementwise_select import COMPARE_TYPES, DIRECTIONS

_DENSE = re.compile(rf"{WS}dense<")


def _constant(p: Any, opdef: OpDef, pos: int, num_results: int) -> FastResult | None:
    """`dense<...> : type` (the literal read by the attribute parser itself)."""
    m = _DENSE.match(p.src, pos)
    if m is None:
        return None
    saved = p.tok
    p.tok = Token(BARE, "dense", m.end() - 6, m.end() - 1)  # what the lexer reads there
    try:
        value = p.parse_dense_attr()
    except Exception:  # the token-level parser reads it again and reports the error
        p.tok = saved
        return None
    value_type = getattr(value, "type", None)
    if not isinstance(value, (DenseElementsAttr, DenseResourceAttr)) or value_type is None:
        p.tok = saved
        return None
    return [], [value_type], {"value": value}, {}, p.tok


_CALL = lazy_regex(rf"{WS}({SYMBOL}){WS}\({WS}((?:{VALUE_LIST})?){WS}\)")


def _custom_call(p: Any, opdef: OpDef, pos: int, num_results: int) -> FastResult | None:
    """`@target(%a, %b) {attrs} : (ta, tb) -> r`."""
    src = p.src
    m = _CALL.match(src, pos)
    if m is None:
        return None
    operands = p.fast_values(m.group(2)) if m.group(2) else []
    tail = functional_tail(src, m.end())
    if operands is None or tail is None:
        return None
    attributes, ftype, after = tail
    if not same_types(operands, ftype.inputs):
        return None
    props: dict[str, Attribute] = {"call_target_name": StringAttr(m.group(1)[1:])}
    return operands, list(ftype.results), props, attributes, after


_COMPARE = lazy_regex(
    rf"{WS}({WORD}){WS},{WS}({VALUE}){WS},{WS}({VALUE})(?:{WS},{WS}({WORD}))?")
_ENUMS: dict[tuple[str, str], DialectAttr] = {}


def _enum(kind: str, word: str) -> DialectAttr:
    attr = _ENUMS.get((kind, word))
    if attr is None:
        attr = _ENUMS[(kind, word)] = DialectAttr("stablehlo", "", f"{kind} {word}")
    return attr


def _compare(p: Any, opdef: OpDef, pos: int, num_results: int) -> FastResult | None:
    """`EQ, %a, %b, FLOAT {attrs} : (ta, tb) -> r` (the compare type optional)."""
    src = p.src
    m = _COMPARE.match(src, pos)
    if m is None:
        return None
    direction, lhs, rhs, compare_type = m.groups()
    if direction not in DIRECTIONS or (compare_type is not None
                                       and compare_type not in COMPARE_TYPES):
        return None
    a = p.fast_value(lhs)
    b = p.fast_value(rhs)
    tail = functional_tail(src, m.end())
    if a is None or b is None or tail is None:
        return None
    attributes, ftype, after = tail
    operands = [a, b]
    if not same_types(operands, ftype.inputs):
        return None
    props: dict[str, Attribute] = {
        "comparison_direction": _enum("comparison_direction", direction)}
    if compare_type is not None:
        props["compare_type"] = _enum("comparison_type", compare_type)
    return operands, list(ftype.results), props, attributes, after


_CONCATENATE = lazy_regex(rf"{WS}((?:{VALUE}{WS},{WS})*)dim{KEYWORD_END}{WS}={WS}({INT})")


def _concatenate(p: Any, opdef: OpDef, pos: int, num_results: int) -> FastResult | None:
    """`%a, %b, dim = 0 {attrs} : (ta, tb) -> r`."""
    src = p.src
    m = _CONCATENATE.match(src, pos)
    if m is None:
        return None
    values = m.group(1).rstrip()[:-1]
    operands = p.fast_values(values) if values else []
    tail = functional_tail(src, m.end())
    if operands is None or tail is None:
        return None
    attributes, ftype, after = tail
    if not same_types(operands, ftype.inputs):
        return None
    props: dict[str, Attribute] = {"dimension": IntegerAttr(int(m.group(2)), I64)}
    return operands, list(ftype.results), props, attributes, after


register_fast_parser("stablehlo.constant", _constant)
register_fast_parser("stablehlo.return", lambda p, opdef, pos, n: fast_return(p, pos, False))
register_fast_parser("stablehlo.custom_call", _custom_call)
register_fast_parser("stablehlo.compare", _compare)
register_fast_parser("stablehlo.concatenate", _concatenate)
