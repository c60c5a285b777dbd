"""`if` and `case` ops run as Python `if` statements of the generated function
(interpreter/branches.py): the case kernel's results bit for bit (indices in range, below
and past it, NaN, -0.0, a branch returning an enclosing value as it is, two results, a
nested conditional, a scan of no steps, one, many), in a loop and in a plain block; a
jax.lax.switch callee inlined with its regions (inline.py); an error in the branch taken is
reported at its op, one in a branch not taken is none."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter import codegen
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

# c = switch(clamp-free index k[i], [tanh(c @ w), c * 0.5, (sin(c) + x, if ... ), c]) per step
SWITCH = """
func.func @main(%xs: tensor<8x4xf32>, %ks: tensor<8xi32>, %w: tensor<4x4xf32>, %c0: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ys0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<8xf32>
  %r:3 = stablehlo.while(%i = %i0, %c = %c0, %ys = %ys0) : tensor<i32>, tensor<4xf32>, tensor<8xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %xr = stablehlo.dynamic_slice %xs, %i, %zero, sizes = [1, 4] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %x = stablehlo.reshape %xr : (tensor<1x4xf32>) -> tensor<4xf32>
    %k1 = stablehlo.dynamic_slice %ks, %i, sizes = [1] : (tensor<8xi32>, tensor<i32>) -> tensor<1xi32>
    %k = stablehlo.reshape %k1 : (tensor<1xi32>) -> tensor<i32>
    %c2, %s = func.call @step(%w, %c, %x, %k) : (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<f32>)
    %s1 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %s1, %i : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %c2, %ys2 : tensor<i32>, tensor<4xf32>, tensor<8xf32>
  }
  return %r#1, %r#2 : tensor<4xf32>, tensor<8xf32>
}
func.func private @step(%w: tensor<4x4xf32>, %c: tensor<4xf32>, %x: tensor<4xf32>, %k: tensor<i32>) -> (tensor<4xf32>, tensor<f32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = "stablehlo.case"(%k) ({
    %d = stablehlo.dot_general %c, %w, contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %t = stablehlo.tanh %d : tensor<4xf32>
    stablehlo.return %t, %z : tensor<4xf32>, tensor<f32>
  }, {
    %h = stablehlo.constant dense<0.5> : tensor<4xf32>
    %m = stablehlo.multiply %c, %h : tensor<4xf32>
    %s = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %m, %s : tensor<4xf32>, tensor<f32>
  }, {
    %sn = stablehlo.sine %c : tensor<4xf32>
    %a = stablehlo.add %sn, %x : tensor<4xf32>
    %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %p = stablehlo.compare GT, %s, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %b = "stablehlo.if"(%p) ({
      %e = stablehlo.exponential %a : tensor<4xf32>
      stablehlo.return %e : tensor<4xf32>
    }, {
      stablehlo.return %x : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    stablehlo.return %b, %s : tensor<4xf32>, tensor<f32>
  }, {
    stablehlo.return %c, %z : tensor<4xf32>, tensor<f32>
  }) : (tensor<i32>) -> (tensor<4xf32>, tensor<f32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<f32>
}
"""


def _kernels(monkeypatch: pytest.MonkeyPatch, text: str, args: list[Any]
             ) -> tuple[list[Any], list[str]]:
    """The results with every conditional run by its kernel (no branch inline)."""
    with monkeypatch.context() as m:
        m.setattr(codegen, "BRANCHING", frozenset())
        return run_loops(text, args, False, monkeypatch)


def _same(got: list[Any], want: list[Any]) -> None:
    for a, b in zip(got, want, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("n", [0, 1, 8])
@pytest.mark.parametrize("seed", range(4))
def test_a_switch_in_a_scan_is_the_kernel_one(n: int, seed: int,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((8, 4)).astype(np.float32)
    ks = rng.integers(-3, 7, 8).astype(np.int32)  # (below and past the branches)
    ks[:4] = [0, 1, 2, 3]
    xs[seed % 8, seed % 4] = [np.nan, -0.0, np.inf, -np.inf][seed]
    w = (rng.standard_normal((4, 4)) * 0.5).astype(np.float32)
    c0 = rng.standard_normal(4).astype(np.float32)
    args = [xs, ks, w, c0, np.array(n, np.int32)]
    got, sources = run_loops(SWITCH, args, True, monkeypatch)
    want, _ = _kernels(monkeypatch, SWITCH, args)
    _same(got, want)
    if n:  # the switch and the if inside its third branch: lines of the loop
        assert re.search(r"\n +elif w_x\d+ == 2:", sources[0])
        assert re.search(r"\n +if w_b\d+_2_v\d+:", sources[0])
        assert "stablehlo.case" not in sources[0]


PLAIN = """
func.func @main(%p: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r:2 = "stablehlo.if"(%p) ({
    %s = stablehlo.add %a, %b : tensor<3xf32>
    stablehlo.return %s, %a : tensor<3xf32>, tensor<3xf32>
  }, {
    %u = "stablehlo.custom_call"(%a) {call_target_name = "no_such_target"} : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %u, %b : tensor<3xf32>, tensor<3xf32>
  }) : (tensor<i1>) -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}
"""


def test_a_plain_block_runs_its_if_inline_and_reports_the_branch_error() -> None:
    interpreter = Interpreter(parse_source(PLAIN))
    main = interpreter.lookup_function("main")
    a, b = np.array([1.0, -0.0, np.nan], np.float32), np.array([2.0, -0.0, 1.0], np.float32)
    out = interpreter.call(main, [np.array(True), a, b])  # (the failing branch not taken)
    _same(list(out), [a + b, a])
    plan = next(p for p in interpreter._plans.values() if p.compiled is not None)
    assert "if " in plan.compiled.source and "else:" in plan.compiled.source
    with pytest.raises(Diagnostic) as info:
        interpreter.call(main, [np.array(False), a, b])
    assert "no_such_target" in str(info.value) and ":7:10:" in str(info.value)
