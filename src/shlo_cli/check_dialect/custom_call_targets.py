"""Registry of `stablehlo.custom_call` targets the interpreter can evaluate.

`stablehlo.custom_call`'s evaluator (declared with the op's syntax in
dialects/stablehlo/control_flow.py) only dispatches here by `call_target_name`, so a new
target (e.g. `@check.expect_eq`) is added by registering a function, without touching the op:

    @register_custom_call_target("check.expect_eq")
    def expect_eq(actual, expected, *, op, ctx): ...

A target receives the operands positionally (numpy arrays) and, by keyword, `op` (the
custom_call Operation) and `ctx` (the interpreter context). It returns the list of results
(empty for side-effecting checks). Run-time failures raise `EvaluationError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..interpreter.engine import EvaluationError

CustomCallTarget = Callable[..., Sequence[Any]]

_TARGETS: dict[str, CustomCallTarget] = {}


def register_custom_call_target(
    name: str, fn: CustomCallTarget | None = None
) -> Any:
    """Register `fn` as the evaluator of custom calls to `@name` (usable as a decorator)."""

    def wrap(target: CustomCallTarget) -> CustomCallTarget:
        _TARGETS[name] = target
        return target

    return wrap(fn) if fn is not None else wrap


def lookup_custom_call_target(name: str) -> CustomCallTarget | None:
    """The registered evaluator of `@name`, or None."""
    _ensure_targets_loaded()
    return _TARGETS.get(name)


def evaluate_custom_call(name: str, operands: Sequence[Any], *, op: Any = None,
                         ctx: Any = None) -> list[Any]:
    """Run the target `@name` on `operands`; an unknown target is a run-time error."""
    target = lookup_custom_call_target(name)
    if target is None:
        raise EvaluationError(f"Unsupported custom call target: @{name}")
    results = target(*operands, op=op, ctx=ctx)
    return list(results) if results is not None else []


def registered_targets() -> list[str]:
    _ensure_targets_loaded()
    return sorted(_TARGETS)


def _ensure_targets_loaded() -> None:
    """Targets live in the check_dialect modules; make sure they were imported."""
    from ..dialects import registry

    registry.all_ops()
