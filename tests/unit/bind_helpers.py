"""Running a program with and without a binding hook (the specialized-kernel tests)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def run_first_op(text: str, args: list[np.ndarray], hook: Any,
                 specialized: bool) -> tuple[np.ndarray, object]:
    """(main's first result, the kernel bound for its first op); without `hook` (a hook or
    a tuple of hooks) when not `specialized`, and then without the planned gather / scatter
    kernels either (they would stand in for the general evaluator the test compares with)."""
    from shlo_cli.dialects.stablehlo import specialize_index_plan as plans

    hooks = hook if isinstance(hook, tuple) else (hook,)
    hooks = (*hooks, plans.bind_gather_plan, plans.bind_scatter_plan)
    saved = list(engine.BIND_HOOKS)
    if not specialized:
        engine.BIND_HOOKS[:] = [h for h in saved if h not in hooks]
    try:
        interpreter = Interpreter(parse_source(text))
        out = interpreter.call(interpreter.lookup_function("main"), args)[0]
        kernel = next(iter(interpreter._plans.values())).steps[0].fn
    finally:
        engine.BIND_HOOKS[:] = saved
    return np.asarray(out), kernel


def run_main(text: str, args: list[Any], hook: Any,
             specialized: bool) -> tuple[np.ndarray, list[str]]:
    """(main's first result, the qualified names of the kernels its body's steps run);
    without `hook` when not `specialized`."""
    saved = list(engine.BIND_HOOKS)
    if not specialized:
        engine.BIND_HOOKS[:] = [h for h in saved if h is not hook]
    try:
        interpreter = Interpreter(parse_source(text))
        func = interpreter.lookup_function("main")
        out = interpreter.call(func, list(args))[0]
        kinds = [getattr(s.fn, "__qualname__", "") for s in
                 interpreter._plans[id(func.regions[0])].steps]
    finally:
        engine.BIND_HOOKS[:] = saved
    return np.asarray(out), kinds
