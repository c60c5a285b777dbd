"""Running a program with the loop generator on or off (the generated-loop tests), and
programs to run: a recurrence, a map of an op over a vector (one or two operands)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def run_loops(text: str, args: list[Any], compiled: bool,
              monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[str]]:
    """main's results on its second call (plans kept from the first), with `while` loops
    compiled to Python (the generated sources collected) or, when not `compiled`, run by
    the general evaluator; the first call's results must be the same bits (a first call
    runs other code: a loop compiled while it runs, a table not yet made)."""
    sources: list[str] = []
    with monkeypatch.context() as m:
        if compiled:
            build = engine.compile_loop

            def spy(*a: Any, **k: Any) -> Any:
                loop = build(*a, **k)
                sources.append(loop.source)
                return loop
            m.setattr(engine, "compile_loop", spy)
        else:
            m.setattr(engine, "_compilable_loop", lambda op: False)
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            first, out = [interpreter.call(main, list(args)) for _ in range(2)]
    assert [_bits(v) for v in first] == [_bits(v) for v in out]
    return out, sources


def _bits(value: Any) -> tuple[str, tuple[int, ...], bytes]:
    array = np.ascontiguousarray(value)
    return array.dtype.str, array.shape, array.tobytes()


def run_with_sources(text: str, args: list[Any],
                     m: pytest.MonkeyPatch) -> tuple[list[Any], str]:
    """main's results on its first call, and the source of every plan and loop it compiled
    (joined), spying through `m`, an active monkeypatch context."""
    from shlo_cli.interpreter import codegen

    sources: list[str] = []
    original = codegen.Source.compile

    def spy(self: codegen.Source, *a: Any, **k: Any) -> Any:
        sources.append("\n".join(self.src))
        return original(self, *a, **k)
    m.setattr(codegen.Source, "compile", spy)
    interpreter = Interpreter(parse_source(text))
    out = interpreter.call(interpreter.lookup_function("main"), list(args))
    return list(out), "\n".join(sources)


def recurrence(t: int, h: int, e: str, weights: dict[str, str], cell: str) -> str:
    """main(%xs: t x 1 x h, %h0: 1 x h, then the `weights`, name -> type) -> the last
    state: a while loop over the rows %x of xs carrying the state %hh and the weights
    (unchanged, %<name>_ in the body); `cell`'s lines define %hn, the next state."""
    v = f"tensor<1x{h}x{e}>"
    params = "".join(f", %{n}: {ty}" for n, ty in weights.items())
    carried = "".join(f", %{n}_ = %{n}" for n in weights)
    types = "".join(f", {ty}" for ty in weights.values())
    passed = "".join(f", %{n}_" for n in weights)
    return f"""
func.func @main(%xs: tensor<{t}x1x{h}x{e}>, %h0: {v}{params}) -> {v} {{
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:{2 + len(weights)} = stablehlo.while(%i = %i0, %hh = %h0{carried}) : tensor<i32>, {v}{types}
  cond {{
    %n = stablehlo.constant dense<{t}> : tensor<i32>
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }} do {{
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, 1, {h}] : (tensor<{t}x1x{h}x{e}>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x{h}x{e}>
    %x = stablehlo.reshape %row : (tensor<1x1x{h}x{e}>) -> {v}{cell}
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %hn{passed} : tensor<i32>, {v}{types}
  }}
  return %r#1 : {v}
}}
"""


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
      %y = stablehlo.{name} %u : tensor<{t}>
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


# MAP with a second operand %p read from %ps; the op's result %yp feeds a subtraction (a
# result left unrounded would show)
BINARY = MAP.replace("%xs: tensor<{n}x{t}>)", "%xs: tensor<{n}x{t}>, %ps: tensor<{n}x{t}>)").replace(
    "      %y = stablehlo.{name} %u : tensor<{t}>",
    "      %p0 = stablehlo.dynamic_slice %ps, %i, sizes = [1] : (tensor<{n}x{t}>, tensor<i32>) -> tensor<1x{t}>\n"
    "      %p = stablehlo.reshape %p0 : (tensor<1x{t}>) -> tensor<{t}>\n"
    "      %yp = stablehlo.{name} %u, %p : tensor<{t}>\n"
    "      %y = stablehlo.subtract %yp, %p : tensor<{t}>")
