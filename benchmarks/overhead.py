# ruff: noqa: E501  (the MLIR program keeps upstream line lengths)
"""Interpreter overhead per executed op (issue 13), against numpy's own calls, same run.

Two programs on small tensors, each paired with a plain-Python replay making the same numpy
calls (what any interpreter must pay at least): a 400-op straight-line program on
tensor<4xf32> values and a 1,000-step scalar `while` loop with an RNN-like body (dynamic
slice of the input sequence, multiply-adds, a compare, a select). Overhead per op =
(interpreter time - replay time) / executed ops, best of interleaved rounds, with the plan
built; the cold first `shlo_cli.interpret` of the fresh parse (verify + plan + run) is printed
separately.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from common import interleaved

import shlo_cli
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

STRAIGHT_OPS = 400
STEPS = 1000
# (op, numpy call) cycled through by the straight-line program; each reads two earlier values.
CYCLE: list[tuple[str, Callable[..., np.ndarray]]] = [
    ("add", np.add), ("multiply", np.multiply), ("subtract", np.subtract),
    ("negate", np.negative), ("add", np.add), ("multiply", np.multiply),
]


def _straight_program() -> str:
    t = "tensor<4xf32>"
    lines = [f"func.func @main(%v0: {t}, %v1: {t}) -> {t} {{"]
    for i in range(STRAIGHT_OPS):
        name, _ = CYCLE[i % len(CYCLE)]
        a, b = f"%v{i + 1}", f"%v{i}"
        args = a if name == "negate" else f"{a}, {b}"
        lines.append(f"  %v{i + 2} = stablehlo.{name} {args} : {t}")
    lines.append(f"  func.return %v{STRAIGHT_OPS + 1} : {t}\n}}\n")
    return "\n".join(lines)


def _straight_numpy(v0: np.ndarray, v1: np.ndarray) -> np.ndarray:
    values = [v0, v1]
    for i in range(STRAIGHT_OPS):
        _, fn = CYCLE[i % len(CYCLE)]
        a, b = values[i + 1], values[i]
        values.append(fn(a) if fn is np.negative else fn(a, b))
    return values[-1]


LOOP_PROGRAM = f"""
func.func @main(%xs: tensor<{STEPS}xf32>, %w: tensor<f32>, %u: tensor<f32>) -> tensor<f32> {{
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %h0 = stablehlo.constant dense<0.0> : tensor<f32>
  %i, %h = stablehlo.while(%ai = %zero, %ah = %h0) : tensor<i32>, tensor<f32>
  cond {{
    %n = stablehlo.constant dense<{STEPS}> : tensor<i32>
    %lt = stablehlo.compare LT, %ai, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }} do {{
    %one = stablehlo.constant dense<1> : tensor<i32>
    %s = stablehlo.dynamic_slice %xs, %ai, sizes = [1] : (tensor<{STEPS}xf32>, tensor<i32>) -> tensor<1xf32>
    %x = stablehlo.reshape %s : (tensor<1xf32>) -> tensor<f32>
    %wh = stablehlo.multiply %w, %ah : tensor<f32>
    %ux = stablehlo.multiply %u, %x : tensor<f32>
    %pre = stablehlo.add %wh, %ux : tensor<f32>
    %neg = stablehlo.negate %pre : tensor<f32>
    %pos = stablehlo.compare GT, %pre, %neg, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %relu = stablehlo.select %pos, %pre, %neg : tensor<i1>, tensor<f32>
    %next = stablehlo.add %ai, %one : tensor<i32>
    stablehlo.return %next, %relu : tensor<i32>, tensor<f32>
  }}
  func.return %h : tensor<f32>
}}
"""
LOOP_OPS_PER_STEP = 2 + 10  # cond: constant, compare; body: 10 ops


def _loop_numpy(xs: np.ndarray, w: np.ndarray, u: np.ndarray) -> np.ndarray:
    i, h = np.array(0, np.int32), np.array(0.0, np.float32)
    n, one = np.array(STEPS, np.int32), np.array(1, np.int32)
    size = xs.shape[0]
    while np.less(i, n):
        start = min(max(int(i), 0), size - 1)
        x = xs[start:start + 1].reshape(())
        pre = np.add(np.multiply(w, h), np.multiply(u, x))
        neg = np.negative(pre)
        h = np.where(np.greater(pre, neg), pre, neg)
        i = np.add(i, one)
    return h


def _measure(label: str, text: str, replay: Callable[..., np.ndarray], args: list[np.ndarray],
             ops: int, rounds: int = 5) -> None:
    module = parse_source(text, "<overhead>")
    start = time.perf_counter()
    [ours] = shlo_cli.interpret(module, *args)
    cold = time.perf_counter() - start
    assert np.allclose(ours, replay(*args), rtol=1e-5, atol=1e-6), label
    # Warm: one Interpreter keeps its plans (interpret() verifies and plans on every call).
    interpreter = Interpreter(module)
    func = interpreter.lookup_function("main")
    t_ours, t_np = interleaved([lambda: interpreter.call(func, args),
                                lambda: replay(*args)], rounds)
    per_op = (t_ours - t_np) / ops * 1e6
    print(f"  {label:<38}{t_ours * 1e3:>9.2f} ms{t_np * 1e3:>9.2f} ms{per_op:>9.2f} us/op"
          f"   (cold first run {cold * 1e3:.1f} ms)")


def run(profile: bool = False) -> None:
    rng = np.random.default_rng(0)
    print("interpreter overhead per executed op on top of numpy's calls (best of 5 "
          "interleaved rounds; target <= 1 us/op):")
    print(f"  {'program':<38}{'ours':>12}{'numpy':>12}{'overhead':>15}")
    v = [rng.standard_normal(4).astype(np.float32) * 0.1 for _ in range(2)]
    _measure(f"{STRAIGHT_OPS}-op straight line, tensor<4xf32>", _straight_program(),
             _straight_numpy, v, STRAIGHT_OPS)
    xs = rng.standard_normal(STEPS).astype(np.float32)
    w, u = np.array(0.5, np.float32), np.array(0.3, np.float32)
    _measure(f"{STEPS:,}-step scalar while (RNN-like)", LOOP_PROGRAM, _loop_numpy, [xs, w, u],
             STEPS * LOOP_OPS_PER_STEP + 1)
