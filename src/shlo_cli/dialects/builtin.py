"""`builtin.module`: the top-level container."""

from __future__ import annotations

from ..ir import regex_programs
from ..ir.attributes import StringAttr, SymbolRefAttr
from ..ir.core import Block, Location, Operation
from ..ir.lexer import AT
from ..ir.parse_caches import text_cache
from ..ir.parse_fast import (
    KEYWORD_END,
    SYMBOL,
    WS,
    brace_token,
    cached_dict,
    register_fast_op_parser,
)
from .registry import OpDef, declare_op, folder
from .syntax import Custom

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _parse_module(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    properties = {}
    if p.tok.kind == AT:
        properties["sym_name"] = StringAttr(p.parse_symbol_name())
    attributes = {}
    if p.accept("attributes"):
        attributes = p.parse_attr_dict_body()
    region = p.parse_region(isolated=True, default_dialect="builtin")
    if not region.blocks:
        region.add_block(Block())
    return p.build_operation(opdef.name, opdef, [], [], properties, attributes, [region], None,
                             location)


_MODULE_HEAD = regex_programs.compile(
    rf"{WS}(?:({SYMBOL}){WS})?(?:attributes{KEYWORD_END}{WS}(?=(\{{)))?(?=\{{)")
_BRACE = regex_programs.compile(rf"{WS}(?=\{{)")


def _fast_module(p: Any, opdef: OpDef, pos: int, location: int,
                 num_results: int) -> Operation | None:
    """`module @name attributes {cached dict} {` read by regex, the body by the region
    parser, as `_parse_module` does (see `ir.parse_fast.register_fast_op_parser`). A head
    text read before is looked up by its text up to the `{` opening the body (`{` and a line
    break, as printed), without the three regexes: `_read_module_head` reads nothing past
    that `{`, so on the same text it reads the same."""
    if num_results:
        return None
    src = p.src
    end = src.find("{\n", pos)
    known = _MODULE_HEADS.get(src[pos:end]) if end >= 0 else None
    if known is None:
        read = _read_module_head(src, pos)
        if read is None:
            return None
        known, end = read
        if len(_MODULE_HEADS) < 4096:
            _MODULE_HEADS[src[pos:end]] = known
    properties, attributes = known
    p.tok = brace_token(src, end)
    region = p.parse_region(isolated=True, default_dialect="builtin", stop_at_end=True)
    if not region.blocks:
        region.add_block(Block())
    return p.build_operation(opdef.name, opdef, [], [], dict(properties), dict(attributes),
                             [region], None, location)


def _read_module_head(src: str, pos: int) -> tuple[tuple[dict[str, Any], dict[str, Any]],
                                                   int] | None:
    """The properties and attributes of the module head at `pos` (up to its body's `{`) and
    the offset of that `{`; None when the head is not plain or its dictionary not cached."""
    m = _MODULE_HEAD.match(src, pos)
    if m is None:
        return None
    properties = {}
    if m.group(1):
        properties["sym_name"] = StringAttr(m.group(1)[1:])
    attributes: dict[str, Any] = {}
    end = m.end()
    if m.group(2):
        found = cached_dict(src, end)
        if found is None:
            return None
        attributes, end = found
        brace = _BRACE.match(src, end)
        if brace is None:
            return None
        end = brace.end()
    return (properties, attributes), end


# Module head text (up to the body's `{`) -> its properties and attributes (immutable
# attributes: the dictionaries are copied for each op).
_MODULE_HEADS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = text_cache()


register_fast_op_parser("builtin.module", _fast_module)


def _print_module(pr: Any, op: Operation) -> None:
    name = op.properties.get("sym_name")
    if name is not None:
        pr.write(f" {SymbolRefAttr(name.value)}")  # quoted when not an identifier
    pr.write(pr.attr_dict(op.attributes, keyword=True))
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_args=False, default_dialect="builtin")


declare_op("builtin.module", operands=(), results=0, attributes=("sym_name?", "sym_visibility?"),
           syntax=Custom(_parse_module, _print_module), regions=("body",), isolated=True)


# ---- builtin.unrealized_conversion_cast ----------------------------------------------------
# Format: `($inputs^ `:` type($inputs))? `to` type($outputs) attr-dict`. Dialect conversions
# (e.g. --stablehlo-legalize-to-vhlo=allow-other-dialects) leave these between values of a
# converted type and ops that still expect the old one.


def _parse_cast(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    operands = p.parse_operand_list()
    if operands:
        p.expect(":")
        p.resolve_operands(operands, p.parse_type_list(), tok)
    p.expect_keyword("to")
    result_types = p.parse_type_list()
    attributes = p.parse_optional_attr_dict()
    return p.build_operation(opdef.name, opdef, operands, result_types, {}, attributes, [],
                             None, location)


def _print_cast(pr: Any, op: Operation) -> None:
    if op.operands:
        pr.write(" " + pr.operands(op.operands) + " : "
                 + ", ".join(str(t) for t in op.operand_types))
    pr.write(" to " + ", ".join(str(t) for t in op.result_types))
    pr.write(pr.attr_dict(op.attributes))


declare_op("builtin.unrealized_conversion_cast", operands=("*inputs",), results="*",
           syntax=Custom(_parse_cast, _print_cast))


@folder("builtin.unrealized_conversion_cast")
def _fold_cast(op: Operation, constants: list[Any]) -> list[Any] | None:
    """MLIR's fold: a cast to its own types is its inputs; a cast undoing the whole cast that
    produced all of its inputs (in order) is that cast's inputs."""
    if op.operand_types == op.result_types:
        return list(op.operands)
    if not op.operands:
        return None
    producer = op.operands[0].owner
    if (not isinstance(producer, Operation) or producer.name != op.name
            or op.operands != producer.results
            or producer.operand_types != op.result_types):
        return None
    return list(producer.operands)
