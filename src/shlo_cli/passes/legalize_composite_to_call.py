"""`-stablehlo-legalize-composite-to-call`: replace every `stablehlo.composite` by a
`func.call` of its decomposition function (same operands and result types), except those
whose name is listed in the `except` option."""

from __future__ import annotations

from ..ir import registry
from ..ir.attributes import SymbolRefAttr
from ..ir.clone import replace_uses
from ..ir.core import Block, Module, Operation, Value
from . import PassOption, parse_list, register_pass


@register_pass("stablehlo-legalize-composite-to-call",
               "Replace stablehlo.composite ops by calls to their decomposition.",
               options=(PassOption("except", "Names of composites that should not be "
                                   "replaced with calls.", (), parse_list),))
def legalize_composite_to_call(module: Module, except_: tuple[str, ...] = ()) -> None:
    replacements: dict[Value, Value] = {}
    kept = set(except_)
    for op in list(module.op.walk()):
        for region in op.regions:
            for block in region.blocks:
                _rewrite_block(block, replacements, kept)
    replace_uses(module.op, replacements)


def _rewrite_block(block: Block, replacements: dict[Value, Value], kept: set[str]) -> None:
    def wanted(op: Operation) -> bool:
        return op.name == "stablehlo.composite" and op.attr("name").value not in kept

    if not any(wanted(op) for op in block.operations):
        return
    rewritten = [_as_call(op, replacements) if wanted(op) else op
                 for op in block.operations]
    block.operations = []
    for op in rewritten:
        block.append(op)


def _as_call(composite: Operation, replacements: dict[Value, Value]) -> Operation:
    callee = composite.attr("decomposition")
    call = Operation("func.call", list(composite.operands), composite.result_types,
                     {"callee": SymbolRefAttr(callee.value)}, location=composite.location,
                     opdef=registry.lookup("func.call"))
    for old, new in zip(composite.results, call.results, strict=True):
        replacements[old] = new
    return call
