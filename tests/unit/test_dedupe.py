"""Repeated pure ops planned once (interpreter/dedupe.py): the same results as planning every
op, bit for bit; effects never merged; a merged value's array never updated in place under
another name; a merged value read only inside a region, or returned, still defined."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.interpreter import engine, licm
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

# A masked RNN step as a Keras GRU exports it: `_where(mask, h, h_new)` called twice with
# the same operands (the carry and the step's output), inside the loop.
MASKED = """
func.func @main(%m: tensor<5x1x1xi1>, %xs: tensor<5x1x4xf32>, %h0: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<5x1x4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %ys0 = stablehlo.constant dense<0.0> : tensor<5x1x4xf32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0) : tensor<i32>, tensor<1x4xf32>, tensor<5x1x4xf32>
  cond {
    %n = stablehlo.constant dense<5> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %mr = stablehlo.dynamic_slice %m, %i, %z, %z, sizes = [1, 1, 1] : (tensor<5x1x1xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x1xi1>
    %mask = stablehlo.reshape %mr : (tensor<1x1x1xi1>) -> tensor<1x1xi1>
    %xr = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, 1, 4] : (tensor<5x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x4xf32>
    %x = stablehlo.reshape %xr : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
    %s = stablehlo.add %h, %x : tensor<1x4xf32>
    %new = stablehlo.tanh %s : tensor<1x4xf32>
    %carry = func.call @_where(%mask, %h, %new) : (tensor<1x1xi1>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %out = func.call @_where(%mask, %h, %new) : (tensor<1x1xi1>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %o3 = stablehlo.reshape %out : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %o3, %i, %z, %z : (tensor<5x1x4xf32>, tensor<1x1x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5x1x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %carry, %ys2 : tensor<i32>, tensor<1x4xf32>, tensor<5x1x4xf32>
  }
  return %r#1, %r#2 : tensor<1x4xf32>, tensor<5x1x4xf32>
}
func.func private @_where(%p: tensor<1x1xi1>, %a: tensor<1x4xf32>, %b: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = stablehlo.broadcast_in_dim %p, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<1x4xi1>
  %1 = stablehlo.select %0, %a, %b : tensor<1x4xi1>, tensor<1x4xf32>
  return %1 : tensor<1x4xf32>
}
"""

# Straight-line repeats: a layer norm's centred value computed twice, a repeat whose array
# is then updated (it must not be updated in place: the first name still reads it), and a
# repeat read only inside a loop body and by the return.
STRAIGHT = """
func.func @main(%x: tensor<2x8xf32>, %u: tensor<1x8xf32>, %i: tensor<i32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x8xf32>, tensor<f32>) -> tensor<2xf32>
  %mean = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<2xf32>) -> tensor<2x8xf32>
  %d1 = stablehlo.subtract %x, %mean : tensor<2x8xf32>
  %sq = stablehlo.multiply %d1, %d1 : tensor<2x8xf32>
  %mean2 = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<2xf32>) -> tensor<2x8xf32>
  %d2 = stablehlo.subtract %x, %mean2 : tensor<2x8xf32>
  %n0 = stablehlo.add %d2, %sq : tensor<2x8xf32>
  %n = stablehlo.add %d2, %n0 : tensor<2x8xf32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %d3 = stablehlo.subtract %x, %mean : tensor<2x8xf32>
  %w = stablehlo.dynamic_update_slice %d3, %u, %i, %z : (tensor<2x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<2x8xf32>
  %d4 = stablehlo.subtract %x, %mean2 : tensor<2x8xf32>
  %r:2 = stablehlo.while(%k = %z, %acc = %x) : tensor<i32>, tensor<2x8xf32>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %k, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %next = stablehlo.add %acc, %d4 : tensor<2x8xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k2 = stablehlo.add %k, %one : tensor<i32>
    stablehlo.return %k2, %next : tensor<i32>, tensor<2x8xf32>
  }
  return %n, %w, %r#1, %d4 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
"""


def _run(text: str, args: list[np.ndarray], merged: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], list[str]]:
    with monkeypatch.context() as m:
        # (a scan's mask chain is otherwise batched before the loop: scan_inputs.py)
        m.setattr(licm, "batch_scan_inputs", lambda *a, **k: None)
        # (and its one-element mask broadcasts read as 0-d: scalar_predicates.py)
        m.setattr(engine, "scalar_predicates", lambda ops, kept: ops)
        if not merged:
            m.setattr(engine, "merge_repeats", lambda ops, terminator: ops)
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            out = [interpreter.call(main, [a.copy() for a in args]) for _ in range(2)][-1]
    names = [step.op.name for plan in interpreter._plans.values() for step in plan.steps]
    return [np.asarray(o) for o in out], names


def _edgy(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, flat.size // 3, replace=False)] = rng.choice(
        np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-40], np.float32), flat.size // 3)
    return x


def _same(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_masked_step_selects_once(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    args = [rng.random((5, 1, 1)) < 0.5, _edgy(rng, (5, 1, 4)), _edgy(rng, (1, 4))]
    got, names = _run(MASKED, args, True, monkeypatch)
    want, plain = _run(MASKED, args, False, monkeypatch)
    _same(got, want)
    assert plain.count("stablehlo.select") == 2 and names.count("stablehlo.select") == 1
    assert names.count("stablehlo.broadcast_in_dim") == plain.count("stablehlo.broadcast_in_dim") - 1


@pytest.mark.parametrize("start", [-3, 0, 1, 5])
def test_straight_line_repeats(start: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(start + 10)
    args = [_edgy(rng, (2, 8)), _edgy(rng, (1, 8)), np.array(start, np.int32)]
    got, names = _run(STRAIGHT, args, True, monkeypatch)
    want, plain = _run(STRAIGHT, args, False, monkeypatch)
    _same(got, want)
    # d2, d3 and d4 are d1 again, mean2 is mean: one subtract and one broadcast left
    assert plain.count("stablehlo.subtract") == 4 and names.count("stablehlo.subtract") == 1
    assert names.count("stablehlo.broadcast_in_dim") == 1 and names.count("stablehlo.add") == 4
    # (%w updates d3: were that done in place, d4, returned, would hold %u's row)
    assert not np.array_equal(got[1], got[3], equal_nan=True)


def test_effects_are_never_merged(monkeypatch: pytest.MonkeyPatch) -> None:
    text = """
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = stablehlo.constant dense<4> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %1 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
"""
    args = [np.array(0.0, np.float32), np.array(1.0, np.float32)]
    _, names = _run(text, args, True, monkeypatch)
    assert names.count("stablehlo.rng") == 2


# Rotary embeddings in a decoding loop, as jax exports them: each of two calls computes
# `10000 ** (arange(4) / 4)` from its own iota and broadcasts; the angles' cosine depends on
# the step. A copy with the iota as an argument (`%k`) computes the same values unfolded.
ROTARY = """
func.func @main(%x: tensor<4xf32>, %k: tensor<4xi32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %z, %acc = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %base = stablehlo.constant dense<1.0e4> : tensor<f32>
    %four = stablehlo.constant dense<4.0> : tensor<f32>
    %b = stablehlo.broadcast_in_dim %base, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %d = stablehlo.broadcast_in_dim %four, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %k1 = IOTA
    %f1 = stablehlo.convert %k1 : (tensor<4xi32>) -> tensor<4xf32>
    %e1 = stablehlo.divide %f1, %d : tensor<4xf32>
    %w1 = stablehlo.power %b, %e1 : tensor<4xf32>
    %k2 = IOTA
    %f2 = stablehlo.convert %k2 : (tensor<4xi32>) -> tensor<4xf32>
    %d2 = stablehlo.broadcast_in_dim %four, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %e2 = stablehlo.divide %f2, %d2 : tensor<4xf32>
    %b2 = stablehlo.broadcast_in_dim %base, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %w2 = stablehlo.power %b2, %e2 : tensor<4xf32>
    %s2 = stablehlo.sine %w2 : tensor<4xf32>
    %t = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %tb = stablehlo.broadcast_in_dim %t, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %a = stablehlo.multiply %tb, %w1 : tensor<4xf32>
    %c = stablehlo.cosine %a : tensor<4xf32>
    %u = stablehlo.add %acc, %c : tensor<4xf32>
    %v = stablehlo.add %u, %s2 : tensor<4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %v : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
"""


def test_repeated_iotas_stay_constants_and_their_powers_fold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two `jnp.arange`s are not merged into a copy of the first (which hid the second from
    the plan's folding): the powers and the sine of the constant exponents are computed
    once, when the plan is made, not on each step, and give the unfolded values."""
    from shlo_cli.dialects.stablehlo import elementwise

    powers = []
    real = elementwise.rounded_power

    def counted(*args: Any) -> Any:
        powers.append(1)
        return real(*args)

    monkeypatch.setattr(elementwise, "rounded_power", counted)
    x = np.array([0.5, -1.0, 2.0, -0.0], np.float32)
    k = np.arange(4, dtype=np.int32)
    folded = Interpreter(parse_source(ROTARY.replace(
        "IOTA", "stablehlo.iota dim = 0 : tensor<4xi32>")))
    main = folded.lookup_function("main")
    first = folded.call(main, [x, k])
    powers.clear()
    again = folded.call(main, [x, k])  # the plan is made: nothing left to fold
    assert powers == []
    plain = Interpreter(parse_source(ROTARY.replace(
        "IOTA", "stablehlo.add %k, %k0 : tensor<4xi32>").replace(
        "%k1 = ", "%k0 = stablehlo.constant dense<0> : tensor<4xi32>\n    %k1 = ")))
    want = plain.call(plain.lookup_function("main"), [x, k])
    assert powers  # (the unfolded powers ran)
    for got in (first, again):
        np.testing.assert_array_equal(got[0], want[0])
