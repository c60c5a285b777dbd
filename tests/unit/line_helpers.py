"""A 0-d op's Python lines (interpreter/pyscalar.py) run as a function and checked against
the op's own 0-d kernel, element by element (the scalar-line tests)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from shlo_cli.interpreter import pyscalar
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

DTYPES = {"bf16": np.dtype(ml_dtypes.bfloat16), "f16": np.dtype(np.float16),
          "f32": np.dtype(np.float32), "f64": np.dtype(np.float64), "i8": np.dtype(np.int8),
          "i32": np.dtype(np.int32), "i64": np.dtype(np.int64), "ui8": np.dtype(np.uint8),
          "ui64": np.dtype(np.uint64), "i1": np.dtype(np.bool_), "i16": np.dtype(np.int16),
          "ui16": np.dtype(np.uint16), "ui32": np.dtype(np.uint32)}
BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def planned_step(op: str, ins: list[str], out: str) -> Any:
    """The planned step (its op and its bound 0-d kernel) of `%y = op` on 0-d arguments."""
    params = ", ".join(f"%a{i}: tensor<{t}>" for i, t in enumerate(ins))
    text = f"func.func @main({params}) -> tensor<{out}> {{\n  %y = {op}\n  return %y : tensor<{out}>\n}}"
    interpreter = Interpreter(parse_source(text))
    with np.errstate(all="ignore"):
        interpreter.call(interpreter.lookup_function("main"), [np.zeros((), DTYPES[t]) for t in ins])
    return next(iter(interpreter._plans.values())).steps[0]


def line_function(step: Any) -> tuple[str, Callable[..., Any], str]:
    """(the step's pyscalar tag, a function of Python scalars running its lines, the lines)."""
    tag = pyscalar.classify(step)
    assert tag is not None, step.op.name
    arity = len(step.op.operands)
    ns: dict[str, Any] = {}
    lines = pyscalar.expression(tag, step, [f"x{i}" for i in range(arity)], "t", ns, "K")
    params = ", ".join(f"x{i}" for i in range(arity))
    body = "\n".join(f"    {line}" for line in lines)
    exec(f"def f({params}):\n{body}\n    return t\n", ns)  # noqa: S102
    return tag, ns["f"], "\n".join(lines)


def exact_as_float(x: np.ndarray) -> np.ndarray:
    """Which float elements a Python float carries exactly (not the signalling NaNs whose
    quiet bit float(x) may set); every integer."""
    if x.dtype.kind in "iub":
        return np.ones(x.shape, bool)
    to = pyscalar.Kind(x.dtype).to_numpy
    return np.array([np.asarray(to(float(v))).tobytes() == np.asarray(v).tobytes() for v in x],
                    bool)


def check_lines(step: Any, *columns: np.ndarray) -> str:
    """The step's lines give its kernel's results on the elements of `columns` (its
    operands); quieting tags on every element, the others where float(x) is exact; a tag
    whose results are never clean (pyscalar.UNCLEAN: never converted back) the Python float
    of the kernel's result. Returns the lines."""
    tag, f, lines = line_function(step)
    result = pyscalar.kind_of(step.op.results[0])
    kinds = [pyscalar.kind_of(v) for v in step.op.operands]
    assert result is not None and all(k is not None for k in kinds)
    keep = np.ones(columns[0].shape, bool)
    if tag not in pyscalar.QUIETING:
        for c in columns:
            keep &= exact_as_float(c)
    bad = []
    with np.errstate(all="ignore"):
        for i in np.flatnonzero(keep):
            xs = [c[i] for c in columns]
            want = np.asarray(step.fn(*xs))
            got = f(*[k.to_py(x) for k, x in zip(kinds, xs, strict=True)])  # type: ignore[union-attr]
            if tag in pyscalar.UNCLEAN:  # (the doubles' bits)
                want = np.asarray(float(want))
                got = np.asarray(got, np.float64)
            else:
                got = np.asarray(result.to_numpy(got))
            if got.dtype != want.dtype or got.tobytes() != want.tobytes():
                bad.append((xs, got, want))
    assert not bad, (lines, len(bad), bad[:5])
    return lines
