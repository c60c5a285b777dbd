"""Elementwise chains over large tensors run a block of rows at a time (interpreter/blocked.py):
the same bits as op by op, for ufuncs, shifts, libm kernels and signed extrema, scalar
steps and scalar broadcasts inside the chain, splat constants read as 0-d values, results
used after it or by a region."""

from __future__ import annotations

import re

import numpy as np
import pytest

from shlo_cli.interpreter import blocked
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.interpreter.splat import splat_constant
from shlo_cli.ir.parser import parse_source

ROUNDS = """
func.func @main(%x: tensor<SHAPExui32>, %y: tensor<SHAPExui32>, %k: tensor<2xui32>)
    -> (tensor<SHAPExui32>, tensor<SHAPExui32>) {
  %s = stablehlo.add %x, %y : tensor<SHAPExui32>
  %w = stablehlo.slice %k [0:1] : (tensor<2xui32>) -> tensor<1xui32>
  %r = stablehlo.reshape %w : (tensor<1xui32>) -> tensor<ui32>
  %b = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<ui32>) -> tensor<SHAPExui32>
  %l = stablehlo.shift_left %y, %b : tensor<SHAPExui32>
  %c32 = stablehlo.constant dense<32> : tensor<ui32>
  %n = stablehlo.subtract %c32, %r : tensor<ui32>
  %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<ui32>) -> tensor<SHAPExui32>
  %h = stablehlo.shift_right_logical %y, %nb : tensor<SHAPExui32>
  %o = stablehlo.or %l, %h : tensor<SHAPExui32>
  %z = stablehlo.xor %s, %o : tensor<SHAPExui32>
  %t = stablehlo.add %s, %z : tensor<SHAPExui32>
  return %t, %b : tensor<SHAPExui32>, tensor<SHAPExui32>
}
"""

FLOATS = """
func.func @main(%x: tensor<SHAPExf32>) -> (tensor<SHAPExf32>, tensor<f32>) {
  %n = stablehlo.negate %x : tensor<SHAPExf32>
  %e = stablehlo.exponential %n : tensor<SHAPExf32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %ob = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<SHAPExf32>
  %d = stablehlo.add %ob, %e : tensor<SHAPExf32>
  %q = stablehlo.divide %ob, %d : tensor<SHAPExf32>
  %m = stablehlo.maximum %q, %n : tensor<SHAPExf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%m init: %zero) applies stablehlo.add across dimensions = DIMS
    : (tensor<SHAPExf32>, tensor<f32>) -> tensor<f32>
  %p = stablehlo.multiply %x, %q : tensor<SHAPExf32>
  return %p, %sum : tensor<SHAPExf32>, tensor<f32>
}
"""


