"""`@check.*`-style targets registered as plain functions (`fn(*operands, op, ctx)`).

`stablehlo.custom_call`'s evaluator dispatches by `call_target_name` through
`shlo_cli.custom_calls.registry`; this module keeps the short decorator the check dialect
uses, for targets that validate their operands themselves:

    @register_custom_call_target("check.expect_eq")
    def expect_eq(actual, expected, *, op, ctx): ...

A target returns the list of results (empty for side-effecting checks). Run-time failures
raise `EvaluationError`. Targets that declare their operand types and backend_config keys
use `shlo_cli.custom_calls.register_target` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..custom_calls.registry import (
    TargetCall,
    call_target,
    lookup_target,
    register_target,
    registered_target_names,
)

CustomCallTarget = Callable[..., Sequence[Any]]


def register_custom_call_target(
    name: str, fn: CustomCallTarget | None = None
) -> Any:
    """Register `fn` as the evaluator of custom calls to `@name` (usable as a decorator)."""

    def wrap(target: CustomCallTarget) -> CustomCallTarget:
        def evaluate(call: TargetCall) -> Sequence[Any]:
            return target(*call.operands, op=call.op, ctx=call.ctx)

        register_target(name, evaluate)
        return target

    return wrap(fn) if fn is not None else wrap


def lookup_custom_call_target(name: str) -> Any:
    """The registered target `@name`, or None."""
    return lookup_target(name)


def evaluate_custom_call(name: str, operands: Sequence[Any], *, op: Any = None,
                         ctx: Any = None) -> list[Any]:
    """Run the target `@name` on `operands`; an unknown target is a run-time error."""
    return call_target(name, operands, op=op, ctx=ctx)


def registered_targets() -> list[str]:
    return registered_target_names()
