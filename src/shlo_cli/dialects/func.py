"""The `func` dialect: `func.func`, `func.return`, `func.call` (the engine runs them)."""

from __future__ import annotations

from ..ir import regex_programs
from ..ir.attributes import ArrayAttr, DictAttr, StringAttr, SymbolRefAttr, TypeAttr
from ..ir.core import Location, Operation
from ..ir.lexer import AT, PERCENT, STRING, lazy_regex, new_token, possessive
from ..ir.parse_attributes import SIMPLE_DICT_PATTERN
from ..ir.parse_caches import text_cache
from ..ir.parse_fast import (
    COLON,
    FUNCTION_TYPE,
    KEYWORD_END,
    SYMBOL,
    TENSOR,
    TENSOR_LIST,
    VALUE_LIST,
    WS,
    brace_token,
    cached_dict,
    cached_tensor,
    cached_tensors,
    function_type,
    known_dict,
    not_before,
    register_fast_op_parser,
    register_fast_parser,
    same_types,
)
from ..ir.types import FunctionType, Type
from .registry import OpDef, declare_op
from .syntax import Custom

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any

    from ..ir.parse_fast import FastParser, FastResult

    # properties, entry block arguments (name token, type, location), argument count,
    # attributes
    _Header = tuple[dict[str, Any], list[tuple[Any, Type, Any]], int, dict[str, Any]]

# ---- func.func -------------------------------------------------------------------------



_FUNC_HEAD = regex_programs.compile(possessive(
    rf"{WS}(?:(public|private|nested){KEYWORD_END}{WS})?({SYMBOL}){WS}\(([^()]*+)\)"
    rf"(?:{WS}->{WS}(?:\(([^()]*+)\)|({TENSOR})))?{WS}(?=\{{)"))
_FUNC_ARG = lazy_regex(
    rf"{WS}(%[A-Za-z0-9_$.\-]+)(?![A-Za-z0-9_$.\-#]){COLON}({TENSOR})(?:{WS}(?=(\{{)))?")
_NEXT = regex_programs.compile(rf"{WS}(?:(,)|$)")


def _fast_items(p: Any, pattern: re.Pattern[str], start: int,
                end: int) -> list[tuple[Any, Type, dict]] | None:
    """`%a: t {attrs}, ...` between two offsets, from cached types and dictionaries: (name
    match, type, attributes) per item."""
    src = p.src
    items: list[tuple[Any, Type, dict]] = []
    pos = start
    if not src[pos:end].strip(" \t\r\n"):  # no items (a list starting with `,` is not empty)
        return items
    while True:
        m = pattern.match(src, pos, end)
        if m is None:
            return None
        t = cached_tensor(m.group(pattern.groups - 1))  # the type; the last group is `{`
        if t is None:
            return None
        attrs: dict = {}
        pos = m.end()
        if m.group(pattern.groups):
            found = cached_dict(src, pos)
            if found is None or found[1] > end:
                return None
            attrs, pos = found
        items.append((m, t, attrs))
        sep = _NEXT.match(src, pos, end)
        if sep is None:
            return None
        if sep.group(1) is None:
            return items
        pos = sep.end()


def _fast_header(p: Any, pos: int | None = None) -> _Header | None:
    """`public @f(%a: t {attrs}) -> (r {attrs}) {` from cached types and dictionaries; the
    parser is left at the body's `{` (None, with nothing read, at anything else). A header
    text seen before is not read again: its properties are shared (attributes are immutable)
    and only its argument tokens are placed anew."""
    src = p.src
    start = p.tok.start if pos is None else pos
    # A header read before is looked up by its text up to the `{` opening the body (`{` and
    # a line break, as printed) without the regex: `_FUNC_HEAD` reads nothing past that `{`
    # (no part of it matches a `{`), so on the same text it matches the same way.
    end = src.find("{\n", start)
    known = _HEADERS.get(src[start:end]) if end >= 0 else None
    if known is None:
        m = _FUNC_HEAD.match(src, start)
        if m is None:
            return None
        text = m.group(0)
        known = _HEADERS.get(text)
        if known is None:
            known = _read_header(p, m)
            if known is None:
                return None
            if len(_HEADERS) < 4096:
                _HEADERS[text] = known
        end = m.end()
    properties, args = known
    entry_args = []
    for name, first, last, t in args:  # (a loop: in a comprehension `start` were a cell)
        entry_args.append((new_token(PERCENT, name, start + first, start + last), t, None))
    p.tok = brace_token(src, end)
    return dict(properties), entry_args, len(args), {}


