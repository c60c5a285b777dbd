"""Run a program before and after a pass on the same random inputs (quantized arguments are
passed as their storage integers, as the interpreter holds them)."""

from __future__ import annotations

import numpy as np

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes


def run(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def rewrite(text: str, pass_name: str) -> str:
    module = parse_source(text)
    run_passes(module, [pass_name], verify=verify_module)
    return print_module(module)


def assert_same_values(text: str, pass_name: str, args: list[np.ndarray],
                       atol: float = 0.0) -> str:
    """The rewritten program (returned as text) computes what the original computes."""
    after = rewrite(text, pass_name)
    for old, new in zip(run(text, args), run(after, args), strict=True):
        assert old.dtype == new.dtype
        np.testing.assert_allclose(np.asarray(old, np.float64), np.asarray(new, np.float64),
                                   atol=atol)
    return after
