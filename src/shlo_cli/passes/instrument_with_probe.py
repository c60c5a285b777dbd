"""`--interpreter-instrument-with-probe[='useDebugInfo=true']`: put an `interpreter.probe`
after every tensor result worth recording, so the interpreter writes it out while running.

Every op with results is instrumented (nested ones too, visited in post-order as MLIR walks)
except `stablehlo.constant`; a result is probed when it is a statically shaped ranked tensor
of integers, floats or complex numbers. Probe ids count up from 1 in visiting order:
`probe<N>`, or with `useDebugInfo` and a named location `loc("name")` `<name>.<N>` (the name
cut at its first `@`). All uses of the result, except the probe, then read the probe."""

from __future__ import annotations

from ..ir import registry
from ..ir.attributes import StringAttr
from ..ir.core import Module, Operation, Value
from ..ir.locations import LocationAttr, NameLoc
from ..ir.types import ComplexType, FloatType, IntegerType, TensorType
from . import PassOption, register_pass


@register_pass("interpreter-instrument-with-probe",
               "Inserts interpreter.probe ops in a StableHLO program.",
               options=(PassOption("useDebugInfo", "Whether or not to use location debug data "
                                   "as `probe_id` values.", False, flag=True),))
def instrument_with_probe(module: Module, useDebugInfo: bool = False) -> None:  # noqa: N803
    probes: dict[Value, Value] = {}
    inserted: set[int] = set()
    count = 0
    for op in _post_order(module.op):
        if op.name == "stablehlo.constant" or not op.results:
            continue
        for value in op.results:
            if not _probed(value):
                continue
            count += 1
            probe = Operation("interpreter.probe", [value], [value.type],
                              {"probe_id": StringAttr(probe_id(op, count, useDebugInfo))},
                              location=op.location, opdef=registry.lookup("interpreter.probe"))
            _insert_after(op, probe)
            inserted.add(id(probe))
            probes[value] = probe.results[0]
    if probes:
        for op in module.op.walk():
            if id(op) not in inserted:
                op.operands = [probes.get(v, v) for v in op.operands]


def probe_id(op: Operation, number: int, use_debug_info: bool) -> str:
    """`<location name>.<N>` for a named location when asked, else `probe<N>`."""
    loc = op.location.attr
    if use_debug_info and isinstance(loc, LocationAttr):
        loc = loc.resolved()
        if isinstance(loc, NameLoc):
            return f"{loc.name.split('@', 1)[0]}.{number}"
    return f"probe{number}"


def _probed(value: Value) -> bool:
    t = value.type
    return (isinstance(t, TensorType) and t.is_static
            and isinstance(t.element, (IntegerType, FloatType, ComplexType)))


def _insert_after(op: Operation, new: Operation) -> None:
    """Right after `op` (so several probes of one op end up in reverse result order, as
    MLIR's insertion after the value gives)."""
    block = op.parent
    assert block is not None
    index = next(i for i, o in enumerate(block.operations) if o is op)
    block.operations.insert(index + 1, new)
    new.parent = block


def _post_order(root: Operation) -> list[Operation]:
    order: list[Operation] = []

    def visit(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    visit(inner)
        order.append(op)

    visit(root)
    return order
