"""reduce_precision and bitcast_convert of 0-d values in a generated loop (pyscalar.py,
scalar_ops.py) as Python lines on the values' bits: the kernels' bits on random bit
patterns (every pattern of 16 bits) and the edges (ties to even in the kept mantissa, the
carry into the exponent, exponents past the reduced range either way, subnormals,
infinities, NaN payloads and signalling NaNs, integers' extremes)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest
from line_helpers import BITS, DTYPES, check_lines, planned_step


def _values(t: str, rng: np.random.Generator) -> np.ndarray:
    dtype = DTYPES[t]
    bits = BITS[dtype.itemsize]
    random = rng.integers(0, np.iinfo(bits).max, 20_000, dtype=bits, endpoint=True).view(dtype)
    normal = (rng.standard_normal(5_000) * 10.0 ** rng.integers(-12, 12, 5_000)).astype(dtype)
    # values of few mantissa bits, and their neighbours: ties of every reduced width
    ties = (np.floor(rng.uniform(1, 2 ** 12, 5_000)) * 2.0 ** rng.integers(-30, 30, 5_000)
            + 2.0 ** rng.integers(-40, 10, 5_000))
    ties = ties.astype(dtype)
    beside = np.concatenate([np.nextafter(ties, dtype.type(np.inf)),
                             np.nextafter(ties, dtype.type(-np.inf))])
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 65504.0, 65520.0, 65536.0,
                         6.1e-5, 6.103515625e-05, 5.96e-8, 1e-40, 3.4e38, 1.0, 1.5, 1.25], dtype)
    return np.concatenate([random, normal, ties, beside, specials])


FORMATS = [(5, 10), (8, 7), (4, 3), (2, 0), (8, 0), (11, 10), (5, 30), (10, 20)]


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize(("exponent", "mantissa"), FORMATS)
def test_reduce_precision(t: str, exponent: int, mantissa: int) -> None:
    op = f"stablehlo.reduce_precision %a0, format = e{exponent}m{mantissa} : tensor<{t}>"
    step = planned_step(op, [t], t)
    lines = check_lines(step, _values(t, np.random.default_rng(exponent * 100 + mantissa)))
    assert "_RP" in lines


PAIRS = [("f32", "i32"), ("f32", "ui32"), ("f64", "i64"), ("f64", "ui64"), ("f16", "i16"),
         ("f16", "ui16"), ("i32", "ui32"), ("ui64", "i64"), ("i16", "ui16")]


def _bits(t: str, rng: np.random.Generator) -> np.ndarray:
    """Every pattern of a 16-bit type, else random patterns and the specials' bits."""
    dtype = DTYPES[t]
    if dtype.itemsize == 2:
        return np.arange(1 << 16, dtype=np.uint16).view(dtype)
    bits = BITS[dtype.itemsize]
    float_type = {4: np.float32, 8: np.float64}[dtype.itemsize]
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, 1e-40, 5e-324],
                        float_type).view(bits)
    signalling = np.array([0x7F800001, 0xFFA00000] if dtype.itemsize == 4 else
                          [0x7FF0000000000001, 0xFFF4000000000000], bits)
    random = rng.integers(0, np.iinfo(bits).max, 20_000, dtype=bits, endpoint=True)
    edges = np.array([0, 1, np.iinfo(bits).max, np.iinfo(bits).max >> 1,
                      (np.iinfo(bits).max >> 1) + 1], bits)
    return np.concatenate([random, specials, signalling, edges]).view(dtype)


@pytest.mark.parametrize(("a", "b"), PAIRS + [(b, a) for a, b in PAIRS])
def test_bitcast(a: str, b: str) -> None:
    """Both ways: a float's bits (its operand is a clean value: no signalling NaN's quiet
    bit lost) and the float of bits (never converted back: its Python float)."""
    step = planned_step(f"stablehlo.bitcast_convert %a0 : (tensor<{a}>) -> tensor<{b}>", [a], b)
    lines = check_lines(step, _bits(a, np.random.default_rng(len(a) * 7 + len(b))))
    assert ("_BC" in lines) == (a.startswith("f") or b.startswith("f"))  # (ints: no cell)


