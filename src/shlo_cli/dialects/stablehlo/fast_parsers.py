"""Fast parsers (see `ir.parse_fast`) for the StableHLO ops written most often in their usual
spelling: constant, return, custom_call, compare and concatenate. Each reads a statement only
when the token-level parser in the op's module would read it the same way, else returns None.
"""

from __future__ import annotations

from ...ir import parse_attributes, regex_programs
from ...ir.attributes import (
    Attribute,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DialectAttr,
    IntegerAttr,
    StringAttr,
)
from ...ir.lexer import BARE, Token, lazy_regex
from ...ir.parse_caches import text_cache
from ...ir.parse_fast import (
    INT,
    KEYWORD_END,
    SYMBOL,
    TENSOR,
    VALUE,
    VALUE_LIST,
    WORD,
    WS,
    cached_tensor,
    functional_tail,
    register_fast_parser,
    same_types,
)
from ...ir.types import I64, TensorType
from ..func import return_parser
from ..registry import OpDef
from .elementwise_select import COMPARE_TYPES, DIRECTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...ir.parse_fast import FastResult

_DENSE = regex_programs.compile(rf"{WS}dense<")
# `> : tensor<...>` closing a literal, the type group the cached tensor's text.
_DENSE_TYPE = regex_programs.compile(rf">{WS}:(?!:){WS}({TENSOR})")


def _constant(p: Any, opdef: OpDef, pos: int, num_results: int) -> FastResult | None:
    """`dense<...> : type`: a plain literal decoded straight from the text when its type is
    cached, else the literal read by the attribute parser itself."""
    src = p.src
    if src.startswith(" dense<", pos):  # (as printed: what `_DENSE` reads, without a regex)
        body_start = pos + 7
    else:
        m = _DENSE.match(src, pos)
        if m is None:
            return None
        body_start = m.end()
    # The attribute parser's own steps: a body starting with a string runs to the string's
    # closing quote, any other to the first `>`; then `: type`, a tensor type built before.
    # A body with a string elsewhere, or an empty one, is left to it.
    if src.startswith('"', body_start):
        end = src.find('"', body_start + 1) + 1
        string = True
    else:
        end = src.find(">", body_start)
        string = False
    if end > 0:
        typed = _DENSE_TYPE.match(src, end)
        if typed is not None:
            body = src[body_start:end]
            value_type = cached_tensor(typed.group(1))
            if (isinstance(value_type, TensorType) and value_type.is_static
                    and (string or ('"' not in body and not body.isspace() and body))):
                try:
                    value = parse_attributes.parse_dense(body, value_type)
                except Exception:  # the token-level parser reads it again and reports it
                    return None
                if isinstance(value, DenseElementsAttr) and value.type is value_type:
                    return [], [value_type], {"value": value}, {}, typed.end()
    saved = p.tok
    p.tok = Token(BARE, "dense", body_start - 6, body_start - 1)  # what the lexer reads there
    try:
        attr = p.parse_dense_attr()
    except Exception:  # the token-level parser reads it again and reports the error
        p.tok = saved
        return None
    attr_type = getattr(attr, "type", None)
    if not isinstance(attr, (DenseElementsAttr, DenseResourceAttr)) or attr_type is None:
        p.tok = saved
        return None
    return [], [attr_type], {"value": attr}, {}, p.tok.start


_CALL = lazy_regex(rf"{WS}({SYMBOL}){WS}\({WS}((?:{VALUE_LIST})?){WS}\)")


_TARGETS: dict[str, StringAttr] = text_cache()  # `@target` -> its name attribute (immutable)


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
    attributes, ftype, end = tail
    if not same_types(operands, ftype.inputs):
        return None
    target = m.group(1)
    name = _TARGETS.get(target)
    if name is None:
        name = StringAttr(target[1:])
        if len(_TARGETS) < 4096:
            _TARGETS[target] = name
    props: dict[str, Attribute] = {"call_target_name": name}
    return operands, list(ftype.results), props, attributes, end


_COMPARE = lazy_regex(
    rf"{WS}({WORD}){WS},{WS}({VALUE}){WS},{WS}({VALUE})(?:{WS},{WS}({WORD}))?")
_ENUMS: dict[tuple[str, str], DialectAttr] = text_cache()


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
    attributes, ftype, end = tail
    operands = [a, b]
    if not same_types(operands, ftype.inputs):
        return None
    props: dict[str, Attribute] = {
        "comparison_direction": _enum("comparison_direction", direction)}
    if compare_type is not None:
        props["compare_type"] = _enum("comparison_type", compare_type)
    return operands, list(ftype.results), props, attributes, end


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
    attributes, ftype, end = tail
    if not same_types(operands, ftype.inputs):
        return None
    props: dict[str, Attribute] = {"dimension": IntegerAttr(int(m.group(2)), I64)}
    return operands, list(ftype.results), props, attributes, end


_SLICE_RANGE = rf"{INT}{WS}:{WS}{INT}(?:{WS}:{WS}{INT})?"
_SLICE = lazy_regex(
    rf"{WS}({VALUE}){WS}\[{WS}((?:{_SLICE_RANGE}(?:{WS},{WS}{_SLICE_RANGE})*)?){WS}\]")
_SLICE_ARRAYS: dict[str, tuple[DenseArrayAttr, DenseArrayAttr, DenseArrayAttr]] = text_cache()


def _slice(p: Any, opdef: OpDef, pos: int, num_results: int) -> FastResult | None:
    """`%x [0:2, 1:4:2] {attrs} : (t) -> r` (decimal bounds; a stride of 1 when none)."""
    src = p.src
    m = _SLICE.match(src, pos)
    if m is None:
        return None
    operand = p.fast_value(m.group(1))
    tail = functional_tail(src, m.end())
    if operand is None or tail is None:
        return None
    attributes, ftype, end = tail
    operands = [operand]
    if not same_types(operands, ftype.inputs):
        return None
    text = m.group(2)
    arrays = _SLICE_ARRAYS.get(text)
    if arrays is None:
        starts: list[int] = []
        limits: list[int] = []
        strides: list[int] = []
        if text:
            for item in text.split(","):
                bounds = [int(b) for b in item.split(":")]
                starts.append(bounds[0])
                limits.append(bounds[1])
                strides.append(bounds[2] if len(bounds) == 3 else 1)
        arrays = (DenseArrayAttr(I64, tuple(starts)), DenseArrayAttr(I64, tuple(limits)),
                  DenseArrayAttr(I64, tuple(strides)))
        if len(_SLICE_ARRAYS) < 4096:
            _SLICE_ARRAYS[text] = arrays
    props: dict[str, Attribute] = {"start_indices": arrays[0], "limit_indices": arrays[1],
                                   "strides": arrays[2]}
    return operands, list(ftype.results), props, attributes, end


register_fast_parser("stablehlo.constant", _constant)
register_fast_parser("stablehlo.slice", _slice)
register_fast_parser("stablehlo.return", return_parser(False))
register_fast_parser("stablehlo.custom_call", _custom_call)
register_fast_parser("stablehlo.compare", _compare)
register_fast_parser("stablehlo.concatenate", _concatenate)
