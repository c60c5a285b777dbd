"""scalar_writes.owned_stacks: a loop's carried output vector, written element by element
from Python scalars, copied once when the loop starts and assigned into item by item;
against the general evaluator bit for bit, for each held element type, with loops that
stop early (a count and a data-dependent exit), never start, write in reverse, write at
indices that clamp (dynamic_update_slice) or leave the vector (scatter: no write), and
vectors the body also reads (not owned: the kernel writes them)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter import loopgen

# %ys gets h2 at i + shift (clamped), %zs gets h2 at top - i (a reverse scan) or, with a
# scatter, nothing where top - i is out of the vector; the loop runs while i < n and
# h != stop.
LOOP = """
func.func @main(%xs: tensor<8x{t}>, %h0: tensor<{t}>, %ys0: tensor<8x{t}>, %zs0: tensor<8x{t}>, %n: tensor<i32>, %stop: tensor<{t}>, %shift: tensor<i32>, %top: tensor<i32>) -> (tensor<i32>, tensor<{t}>, tensor<8x{t}>, tensor<8x{t}>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0, %zs = %zs0) : tensor<i32>, tensor<{t}>, tensor<8x{t}>, tensor<8x{t}>
    cond {{
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %ne = stablehlo.compare NE, %h, %stop : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
      %go = stablehlo.and %lt, %ne : tensor<i1>
      stablehlo.return %go : tensor<i1>
    }} do {{
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<8x{t}>, tensor<i32>) -> tensor<1x{t}>
      %x = stablehlo.reshape %x0 : (tensor<1x{t}>) -> tensor<{t}>
      %h2 = {step} %h, %x : tensor<{t}>
      %b = stablehlo.broadcast_in_dim %h2, dims = [] : (tensor<{t}>) -> tensor<1x{t}>
      %at = stablehlo.add %i, %shift : tensor<i32>
      %ys2 = stablehlo.dynamic_update_slice %ys, %b, %at : (tensor<8x{t}>, tensor<1x{t}>, tensor<i32>) -> tensor<8x{t}>
      %back = stablehlo.subtract %top, %i : tensor<i32>
      {second}
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %ys2, %zs2 : tensor<i32>, tensor<{t}>, tensor<8x{t}>, tensor<8x{t}>
    }}
  return %r#0, %r#1, %r#2, %r#3 : tensor<i32>, tensor<{t}>, tensor<8x{t}>, tensor<8x{t}>
}}
"""
REVERSE = {
    "update": """%c = stablehlo.reshape %h2 : (tensor<{t}>) -> tensor<1x{t}>
      %zs2 = stablehlo.dynamic_update_slice %zs, %c, %back : (tensor<8x{t}>, tensor<1x{t}>, tensor<i32>) -> tensor<8x{t}>""",
    "scatter": """%iv = stablehlo.broadcast_in_dim %back, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %zs2 = "stablehlo.scatter"(%zs, %iv, %h2) <{{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}}> ({{
      ^bb0(%o: tensor<{t}>, %u: tensor<{t}>):
        stablehlo.return %u : tensor<{t}>
      }}) : (tensor<8x{t}>, tensor<1xi32>, tensor<{t}>) -> tensor<8x{t}>""",
    # the body reads the vector too (its sum): not owned, the kernel writes it
    "read": """%s0 = stablehlo.constant dense<{zero}> : tensor<{t}>
      %s = stablehlo.reduce(%zs init: %s0) applies stablehlo.{fold} across dimensions = [0] : (tensor<8x{t}>, tensor<{t}>) -> tensor<{t}>
      %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<{t}>) -> tensor<1x{t}>
      %zs2 = stablehlo.dynamic_update_slice %zs, %sb, %back : (tensor<8x{t}>, tensor<1x{t}>, tensor<i32>) -> tensor<8x{t}>""",
}
TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64,
         "ui32": np.uint32, "i8": np.int8, "i1": np.bool_}


def _values(dtype: np.dtype, rng: np.random.Generator, size: int) -> np.ndarray:
    if dtype.kind == "b":
        return rng.integers(0, 2, size).astype(bool)
    if dtype.kind == "f":
        edges = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-40, 5e-324, 0.1,
                          -1.5, 3.4e38, 1e300, 1.0000001, 2.0], np.float64)
        with np.errstate(over="ignore"):
            out = edges[rng.integers(len(edges), size=size)].astype(dtype)
        out[rng.random(size) < 0.15] = np.array(  # (signalling NaNs among them)
            0x7FA00001 if dtype == np.float32 else 0x7FF4000000000001,
            np.uint32 if dtype == np.float32 else np.uint64).view(dtype)
        return out
    info = np.iinfo(dtype)
    edges = [info.min, -1, 0, 1, 3, 255, 65537, info.max]
    return np.array([int(np.clip(edges[int(k)], info.min, info.max))
                     for k in rng.integers(len(edges), size=size)], dtype)


def _program(t: str, second: str) -> str:
    dtype = np.dtype(TYPES[t])
    step = ("stablehlo.xor" if dtype.kind == "b" else "stablehlo.multiply"
            if dtype.kind == "f" and t == "f32" else "stablehlo.add")
    fold = "or" if dtype.kind == "b" else "add"
    zero = "false" if dtype.kind == "b" else "0.0" if dtype.kind == "f" else "0"
    return LOOP.format(t=t, step=step, second=REVERSE[second].format(t=t, fold=fold,
                                                                      zero=zero))


def _check(text: str, args: list[Any], monkeypatch: pytest.MonkeyPatch) -> str:
    inputs = [np.array(a, copy=True) for a in args]
    got, sources = run_loops(text, args, True, monkeypatch)
    for a, b in zip(args, inputs, strict=True):  # (the caller's vectors are not written)
        assert np.asarray(a).tobytes() == b.tobytes()
    want, _ = run_loops(text, args, False, monkeypatch)
    for x, y in zip(got, want, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes(), (x, y)
    return "".join(sources)


@pytest.mark.parametrize("second", list(REVERSE))
@pytest.mark.parametrize("t", list(TYPES))
def test_owned_stacks(t: str, second: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dtype = np.dtype(TYPES[t])
    source = ""
    for seed in range(6):
        rng = np.random.default_rng(seed)
        xs = _values(dtype, rng, 8)
        for n, shift, top in ((8, 0, 7), (5, -3, 9), (0, 0, 7), (8, 2, 3), (3, 0, -1)):
            stop = xs[4] if seed % 2 else _values(dtype, rng, 1)[0]  # (an early exit)
            args = [xs, _values(dtype, rng, 1)[0][()], _values(dtype, rng, 8),
                    _values(dtype, rng, 8), np.int32(n), stop[()], np.int32(shift),
                    np.int32(top)]
            source += _check(_program(t, second), args, monkeypatch)
    # the writes are item assignments into the loop's copies (clamped: `ys[...] = `), but
    # into a vector the body also reads
    loop = source[source.index("while True"):]
    assert "_OWN(a2)" in source and "] = " in loop
    assert ("_OWN(a3)" in source) == (second != "read")


# A vector state (its tanh: a speculative kernel, speculate.py) and an owned i32 stack.
SPECULATED = """
func.func @main(%v0: tensor<4xf32>, %w: tensor<4xf32>, %ys0: tensor<300xi32>) -> (tensor<4xf32>, tensor<300xi32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %v = %v0, %ys = %ys0) : tensor<i32>, tensor<4xf32>, tensor<300xi32>
    cond {
      %n = stablehlo.constant dense<300> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %m = stablehlo.multiply %v, %w : tensor<4xf32>
      %v2 = stablehlo.tanh %m : tensor<4xf32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %y = stablehlo.multiply %i, %three : tensor<i32>
      %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %ys2 = stablehlo.dynamic_update_slice %ys, %b, %i : (tensor<300xi32>, tensor<1xi32>, tensor<i32>) -> tensor<300xi32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %v2, %ys2 : tensor<i32>, tensor<4xf32>, tensor<300xi32>
    }
  return %r#1, %r#2 : tensor<4xf32>, tensor<300xi32>
}
"""


def test_checkpoints_hold_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """A speculative run's checkpoints (the state an exact run restarts from) keep the
    owned stack as it was at their step: later writes go to the loop's own copy."""
    kept: list[tuple[np.ndarray, bytes]] = []
    checkpoint = loopgen.checkpoint

    def spy(guesses: list[Any], held: list[Any], state: tuple[Any, ...]) -> None:
        kept.extend((x, x.tobytes()) for x in state if isinstance(x, np.ndarray) and x.size == 300)
        checkpoint(guesses, held, state)
    monkeypatch.setattr(loopgen, "checkpoint", spy)
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(4).astype(np.float32), np.full(4, 0.9, np.float32),
            np.zeros(300, np.int32)]
    source = _check(SPECULATED, args, monkeypatch)
    assert "_OWN(a2)" in source and kept  # (checkpoints were made)
    for x, then in kept:
        assert x.tobytes() == then


