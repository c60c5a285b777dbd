"""fused_writes.py: in a counted loop's copy for runs with no checks, a scan output's f32
element write takes the expression computing it (one rounding, by the write); against
the general evaluator bit for bit, with NaNs (signalling too: the NaN test at the loop's
end runs the steps again), infinities, overflow, -0.0 and subnormals; a value another
line reads too keeps its own line."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest
from loop_helpers import run_loops

# ys[i] = y(h2) with h2 = h * p + xs[i] carried; with `acc`, acc + y carried too.
LOOP = """
func.func @main(%xs: tensor<8x{t}>, %h0: tensor<{t}>, %p: tensor<{t}>, %q: tensor<{t}>) -> (tensor<i32>, tensor<{t}>, tensor<8x{t}>, tensor<{t}>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<8x{t}>
  %r:4 = stablehlo.while(%i = %c0, %h = %h0, %ys = %z, %acc = %h0) : tensor<i32>, tensor<{t}>, tensor<8x{t}>, tensor<{t}>
    cond {{
      %n = stablehlo.constant dense<8> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<8x{t}>, tensor<i32>) -> tensor<1x{t}>
      %x = stablehlo.reshape %x0 : (tensor<1x{t}>) -> tensor<{t}>
      %m = stablehlo.multiply %h, %p : tensor<{t}>
      %h2 = stablehlo.add %m, %x : tensor<{t}>
      %y = {output}
      %b = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<{t}>) -> tensor<1x{t}>
      %ys2 = stablehlo.dynamic_update_slice %ys, %b, %i : (tensor<8x{t}>, tensor<1x{t}>, tensor<i32>) -> tensor<8x{t}>
      %acc2 = {acc}
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %ys2, %acc2 : tensor<i32>, tensor<{t}>, tensor<8x{t}>, tensor<{t}>
    }}
  return %r#0, %r#1, %r#2, %r#3 : tensor<i32>, tensor<{t}>, tensor<8x{t}>, tensor<{t}>
}}
"""
OUTPUTS = {
    "multiply": "stablehlo.multiply %h2, %q : tensor<{t}>",
    "divide": "stablehlo.divide %h2, %q : tensor<{t}>",
    "subtract": "stablehlo.subtract %q, %h2 : tensor<{t}>",
    "tanh": "stablehlo.tanh %h2 : tensor<{t}>",
}
EDGES = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-40, 0.1, -1.5, 3.4e38, 1e30,
         1.0000001, 2.0]


def _values(dtype: type, rng: np.random.Generator, size: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        out = np.array(EDGES, np.float64)[rng.integers(len(EDGES), size=size)].astype(dtype)
    normal = rng.random(size) < 0.5
    out[normal] = rng.standard_normal(int(normal.sum())).astype(dtype)
    if dtype == np.float32:
        out[rng.random(size) < 0.1] = np.array(0x7FA00001, np.uint32).view(np.float32)
    return out


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("output", list(OUTPUTS))
@pytest.mark.parametrize("read", [False, True])
def test_fused_writes_match_the_evaluator(t: str, output: str, read: bool,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    dtype = {"f32": np.float32, "f64": np.float64}[t]
    acc = "stablehlo.add %acc, %y : tensor<{t}>" if read else "stablehlo.add %acc, %h2 : tensor<{t}>"
    text = LOOP.format(t=t, output=OUTPUTS[output].format(t=t), acc=acc.format(t=t))
    rng = np.random.default_rng(len(output) + read)
    sources: list[str] = []
    for k in range(40):
        clean = k % 2 == 0  # (half the runs without NaN: the unchecked loop's result stands)
        xs = rng.standard_normal(8).astype(dtype) if clean else _values(dtype, rng, 8)
        h0, p, q = (rng.standard_normal(3).astype(dtype) if clean else _values(dtype, rng, 3))
        args = [xs, dtype(h0), dtype(p), dtype(q)]
        got, sources = run_loops(text, args, True, monkeypatch)
        want, _ = run_loops(text, args, False, monkeypatch)
        for a, b in zip(got, want, strict=True):
            assert type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (k, args)
    unchecked = sources[0].split("        else:\n            entry = ")[1].split("            if ")[0]
    fused = re.findall(r"\n +a2_m\[a0\] = (.+)", unchecked)
    assert len(fused) == 1
    assert (re.fullmatch(r"wf_s\d+", fused[0]) is not None) == (t == "f64" or read)
