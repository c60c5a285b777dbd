"""lazy_selects.py: a loop step's select of two values computed on Python scalars runs only
the side it picks; against the general evaluator bit for bit (NaN, -0.0, the infinities,
subnormals; integers at their edges), with values both sides, the predicate or the next
step also read, a side reading the other side's value, nested selects."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter.lazy_selects import Lines, lazy_selects

# Each step computes %h2 and %g2 from the carried %h, %g and the element %x of %xs.
LOOP = """
func.func @main(%xs: tensor<16x{t}>, %h0: tensor<{t}>, %g0: tensor<{t}>) -> (tensor<{t}>, tensor<{t}>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %g = %g0) : tensor<i32>, tensor<{t}>, tensor<{t}>
    cond {{
      %n = stablehlo.constant dense<16> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<16x{t}>, tensor<i32>) -> tensor<1x{t}>
      %x = stablehlo.reshape %x0 : (tensor<1x{t}>) -> tensor<{t}>
      %k = stablehlo.constant dense<{k}> : tensor<{t}>
      %p = stablehlo.compare GT, %x, %k : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
      {body}
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2, %g2 : tensor<i32>, tensor<{t}>, tensor<{t}>
    }}
  return %r#1, %r#2 : tensor<{t}>, tensor<{t}>
}}
"""
BODIES = {
    # lax.cond's two branches: h * g + x or exp(-h * h) - x (an integer: h * g + x or h - x)
    "branches": """%a = stablehlo.multiply %h, %g : tensor<{t}>
      %b = stablehlo.add %a, %x : tensor<{t}>
      %n = stablehlo.negate %h : tensor<{t}>
      %m = stablehlo.multiply %n, %h : tensor<{t}>
      %e = {exp} %m : tensor<{t}>
      %c = stablehlo.subtract %e, %x : tensor<{t}>
      %h2 = stablehlo.select %p, %b, %c : tensor<i1>, tensor<{t}>
      %g2 = stablehlo.add %g, %x : tensor<{t}>""",
    # a value both sides read (t), one the predicate reads (q), one the next step reads (u)
    "shared": """%t = stablehlo.multiply %h, %x : tensor<{t}>
      %q = stablehlo.subtract %g, %x : tensor<{t}>
      %pq = stablehlo.compare LT, %q, %t : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
      %u = stablehlo.add %t, %g : tensor<{t}>
      %v = stablehlo.subtract %t, %h : tensor<{t}>
      %h2 = stablehlo.select %pq, %u, %v : tensor<i1>, tensor<{t}>
      %g2 = stablehlo.multiply %u, %k : tensor<{t}>""",
    # the true side reads the value the false side picks (q): computed before the select
    "crossed": """%q = stablehlo.subtract %h, %x : tensor<{t}>
      %r = stablehlo.multiply %q, %g : tensor<{t}>
      %h2 = stablehlo.select %p, %r, %q : tensor<i1>, tensor<{t}>
      %g2 = stablehlo.add %g, %k : tensor<{t}>""",
    # a select on one side of another
    "nested": """%pg = stablehlo.compare LT, %g, %h : (tensor<{t}>, tensor<{t}>) -> tensor<i1>
      %a = stablehlo.add %h, %x : tensor<{t}>
      %b = stablehlo.subtract %h, %x : tensor<{t}>
      %in = stablehlo.select %pg, %a, %b : tensor<i1>, tensor<{t}>
      %c = stablehlo.multiply %in, %g : tensor<{t}>
      %d = stablehlo.multiply %h, %k : tensor<{t}>
      %h2 = stablehlo.select %p, %c, %d : tensor<i1>, tensor<{t}>
      %g2 = stablehlo.subtract %g, %x : tensor<{t}>""",
}
TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def _values(dtype: np.dtype, rng: np.random.Generator, size: int) -> np.ndarray:
    if dtype.kind == "f":
        edges = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-40, 5e-324,
                          0.5, -1.5, 3.4e38, 1e300, 1.0000001, 2.0, -0.75], np.float64)
        with np.errstate(over="ignore"):
            return edges[rng.integers(len(edges), size=size)].astype(dtype)
    info = np.iinfo(dtype)
    edges = [info.min, -7, -1, 0, 1, 3, 65537, info.max]
    return np.array([edges[int(k)] for k in rng.integers(len(edges), size=size)], dtype)


@pytest.mark.parametrize("body", list(BODIES))
@pytest.mark.parametrize("t", list(TYPES))
def test_lazy_selects(t: str, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dtype = np.dtype(TYPES[t])
    floats = dtype.kind == "f"
    text = LOOP.format(t=t, k="0.25" if floats else "1", body=BODIES[body].format(
        t=t, exp="stablehlo.exponential" if floats else "stablehlo.negate"))
    source = ""
    for seed in range(12):
        rng = np.random.default_rng(seed)
        args = [_values(dtype, rng, 16), _values(dtype, rng, 1)[0][()],
                _values(dtype, rng, 1)[0][()]]
        got, sources = run_loops(text, args, True, monkeypatch)
        want, _ = run_loops(text, args, False, monkeypatch)
        source = "".join(sources)
        for x, y in zip(got, want, strict=True):
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), (seed, x, y)
    loop = source[source.index("while True"):]
    assert "        else:" in loop, loop  # (a select's sides moved into its branches)


def test_side_lines() -> None:
    """Which lines move: those only one side reads; a value the other side picks, the
    predicate reads or the block exports stays before the select."""
    lines = [("q = h - x", None), ("r = q * g", None), ("u = h + 1", None),
             ("w = u * 2", None), ("p = w > 0", None), ("s = w + q", None),
             ("t = r if p else s", None), ("e = h * 3", None), ("f = e if p else q", None)]
    out = lazy_selects(Lines(lines, range(len(lines)), (), ()), {"t", "f", "e"})
    assert [text for text, _ in out.lines] == [
        "q = h - x", "u = h + 1", "w = u * 2", "p = w > 0",
        "if p:", "    r = q * g", "    t = r", "else:", "    s = w + q", "    t = s",
        "e = h * 3", "f = e if p else q"]
    assert out.scalar == set(range(len(out.lines)))
    # a select picking its own predicate (bools): the predicate is computed before it
    bools = [("p = h > 0", None), ("n = not h", None), ("b = p if p else n", None)]
    assert [text for text, _ in lazy_selects(Lines(bools, range(3), (), ()), {"b"}).lines] == [
        "p = h > 0", "if p:", "    b = p", "else:", "    n = not h", "    b = n"]
    # a select on one side of another: its own sides move too
    nested = [("p = x > 0", None), ("q = g < h", None), ("a = h + x", None),
              ("b = h - x", None), ("i = a if q else b", None), ("c = i * g", None),
              ("d = h * 3", None), ("t = c if p else d", None)]
    assert [text for text, _ in lazy_selects(Lines(nested, range(8), (), ()), {"t"}).lines] == [
        "p = x > 0", "if p:", "    q = g < h", "    if q:", "        a = h + x", "        i = a",
        "    else:", "        b = h - x", "        i = b", "    c = i * g", "    t = c",
        "else:", "    d = h * 3", "    t = d"]
    # a line that is not a plain statement: nothing moves
    odd = [*lines[:6], ("    x = 1", None), *lines[6:]]
    assert lazy_selects(Lines(odd, range(len(odd)), (), ()), {"t"}).lines == odd
