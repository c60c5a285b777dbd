"""While loops compiled into one function (interpreter/loopgen.py): the same results as the
evaluator running the region callables, bit for bit (NaN, -0.0, loops that never run their
body, one carried value, nested loops, values captured by nested regions); the iteration
cap, the deadline and a failing op inside the body reported as before."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import time

import numpy as np
import pytest

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir import limits
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

SCAN = """
func.func @main(%xs: tensor<6xf32>, %w: tensor<3xf32>, %n: tensor<i32>, %m: tensor<4xf32>) -> (tensor<f32>, tensor<i32>, tensor<4xf32>, tensor<6xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r:5 = stablehlo.while(%i = %c0, %h = %z, %xx = %xs, %ww = %w, %acc = %m) : tensor<i32>, tensor<f32>, tensor<6xf32>, tensor<3xf32>, tensor<4xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %s0 = stablehlo.slice %ww [0:1] : (tensor<3xf32>) -> tensor<1xf32>
      %w0 = stablehlo.reshape %s0 : (tensor<1xf32>) -> tensor<f32>
      %s1 = stablehlo.slice %ww [1:2] : (tensor<3xf32>) -> tensor<1xf32>
      %w1 = stablehlo.reshape %s1 : (tensor<1xf32>) -> tensor<f32>
      %x = stablehlo.dynamic_slice %xx, %i, sizes = [1] : (tensor<6xf32>, tensor<i32>) -> tensor<1xf32>
      %xr = stablehlo.reshape %x : (tensor<1xf32>) -> tensor<f32>
      %a = stablehlo.multiply %w0, %h : tensor<f32>
      %b = stablehlo.multiply %w1, %xr : tensor<f32>
      %c = stablehlo.add %a, %b : tensor<f32>
      %t = stablehlo.tanh %c : tensor<f32>
      %bc = stablehlo.broadcast_in_dim %t, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %sum = "stablehlo.reduce"(%acc, %t) ({
        ^bb0(%p: tensor<f32>, %q: tensor<f32>):
          %pq = stablehlo.add %p, %q : tensor<f32>
          %pt = stablehlo.multiply %pq, %t : tensor<f32>
          stablehlo.return %pt : tensor<f32>
      }) {dimensions = array<i64>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      %acc2 = stablehlo.add %sum, %bc : tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %t, %xx, %ww, %acc2 : tensor<i32>, tensor<f32>, tensor<6xf32>, tensor<3xf32>, tensor<4xf32>
    }
  return %r#1, %r#0, %r#4, %r#2 : tensor<f32>, tensor<i32>, tensor<4xf32>, tensor<6xf32>
}
"""

ONE = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = stablehlo.while(%h = %x) : tensor<3xf32>
    cond {
      %k = stablehlo.constant dense<10.0> : tensor<f32>
      %e = stablehlo.slice %h [0:1] : (tensor<3xf32>) -> tensor<1xf32>
      %s = stablehlo.reshape %e : (tensor<1xf32>) -> tensor<f32>
      %lt = stablehlo.compare LT, %s, %k, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %two = stablehlo.constant dense<2.0> : tensor<3xf32>
      %d = stablehlo.multiply %h, %two : tensor<3xf32>
      %e = stablehlo.exponential %d : tensor<3xf32>
      %l = stablehlo.log %e : tensor<3xf32>
      %n = stablehlo.add %l, %two : tensor<3xf32>
      stablehlo.return %n : tensor<3xf32>
    }
  return %r : tensor<3xf32>
}
"""


def _run(text: str, args: list[np.ndarray], compiled: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], Interpreter]:
    with monkeypatch.context() as m:
        if not compiled:
            m.setattr(engine, "_compilable_loop", lambda op: False)
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            out = [interpreter.call(main, args) for _ in range(2)][-1]  # warm: plans reused
    return [np.asarray(o) for o in out], interpreter


