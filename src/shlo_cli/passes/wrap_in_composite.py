"""`--stablehlo-wrap-in-composite='op-names=a,b version=N'`: wrap every op named in `op-names`
in a `stablehlo.composite` of the same name whose decomposition is a new private function
`@<op name>.impl` (a clash gets MLIR's symbol-table suffix `_0`, `_1`, ...) holding a copy of
the op. The composite's `composite_attributes` are the op's attributes.

The rewrite runs under the greedy driver (passes/rewrite.py) as upstream's does: ops are
visited bottom-up (a post-order walk taken from the back), so the `.impl` functions are
appended in that order; ops nested in a wrapped op go with it, and only ops that existed
before the pass are wrapped (MLIR's ExistingOps strictness)."""

from __future__ import annotations

import sys

from ..ir import registry
from ..ir.attributes import DictAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr
from ..ir.clone import clone_op
from ..ir.core import Block, Module, Operation, Region
from ..ir.types import I32, FunctionType
from . import PassOption, parse_list, register_pass
from .rewrite import GreedyConfig, PatternRewriter, apply_patterns_greedily, pattern


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
    existing = {id(op): op for op in module.op.walk() if op.name in wanted}

    @pattern(*sorted(wanted))
    def wrap(op: Operation, rewriter: PatternRewriter) -> bool:
        # MLIR's ExistingOps strictness: only ops present before the pass are wrapped (not
        # the copies inside the new `.impl` functions).
        if existing.get(id(op)) is not op:
            return False
        for inner in op.walk():
            existing.pop(id(inner), None)
        impl = _impl_function(module, op)
        rewriter.set_insertion_point_to_end(module.body)
        rewriter.insert(impl)
        composite = _composite(op, impl, version)
        rewriter.set_insertion_point(op)
        rewriter.insert(composite)
        rewriter.replace_op(op, composite.results)
        return True

    apply_patterns_greedily(module.op, [wrap], GreedyConfig())


def _composite(op: Operation, impl: Operation, version: int,
               attributes: DictAttr | None = None) -> Operation:
    """A (not inserted) composite standing for `op` that calls `impl`; `attributes` default
    to the op's own."""
    if attributes is None:
        merged = {**op.attributes, **op.properties}
        attributes = DictAttr(tuple(sorted(merged.items())))
    return Operation(
        "stablehlo.composite", list(op.operands), op.result_types,
        {"name": StringAttr(op.name), "composite_attributes": attributes,
         "decomposition": SymbolRefAttr(impl.properties["sym_name"].value),
         "version": IntegerAttr(version, I32)},
        location=op.location, opdef=registry.lookup("stablehlo.composite"))


def _impl_function(module: Module, op: Operation) -> Operation:
    """`func.func private @<name>.impl(operand types) -> result types` holding a copy of `op`
    (not inserted; named apart from the module's symbols)."""
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
