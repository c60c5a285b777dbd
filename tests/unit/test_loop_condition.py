"""A generated loop's condition steps that give the same values on every test (interpreter/
loopgen.py) run once per execution, before the first test: a line search's `f(x)` beside its
`f(x + t*d)`, bit for bit the general evaluator's results (NaN, -0.0, no trip, one trip,
many, a trip cap from an argument); steps reading a value the body changes, and effects,
stay in each test; a composite's decomposition inlined (inline.py) takes part."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

# while f(x + t*d) > f(x) + c*t*(g.d) and k < n: t = t * 0.5, k = k + 1
# f(v) = v.A.v + sum(log(cosh(v))) (cosh as jax's composite)
LINE_SEARCH = """
func.func @main(%x: tensor<8xf32>, %d: tensor<8xf32>, %a: tensor<8x8xf32>, %g: tensor<8xf32>, %t0: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %k0 = stablehlo.constant dense<0> : tensor<i32>
  %r:6 = stablehlo.while(%t = %t0, %k = %k0, %xx = %x, %dd = %d, %aa = %a, %gg = %g) : tensor<f32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>
  cond {
    %tb = stablehlo.broadcast_in_dim %t, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %td = stablehlo.multiply %tb, %dd : tensor<8xf32>
    %y = stablehlo.add %xx, %td : tensor<8xf32>
    %fy = func.call @f(%y, %aa) : (tensor<8xf32>, tensor<8x8xf32>) -> tensor<f32>
    %fx = func.call @f(%xx, %aa) : (tensor<8xf32>, tensor<8x8xf32>) -> tensor<f32>
    %gd = stablehlo.dot_general %gg, %dd, contracting_dims = [0] x [0] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
    %c = stablehlo.constant dense<1.0e-04> : tensor<f32>
    %ct = stablehlo.multiply %c, %t : tensor<f32>
    %ctg = stablehlo.multiply %ct, %gd : tensor<f32>
    %rhs = stablehlo.add %fx, %ctg : tensor<f32>
    %p = stablehlo.compare GT, %fy, %rhs, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %q = stablehlo.compare LT, %k, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %pq = stablehlo.and %p, %q : tensor<i1>
    stablehlo.return %pq : tensor<i1>
  } do {
    %h = stablehlo.constant dense<0.5> : tensor<f32>
    %t2 = stablehlo.multiply %t, %h : tensor<f32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k2 = stablehlo.add %k, %one : tensor<i32>
    stablehlo.return %t2, %k2, %xx, %dd, %aa, %gg : tensor<f32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}
func.func private @f(%v: tensor<8xf32>, %m: tensor<8x8xf32>) -> tensor<f32> {
  %mv = stablehlo.dot_general %m, %v, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %q = stablehlo.dot_general %v, %mv, contracting_dims = [0] x [0] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %ch = stablehlo.composite "chlo.cosh" %v {decomposition = @cosh_impl, version = 1 : i32} : (tensor<8xf32>) -> tensor<8xf32>
  %l = stablehlo.log %ch : tensor<8xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%l init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  %r = stablehlo.add %q, %s : tensor<f32>
  return %r : tensor<f32>
}
func.func private @cosh_impl(%v: tensor<8xf32>) -> tensor<8xf32> {
  %e = stablehlo.exponential %v : tensor<8xf32>
  %m = stablehlo.negate %v : tensor<8xf32>
  %em = stablehlo.exponential %m : tensor<8xf32>
  %s = stablehlo.add %e, %em : tensor<8xf32>
  %h = stablehlo.constant dense<0.5> : tensor<8xf32>
  %r = stablehlo.multiply %s, %h : tensor<8xf32>
  return %r : tensor<8xf32>
}
"""


def _args(seed: int, t0: float, n: int, special: float | None = None) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(8).astype(np.float32)
    if special is not None:
        x[seed % 8] = special
    d = -rng.standard_normal(8).astype(np.float32)
    a = rng.standard_normal((8, 8)).astype(np.float32)
    a = (a @ a.T / 8 + np.eye(8)).astype(np.float32)
    g = -d
    return [x, d, a, g, np.array(t0, np.float32), np.array(n, np.int32)]


def _same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    for a, b in zip(got, want, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("case", [
    (0, 1.0, 100, None), (1, 4.0, 100, None), (2, 1.0, 0, None),  # many; none (n = 0)
    (3, 1.0, 1, None), (4, 1e-30, 100, None),  # one (the cap); none (t tiny)
    (5, 1.0, 100, np.nan), (6, 1.0, 100, -0.0), (7, 1.0, 100, np.inf),
    (8, np.nan, 100, None), (9, -0.0, 100, None)])
def test_condition_invariants_give_the_evaluator_results(
        case: tuple[int, float, int, float | None], monkeypatch: pytest.MonkeyPatch) -> None:
    args = _args(*case)
    got, sources = run_loops(LINE_SEARCH, args, True, monkeypatch)
    want, _ = run_loops(LINE_SEARCH, args, False, monkeypatch)
    _same(got, want)
    (source,) = sources
    loop = source[source.index("while True:"):]
    # f(x)'s matrix product, its cosh's exponentials, log and sum and g.d: once, before
    # the first test; each test computes f(x + t*d)
    first = source[:source.index("while True:")]
    assert len(re.findall(r"\bci_v\d+ = ", first)) >= 8
    assert "ci_" not in "".join(line.split("=")[0] for line in loop.splitlines())
    assert loop.count("_K") < first.count("_K")


def test_the_first_test_reads_the_invariants_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop whose condition fails at once returns its operands, the invariants
    computed for that test alone."""
    args = _args(11, 1e-30, 100)
    got, _ = run_loops(LINE_SEARCH, args, True, monkeypatch)
    assert float(got[0]) == np.float32(1e-30) and int(got[1]) == 0


CHANGED = """
func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %k0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%v = %x, %k = %k0, %w = %x) : tensor<4xf32>, tensor<i32>, tensor<4xf32>
  cond {
    %e = stablehlo.exponential %v : tensor<4xf32>
    %f = stablehlo.exponential %w : tensor<4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %u = stablehlo.reduce(%f init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %m = stablehlo.multiply %u, %s : tensor<f32>
    %lim = stablehlo.constant dense<1.0e+06> : tensor<f32>
    %p = stablehlo.compare LT, %m, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %q = stablehlo.compare LT, %k, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %pq = stablehlo.and %p, %q : tensor<i1>
    stablehlo.return %pq : tensor<i1>
  } do {
    %h = stablehlo.constant dense<1.5> : tensor<4xf32>
    %v2 = stablehlo.multiply %v, %h : tensor<4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k2 = stablehlo.add %k, %one : tensor<i32>
    stablehlo.return %v2, %k2, %w : tensor<4xf32>, tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<i32>
}
"""


def test_steps_reading_changed_values_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    for n, special in ((100, None), (0, None), (1, None), (100, np.nan), (100, -0.0),
                       (3, np.inf)):
        x = rng.standard_normal(4).astype(np.float32)
        if special is not None:
            x[1] = special
        args = [x, np.array(n, np.int32)]
        got, sources = run_loops(CHANGED, args, True, monkeypatch)
        want, _ = run_loops(CHANGED, args, False, monkeypatch)
        _same(got, want)
        source = sources[0]
        first, loop = source[:source.index("while True:")], source[source.index("while True:"):]
        # exp(w) and its sum: before the loop; exp(v) and its sum: in each test
        assert "ci_K0(a2)" in first and "ci_K" not in loop
        assert "c_K0(a0)" in loop and "c_K2(c_v0" in loop


def test_a_wrong_argument_is_a_diagnostic() -> None:
    """An invariant step failing (a matrix of the wrong shape) is reported at its op."""
    interpreter = Interpreter(parse_source(LINE_SEARCH))
    args = _args(0, 1.0, 10)
    args[2] = np.ones((8, 3), np.float32)
    with pytest.raises(Diagnostic):
        interpreter.call(interpreter.lookup_function("main"), args)


def test_a_composite_is_planned_as_its_decomposition(monkeypatch: pytest.MonkeyPatch) -> None:
    """jax's chlo.cosh composite (no kernel of ours stands in for it): its ops, inlined."""
    from shlo_cli.interpreter import engine

    def plans(inline: bool) -> tuple[list[np.ndarray], list[str]]:
        with monkeypatch.context() as m:
            if not inline:
                m.setattr(engine, "inline_calls", lambda ops, lookup: list(ops))
            interpreter = Interpreter(parse_source(LINE_SEARCH))
            out = interpreter.call(interpreter.lookup_function("main"), _args(2, 3.0, 50))
        return out, [s.op.name for p in interpreter._plans.values() for s in p.steps]

    got, names = plans(True)
    want, plain = plans(False)
    _same(got, want)
    assert "stablehlo.composite" in plain and "stablehlo.composite" not in names
    assert names.count("stablehlo.negate") == 2  # cosh(x)'s and cosh(x + t*d)'s