# A step reading x[i] (f32: may be a signalling NaN) and carrying h (f32), s (ui32) and
# k (i32): d = h + x[i] (NaNs of two payloads meet), k ^= bits(d) ^ bits(x[i]) (a read's
# float: unclean), s = s * 1664525 + 1013904223 and h = float(bits(s >> 9 | 1.0's)) * x[i].
BITCASTS = """
func.func @main(%xs: tensor<8xf32>, %h0: tensor<f32>, %s0: tensor<ui32>) -> (tensor<f32>, tensor<ui32>, tensor<i32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = stablehlo.while(%i = %c0, %h = %h0, %s = %s0, %k = %c0) : tensor<i32>, tensor<f32>, tensor<ui32>, tensor<i32>
    cond {
      %c8 = stablehlo.constant dense<8> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<8xf32>, tensor<i32>) -> tensor<1xf32>
      %x = stablehlo.reshape %x0 : (tensor<1xf32>) -> tensor<f32>
      %d = stablehlo.add %h, %x : tensor<f32>
      %db = stablehlo.bitcast_convert %d : (tensor<f32>) -> tensor<i32>
      %xb = stablehlo.bitcast_convert %x : (tensor<f32>) -> tensor<i32>
      %k1 = stablehlo.xor %k, %db : tensor<i32>
      %k2 = stablehlo.xor %k1, %xb : tensor<i32>
      %a = stablehlo.constant dense<1664525> : tensor<ui32>
      %c = stablehlo.constant dense<1013904223> : tensor<ui32>
      %sa = stablehlo.multiply %s, %a : tensor<ui32>
      %s2 = stablehlo.add %sa, %c : tensor<ui32>
      %nine = stablehlo.constant dense<9> : tensor<ui32>
      %m = stablehlo.shift_right_logical %s2, %nine : tensor<ui32>
      %one = stablehlo.constant dense<1065353216> : tensor<ui32>
      %mo = stablehlo.or %m, %one : tensor<ui32>
      %u = stablehlo.bitcast_convert %mo : (tensor<ui32>) -> tensor<f32>
      %h2 = stablehlo.multiply %u, %x : tensor<f32>
      %i1 = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %i1 : tensor<i32>
      stablehlo.return %i2, %h2, %s2, %k2 : tensor<i32>, tensor<f32>, tensor<ui32>, tensor<i32>
    }
  return %r#1, %r#2, %r#3 : tensor<f32>, tensor<ui32>, tensor<i32>
}
"""


@pytest.mark.parametrize("read", [True, False])
@pytest.mark.parametrize("seed", range(16))
def test_bitcasts_in_a_loop(seed: int, read: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bitcasts both ways as lines in a loop: NaNs of different payloads meeting before a
    float's bits are read (redone first: without the `read`, every line of the step is on
    Python scalars and the NaN redos wait for the step's end), signalling NaNs read from
    the input (whose bits a Python float would not keep: that bitcast stays the kernel's)."""
    from loop_helpers import run_loops

    rng = np.random.default_rng(seed)
    nans = [0x7FC00000 | int(rng.integers(1, 1 << 22)), 0xFFC00000 | int(rng.integers(1, 1 << 22)),
            0x7F800001, 0xFFA00001]
    values = [np.array(b, np.uint32).view(np.float32) for b in nans] + [
        np.array(v, np.float32) for v in (0.5, -0.0, np.inf, -np.inf, 2.0, 1e-40)]
    pick = [values[int(k)] for k in rng.integers(len(values), size=9)]
    args = [np.array(pick[:8], np.float32), pick[8][()], np.uint32(rng.integers(0, 1 << 32))]
    text = BITCASTS if read else BITCASTS.replace(
        "%xb = stablehlo.bitcast_convert %x : (tensor<f32>) -> tensor<i32>",
        "%xb = stablehlo.constant dense<7> : tensor<i32>")
    got, sources = run_loops(text, args, True, monkeypatch)
    want, _ = run_loops(text, args, False, monkeypatch)
    for x, y in zip(got, want, strict=True):
        assert np.asarray(x).dtype == np.asarray(y).dtype
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), (x, y)
    source = "".join(sources)
    assert "_BCi[()]" in source and "_BCI[()] = " in source  # (both ways on Python scalars)
    if not read:  # the step-end NaN test reads the float whose bits are read
        assert re.search(r"\n +if (\w+) != \1 or (\w+) != \2:\n", source)
