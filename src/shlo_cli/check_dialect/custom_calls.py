"""`stablehlo.custom_call @check.*` targets, as upstream stablehlo-translate evaluates them.

- `@check.expect_eq(a, b)`: exact equality.
- `@check.expect_almost_eq(a, b)`: equal within 0.001.
- `@check.expect_close(a, b)`: ULP distance in [0, 3].
- `@check.eq(a, b) -> tensor<i1>`: exact for integer/bool elements, within 1e-4 otherwise;
  returns `true` (a failure stops the run).

The two operands must have the same element type (a failure naming both otherwise) and the
same shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.diagnostics import EvaluationError
from ..ir.types import IntegerType, Type, element_type
from .comparisons import expect_almost_eq_failure, expect_close_failure, expect_eq_failure
from .custom_call_targets import register_custom_call_target

CUSTOM_CALL_ALMOST_EQ_TOLERANCE = 0.001
CHECK_EQ_TOLERANCE = 1e-4
CUSTOM_CALL_MAX_ULP = 3


def _operands(name: str, operands: tuple[Any, ...], op: Any,
              ) -> tuple[np.ndarray, np.ndarray, Type | None]:
    if len(operands) != 2:
        raise EvaluationError(f"Unsupported custom call: @{name} expects 2 operands, "
                              f"got {len(operands)}")
    if op is None:
        return operands[0], operands[1], None
    actual_type, etype = (element_type(v.type) for v in op.operands[:2])
    if str(actual_type) != str(etype) and np.shape(operands[0]) == np.shape(operands[1]):
        # upstream compares elements of different types as if they were one type
        raise EvaluationError(f"{name} failed: Element types don't match: {actual_type} "
                              f"(actual) vs {etype} (expected)")
    return operands[0], operands[1], etype


def _fail(name: str, message: str | None) -> None:
    if message is not None:
        raise EvaluationError(f"{name} failed: {message}")


@register_custom_call_target("check.expect_eq")
def expect_eq(*operands: np.ndarray, op: Any, ctx: Any) -> list[np.ndarray]:
    actual, expected, etype = _operands("check.expect_eq", operands, op)
    _fail("check.expect_eq", expect_eq_failure(actual, expected, etype))
    return []


@register_custom_call_target("check.expect_almost_eq")
def expect_almost_eq(*operands: np.ndarray, op: Any, ctx: Any) -> list[np.ndarray]:
    actual, expected, etype = _operands("check.expect_almost_eq", operands, op)
    _fail("check.expect_almost_eq",
          expect_almost_eq_failure(actual, expected, etype, CUSTOM_CALL_ALMOST_EQ_TOLERANCE))
    return []


@register_custom_call_target("check.expect_close")
def expect_close(*operands: np.ndarray, op: Any, ctx: Any) -> list[np.ndarray]:
    actual, expected, etype = _operands("check.expect_close", operands, op)
    _fail("check.expect_close",
          expect_close_failure(actual, expected, etype, CUSTOM_CALL_MAX_ULP, 0))
    return []


@register_custom_call_target("check.eq")
def check_eq(*operands: np.ndarray, op: Any, ctx: Any) -> list[np.ndarray]:
    actual, expected, etype = _operands("check.eq", operands, op)
    if isinstance(etype, IntegerType):
        message = expect_eq_failure(actual, expected, etype)
    else:
        message = expect_almost_eq_failure(actual, expected, etype, CHECK_EQ_TOLERANCE)
    _fail("stablehlo.custom_call(@check.eq)", message)
    num_results = len(op.results) if op is not None else 1
    return [np.array(True)] * num_results
