"""A `Format`'s fast parser: the format compiled into one regular expression that reads a
whole statement in its usual spelling (`%a, %b : tensor<4xf32>`,
`%x, dims = [0, 1] : (tensor<2xf32>) -> tensor<2x3xf32>`).

Only formats made of operands, `,` / `=` / keyword literals and `array` / `int` / `enum`
attributes compile, with `same`, `result`, `functional`, `select` or `none` types; any other
format keeps only the token-level parser. See `ir.parse_fast` for the contract (None when in
doubt, nothing changed).
"""

from __future__ import annotations

from ..ir import regex_programs
from ..ir.attributes import Attribute, DenseArrayAttr, DialectAttr, IntegerAttr
from ..ir.core import Value
from ..ir.parse_caches import text_cache
from ..ir.parse_fast import (
    COLON,
    FUNCTION_TYPE,
    INT,
    KEYWORD_END,
    TENSOR,
    VALUE,
    VALUE_LIST,
    WS,
    cached_function,
    cached_tensor,
    function_type,
    known_type,
    not_before,
    same_types,
)
from ..ir.types import I64, Type
from .stablehlo.enums import ENUMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..ir.parse_fast import FastResult
    from .asm import Format

_WORD = regex_programs.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")

# Attributes by their text, shared between ops (attributes are immutable).
_ARRAYS: dict[str, DenseArrayAttr] = text_cache()
_ENUMS: dict[tuple[str, str], DialectAttr] = text_cache()

# One compiled slot per regex group: (kind, name, enum kind).
_Slot = tuple[str, str, str]
_TYPE_PATTERNS = {
    "same": rf"{COLON}(?:({TENSOR})|(?=\())",  # one type, or a function type after it
    "result": rf"{COLON}({TENSOR})",
    "select": rf"{COLON}({TENSOR}){WS},{WS}({TENSOR}){not_before(',')}",
    "functional": rf"{COLON}({FUNCTION_TYPE}){not_before('-')}",  # (see cached_function)
    "none": not_before("{"),
}


