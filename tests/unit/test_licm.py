"""Loop-invariant ops of while bodies evaluated once per loop execution (interpreter/licm.py):
the same results as evaluating them every iteration, bit for bit; recomputed for each
execution (a function called twice with other weights), not evaluated by a loop that never
runs its body, nested loops, values updated by the loop never moved."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

PROGRAM = """
func.func @main(%w: tensor<3x4xf32>, %b: tensor<4xf32>, %n: tensor<i32>, %w2: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %h0 = stablehlo.constant dense<0.5> : tensor<4xf32>
  %r1 = func.call @scan(%w, %b, %n, %h0) : (tensor<3x4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  %r2 = func.call @scan(%w2, %r1, %n, %r1) : (tensor<3x4xf32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  return %r1, %r2 : tensor<4xf32>, tensor<4xf32>
}
func.func @scan(%w: tensor<3x4xf32>, %b: tensor<4xf32>, %n: tensor<i32>, %h0: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %outside = stablehlo.negate %b : tensor<4xf32>
  %r:4 = stablehlo.while(%i = %c0, %h = %h0, %ww = %w, %bb = %b) : tensor<i32>, tensor<4xf32>, tensor<3x4xf32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %row = stablehlo.slice %ww [1:2, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %v = stablehlo.reshape %row : (tensor<1x4xf32>) -> tensor<4xf32>
    %t = stablehlo.transpose %ww, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %two = stablehlo.constant dense<2.0> : tensor<4xf32>
    %s = stablehlo.multiply %v, %two : tensor<4xf32>
    %bias = stablehlo.add %bb, %outside : tensor<4xf32>
    %e = stablehlo.exponential %s : tensor<4xf32>
    %col = stablehlo.slice %t [0:4, 2:3] : (tensor<4x3xf32>) -> tensor<4x1xf32>
    %c = stablehlo.reshape %col : (tensor<4x1xf32>) -> tensor<4xf32>
    %m = stablehlo.multiply %h, %e : tensor<4xf32>
    %a = stablehlo.add %m, %c : tensor<4xf32>
    %a2 = stablehlo.add %a, %bias : tensor<4xf32>
    %hn = stablehlo.tanh %a2 : tensor<4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %hn, %ww, %bb : tensor<i32>, tensor<4xf32>, tensor<3x4xf32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
"""


def _run(text: str, args: list[np.ndarray], licm: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], list[str]]:
    with monkeypatch.context() as m:
        if not licm:
            m.setattr(engine, "find_invariants", lambda op, ops: None)
        interpreter = Interpreter(parse_source(text))
        with np.errstate(all="ignore"):
            out = interpreter.call(interpreter.lookup_function("main"), args)
    names = [step.op.name for plan in interpreter._plans.values() for step in plan.steps]
    return [np.asarray(o) for o in out], names


def _check_moved(text: str, args: list[np.ndarray], moved: dict[str, int],
                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The results with the moves are those without, bit for bit; when the loop runs, the
    plans hold `moved[name]` fewer steps of each op `name` (stablehlo.name)."""
    got, names = _run(text, args, True, monkeypatch)
    want, plain = _run(text, args, False, monkeypatch)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if int(args[-1]):  # (the step count is the last argument)
        for name, count in moved.items():
            assert plain.count(f"stablehlo.{name}") - names.count(f"stablehlo.{name}") == count, name


@pytest.mark.parametrize("steps", [0, 1, 5])
def test_invariants_moved_out_of_the_loop(steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(steps)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    w[1, 0], w[0, 2] = np.nan, -0.0
    args = [w, rng.standard_normal(4).astype(np.float32), np.array(steps, np.int32),
            (rng.standard_normal((3, 4)) * 3).astype(np.float32)]
    got, names = _run(PROGRAM, args, True, monkeypatch)
    want, plain = _run(PROGRAM, args, False, monkeypatch)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if steps:
        # slice, reshape, transpose, multiply, add (of an outside value), exponential, slice,
        # reshape: out of the body; the ops on the loop's own values stay
        for name, moved in (("stablehlo.transpose", 1), ("stablehlo.exponential", 1),
                            ("stablehlo.slice", 2), ("stablehlo.tanh", 0)):
            assert plain.count(name) - names.count(name) == moved, name


NESTED = """
func.func @main(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %x, %ww = %w) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %sq = stablehlo.multiply %ww, %ww : tensor<4xf32>
    %q:3 = stablehlo.while(%k = %c0, %g = %h, %s = %sq) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
    cond {
      %p2 = stablehlo.compare LT, %k, %i, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p2 : tensor<i1>
    } do {
      %n = stablehlo.negate %s : tensor<4xf32>
      %hn = stablehlo.multiply %h, %ww : tensor<4xf32>
      %g2 = stablehlo.add %g, %n : tensor<4xf32>
      %g3 = stablehlo.add %g2, %hn : tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %k2 = stablehlo.add %k, %one : tensor<i32>
      stablehlo.return %k2, %g3, %s : tensor<i32>, tensor<4xf32>, tensor<4xf32>
    }
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %h2 = stablehlo.tanh %q#1 : tensor<4xf32>
    stablehlo.return %j, %h2, %ww : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
"""


def test_nested_loops_read_the_outer_iteration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner loop's invariants read the outer body's values (%h changes per outer
    iteration): recomputed for each execution of the inner loop."""
    rng = np.random.default_rng(7)
    args = [rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)]
    got, names = _run(NESTED, args, True, monkeypatch)
    want, plain = _run(NESTED, args, False, monkeypatch)
    assert got[0].tobytes() == want[0].tobytes()
    assert names.count("stablehlo.negate") == 0 and plain.count("stablehlo.negate") == 1


MASKED = """
func.func @main(%q: tensor<6xf32>, %lo: tensor<6xi32>, %n: tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = stablehlo.while(%i = %c0, %h = %q, %qq = %q, %k = %lo) : tensor<i32>, tensor<6xf32>, tensor<6xf32>, tensor<6xi32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %zero = stablehlo.constant dense<0.0> : tensor<6xf32>
    %nan = stablehlo.constant dense<0x7FC00000> : tensor<6xf32>
    %z = stablehlo.compare EQ, %qq, %zero, FLOAT : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %c = stablehlo.select %z, %zero, %qq : tensor<6xi1>, tensor<6xf32>
    %isnan = stablehlo.compare NE, %qq, %qq, FLOAT : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %canon = stablehlo.select %isnan, %nan, %c : tensor<6xi1>, tensor<6xf32>
    %notnan = stablehlo.not %isnan : tensor<6xi1>
    %both = stablehlo.and %notnan, %z : tensor<6xi1>
    %le = stablehlo.compare LE, %h, %canon, TOTALORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %pick = stablehlo.or %le, %both : tensor<6xi1>
    %half = stablehlo.constant dense<0.5> : tensor<6xf32>
    %hm = stablehlo.multiply %h, %half : tensor<6xf32>
    %hn = stablehlo.select %pick, %hm, %canon : tensor<6xi1>, tensor<6xf32>
    %one = stablehlo.constant dense<1> : tensor<6xi32>
    %k2 = stablehlo.add %k, %one : tensor<6xi32>
    %kn = stablehlo.select %pick, %k2, %k : tensor<6xi1>, tensor<6xi32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %hn, %qq, %kn : tensor<i32>, tensor<6xf32>, tensor<6xf32>, tensor<6xi32>
  }
  return %r#1, %r#3 : tensor<6xf32>, tensor<6xi32>
}
"""


@pytest.mark.parametrize("steps", [0, 1, 4])
def test_masks_of_invariant_values_moved(steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """jnp.searchsorted's step: compares, selects and mask logic on the loop's unchanged
    queries (NaN, -0.0, +0.0, infinities among them) run once; those reading the carried
    state stay, and the results are the per-iteration ones bit for bit."""
    q = np.array([np.nan, -0.0, 0.0, np.inf, -1.5, 2.0], np.float32)
    args = [q, np.arange(6, dtype=np.int32), np.array(steps, np.int32)]
    _check_moved(MASKED, args, {"compare": 2, "select": 2, "not": 1, "and": 1, "or": 0},
                 monkeypatch)


UNARY = ("floor", "ceil", "round_nearest_even", "round_nearest_afz", "sine", "cosine", "tan",
         "cbrt", "exponential_minus_one", "log_plus_one", "sign")
BINARY = ("power", "remainder", "atan2")


def _math_program() -> str:
    """A loop adding f(q) for each float op f on its unchanged operands %q, %p to %h."""
    t = "tensor<8xf32>"
    lines = [f"%u{k} = stablehlo.{name} %qq : {t}" for k, name in enumerate(UNARY)]
    lines += [f"%b{k} = stablehlo.{name} %qq, %pp : {t}" for k, name in enumerate(BINARY)]
    lines += [f"%cl = stablehlo.clamp %lo, %qq, %pp : (tensor<f32>, {t}, {t}) -> {t}",
              f"%fin = stablehlo.is_finite %qq : ({t}) -> tensor<8xi1>",
              f"%fz = stablehlo.select %fin, %qq, %pp : tensor<8xi1>, {t}"]
    terms = [f"%u{k}" for k in range(len(UNARY))] + [f"%b{k}" for k in range(len(BINARY))]
    previous = "%h"
    for k, term in enumerate(terms + ["%cl", "%fz"]):
        lines.append(f"%s{k} = stablehlo.add {previous}, {term} : {t}")
        previous = f"%s{k}"
    body = "\n    ".join(lines)
    return f"""
func.func @main(%q: {t}, %p: {t}, %lo: tensor<f32>, %n: tensor<i32>) -> {t} {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : {t}
  %r:4 = stablehlo.while(%i = %c0, %h = %h0, %qq = %q, %pp = %p) : tensor<i32>, {t}, {t}, {t}
  cond {{
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }} do {{
    {body}
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, {previous}, %qq, %pp : tensor<i32>, {t}, {t}, {t}
  }}
  return %r#1 : {t}
}}
"""


@pytest.mark.parametrize("steps", [0, 1, 3])
def test_float_math_of_invariant_values_moved(steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Roundings, trigonometry, powers, fmod, atan2, clamp and is_finite of the loop's
    unchanged operands (NaN, both zeros, infinities, halves, negative bases among them)
    run once; the results are the per-iteration ones bit for bit."""
    q = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, -2.5, 0.5, 3.75], np.float32)
    p = np.array([2.0, -0.0, 0.5, 1.5, -np.inf, 3.0, np.nan, -1.25], np.float32)
    args = [q, p, np.array(-1.0, np.float32), np.array(steps, np.int32)]
    moved = {name: 1 for name in (*UNARY, *BINARY, "clamp", "is_finite", "select")}
    _check_moved(_math_program(), args, moved, monkeypatch)
