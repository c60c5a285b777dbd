"""Small constants a while loop's regions capture (jax.export defines them at the top of
`main`) are planned as the regions' own (interpreter/sink.py): the loop compiles as the
same program with its constants inside does, with the same results, bit for bit."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter import engine

# A scalar RNN scan as jax.export writes it: the bound, the step and the weights' constants
# defined before the loop and read from inside it; a reduce inside the body reads one too.
COUNTED = re.compile(r"for a\d+ in range\(a\d+, stop")  # (a counted loop: no condition)
CAPTURED = """
func.func @main(%xs: tensor<40xf32>, %h0: tensor<f32>) -> (tensor<f32>, tensor<40xf32>) {
  %c = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<40> : tensor<i32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w = stablehlo.constant dense<0.5> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %big = stablehlo.constant dense<0.25> : tensor<300xf32>
  %ys0 = stablehlo.constant dense<0.0> : tensor<40xf32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0) : tensor<i32>, tensor<f32>, tensor<40xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %x1 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<40xf32>, tensor<i32>) -> tensor<1xf32>
    %x = stablehlo.reshape %x1 : (tensor<1xf32>) -> tensor<f32>
    %m = stablehlo.multiply %h, %w : tensor<f32>
    %s = stablehlo.add %m, %x : tensor<f32>
    %b = stablehlo.reduce(%big init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300xf32>, tensor<f32>) -> tensor<f32>
    %s2 = stablehlo.add %s, %b : tensor<f32>
    %t = stablehlo.tanh %s2 : tensor<f32>
    %t1 = stablehlo.reshape %t : (tensor<f32>) -> tensor<1xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %t1, %i : (tensor<40xf32>, tensor<1xf32>, tensor<i32>) -> tensor<40xf32>
    %j = stablehlo.add %i, %c : tensor<i32>
    stablehlo.return %j, %t, %ys2 : tensor<i32>, tensor<f32>, tensor<40xf32>
  }
  return %r#1, %r#2 : tensor<f32>, tensor<40xf32>
}
"""


def _inside(text: str) -> str:
    """The same program with the loop's small constants defined in its regions (as
    `jax.jit(f).lower(...)` writes them)."""
    cond = "    %n = stablehlo.constant dense<40> : tensor<i32>\n"
    body = ("    %c = stablehlo.constant dense<1> : tensor<i32>\n"
            "    %w = stablehlo.constant dense<0.5> : tensor<f32>\n"
            "    %zero = stablehlo.constant dense<0.0> : tensor<f32>\n")
    text = text.replace("  cond {\n", "  cond {\n" + cond).replace("  } do {\n", "  } do {\n" + body)
    for line in (cond, body):
        for own in line.splitlines():
            text = text.replace("  " + own[4:] + "\n", "", 1)
    return text


@pytest.mark.parametrize("seed", range(3))
def test_captured_constants_compile_as_inside_ones(seed: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal(40).astype(np.float32)
    xs[rng.choice(40, 5, replace=False)] = [np.nan, -0.0, np.inf, 1e-40, -np.inf]
    args = [xs, np.array(rng.standard_normal(), np.float32)]
    inside = _inside(CAPTURED)
    assert inside.index("dense<40>") > inside.index("cond {")  # (moved into the regions)
    got, sources = run_loops(CAPTURED, args, True, monkeypatch)
    want, inside_sources = run_loops(inside, args, True, monkeypatch)
    plain, _ = run_loops(CAPTURED, args, False, monkeypatch)
    for a, b, c in zip(got, want, plain, strict=True):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes() == np.asarray(c).tobytes()
    # the counted loop's versioned for-range, as for the constants written inside
    assert COUNTED.search(sources[0]) and COUNTED.search(inside_sources[0])
    # without sinking, the captured bound leaves the loop uncounted
    with monkeypatch.context() as m:
        m.setattr(engine, "sunk_constants", lambda block, ops, terminator: [])
        _, unsunk = run_loops(CAPTURED, args, True, m)
    assert not COUNTED.search(unsunk[0])
