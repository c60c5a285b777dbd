"""chlo.erf and chlo.erfc on 0-d values: the 0-d kernel (and, in a scalar loop, its
Python line) is `math`'s function rounded once, as the array kernel's result for that
element is (chlo/special_math: the C library's function per element in double, rounded
once to the element type): the general evaluator's bits on NaN, the infinities, both
zeros, subnormals, values where erf is 1 and erfc underflows, ordinary values."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
import test_pyscalar_ops
from loop_helpers import run_loops

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
EDGES = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e-45, 6e-8, 1e-300,
         0.5, -0.5, 0.47693628, 1.0, 2.5, -2.5, 3.9, 5.9, 6.0, 9.0, 26.5, 27.3, -27.3, 65504.0,
         3.4e38, -3.4e38, 1e308]

# test_pyscalar_ops' map loop, its op a chlo one: each step writes {name}(h + xs[i]) to
# the output's element i.
MAP = test_pyscalar_ops.MAP.replace("%y = stablehlo.{name} %u : tensor<{t}>",
                                    "%y = chlo.{name} %u : tensor<{t}> -> tensor<{t}>")


def _values(t: str) -> np.ndarray:
    rng = np.random.default_rng(9)
    with np.errstate(all="ignore"):
        return np.concatenate([rng.standard_normal(700) * 10.0 ** rng.integers(-6, 2, 700),
                               rng.uniform(-6.0, 6.0, 300), EDGES]).astype(TYPES[t])


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_scalar_loop_lines(t: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    xs = _values(t)
    text = MAP.format(n=xs.size, t=t, name=name)
    got, sources = run_loops(text, [xs], True, monkeypatch)
    want = test_pyscalar_ops._general(text, [xs], monkeypatch)  # (no 0-d kernels, no loops)
    assert "chlo.{name}" in MAP
    assert "_cell[()] = " in "".join(sources) or t == "f64"
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()


@pytest.mark.parametrize("t", list(TYPES))
@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_zero_d_kernel(t: str, name: str) -> None:
    """The 0-d kernel (a Python-scalar loop's `unary` line calls its `scalar`) on each value
    alone, against the array kernel on all of them at once."""
    text = (f"func.func @main(%a: tensor<{t}>) -> tensor<{t}> {{\n"
            f"  %0 = chlo.{name} %a : tensor<{t}> -> tensor<{t}>\n  func.return %0 : tensor<{t}>\n}}\n")
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")
    xs = _values(t)
    got = np.array([interpreter.call(main, [np.asarray(x)])[0] for x in xs], TYPES[t])
    kernel = next(iter(interpreter._plans.values())).steps[0].fn
    assert kernel.scalar is not None  # (what makes pyscalar write the op as a line)
    from shlo_cli.dialects.chlo import special_math
    from shlo_cli.dialects.chlo.numeric import real_in_double

    want = real_in_double(name, getattr(special_math, name))(xs)
    assert got.tobytes() == want.tobytes()
