"""loopgen.py's loop version for carried floats that are no NaN on entry (exact as Python
floats): a masked step passing the carried value on (`where(i < n, f(h), h)`) and a scan
writing the carried value as it came in (`return f(h), h`), its condition reading a value
of the enclosing block, run on Python floats there;
against the general evaluator bit for bit, entry values NaN (signalling, negative)
included, which take the other version."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest
from loop_helpers import run_loops

LOOP = """
func.func @main(%xs: tensor<6x{t}>, %h0: tensor<{t}>, %ys0: tensor<6x{t}>, %n: tensor<i32>, %steps: tensor<i32>) -> (tensor<{t}>, tensor<6x{t}>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %ys = %ys0) : tensor<i32>, tensor<{t}>, tensor<6x{t}>
    cond {{
      %c6 = stablehlo.constant dense<6> : tensor<i32>
      %lt = stablehlo.compare LT, %i, {bound}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<6x{t}>, tensor<i32>) -> tensor<1x{t}>
      %x = stablehlo.reshape %x0 : (tensor<1x{t}>) -> tensor<{t}>
      %a = stablehlo.multiply %h, %x : tensor<{t}>
      %f = stablehlo.tanh %a : tensor<{t}>
      %on = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %h2 = stablehlo.select %on, %f, %h : tensor<i1>, tensor<{t}>
      %b = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<{t}>) -> tensor<1x{t}>
      %ys2 = stablehlo.dynamic_update_slice %ys, %b, %i : (tensor<6x{t}>, tensor<1x{t}>, tensor<i32>) -> tensor<6x{t}>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %ys2 : tensor<i32>, tensor<{t}>, tensor<6x{t}>
    }}
  return %r#1, %r#2 : tensor<{t}>, tensor<6x{t}>
}}
"""
BITS = {np.float32: (np.uint32, [0x7FA00001, 0xFFC00005, 0x7FC00000, 0x80000000, 0x00000001,
                                 0x7F800000, 0x3F000000]),
        np.float64: (np.uint64, [0x7FF4000000000001, 0xFFF8000000000005, 0x8000000000000000,
                                 0x0000000000000001, 0xFFF0000000000000, 0x3FE0000000000000])}


@pytest.mark.parametrize("bound", ["%c6", "%steps"])  # (a counted loop, a while loop)
@pytest.mark.parametrize("n", [0, 3, 6])
@pytest.mark.parametrize("dtype", list(BITS))
def test_entry_values(dtype: type, n: int, bound: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bits, entries = BITS[dtype]
    text = LOOP.format(t="f32" if dtype is np.float32 else "f64", bound=bound)
    xs = np.array([0.5, -1.25, np.nan, 2.0, -0.0, 3.0], dtype)
    source = ""
    for entry in entries:
        h0 = np.array(entry, bits).view(dtype)
        args = [xs, h0, np.full(6, 7.0, dtype), np.array(n, np.int32), np.array(6, np.int32)]
        got, sources = run_loops(text, args, True, monkeypatch)
        want, _ = run_loops(text, args, False, monkeypatch)
        source = "".join(sources)
        for x, y in zip(got, want, strict=True):
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), (hex(entry), x, y)
    # the version knowing h no NaN: h held as a Python float, its write an item assignment
    assert "if a1 == a1:" in source
    exact = source[source.index("if a1 == a1:"):]
    assert "a1 = float(a1)" in exact and re.search(r"a2_m\[.*\] = a1\n", exact)
