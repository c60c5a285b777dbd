"""Products added to values that are never -0.0 skip their +0 (zero_signs.py): a scan's
hoisted `x_t @ W` read back as a row (scan_inputs.py), a bias constant without -0.0, a
sum with such an operand; never where the other operand may be -0.0 (a carried value, a
constant holding -0.0). Results are the bits of normalizing every product."""

# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from loop_helpers import run_with_sources

from shlo_cli.interpreter import codegen

SCAN = """
func.func @main(%xs: tensor<6x1x9xf32>, %w: tensor<9x10xf32>, %u: tensor<10x10xf32>,
                %h0: tensor<1x10xf32>) -> tensor<1x10xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %h = %h0) : tensor<i32>, tensor<1x10xf32>
  cond {
    %n = stablehlo.constant dense<6> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, 1, 9] : (tensor<6x1x9xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x9xf32>
    %x = stablehlo.reshape %row : (tensor<1x1x9xf32>) -> tensor<1x9xf32>
    %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x9xf32>, tensor<9x10xf32>) -> tensor<1x10xf32>
    %b = stablehlo.dot_general %h, %u, contracting_dims = [1] x [0] : (tensor<1x10xf32>, tensor<10x10xf32>) -> tensor<1x10xf32>
    %s = stablehlo.add OTHER : tensor<1x10xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %s : tensor<i32>, tensor<1x10xf32>
  }
  return %r#1 : tensor<1x10xf32>
}
"""

BIAS = "%bias = stablehlo.constant dense<VALUE> : tensor<1x10xf32>\n    "

# (the add's operands, a constant defined before it, whether a +0 is skipped)
CASES = {
    "hoisted_row": ("%b, %a", "", True),
    "hoisted_row_first": ("%a, %b", "", True),
    "bias": ("%b, %bias", BIAS.replace("VALUE", "5.000000e-01"), True),
    "bias_with_negative_zero": ("%b, %bias", BIAS.replace("VALUE", "-0.000000e+00"), False),
    "carried": ("%b, %h", "", False),
}


def _run(text: str, args: list[np.ndarray], skip: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, str]:
    with monkeypatch.context() as m:
        if not skip:
            m.setattr(codegen, "signed_zero_sums", lambda steps, kept, chained: set())
        out, source = run_with_sources(text, args, m)
    return np.asarray(out[0]), source


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("case", sorted(CASES))
def test_products_added_to_values_never_negative_zero(case: str, seed: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    operands, before, skips = CASES[case]
    text = SCAN.replace("%s = stablehlo.add OTHER", before + f"%s = stablehlo.add {operands}")
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((6, 1, 9)).astype(np.float32)
    w = np.abs(rng.standard_normal((9, 10))).astype(np.float32)
    u = np.abs(rng.standard_normal((10, 10))).astype(np.float32) * 0.1
    h0 = np.full((1, 10), -0.0, np.float32)  # h @ u: all -0.0 sums at the first step
    xs[0] = -0.0
    xs[3] = 0.0
    if seed == 1:
        xs[2, 0, 4], u[3, 1] = np.nan, np.inf
    if seed == 2:  # -0.0 products all along: the state stays a zero
        xs[...] = -0.0
    got, fast = _run(text, [xs, w, u, h0], True, monkeypatch)
    want, slow = _run(text, [xs, w, u, h0], False, monkeypatch)
    assert ", False)" not in slow
    assert (", False)" in fast) == skips
    assert got.tobytes() == want.tobytes()