class FastFormat:
    """The compiled regex of one format and what each of its groups holds."""

    def __init__(self, pattern: str, slots: list[_Slot], fmt: Format) -> None:
        self.regex = regex_programs.compile(pattern)
        self.operands = fmt.operands
        self.mode = fmt.types
        self.num_results = fmt.num_results
        self.num_types = {"same": 1, "result": 1, "select": 2, "functional": 1}.get(fmt.types, 0)
        # The common case, read without a dictionary of groups: the format's operands are
        # single ones, written first and in their declared order (`$lhs `,` $rhs`).
        kinds = [kind for kind, _, _ in slots]
        count = kinds.count("operand")
        self.in_order = ("variadic" not in kinds and kinds[:count] == ["operand"] * count
                         and [name for _, name, _ in slots[:count]] == list(fmt.operands))
        self.num_operands = count if self.in_order else 0
        first = self.num_operands
        self.slots = [(i, slot) for i, slot in enumerate(slots) if i >= first]

    def parse(self, p: Any, opdef: Any, pos: int, num_results: int) -> FastResult | None:
        src = p.src
        m = self.regex.match(src, pos)
        if m is None:
            return None
        texts = m.groups()
        operands: list[Value]
        props: dict[str, Attribute] = {}
        if self.in_order:  # single operands first in their declared order, then attributes
            operands = []
            names = p.scopes[-1][0]  # (`fast_value` looks here first: most values are here)
            for text in texts[:self.num_operands]:
                v = names.get(text) or p.fast_value(text)
                if v is None:
                    return None
                operands.append(v)
            if self.slots and not self._attributes(texts, props):
                return None
        else:
            groups: dict[str, list[Value]] = {name: [] for name in self.operands}
            if not self._attributes(texts, props, groups, p):
                return None
            operands = []
            for name in self.operands:  # (a loop: in a comprehension `groups` were a cell)
                operands += groups[name]
        mode = self.mode
        index = len(texts) - self.num_types
        results: list[Type]
        if mode == "same":
            text = texts[index]
            if text is None:  # a function type
                found = cached_function(src, m.end())
                if found is None:
                    return None
                ftype, end = found
                if len(ftype.results) != 1 or not same_types(operands, ftype.inputs):
                    return None
                return operands, list(ftype.results), props, {}, end
            t = known_type(text) or cached_tensor(text)
            if t is None:
                return None
            for v in operands:
                if v.type is not t and v.type != t:
                    return None
            results = [t] * (self.num_results if self.num_results is not None
                             else num_results or 1)
            end = m.end()
        elif mode == "result":
            t = cached_tensor(texts[index])
            if t is None or operands:
                return None
            results = [t]
            end = m.end()
        elif mode == "select":
            pred = cached_tensor(texts[index])
            value = cached_tensor(texts[index + 1])
            if pred is None or value is None:
                return None
            if not same_types(operands, [pred] + [value] * (len(operands) - 1)):
                return None
            end = m.end()  # (not before a `,`: the full parser reports a longer type list)
            results = [value]
        elif mode == "functional":
            typed = function_type(texts[index])
            if typed is None or not same_types(operands, typed.inputs):
                return None
            end = m.end()
            results = list(typed.results)
        else:  # none (not before a `{`: an attribute dictionary is the full parser's)
            end = m.end()
            results = []
        return operands, results, props, {}, end

    def _attributes(self, texts: tuple[str, ...], props: dict[str, Attribute],
                    groups: dict[str, list[Value]] | None = None, p: Any = None) -> bool:
        """Fill `props` (and `groups`, when given, with the operands) from the slots."""
        for index, (kind, name, enum) in self.slots:
            text = texts[index]
            if kind == "operand":
                v = p.fast_value(text)
                if v is None:
                    return False
                groups[name] = [v]  # type: ignore[index]
            elif kind == "variadic":
                if text:
                    values = p.fast_values(text)
                    if values is None:
                        return False
                    groups[name] = values  # type: ignore[index]
            elif kind == "array":
                attr = _ARRAYS.get(text)
                if attr is None:
                    body = "".join(text.split())
                    items = tuple(int(x) for x in body.split(",")) if body else ()
                    attr = DenseArrayAttr(I64, items)
                    if len(_ARRAYS) < 4096:
                        _ARRAYS[text] = attr
                props[name] = attr
            elif kind == "int":
                props[name] = IntegerAttr(int(text), I64)
            else:
                key = (enum, text)
                found = _ENUMS.get(key)
                if found is None:
                    if text not in ENUMS["stablehlo"][enum].cases:
                        return False  # (the token-level parser reports it)
                    found = _ENUMS[key] = DialectAttr("stablehlo", "", f"{enum} {text}")
                props[name] = found
        return True


def compile_format(fmt: Format) -> FastFormat | None:
    """The fast parser of `fmt`, or None when its items or types are not supported."""
    parts: list[str] = []
    slots: list[_Slot] = []
    for item in fmt.items:
        if item.kind == "literal":
            text = item.text
            if text in (",", "="):
                parts.append(WS + regex_programs.escape(text))
            elif _WORD.fullmatch(text):
                parts.append(WS + regex_programs.escape(text) + KEYWORD_END)
            else:
                return None
        elif item.kind == "operand":
            if item.text in fmt.variadic:
                parts.append(rf"{WS}((?:{VALUE_LIST})?)(?!{WS},)")
                slots.append(("variadic", item.text, ""))
            else:
                parts.append(rf"{WS}({VALUE})")
                slots.append(("operand", item.text, ""))
        elif item.kind == "attr":
            kind = fmt.attrs.get(item.text, "attr")
            if kind == "array":
                parts.append(rf"{WS}\[{WS}((?:{INT}(?:{WS},{WS}{INT})*)?){WS}\]")
                slots.append(("array", item.text, ""))
            elif kind == "int":
                parts.append(rf"{WS}({INT})")
                slots.append(("int", item.text, ""))
            elif kind.startswith("enum:"):
                parts.append(rf"{WS}([A-Za-z_][A-Za-z0-9_$.]*){KEYWORD_END}")
                slots.append(("enum", item.text, kind[5:]))
            else:
                return None
        else:
            return None
    types = _TYPE_PATTERNS.get(fmt.types)
    if types is None:
        return None
    parts.append(types)
    return FastFormat("".join(parts), slots, fmt)