def _run(text: str, args: list[np.ndarray], monkeypatch: pytest.MonkeyPatch,
         chains: bool) -> tuple[list[np.ndarray], str]:
    if not chains:
        monkeypatch.setattr(blocked, "CHAIN_MIN", 1 << 62)
    interpreter = Interpreter(parse_source(text))
    out = interpreter.call(interpreter.lookup_function("main"), args)
    monkeypatch.undo()
    sources = [p.compiled.source for p in interpreter._plans.values() if p.compiled]
    return [np.asarray(o) for o in out], "\n".join(sources)


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    for x, y in zip(a, b, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype
        x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
        assert np.array_equal(x.reshape(-1).view(np.uint8), y.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("shape", [(300_000,), (7, 300, 100), (131_075,)])
def test_threefry_like_rounds(shape: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    text = ROUNDS.replace("SHAPE", "x".join(map(str, shape)))
    rng = np.random.default_rng(0)
    x, y = (rng.integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32) for _ in "xy")
    args = [x, y, np.array([13, 7], np.uint32)]
    got, source = _run(text, args, monkeypatch, chains=True)
    want, plain = _run(text, args, monkeypatch, chains=False)
    assert "for _s in range" in source and "for _s in range" not in plain
    _same(got, want)


def test_floats_with_nan_and_a_result_used_by_a_region(monkeypatch: pytest.MonkeyPatch) -> None:
    shape = (5, 300, 100)
    text = FLOATS.replace("SHAPE", "x".join(map(str, shape))).replace("DIMS", "[0, 1, 2]")
    x = (np.random.default_rng(1).standard_normal(shape) * 30).astype(np.float32)
    x.reshape(-1)[::97] = np.nan
    x.reshape(-1)[::89] = -0.0
    got, source = _run(text, [x], monkeypatch, chains=True)
    want, _ = _run(text, [x], monkeypatch, chains=False)
    assert "for _s in range" in source
    _same(got, want)


def test_small_tensors_make_no_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    text = FLOATS.replace("SHAPE", "4x100").replace("DIMS", "[0, 1]")
    _, source = _run(text, [np.ones((4, 100), np.float32)], monkeypatch, chains=True)
    assert "for _s in range" not in source


CAPTURED = """
func.func @main(%x: tensor<5x300x100xf32>, %c: tensor<i1>) -> tensor<5x300x100xf32> {
  %a = stablehlo.multiply %x, %x : tensor<5x300x100xf32>
  %b = stablehlo.add %a, %x : tensor<5x300x100xf32>
  %r = "stablehlo.if"(%c) ({
    stablehlo.return %b : tensor<5x300x100xf32>
  }, {
    stablehlo.return %a : tensor<5x300x100xf32>
  }) : (tensor<i1>) -> tensor<5x300x100xf32>
  return %r : tensor<5x300x100xf32>
}
"""


@pytest.mark.parametrize("branch", [True, False])
def test_chain_results_read_by_a_region(branch: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.random.default_rng(2).standard_normal((5, 300, 100)).astype(np.float32)
    args = [x, np.array(branch)]
    got, source = _run(CAPTURED, args, monkeypatch, chains=True)
    want, _ = _run(CAPTURED, args, monkeypatch, chains=False)
    assert "for _s in range" in source
    _same(got, want)
    _same(got, [x * x + x if branch else x * x])


MORE_KERNELS = """
func.func @main(%x: tensor<5x300x100xf32>) -> (tensor<5x300x100xf32>, tensor<5x300x100xi1>) {
  %l = stablehlo.logistic %x : tensor<5x300x100xf32>
  %a = stablehlo.abs %x : tensor<5x300x100xf32>
  %s = stablehlo.sqrt %a : tensor<5x300x100xf32>
  %r = stablehlo.rsqrt %a : tensor<5x300x100xf32>
  %b = stablehlo.convert %s : (tensor<5x300x100xf32>) -> tensor<5x300x100xbf16>
  %f = stablehlo.convert %b : (tensor<5x300x100xbf16>) -> tensor<5x300x100xf32>
  %m = stablehlo.multiply %f, %r : tensor<5x300x100xf32>
  %p = stablehlo.add %m, %l : tensor<5x300x100xf32>
  %c = stablehlo.compare LT, %p, %x, FLOAT
    : (tensor<5x300x100xf32>, tensor<5x300x100xf32>) -> tensor<5x300x100xi1>
  %g = stablehlo.sign %x : tensor<5x300x100xf32>
  %w = stablehlo.select %c, %g, %p : tensor<5x300x100xi1>, tensor<5x300x100xf32>
  return %w, %c : tensor<5x300x100xf32>, tensor<5x300x100xi1>
}
"""


def test_more_kernels_in_a_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    x = (np.random.default_rng(3).standard_normal((5, 300, 100)) * 20).astype(np.float32)
    flat = x.reshape(-1)
    flat[::101], flat[::103], flat[::107] = np.nan, -0.0, np.inf
    flat[:40000] = np.random.default_rng(4).standard_normal(40000)  # blocks without NaN
    got, source = _run(MORE_KERNELS, [x], monkeypatch, chains=True)
    want, _ = _run(MORE_KERNELS, [x], monkeypatch, chains=False)
    assert source.count("        t") >= 11  # every op inside the loop
    _same(got, want)


SPLATS = """
func.func @main(%x: tensor<301x517xf32>, %i: tensor<301x517xi32>)
    -> (tensor<301x517xf32>, tensor<301x517xi32>) {
  %half = stablehlo.constant dense<0.5> : tensor<301x517xf32>
  %negzero = stablehlo.constant dense<-0.0> : tensor<301x517xf32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<301x517xf32>
  %nan = stablehlo.constant dense<0x7FC00001> : tensor<301x517xf32>
  %seven = stablehlo.constant dense<-7> : tensor<301x517xi32>
  %a = stablehlo.multiply %x, %half : tensor<301x517xf32>
  %b = stablehlo.subtract %negzero, %a : tensor<301x517xf32>
  %c = stablehlo.divide %b, %inf : tensor<301x517xf32>
  %d = stablehlo.multiply %negzero, %c : tensor<301x517xf32>
  %e = stablehlo.add %d, %b : tensor<301x517xf32>
  %f = stablehlo.add %e, %nan : tensor<301x517xf32>
  %g = stablehlo.multiply %f, %x : tensor<301x517xf32>
  %m = stablehlo.multiply %i, %seven : tensor<301x517xi32>
  %n = stablehlo.add %m, %i : tensor<301x517xi32>
  return %g, %n : tensor<301x517xf32>, tensor<301x517xi32>
}
"""


def test_splat_constants_are_read_as_scalars(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain's ufuncs take splat constants as 0-d values (not NaN ones): the same bits as
    the blocks of the whole constants, and the values of op by op (NaN, -0.0, inf
    operands)."""
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((301, 517)) * 1e3).astype(np.float32)
    flat = x.reshape(-1)
    flat[::101], flat[::103], flat[::107] = np.nan, -0.0, np.inf
    flat[1::109] = np.float32(-np.inf)
    flat[2::113] = np.frombuffer(np.uint32(0xFFC00123).tobytes(), np.float32)[0]
    ints = rng.integers(-(1 << 31), 1 << 31, (301, 517), dtype=np.int64).astype(np.int32)
    got, source = _run(SPLATS, [x, ints], monkeypatch, chains=True)
    assert "for _s in range" in source
    assert len(re.findall(r"\bz\d+_\d\b", source)) == 5  # one per non-NaN splat operand
    assert re.search(r"K\d+\(t\d+, v\d+\[_s:_s \+ \d+\]\)", source)  # the NaN's blocks
    monkeypatch.setattr(blocked, "_splat_operands", lambda step, inner: {})
    blocks, plain = _run(SPLATS, [x, ints], monkeypatch, chains=True)
    assert "for _s in range" in plain and not re.search(r"\bz\d+_\d\b", plain)
    _same(got, blocks)
    want, _ = _run(SPLATS, [x, ints], monkeypatch, chains=False)
    for a, b in zip(got, want, strict=True):  # (NaN + NaN: payloads may differ op by op)
        np.testing.assert_array_equal(a, b)
        numbers = ~np.isnan(a) if a.dtype.kind == "f" else np.ones(a.shape, bool)
        assert np.array_equal(np.signbit(a[numbers]), np.signbit(b[numbers]))  # zeros' signs


def test_splat_constant_values() -> None:
    text = """
func.func @main() -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xi1>, tensor<4x4xf32>) {
  %a = stablehlo.constant dense<-0.0> : tensor<4x4xf32>
  %b = stablehlo.constant dense<0x7FC00000> : tensor<4x4xf32>
  %c = stablehlo.constant dense<true> : tensor<4x4xi1>
  %d = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0],
      [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<4x4xf32>
  return %a, %b, %c, %d : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xi1>, tensor<4x4xf32>
}
"""
    module = parse_source(text)
    ret = next(op for op in module.op.walk() if op.name == "func.return")
    negzero, nan, true, varied = (splat_constant(v) for v in ret.operands)
    assert negzero is not None and negzero.shape == () and negzero.dtype == np.float32
    assert np.signbit(negzero) and negzero == 0.0 and not negzero.flags.writeable
    assert nan is None and varied is None
    assert true is not None and true.dtype == np.bool_ and bool(true)
