"""`--stablehlo-wrap-in-composite='op-names=a,b version=N'`: wrap every op named in `op-names`
in a `stablehlo.composite` of the same name whose decomposition is a new private function
`@<op name>.impl` (a clash gets MLIR's symbol-table suffix `_0`, `_1`, ...) holding a copy of
the op. The composite's `composite_attributes` are the op's attributes.

Ops are visited as MLIR's greedy driver visits them (a post-order walk taken from the back),
so the `.impl` functions are appended in that order; ops nested in a wrapped op go with it,
and ops created by the pass are not wrapped."""

from __future__ import annotations

import sys

from ..ir import registry
from ..ir.attributes import DictAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr
from ..ir.clone import clone_op, replace_uses
from ..ir.core import Block, Module, Operation, Region, Value
from ..ir.types import I32, FunctionType
from . import PassOption, parse_list, register_pass


def _parse_int32(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise ValueError(f"'{text}' value invalid for integer argument!") from None
    if not -(2**31) <= value < 2**31:
        raise ValueError(f"'{text}' value invalid for integer argument!")
    return value


@register_pass("stablehlo-wrap-in-composite",
               "Wraps a non-composite StableHLO op in a composite op.",
               options=(PassOption("op-names", "The names of the ops to wrap.", (), parse_list),
                        PassOption("version", "The version number of the composite op.", 0,
                                   _parse_int32)))
def wrap_in_composite(module: Module, op_names: tuple[str, ...] = (),
                      version: int = 0) -> None:
    wanted = set()
    for name in op_names:
        if registry.lookup(name) is None:
            sys.stderr.write(f"Warning: Unknown op name in opNamesOption: '{name}' is not a "
                             "registered operation.\n")
        else:
            wanted.add(name)
    if not wanted:
        return
    candidates = [op for op in _post_order(module.op) if op.name in wanted]
    replacements: dict[Value, Value] = {}
    erased: set[int] = set()
    for op in reversed(candidates):
        if id(op) in erased:
            continue
        erased.update(id(inner) for inner in op.walk())
        wrap_operation(module, op, version, replacements)
    replace_uses(module.op, replacements)


def wrap_operation(module: Module, op: Operation, version: int,
                   replacements: dict[Value, Value], attributes: DictAttr | None = None
                   ) -> Operation:
    """Replace `op` (in its block) by a composite calling a new `.impl` function; its results
    map to the composite's in `replacements`. `attributes` default to the op's own."""
    impl = _impl_function(module, op)
    if attributes is None:
        merged = {**op.attributes, **op.properties}
        attributes = DictAttr(tuple(sorted(merged.items())))
    composite = Operation(
        "stablehlo.composite", list(op.operands), op.result_types,
        {"name": StringAttr(op.name), "composite_attributes": attributes,
         "decomposition": SymbolRefAttr(impl.properties["sym_name"].value),
         "version": IntegerAttr(version, I32)},
        location=op.location, opdef=registry.lookup("stablehlo.composite"))
    block = op.parent
    assert block is not None
    index = next(i for i, o in enumerate(block.operations) if o is op)
    block.operations[index] = composite
    composite.parent = block
    for old, new in zip(op.results, composite.results, strict=True):
        replacements[old] = new
    return composite


def _impl_function(module: Module, op: Operation) -> Operation:
    """`func.func private @<name>.impl(operand types) -> result types` holding a copy of `op`,
    appended to the module."""
    name = _unique_symbol(module, f"{op.name}.impl")
    body = Block(op.operand_types)
    body.arg_locations = [op.location.attr] * len(body.arguments)
    copy = clone_op(op, dict(zip(op.operands, body.arguments, strict=True)))
    body.append(copy)
    body.append(Operation("func.return", list(copy.results), [], location=op.location,
                          opdef=registry.lookup("func.return")))
    ftype = FunctionType(tuple(op.operand_types), tuple(op.result_types))
    func = Operation("func.func", [], [], {
        "sym_name": StringAttr(name), "function_type": TypeAttr(ftype),
        "sym_visibility": StringAttr("private")}, regions=[Region([body])],
        location=op.location, opdef=registry.lookup("func.func"))
    module.body.append(func)
    return func


def _unique_symbol(module: Module, name: str) -> str:
    """`name`, or `name_N` with the first free N from 0 (MLIR's SymbolTable::insert)."""
    taken = {attr.value for o in module.body.operations
             if (attr := o.attr("sym_name")) is not None}
    if name not in taken:
        return name
    counter = 0
    while f"{name}_{counter}" in taken:
        counter += 1
    return f"{name}_{counter}"


def _post_order(root: Operation) -> list[Operation]:
    """Ops nested in `root`, each after the ops nested in it (MLIR's post-order walk)."""
    order: list[Operation] = []

    def visit(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    visit(inner)
        order.append(op)

    for region in root.regions:
        for block in region.blocks:
            for op in block.operations:
                visit(op)
    return order
