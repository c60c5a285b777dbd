"""unit_values.py: one-element values made from 0-d ones (`jnp.sum(h[None] * w)`,
`h.reshape(1)[0]`) computed on as 0-d values, in a generated scalar loop and in a plain
block; against the plain evaluation (no such rewrite, no compiled loop) bit for bit and
type for type, with NaNs of distinct payloads (in the reduce's init and its element),
-0.0 (a sum's 0.0 init), infinities and integer wrap-around; a one-element value read
elsewhere keeps its definition."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter import engine

# A scalar loop: h = reduce_{op}(init, broadcast(h * p)[1x1] {op2} broadcast(q)) (the
# body's arguments in either order), plus reshape(h)[1] -> negate -> reshape back added.
LOOP = """
func.func @main(%h0: tensor<{t}>, %p: tensor<{t}>, %q: tensor<{t}>, %init: tensor<{t}>) -> (tensor<i32>, tensor<{t}>, tensor<1x{t}>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %u0 = stablehlo.broadcast_in_dim %h0, dims = [] : (tensor<{t}>) -> tensor<1x{t}>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %u = %u0) : tensor<i32>, tensor<{t}>, tensor<1x{t}>
    cond {{
      %n = stablehlo.constant dense<5> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %m = stablehlo.multiply %h, %p : tensor<{t}>
      %b = stablehlo.broadcast_in_dim %m, dims = [] : (tensor<{t}>) -> tensor<1x1x{t}>
      %bq = stablehlo.broadcast_in_dim %q, dims = [] : (tensor<{t}>) -> tensor<1x1x{t}>
      %e = stablehlo.{op2} %b, %bq : tensor<1x1x{t}>
      %s = stablehlo.reduce(%e init: %init) across dimensions = [0, 1] : (tensor<1x1x{t}>, tensor<{t}>) -> tensor<{t}>
        reducer(%a: tensor<{t}>, %x: tensor<{t}>) {{
          %y = stablehlo.{op} {operands} : tensor<{t}>
          stablehlo.return %y : tensor<{t}>
        }}
      %r1 = stablehlo.reshape %s : (tensor<{t}>) -> tensor<1x{t}>
      %ng = stablehlo.{unary} %r1 : tensor<1x{t}>
      %back = stablehlo.reshape %ng : (tensor<1x{t}>) -> tensor<{t}>
      %h2 = stablehlo.add %back, %s : tensor<{t}>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %ng : tensor<i32>, tensor<{t}>, tensor<1x{t}>
    }}
  return %r#0, %r#1, %r#2 : tensor<i32>, tensor<{t}>, tensor<1x{t}>
}}
"""
TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "f16": np.float16,
         "bf16": ml_dtypes.bfloat16, "i8": np.int8}
FLOATS = [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, 1e-45, 3.0e38, np.nan]


def _nan(dtype: Any, payload: int) -> Any:
    if dtype == np.float32:
        return np.array(0x7FC00000 | payload, np.uint32).view(np.float32)[()]
    return np.array(0x7FF8000000000000 | payload, np.uint64).view(np.float64)[()]


def _plain(text: str, args: list[Any], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    with monkeypatch.context() as m:
        m.setattr(engine, "unit_values", lambda ops, kept: ops)
        return run_loops(text, args, False, m)[0]


@pytest.mark.parametrize("t", list(TYPES))
@pytest.mark.parametrize("op", ["add", "maximum", "multiply"])
@pytest.mark.parametrize("order", ["%a, %x", "%x, %a"])
@pytest.mark.parametrize("op2", ["multiply", "subtract"])
def test_one_element_chains_match_the_plain_evaluation(
        t: str, op: str, order: str, op2: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dtype = TYPES[t]
    unary = "not" if t.startswith("i") else "negate"
    text = LOOP.format(t=t, op=op, operands=order, op2=op2, unary=unary)
    rng = np.random.default_rng(len(op) + len(order) + len(t))
    for k in range(24):
        if t.startswith("i"):
            info = np.iinfo(dtype)
            h0, p, q, init = rng.integers(info.min, info.max, 4, endpoint=True).astype(dtype)
        else:
            with np.errstate(over="ignore"):  # (3e38 in f16 and bf16: inf)
                h0, p, q, init = (dtype(FLOATS[j]) for j in rng.integers(len(FLOATS), size=4))
            if k % 3 == 0 and t in ("f32", "f64"):  # two NaNs meeting: whose payload stays
                init, q = _nan(dtype, 1 + k), _nan(dtype, 0x200 + k)
            if k % 3 == 1:
                init = dtype(0.0)  # (a sum's init: -0.0 + 0.0 is 0.0)
        args = [dtype(h0), dtype(p), dtype(q), dtype(init)]
        got, sources = run_loops(text, args, True, monkeypatch)
        want = _plain(text, args, monkeypatch)
        for a, b in zip(got, want, strict=True):
            assert type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype
            assert np.asarray(a).shape == np.asarray(b).shape
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (k, args)
    if t in ("f32", "f64", "i32", "i8") and op != "maximum":  # (h held as a Python scalar)
        loop = sources[0].split("while True:")[-1]  # one kernel: the carried 1x value's
        assert len(re.findall(r"\n +w_v\d+ = w_K\d+\(", loop)) == 1, loop


PLAIN = """
func.func @main(%h: tensor<f32>, %w: tensor<f32>) -> (tensor<f32>, tensor<1xf32>, tensor<i1>) {
  %r = stablehlo.reshape %h : (tensor<f32>) -> tensor<1xf32>
  %b = stablehlo.broadcast_in_dim %w, dims = [] : (tensor<f32>) -> tensor<1xf32>
  %m = stablehlo.multiply %r, %b : tensor<1xf32>
  %t = stablehlo.tanh %m : tensor<1xf32>
  %c = stablehlo.compare GT, %t, %b, FLOAT : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xi1>
  %s = stablehlo.select %c, %t, %r : tensor<1xi1>, tensor<1xf32>
  %back = stablehlo.reshape %s : (tensor<1xf32>) -> tensor<f32>
  %cb = stablehlo.reshape %c : (tensor<1xi1>) -> tensor<i1>
  return %back, %m, %cb : tensor<f32>, tensor<1xf32>, tensor<i1>
}
"""


def test_a_plain_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside a loop too; a one-element result returned keeps its own value."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        h, w = (np.float32(FLOATS[j]) for j in rng.integers(len(FLOATS), size=2))
        got, _ = run_loops(PLAIN, [h, w], True, monkeypatch)
        want = _plain(PLAIN, [h, w], monkeypatch)
        for a, b in zip(got, want, strict=True):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            assert np.asarray(a).shape == np.asarray(b).shape
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (h, w)


# A recurrent state kept as one element (`h0 = jnp.zeros(1)`, x = dynamic_slice(xs, i, 1)):
# h = tanh(p * h + x) + h, its one-element operands read through reshapes to 0-d.
STATE = """
func.func @main(%xs: tensor<6x{t}>, %h0: tensor<1x{t}>, %p: tensor<{t}>) -> (tensor<i32>, tensor<1x{t}>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %h = %h0) : tensor<i32>, tensor<1x{t}>
    cond {{
      %n = stablehlo.constant dense<6> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %x = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<6x{t}>, tensor<i32>) -> tensor<1x{t}>
      %pb = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<{t}>) -> tensor<1x{t}>
      %m = stablehlo.multiply %pb, %h : tensor<1x{t}>
      %s = stablehlo.add %m, %x : tensor<1x{t}>
      %th = stablehlo.tanh %s : tensor<1x{t}>
      %h2 = stablehlo.add %th, %h : tensor<1x{t}>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2 : tensor<i32>, tensor<1x{t}>
    }}
  return %r#0, %r#1 : tensor<i32>, tensor<1x{t}>
}}
"""


@pytest.mark.parametrize("t", ["f32", "f64", "f16", "bf16"])
def test_a_state_kept_as_one_element(t: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dtype = TYPES[t]
    text = STATE.format(t=t)
    rng = np.random.default_rng(len(t))
    for k in range(16):
        with np.errstate(over="ignore"):
            xs = np.array([FLOATS[j] for j in rng.integers(len(FLOATS), size=6)]).astype(dtype)
            if k % 2:
                xs = rng.standard_normal(6).astype(dtype)
            h0 = np.array([FLOATS[int(rng.integers(len(FLOATS)))]]).astype(dtype)
        args = [xs, h0, dtype(rng.choice([0.5, -1.25, np.nan]))]
        got, sources = run_loops(text, args, True, monkeypatch)
        want = _plain(text, args, monkeypatch)
        for a, b in zip(got, want, strict=True):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            assert np.asarray(a).shape == np.asarray(b).shape
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (k, args)
    if t == "f32":  # the multiply, adds and tanh on Python floats: no kernel of theirs
        loop = sources[0].split("while True:")[-1]
        assert len(re.findall(r"\n +w_v\d+ = w_K\d+\(", loop)) <= 2, loop  # (the reshapes)
