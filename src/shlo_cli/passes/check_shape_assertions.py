"""`--stablehlo-check-shape-assertions`: decide `stablehlo.custom_call @shape_assertion` ops
whose operands are constants. A holding assertion is erased; a failing one is an error with
its `error_message` (`{N}` replaced by the N-th error-message input, llvm::formatv style);
a malformed one, or one whose operands are not constants, is an error in upstream's words.
With `enable-shape-assertions=false` every assertion is erased unchecked."""

from __future__ import annotations

import re

import numpy as np

from ..ir.attributes import DenseElementsAttr, DictAttr, StringAttr
from ..ir.core import Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import IntegerType, TensorType
from . import PassOption, register_pass

TARGET = "shape_assertion"
MAX_ERROR_MESSAGE_INPUTS = 32
_ALLOWED_ATTRIBUTES = {"api_version", "backend_config", "call_target_name", "error_message",
                       "has_side_effect"}
_CONSTANT_OPS = ("stablehlo.constant", "arith.constant")


@register_pass("stablehlo-check-shape-assertions",
               "Check stablehlo.custom_call @shape_assertion ops.",
               options=(PassOption("enable-shape-assertions", "Whether shape assertions may "
                                   "generate errors.", True, flag=True),))
def check_shape_assertions(module: Module, enable_shape_assertions: bool = True) -> None:
    calls = [op for op in module.op.walk() if op.name == "stablehlo.custom_call"
             and _target(op) == TARGET]
    for op in calls:
        if enable_shape_assertions:
            _check(op)
        _erase(op)


def _target(op: Operation) -> str | None:
    attr = op.attr("call_target_name")
    return attr.value if isinstance(attr, StringAttr) else None


def _error(op: Operation, message: str) -> Diagnostic:
    """MLIR's `op.emitError()`: the message at the op, without the op-name prefix."""
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


def _check(op: Operation) -> None:
    """Raise the diagnostic for a malformed or failing assertion; return if it holds."""
    _verify(op)
    holds = _constant_ints(op.operands[0])
    if holds is None:
        raise _error(op, "expects static assert_what (operand #0)")
    if holds[0] != 0:
        return
    inputs = []
    for i, value in enumerate(op.operands[1:], start=1):
        ints = _constant_ints(value)
        if ints is None:
            raise _error(op, f"expects static error_message_input (operand #{i})")
        inputs.append(ints[0])
    message = op.attr("error_message")
    raise _error(op, format_message(message.value if message is not None else "", inputs))


def _verify(op: Operation) -> None:
    """Upstream's well-formedness checks, in its order and words."""
    count = len(op.operands)
    if not 1 <= count <= 1 + MAX_ERROR_MESSAGE_INPUTS:
        raise _error(op, f"expects 1 <= size(operands) <= {1 + MAX_ERROR_MESSAGE_INPUTS}")
    if op.results:
        raise _error(op, "expects size(results) = 0")
    for name in sorted({**op.properties, **op.attributes}):
        if name not in _ALLOWED_ATTRIBUTES:
            raise _error(op, f"{name} is not a supported attribute")
    config = op.attr("backend_config")
    if config is not None and not (isinstance(config, (StringAttr, DictAttr))
                                   and not config.value):
        raise _error(op, "expects an empty backend_config")
    if not _scalar_int(op.operands[0], (1,)):
        raise _error(op, "expects assert_what (operand #0) to be a constant of type "
                         "tensor<i1>")
    for i, value in enumerate(op.operands[1:], start=1):
        if not _scalar_int(value, (32, 64)):
            raise _error(op, f"expects error_message_input (operand #{i}) to be a constant "
                             "of type tensor<i32> or tensor<i64>")
    message = op.attr("error_message")
    if not isinstance(message, StringAttr):
        raise _error(op, "expects an error_message attribute")
    for spec in re.finditer(r"\{([^,:}{]*)[,:}]", message.value):
        text = spec.group(1)
        if text.isdigit() and not int(text) < count - 1:
            raise _error(op, "expects error_message to contain format specifiers with "
                             f"error_message_input index less than {count - 1}. Found "
                             f"specifier {spec.group(0)}")


def _scalar_int(value: Value, widths: tuple[int, ...]) -> bool:
    t = value.type
    return (isinstance(t, TensorType) and t.rank == 0 and isinstance(t.element, IntegerType)
            and t.element.signedness == "" and t.element.width in widths)


def _constant_ints(value: Value) -> list[int] | None:
    """The integer elements of `value` if a constant op defines it."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name not in _CONSTANT_OPS:
        return None
    attr = owner.attr("value")
    if not isinstance(attr, DenseElementsAttr):
        return None
    return [int(x) for x in np.asarray(attr.value).reshape(-1)]


def format_message(message: str, inputs: list[int]) -> str:
    """llvm::formatv over `inputs`: `{N[,layout][:style]}` becomes input N (-1 past the
    inputs), `{{` a brace; without inputs the message is kept as written."""
    if not inputs:
        return message

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "{{":
            return "{"
        index = int(match.group(1))
        return str(inputs[index] if index < len(inputs) else -1)

    return re.sub(r"\{\{|\{\s*(\d+)\s*(?:,[^:}]*)?(?::[^}]*)?\}", replace, message)


def _erase(op: Operation) -> None:
    block = op.parent
    if block is not None:
        block.operations = [o for o in block.operations if o is not op]
