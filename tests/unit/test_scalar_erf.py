"""chlo.erf and chlo.erfc on 0-d values: the 0-d kernel (and, in a scalar loop, its
Python line) is `math`'s function rounded once, as the array kernel's result for that
element is (chlo/special_math: the C library's function per element in double, rounded
once to the element type): the general evaluator's bits on NaN, the infinities, both
zeros, subnormals, values where erf is 1 and erfc underflows, ordinary values."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.dialects.stablehlo.specialize_scalar import bind_scalar
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
EDGES = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e-45, 6e-8, 1e-300,
         0.5, -0.5, 0.47693628, 1.0, 2.5, -2.5, 3.9, 5.9, 6.0, 9.0, 26.5, 27.3, -27.3, 65504.0,
         3.4e38, -3.4e38, 1e308]

# Each step writes {name}(h + xs[i]) to the output's element i (h: a carried 0.0 the step
# selects anew, so that the step runs on Python scalars).
MAP = """
func.func @main(%xs: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : tensor<{t}>
  %o0 = stablehlo.constant dense<0.0> : tensor<{n}x{t}>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %o = %o0) : tensor<i32>, tensor<{t}>, tensor<{n}x{t}>
    cond {{
      %cn = stablehlo.constant dense<{n}> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %cn, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<{n}x{t}>, tensor<i32>) -> tensor<1x{t}>
      %x = stablehlo.reshape %x0 : (tensor<1x{t}>) -> tensor<{t}>
      %u = stablehlo.add %h, %x : tensor<{t}>
      %y = chlo.{name} %u : tensor<{t}> -> tensor<{t}>
      %y1 = stablehlo.reshape %y : (tensor<{t}>) -> tensor<1x{t}>
      %o2 = stablehlo.dynamic_update_slice %o, %y1, %i : (tensor<{n}x{t}>, tensor<1x{t}>, tensor<i32>) -> tensor<{n}x{t}>
      %never = stablehlo.compare LT, %y, %y, FLOAT : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
      %h2 = stablehlo.select %never, %y, %h0 : tensor<i1>, tensor<{t}>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %o2 : tensor<i32>, tensor<{t}>, tensor<{n}x{t}>
    }}
  return %r#2 : tensor<{n}x{t}>
}}
"""


def _values(t: str) -> np.ndarray:
    rng = np.random.default_rng(9)
    with np.errstate(all="ignore"):
        return np.concatenate([rng.standard_normal(700) * 10.0 ** rng.integers(-6, 2, 700),
                               rng.uniform(-6.0, 6.0, 300), EDGES]).astype(TYPES[t])


def _without_scalar_kernels(text: str, args: list[Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    saved = list(engine.BIND_HOOKS)
    engine.BIND_HOOKS[:] = [h for h in saved if h is not bind_scalar]  # (the registry's list)
    try:
        return run_loops(text, args, False, monkeypatch)[0]
    finally:
        engine.BIND_HOOKS[:] = saved


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_scalar_loop_lines(t: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    xs = _values(t)
    text = MAP.format(n=xs.size, t=t, name=name)
    got, sources = run_loops(text, [xs], True, monkeypatch)
    want = _without_scalar_kernels(text, [xs], monkeypatch)
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
