"""`builtin.module`: the top-level container."""

from __future__ import annotations

from typing import Any

from ..ir.attributes import StringAttr
from ..ir.core import Location, Operation
from ..ir.lexer import AT
from .registry import OpDef, declare_op
from .syntax import Custom


def _parse_module(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    properties = {}
    if p.tok.kind == AT:
        properties["sym_name"] = StringAttr(p.parse_symbol_name())
    attributes = {}
    if p.accept("attributes"):
        attributes = p.parse_attr_dict_body()
    region = p.parse_region(isolated=True, default_dialect="builtin")
    if not region.blocks:
        from ..ir.core import Block

        region.add_block(Block())
    return p.build_operation(opdef.name, opdef, [], [], properties, attributes, [region], None,
                             location)


def _print_module(pr: Any, op: Operation) -> None:
    name = op.properties.get("sym_name")
    if name is not None:
        pr.write(f" @{name.value}")
    pr.write(pr.attr_dict(op.attributes, keyword=True))
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_args=False, default_dialect="builtin")


declare_op("builtin.module", syntax=Custom(_parse_module, _print_module),
           properties=("sym_name", "sym_visibility"), regions=("body",), isolated=True)