# Header text -> (properties, (argument name, start, end relative to the text, type) each).
_HEADERS: dict[str, tuple[dict[str, Any], list[tuple[str, int, int, Type]]]] = text_cache()


def _read_header(p: Any, m: re.Match[str]) -> tuple[dict[str, Any],
                                                    list[tuple[str, int, int, Type]]] | None:
    """The properties and arguments of the header `_FUNC_HEAD` matched (None if a type or
    dictionary in it is not cached)."""
    args = _fast_items(p, _FUNC_ARG, m.start(3), m.end(3))
    if args is None:
        return None
    results: tuple[list[Type], list[DictAttr]] | None = ([], [])
    if m.group(4) is not None:
        results = _fast_results(p.src, m.start(4), m.end(4))
    elif m.group(5) is not None:
        single = cached_tensor(m.group(5))
        results = None if single is None else ([single], [_NO_ATTRS])
    if results is None:
        return None
    properties: dict[str, Any] = {}
    if m.group(1):
        properties["sym_visibility"] = StringAttr(m.group(1))
    properties["sym_name"] = StringAttr(m.group(2)[1:])
    result_types, res_attrs = results
    _add_signature(properties, [t for _, t, _ in args], [d for _, _, d in args],
                   result_types, [])
    if any(d.entries for d in res_attrs):
        properties["res_attrs"] = ArrayAttr(tuple(res_attrs))
    base = m.start()
    names = []
    for a, t, _ in args:  # (a loop: in a comprehension `base` were a cell)
        names.append((a.group(1), a.start(1) - base, a.end(1) - base, t))
    return properties, names


# `t {attrs}` of a result list, its text (group 1) and type (group 2), and the `,` after it
# (group 3; none at the end of the list).
_RESULT_ITEM = regex_programs.compile(
    rf"{WS}(({TENSOR})(?:{WS}{SIMPLE_DICT_PATTERN})?){WS}(?:(,)|$)")
# A result item's text -> its type and attribute dictionary (both immutable: shared).
_RESULT_ITEMS: dict[str, tuple[Type, DictAttr]] = text_cache()
_NO_ATTRS = DictAttr(())


def _fast_results(src: str, start: int, end: int) -> tuple[list[Type], list[DictAttr]] | None:
    """The types and attribute dictionaries of the result list `t {attrs}, ...` between two
    offsets, from cached types and dictionaries (None if one is not cached)."""
    types: list[Type] = []
    dicts: list[DictAttr] = []
    pos = start
    if not src[pos:end].strip(" \t\r\n"):  # no items (a list starting with `,` is not empty)
        return types, dicts
    while True:
        m = _RESULT_ITEM.match(src, pos, end)
        if m is None:
            return None
        text = m.group(1)
        item = _RESULT_ITEMS.get(text)
        if item is None:
            type_text = m.group(2)
            t = cached_tensor(type_text)
            if t is None:
                return None
            attrs = _NO_ATTRS
            dict_text = text[len(type_text):].lstrip()
            if dict_text:
                cached = known_dict(dict_text)
                if cached is None:
                    return None
                attrs = DictAttr(tuple(cached.items()))
            item = (t, attrs)
            if len(_RESULT_ITEMS) < 4096:
                _RESULT_ITEMS[text] = item
        types.append(item[0])
        dicts.append(item[1])
        if m.group(3) is None:
            return types, dicts
        pos = m.end()