def _same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _compiled_loops(interpreter: Interpreter) -> int:
    """How many while ops run as generated loops (their condition's and body's plans are
    kept without a function of their own)."""
    return sum(1 for plan in interpreter._plans.values() if plan.compiled is None) // 2


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [-1, 0, 1, 6, 9])
def test_compiled_loop_matches_the_evaluator(n: int, seed: int,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    xs = (rng.standard_normal(6) * 3).astype(np.float32)
    w = rng.standard_normal(3).astype(np.float32)
    m = rng.standard_normal(4).astype(np.float32)
    if seed == 1:
        xs[2], m[0], w[2] = np.nan, -0.0, -0.0
    if seed == 2:
        xs[:] = -0.0
        w[:] = [np.inf, -np.inf, np.nan]
    args = [xs, w, np.array(n, np.int32), m]
    got, interpreter = _run(SCAN, args, True, monkeypatch)
    want, _ = _run(SCAN, args, False, monkeypatch)
    _same(got, want)
    assert _compiled_loops(interpreter) == 1


@pytest.mark.parametrize("start", [[0.5, -0.0, 3.0], [11.0, 1.0, 1.0], [np.nan, 1.0, 2.0],
                                   [3.0, np.inf, -np.inf]])
def test_one_carried_value(start: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.array(start, np.float32)
    got, _ = _run(ONE, [x], True, monkeypatch)
    want, _ = _run(ONE, [x], False, monkeypatch)
    _same(got, want)


NESTED = """
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %x, %t = %c0) : tensor<i32>, tensor<2xf32>, tensor<i32>
    cond {
      %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %q:3 = stablehlo.while(%k = %c0, %g = %h, %u = %t) : tensor<i32>, tensor<2xf32>, tensor<i32>
      cond {
        %p2 = stablehlo.compare LE, %k, %i, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %p2 : tensor<i1>
      } do {
        %g2 = stablehlo.multiply %g, %h : tensor<2xf32>
        %g3 = stablehlo.subtract %g2, %x : tensor<2xf32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %k2 = stablehlo.add %k, %one : tensor<i32>
        %u2 = stablehlo.add %u, %k2 : tensor<i32>
        stablehlo.return %k2, %g3, %u2 : tensor<i32>, tensor<2xf32>, tensor<i32>
      }
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %q#1, %q#2 : tensor<i32>, tensor<2xf32>, tensor<i32>
    }
  return %r#1, %r#2 : tensor<2xf32>, tensor<i32>
}
"""


def test_nested_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.array([0.75, -0.0], np.float32)
    got, interpreter = _run(NESTED, [x], True, monkeypatch)
    want, _ = _run(NESTED, [x], False, monkeypatch)
    _same(got, want)
    assert _compiled_loops(interpreter) == 2


def _counting_loop(step: str) -> str:
    """A loop of `%n` iterations whose body computes `%bad = <step>` from the carried `%h`."""
    return f"""
func.func @main(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32> {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %h = %x) : tensor<i32>, tensor<2xf32>
    cond {{
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }} do {{
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      %bad = {step} : (tensor<2xf32>) -> tensor<2xf32>
      stablehlo.return %j, %bad : tensor<i32>, tensor<2xf32>
    }}
  return %r#1 : tensor<2xf32>
}}
"""


FAILING = _counting_loop('"stablehlo.custom_call"(%h) {call_target_name = "no_such_target"}')


@pytest.mark.parametrize("compiled", [True, False])
def test_a_failing_op_in_the_body_is_located_at_its_line(
        compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.ones(2, np.float32)
    with monkeypatch.context() as m:
        if not compiled:
            m.setattr(engine, "_compilable_loop", lambda op: False)
        interpreter = Interpreter(parse_source(FAILING))
        main = interpreter.lookup_function("main")
        np.testing.assert_array_equal(interpreter.call(main, [x, np.int32(0)])[0], x)
        with pytest.raises(Diagnostic) as info:
            interpreter.call(main, [x, np.int32(2)])
    assert ":11:" in str(info.value) and "no_such_target" in str(info.value)


@pytest.mark.parametrize("compiled", [True, False])
def test_the_iteration_cap_is_the_while_ops_error(compiled: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    args = [np.zeros(6, np.float32), np.ones(3, np.float32), np.array(50, np.int32),
            np.zeros(4, np.float32)]
    with monkeypatch.context() as m:
        if not compiled:
            m.setattr(engine, "_compilable_loop", lambda op: False)
        interpreter = Interpreter(parse_source(SCAN))
        main = interpreter.lookup_function("main")
        with limits.iteration_cap(50):
            interpreter.call(main, args)  # exactly the cap: runs
        with limits.iteration_cap(49), pytest.raises(Diagnostic) as info:
            interpreter.call(main, args)
    assert "while loop exceeded 49 iterations" in str(info.value)
    assert ":5:" in str(info.value)  # the while op's line


def test_a_passed_deadline_stops_the_loop() -> None:
    interpreter = Interpreter(parse_source(SCAN))
    main = interpreter.lookup_function("main")
    args = [np.zeros(6, np.float32), np.ones(3, np.float32), np.array(10**9, np.int32),
            np.zeros(4, np.float32)]
    interpreter.call(main, [*args[:2], np.array(1, np.int32), args[3]])  # planned
    interpreter.deadline, interpreter.time_limit = time.monotonic() + 0.05, 0.05
    with pytest.raises(Diagnostic) as info:
        interpreter.call(main, args)
    assert "timed out after 0.05 s while evaluating" in str(info.value)


UNSUPPORTED = _counting_loop('"test.no_such_op"(%h)')


def test_a_body_that_cannot_be_planned_fails_only_when_it_runs() -> None:
    interpreter = Interpreter(parse_source(UNSUPPORTED, allow_unregistered=True))
    main = interpreter.lookup_function("main")
    x = np.ones(2, np.float32)
    for _ in range(2):
        np.testing.assert_array_equal(interpreter.call(main, [x, np.int32(0)])[0], x)
    with pytest.raises(Diagnostic, match="Unsupported op: test.no_such_op"):
        interpreter.call(main, [x, np.int32(1)])


ELEMENT_CAPTURED = """
func.func @main(%vec: tensor<4xf32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %zero) : tensor<i32>, tensor<f32>
  cond {
    %p = stablehlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %s = stablehlo.dynamic_slice %vec, %i, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
    %lim = stablehlo.reshape %s : (tensor<1xf32>) -> tensor<f32>
    %inner = stablehlo.while(%x = %acc) : tensor<f32>
    cond {
      %q = stablehlo.compare LT, %x, %lim : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %q : tensor<i1>
    } do {
      %y = stablehlo.add %x, %one : tensor<f32>
      stablehlo.return %y : tensor<f32>
    }
    %n = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %n, %inner : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}
"""


def test_an_element_read_by_a_python_int_that_a_nested_loop_reads() -> None:
    """`vec[i]` at the outer loop's scalar counter, read only by the inner loop's
    condition (as canonicalize leaves jax's odeint): the frame holds it for the inner
    loop's plan."""
    interpreter = Interpreter(parse_source(ELEMENT_CAPTURED))
    main = interpreter.lookup_function("main")
    vec = np.array([1.5, 2.0, 4.0, 9.0], np.float32)
    for _ in range(2):  # planned, then run from the plan
        [out] = interpreter.call(main, [vec])
        assert np.asarray(out) == np.float32(4.0)  # 0 -> 2 (< 1.5), 2 (< 2.0), 4 (< 4.0)