def test_written_floats_are_observed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A float written to an owned vector and read by nothing else (h2 * x: a NaN x
    reaches no carried value) is among the values whose NaN makes the step run again
    with its NaN redos (loopgen._iterate: the write comes after them)."""
    text = _program("f32", "update").replace(
        "%h2 = stablehlo.multiply %h, %x : tensor<f32>",
        "%half = stablehlo.constant dense<0.5> : tensor<f32>\n      %h2 = stablehlo.multiply %h, %half : tensor<f32>\n"
        "      %y = stablehlo.multiply %h2, %x : tensor<f32>").replace(
        "%b = stablehlo.broadcast_in_dim %h2", "%b = stablehlo.broadcast_in_dim %y")
    rng = np.random.default_rng(3)
    args = [_values(np.dtype(np.float32), rng, 8), np.float32(1.5), np.zeros(8, np.float32),
            np.zeros(8, np.float32), np.int32(8), np.float32(-7.0), np.int32(0), np.int32(7)]
    loop = _check(text, args, monkeypatch)
    loop = loop[loop.index("while True"):]
    written = re.search(r"a2_m\[.*\] = (\w+)", loop)
    assert written is not None, loop
    test = next(line for line in loop.splitlines() if line.strip().startswith("if ") and " or " in line)
    assert f"{written.group(1)} != {written.group(1)}" in test