def _add_signature(properties: dict[str, Any], arg_types: list[Type], arg_attrs: list[dict],
                   result_types: list[Type], res_attrs: list[dict]) -> None:
    """`function_type`, and `arg_attrs` / `res_attrs` when any dictionary is not empty."""
    properties["function_type"] = TypeAttr(FunctionType(tuple(arg_types), tuple(result_types)))
    if any(arg_attrs):
        properties["arg_attrs"] = ArrayAttr(tuple(DictAttr(tuple(a.items())) for a in arg_attrs))
    if any(res_attrs):
        properties["res_attrs"] = ArrayAttr(tuple(DictAttr(tuple(a.items())) for a in res_attrs))


def _parse_header(p: Any) -> _Header:
    """Everything of a func.func before its body, token by token."""
    properties: dict[str, Any] = {}
    if p.tok.kind == STRING or p.at("private") or p.at("public") or p.at("nested"):
        properties["sym_visibility"] = StringAttr(p.advance().text.strip('"'))
    properties["sym_name"] = StringAttr(p.parse_symbol_name())
    p.expect("(")
    entry_args = []
    arg_types: list[Type] = []
    arg_attrs: list[dict] = []
    if not p.at(")"):
        while True:
            if p.tok.kind == PERCENT:
                tok = p.advance()
                p.expect(":")
                t = p.parse_type()
                attrs = p.parse_optional_attr_dict()
                loc = p.parse_optional_location()
                entry_args.append((tok, t, loc))
            else:
                t = p.parse_type()
                attrs = p.parse_optional_attr_dict()
            arg_types.append(t)
            arg_attrs.append(attrs)
            if not p.accept(","):
                break
    p.expect(")")
    result_types: list[Type] = []
    res_attrs: list[dict] = []
    if p.accept("->"):
        if p.at("("):
            p.advance()
            if not p.at(")"):
                while True:
                    result_types.append(p.parse_type())
                    res_attrs.append(p.parse_optional_attr_dict())
                    if not p.accept(","):
                        break
            p.expect(")")
        else:
            result_types.append(p.parse_type())
            res_attrs.append({})
    attributes = {}
    if p.accept("attributes"):
        attributes = p.parse_attr_dict_body()
    _add_signature(properties, arg_types, arg_attrs, result_types, res_attrs)
    return properties, entry_args, len(arg_types), attributes


