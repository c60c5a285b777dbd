"""The `interpreter` dialect's `interpreter.print`: show a value while a program runs.

Upstream prints the operand's SSA name as the module printer would spell it (`%0 = `,
`%cst = `, `%5:2 = ` for a multi-result producer, just `<` for a block argument, a quirk
of how it cuts the printed value) followed by the tensor. The write happens under one lock,
so programs running in parallel (`interpreter.run_parallel`) never interleave their output.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..ir.context import Context
from ..ir.core import Module, Operation, Value
from ..ir.printer import ValueNames
from ..ir.value_text import format_value
from .asm import Format
from .registry import define_op


def value_prefix(module: Module, value: Value, names: ValueNames | None = None) -> str:
    """What upstream keeps of the printed producer: the name up to and including `= `."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return "<"
    if names is None:
        names = ValueNames(module.op, generic=False)
    if len(owner.results) > 1:
        return f"{names.result_bases[id(owner)]}:{len(owner.results)} = "
    return f"{names.names.get(id(value), '%<unknown>')} = "


@define_op("interpreter.print", operands=("operand",), results=0,
           syntax=Format("$operand", operands=("operand",), types="operands", num_results=0))
def print_(operand: Any, *, op: Operation, ctx: Context) -> None:
    """Write `<name> = <tensor>` and a newline to the interpreter's output stream."""
    value = op.operands[0]
    names = getattr(ctx, "value_names", None)
    if names is None:  # numbered once per run, like upstream's module-level AsmState
        names = ValueNames(ctx.interpreter.module.op, generic=False)
        ctx.value_names = names
    text = value_prefix(ctx.interpreter.module, value, names) + format_value(
        operand if not isinstance(operand, np.generic) else np.asarray(operand), value.type)
    stream = ctx.stdout or sys.stdout
    with Context.print_lock:
        stream.write(text + "\n")
        stream.flush()
