"""`stablehlo.custom_call` targets that jax.export emits around a program (not LAPACK).

`@shape_assertion(pred, dim...)` guards shape-polymorphic exports: when `pred` is false the
inputs' shapes break the exported specification, and the run fails with the recorded
`error_message`, its `{0}`, `{1}`, ... filled with the remaining operands (jax's format).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..interpreter.engine import EvaluationError
from .custom_call_targets import register_custom_call_target


@register_custom_call_target("shape_assertion")
def shape_assertion(*operands: np.ndarray, op: Any, ctx: Any) -> list[np.ndarray]:
    if not operands:
        raise EvaluationError("@shape_assertion expects a predicate operand")
    if bool(np.all(operands[0])):
        return []
    attr = op.attr("error_message") if op is not None else None
    message = getattr(attr, "value", None) or "shape assertion failed"
    values = [str(np.asarray(v).item()) if np.asarray(v).size == 1 else str(v)
              for v in operands[1:]]
    try:
        message = message.format(*values)
    except (IndexError, KeyError, ValueError):
        pass
    raise EvaluationError(message)