def _parse_func(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    header = _fast_header(p) or _parse_header(p)
    properties, entry_args, num_args, attributes = header
    regions = []
    if p.at("{"):
        if entry_args and len(entry_args) != num_args:
            raise p.error("expected SSA identifier for every argument")
        regions.append(p.parse_region(entry_args=entry_args, isolated=True,
                                      default_dialect="func"))
    else:
        from ..ir.core import Region

        regions.append(Region())
    return p.build_operation(opdef.name, opdef, [], [], properties, attributes, regions, None,
                             location)


def _fast_func(p: Any, opdef: OpDef, pos: int, location: int,
               num_results: int) -> Operation | None:
    """func.func whose header `_fast_header` reads (see `ir.parse_fast.register_fast_op_parser`):
    the body then read by the region parser, as `_parse_func` does."""
    header = None if num_results else _fast_header(p, pos)
    if header is None:
        return None
    properties, entry_args, _, attributes = header
    region = p.parse_region(entry_args=entry_args, isolated=True, default_dialect="func",
                            stop_at_end=True)
    return p.build_operation(opdef.name, opdef, [], [], properties, attributes, [region], None,
                             location)


register_fast_op_parser("func.func", _fast_func)


def _print_func(pr: Any, op: Operation) -> None:
    visibility = op.properties.get("sym_visibility")
    if visibility is not None:
        pr.write(f" {visibility.value}")
    pr.write(f" {SymbolRefAttr(op.properties['sym_name'].value)}(")
    ftype: FunctionType = op.properties["function_type"].value
    arg_attrs = _dicts(op.properties.get("arg_attrs"), len(ftype.inputs))
    res_attrs = _dicts(op.properties.get("res_attrs"), len(ftype.results))
    body = op.regions[0]
    args = []
    for i, t in enumerate(ftype.inputs):
        if body.blocks:
            arg = body.entry.arguments[i]
            text = f"{pr.name(arg)}: {t}"
            if pr.debuginfo:
                location = pr.location_text(body.entry.arg_locations[i])
                args.append(f"{text}{pr.attr_dict(arg_attrs[i])} {location}")
                continue
        else:
            text = str(t)
        args.append(text + pr.attr_dict(arg_attrs[i]))
    pr.write(", ".join(args) + ")")
    if ftype.results:
        results = [str(t) + pr.attr_dict(a) for t, a in zip(ftype.results, res_attrs, strict=True)]
        single = len(results) == 1 and not res_attrs[0]
        if single and not isinstance(ftype.results[0], FunctionType):
            pr.write(f" -> {results[0]}")
        else:
            pr.write(" -> (" + ", ".join(results) + ")")
    elided = ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")
    pr.write(pr.attr_dict({**op.properties, **op.attributes}, elided, keyword=True))
    if body.blocks:
        pr.write(" ")
        pr.print_region(body, print_entry_args=False, default_dialect="func")


def _dicts(attr: Any, n: int) -> list[dict]:
    if attr is None:
        return [{} for _ in range(n)]
    return [dict(d.entries) for d in attr.elements]


declare_op("func.func", operands=(), results=0,
           attributes=("sym_name", "function_type", "sym_visibility?", "arg_attrs?", "res_attrs?",
                       "no_inline?"),
           syntax=Custom(_parse_func, _print_func), regions=("body",), isolated=True)

# ---- func.return -------------------------------------------------------------------------


def _parse_return(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    operands = p.parse_operand_list()
    if operands:
        p.expect(":")
        p.resolve_operands(operands, p.parse_type_list(), tok)  # ODS's `type($operands)`
    attributes = p.parse_optional_attr_dict()
    return p.build_operation(opdef.name, opdef, operands, [], {}, attributes, [], None, location)


def print_values_and_types(pr: Any, op: Operation) -> None:
    """` %a, %b : ta, tb` (nothing when there are no operands)."""
    pr.write(pr.attr_dict(op.attributes))
    if op.operands:
        pr.write(" " + pr.operands(op.operands) + " : " + ", ".join(map(str, op.operand_types)))


declare_op("func.return", operands=("*operands",), results=0,
           syntax=Custom(_parse_return, print_values_and_types), terminator=True)


# Return-like ops: `%a, %b : ta, tb` (values, types) not before a longer type list, nor
# before the dictionary func.return reads after its types; or nothing (not before a value
# or a dictionary, which the full parser reads).
_RETURN_VALUES = {
    True: lazy_regex(rf"{WS}({VALUE_LIST}){COLON}({TENSOR_LIST}){not_before(',{')}"),
    False: lazy_regex(rf"{WS}({VALUE_LIST}){COLON}({TENSOR_LIST}){not_before(',')}"),
}
# No values: func.return's types come only after values; stablehlo.return's `: types` may
# come alone (its format's `:` group is optional), so there a `:` is left to its parser.
_NO_VALUES = (lazy_regex(not_before("%{:")), lazy_regex(not_before("%{")))


def return_parser(dict_after_types: bool) -> FastParser:
    """The fast parser of a return-like op: `%a, %b : ta, tb` or nothing (see `ir.parse_fast`);
    with `dict_after_types` the op's attribute dictionary follows the types (func.return)."""
    values = _RETURN_VALUES[dict_after_types]  # (compiled on first use: `lazy_regex`)
    no_values = _NO_VALUES[dict_after_types]

    def parse(p: Any, opdef: Any, pos: int, num_results: int) -> FastResult | None:
        src = p.src
        m = values.match(src, pos)
        if m is None:
            if no_values.match(src, pos) is None:
                return None
            return [], [], {}, {}, pos
        operands = p.fast_values(m.group(1))
        types = cached_tensors(m.group(2))
        if operands is None or types is None or not same_types(operands, types):
            return None
        return operands, [], {}, {}, m.end()

    return parse


register_fast_parser("func.return", return_parser(True))

# ---- func.call ---------------------------------------------------------------------------


def _parse_call(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    if p.tok.kind != AT:  # MLIR reads another attribute there, then refuses its kind
        tok = p.tok
        p.parse_attribute()
        raise p.op_error("invalid kind of attribute specified", tok)
    callee = SymbolRefAttr(p.parse_symbol_name())
    tok = p.tok
    p.expect("(")
    operands = p.parse_operand_list(")")
    p.expect(")")
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", tok)
    p.check_operand_types(operands, list(ftype.inputs), tok)
    return p.build_operation(opdef.name, opdef, operands, list(ftype.results),
                             {"callee": callee}, attributes, [], None, location)


def _print_call(pr: Any, op: Operation) -> None:
    pr.write(f" {op.properties['callee']}(" + pr.operands(op.operands) + ")")
    pr.write(pr.attr_dict({**op.properties, **op.attributes}, elided=("callee",)))
    pr.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))


declare_op("func.call", operands=("*operands",), results="*",
           attributes=("callee", "arg_attrs?", "res_attrs?", "no_inline?"),
           syntax=Custom(_parse_call, _print_call))

_CALL = lazy_regex(rf"{WS}({SYMBOL}){WS}\({WS}((?:{VALUE_LIST})?){WS}\){COLON}"
                   rf"({FUNCTION_TYPE}){not_before('-')}")


def _fast_call(p: Any, opdef: OpDef, pos: int, num_results: int) -> FastResult | None:
    """`@f(%a, %b) : (ta, tb) -> r` with types seen before (see `ir.parse_fast`)."""
    src = p.src
    m = _CALL.match(src, pos)
    if m is None:
        return None
    operands = p.fast_values(m.group(2)) if m.group(2) else []
    ftype = function_type(m.group(3))
    if operands is None or ftype is None or not same_types(operands, ftype.inputs):
        return None
    end = m.end()
    callee = m.group(1)
    attr = _CALLEES.get(callee)
    if attr is None:
        attr = SymbolRefAttr(callee[1:])
        if len(_CALLEES) < 4096:
            _CALLEES[callee] = attr
    return operands, list(ftype.results), {"callee": attr}, {}, end


# `@name` -> its attribute (attributes are immutable)
_CALLEES: dict[str, SymbolRefAttr] = text_cache()


register_fast_parser("func.call", _fast_call)


# ---- func.constant `@f : type` and func.call_indirect `%f(%args) : type` ---------------------


def _parse_constant(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    symbol = SymbolRefAttr(p.parse_symbol_name())
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    return p.build_operation(opdef.name, opdef, [], [p.parse_type()], {"value": symbol},
                             attributes, [], None, location)


def _print_constant(pr: Any, op: Operation) -> None:
    pr.write(f" {op.properties['value']}" + pr.attr_dict(op.attributes)
             + f" : {op.results[0].type}")


declare_op("func.constant", operands=(), results=1, attributes=("value",),
           syntax=Custom(_parse_constant, _print_constant),
           asm_result_name=lambda op: "f")  # ConstantOp::getAsmResultNames: `%f`


def _parse_call_indirect(p: Any, opdef: OpDef, location: Location,
                         num_results: int) -> Operation:
    tok = p.tok
    callee = p.parse_operand()
    p.expect("(")
    operands = p.parse_operand_list(")")
    p.expect(")")
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", tok)
    p.check_operand_types([callee, *operands], [ftype, *ftype.inputs], tok)
    return p.build_operation(opdef.name, opdef, [callee, *operands], list(ftype.results), {},
                             attributes, [], None, location)


def _print_call_indirect(pr: Any, op: Operation) -> None:
    callee, *operands = op.operands
    pr.write(f" {pr.name(callee)}({pr.operands(operands)})"
             + pr.attr_dict({**op.properties, **op.attributes}) + f" : {callee.type}")


declare_op("func.call_indirect", operands=("callee", "*callee_operands"), results="*",
           attributes=("arg_attrs?", "res_attrs?"),
           syntax=Custom(_parse_call_indirect, _print_call_indirect))

