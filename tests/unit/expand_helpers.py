"""Shared by the linear-algebra expander tests: expand a program, print it, parse the printed
text back, and run original and expanded programs on the same inputs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import shlo_cli
from shlo_cli.ir.core import Module
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module


def expand(text: str, expander: Callable[[Module], None]) -> str:
    """The printed expansion of `text`; it must verify and parse back."""
    module = parse_source(text, "input.mlir")
    verify_module(module)
    expander(module)
    verify_module(module)
    printed = print_module(module)
    verify_module(parse_source(printed, "printed.mlir"))
    return printed


def run_both(text: str, expander: Callable[[Module], None],
             *arrays: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """(direct evaluator's result, expanded program's result, expanded text)."""
    printed = expand(text, expander)
    [expected] = shlo_cli.interpret(text, *arrays)
    [actual] = shlo_cli.interpret(printed, *arrays)
    return expected, actual, printed


def relative_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """max |actual - expected| / max |expected| (in f64); inf when NaN patterns differ."""
    a = np.asarray(actual).astype(np.complex128)
    e = np.asarray(expected).astype(np.complex128)
    if not np.array_equal(np.isnan(a), np.isnan(e)):
        return float("inf")
    ok = ~np.isnan(e)
    if not ok.any():
        return 0.0
    scale = max(float(np.max(np.abs(e[ok]))), 1e-300)
    return float(np.max(np.abs(a[ok] - e[ok]))) / scale


def type_text(shape: tuple[int, ...], element: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"
