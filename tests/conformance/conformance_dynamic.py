"""The `dynamic` conformance suite: upstream's testdata/dynamic programs have no expected values
and no interpret RUN line, so each one only has to RUN.

Inputs come from the entry function's signature: every `?` dimension and every i64 scalar
(JAX's dimension variables) becomes DYNAMIC_SIZE, floats are 1, other integers 0, booleans
true. The program runs in the lit worker's own process (no subprocess per file) and passes
when it finishes without a diagnostic and its results have the static dimensions and element
types its signature declares.
"""

from __future__ import annotations

import signal
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

DYNAMIC_SIZE = 3


class ProgramTimeout(BaseException):
    """The program ran past its time limit (a BaseException, so kernels cannot swallow it)."""


def input_value(type_: Any, size: int = DYNAMIC_SIZE) -> np.ndarray:
    """An input for one entry-function parameter of tensor type `type_`."""
    from shlo_cli.ir.types import DYNAMIC, IntegerType, numpy_dtype

    shape = tuple(size if d == DYNAMIC else d for d in type_.shape)
    dtype = numpy_dtype(type_.element)
    element = type_.element
    if isinstance(element, IntegerType) and element.width == 64 and not shape:
        fill: Any = size  # a dimension variable: the size the `?` dimensions were given
    elif dtype == np.bool_:
        fill = True
    elif np.issubdtype(dtype, np.integer):
        fill = 0
    else:
        fill = 1
    return np.full(shape, fill, dtype=dtype)


def dynamic_inputs(func: Any, size: int = DYNAMIC_SIZE) -> list[Any]:
    """The entry function's arguments, with the types its signature specialises to."""
    from shlo_cli.interpreter.run import Argument
    from shlo_cli.ir.types import TensorType

    arguments = []
    for index, expected in enumerate(func.attr("function_type").value.inputs):
        if not isinstance(expected, TensorType):
            raise ValueError(f"input {index} has non-tensor type {expected}")
        value = input_value(expected, size)
        arguments.append(Argument(value, expected.with_shape(value.shape)))
    return arguments


def result_problems(results: list[tuple[Any, Any]]) -> list[str]:
    """Results whose shape or element type disagrees with the declared result type."""
    from shlo_cli.ir.types import DYNAMIC, TensorType, UnsupportedTypeError, numpy_dtype

    problems = []
    for index, (value, declared) in enumerate(results):
        if not isinstance(declared, TensorType):
            continue
        shape = np.shape(value)
        if len(shape) != len(declared.shape) or any(
                d != DYNAMIC and d != s for d, s in zip(declared.shape, shape, strict=False)):
            problems.append(f"result {index} has shape {shape}, declared {declared}")
            continue
        try:
            dtype = numpy_dtype(declared.element)
        except UnsupportedTypeError:
            continue
        if np.asarray(value).dtype != dtype:
            problems.append(f"result {index} has dtype {np.asarray(value).dtype}, "
                            f"declared {declared}")
    return problems


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ProgramTimeout after `seconds` of wall time (main thread only; else no limit)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise ProgramTimeout(f"time limit of {seconds:g}s exceeded")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_program(path: str, size: int = DYNAMIC_SIZE, seconds: float = 0) -> str | None:
    """Run one program on inputs made from its signature; None if it passed, else why not."""
    from shlo_cli.interpreter.engine import EvaluationError, entry_function
    from shlo_cli.interpreter.run import evaluate
    from shlo_cli.ir.diagnostics import Diagnostic, ShloError
    from shlo_cli.ir.parser import parse_source

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with time_limit(seconds), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            module = parse_source(text, path)
            arguments = dynamic_inputs(entry_function(module), size)
            results = evaluate(module, arguments, stdout=_Discard())
    except Diagnostic as e:
        return e.render()
    except (ShloError, EvaluationError, OSError, ValueError) as e:
        return f"error: {e}"
    except ProgramTimeout as e:
        return f"error: {e}"
    except RecursionError:
        return "error: program nests too deeply to interpret"
    except Exception as e:  # noqa: BLE001 - an interpreter bug is a failure, not a crash
        return f"error: internal error: {type(e).__name__}: {e}"
    problems = result_problems(results)
    return "\n".join(problems) if problems else None


class _Discard:
    """A stdout for `interpreter.print` output nobody checks."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
