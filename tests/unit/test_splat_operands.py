"""Splat constants as 0-d operands of binary ufuncs in compiled plans (interpreter/splat.py):
the same bits and memory order as with the folded full constant, for C-contiguous operands
and broadcast views (the full constant's path), NaN, infinities, -0.0, subnormals and empty tensors."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.interpreter import codegen, engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.interpreter.splat import splat_scalar
from shlo_cli.ir.parser import parse_source

TEMPLATE = """
func.func @main(%x: tensor<{n}x8xf32>, %y: tensor<8x{n}xf32>, %v: tensor<8xf32>) -> (tensor<{n}x8xf32>, tensor<{n}x8xf32>, tensor<{n}x8xf32>, tensor<{n}x8xf32>, tensor<{n}x8xf32>, tensor<{n}x8xf32>) {{
  %c = stablehlo.constant dense<{value}> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<{n}x8xf32>
  %m = stablehlo.multiply %b, %x : tensor<{n}x8xf32>
  %s = stablehlo.subtract %x, %b : tensor<{n}x8xf32>
  %t = stablehlo.transpose %y, dims = [1, 0] : (tensor<8x{n}xf32>) -> tensor<{n}x8xf32>
  %d = stablehlo.divide %b, %t : tensor<{n}x8xf32>
  %mx = stablehlo.maximum %x, %b : tensor<{n}x8xf32>
  %p = stablehlo.power %b, %x : tensor<{n}x8xf32>
  %bv = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<8xf32>) -> tensor<{n}x8xf32>
  %w = stablehlo.add %bv, %b : tensor<{n}x8xf32>
  return %m, %s, %d, %mx, %p, %w : tensor<{n}x8xf32>, tensor<{n}x8xf32>, tensor<{n}x8xf32>, tensor<{n}x8xf32>, tensor<{n}x8xf32>, tensor<{n}x8xf32>
}}
"""


def _inputs(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -3e-39, 1.0], np.float32)
    x = rng.standard_normal((n, 8)).astype(np.float32)
    y = rng.standard_normal((8, n)).astype(np.float32)
    if n:
        x.reshape(-1)[: special.size] = special[: x.size]
        y.reshape(-1)[-special.size:] = special[: y.size]
    return [x, y, special]


def _run(text: str, args: list[np.ndarray], splat: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], str]:
    with monkeypatch.context() as m:
        if not splat:
            m.setattr(codegen, "splat_position", lambda step, consts: None)
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
        return out, interpreter._plans[id(main.regions[0])].compiled.source


@pytest.mark.parametrize("value", ["2.0", "-0.0", "0x7FC00001", "0x7F800000", "1.0e-45", "-3.5"])
@pytest.mark.parametrize("n", [0, 1, 5, 64])
def test_splat_operands_give_the_full_constants_bits(value: str, n: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = TEMPLATE.format(n=n, value=value)
    for seed in range(2):
        args = _inputs(n, seed)
        fast, source = _run(text, args, True, monkeypatch)
        slow, plain = _run(text, args, False, monkeypatch)
        if n > 1 and value != "0x7FC00001":
            assert source.count("flags.c_contiguous") == 4  # not maximum, power
        assert "flags.c_contiguous" not in plain
        for i, (a, b) in enumerate(zip(fast, slow, strict=True)):
            assert a.dtype == b.dtype and a.shape == b.shape, i
            assert a.flags.c_contiguous == b.flags.c_contiguous, i
            assert a.tobytes() == b.tobytes(), i


def test_splat_scalar_compares_bits() -> None:
    assert splat_scalar(np.array([np.nan, np.nan], np.float32)) is None  # payload order
    assert splat_scalar(np.array([0.0, -0.0], np.float32)) is None
    assert splat_scalar(np.zeros((0, 3), np.float32)) is None
    assert splat_scalar(np.ones(1, np.float32)) is None  # one element: nothing to save
    one = splat_scalar(np.full((2, 2), 3, np.int8))
    assert one is not None and one.shape == () and one.dtype == np.int8 and not one.flags.writeable


RUNTIME = """
func.func @main(%x: tensor<8x4096xui32>, %v: tensor<4096xui32>, %k: tensor<ui32>, %r: tensor<ui32>, %m: tensor<8x4096xi1>, %p: tensor<i1>, %s: tensor<8x4096xi32>, %q: tensor<i32>) -> (tensor<8x4096xui32>, tensor<8x4096xui32>, tensor<8x4096xui32>, tensor<8x4096xui32>, tensor<8x4096xi1>, tensor<8x4096xi1>, tensor<8x4096xui32>, tensor<8x4096xui32>) {
  %kx = stablehlo.xor %k, %r : tensor<ui32>
  %kb = stablehlo.broadcast_in_dim %kx, dims = [] : (tensor<ui32>) -> tensor<8x4096xui32>
  %a = stablehlo.add %x, %kb : tensor<8x4096xui32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<ui32>) -> tensor<8x4096xui32>
  %l = stablehlo.shift_left %a, %rb : tensor<8x4096xui32>
  %h = stablehlo.shift_right_logical %rb, %x : tensor<8x4096xui32>
  %vb = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<4096xui32>) -> tensor<8x4096xui32>
  %w = stablehlo.or %vb, %rb : tensor<8x4096xui32>
  %pb = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<i1>) -> tensor<8x4096xi1>
  %am = stablehlo.and %m, %pb : tensor<8x4096xi1>
  %qb = stablehlo.broadcast_in_dim %q, dims = [] : (tensor<i32>) -> tensor<8x4096xi32>
  %c = stablehlo.compare LT, %s, %qb, SIGNED : (tensor<8x4096xi32>, tensor<8x4096xi32>) -> tensor<8x4096xi1>
  %kept = stablehlo.broadcast_in_dim %kx, dims = [] : (tensor<ui32>) -> tensor<8x4096xui32>
  %u = stablehlo.subtract %x, %kept : tensor<8x4096xui32>
  %z = stablehlo.constant dense<3> : tensor<ui32>
  %kz = stablehlo.add %r, %z : tensor<ui32>
  %zb = stablehlo.broadcast_in_dim %kz, dims = [] : (tensor<ui32>) -> tensor<8x4096xui32>
  %e = stablehlo.reduce(%zb init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x4096xui32>, tensor<ui32>) -> tensor<8xui32>
  %eb = stablehlo.broadcast_in_dim %e, dims = [0] : (tensor<8xui32>) -> tensor<8x4096xui32>
  %f = stablehlo.xor %zb, %eb : tensor<8x4096xui32>
  return %a, %l, %h, %w, %am, %c, %kept, %f : tensor<8x4096xui32>, tensor<8x4096xui32>, tensor<8x4096xui32>, tensor<8x4096xui32>, tensor<8x4096xi1>, tensor<8x4096xi1>, tensor<8x4096xui32>, tensor<8x4096xui32>
}
"""

LOOP = """
func.func @main(%x: tensor<8x4096xui32>, %k: tensor<ui32>) -> tensor<8x4096xui32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c5 = stablehlo.constant dense<5> : tensor<i32>
  %c13 = stablehlo.constant dense<13> : tensor<ui32>
  %r:3 = stablehlo.while(%i = %c0, %acc = %x, %key = %k) : tensor<i32>, tensor<8x4096xui32>, tensor<ui32>
    cond {
      %lt = stablehlo.compare LT, %i, %c5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %kb = stablehlo.broadcast_in_dim %key, dims = [] : (tensor<ui32>) -> tensor<8x4096xui32>
      %n = stablehlo.add %acc, %kb : tensor<8x4096xui32>
      %key2 = stablehlo.add %key, %c13 : tensor<ui32>
      %sb = stablehlo.broadcast_in_dim %key2, dims = [] : (tensor<ui32>) -> tensor<8x4096xui32>
      %sh = stablehlo.shift_right_logical %n, %sb : tensor<8x4096xui32>
      %o = stablehlo.xor %n, %sh : tensor<8x4096xui32>
      %i2 = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %i2, %o, %key2 : tensor<i32>, tensor<8x4096xui32>, tensor<ui32>
    }
  return %r#1 : tensor<8x4096xui32>
}
"""


def _run_runtime(text: str, args: list[np.ndarray], splat: bool,
                 monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], str]:
    """main's results on a second call and the generated sources (blocks and loops)."""
    loops: list[str] = []
    with monkeypatch.context() as m:
        if not splat:
            m.setattr(codegen, "runtime_splats", lambda steps, excluded, kept: set())
        build = engine.compile_loop

        def spy(*a: Any, **k: Any) -> Any:
            loop = build(*a, **k)
            loops.append(loop.source)
            return loop
        m.setattr(engine, "compile_loop", spy)
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
        blocks = [plan.compiled.source for plan in interpreter._plans.values()
                  if getattr(plan, "compiled", None) is not None]
        return out, "\n".join(blocks + loops)


@pytest.mark.parametrize("seed", range(3))
def test_runtime_splats_give_the_broadcasts_bits(seed: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Integer and i1 values broadcast from 0-d at run time (threefry's key words and
    rotation amounts) read as 0-d operands by ufuncs and unsigned shifts, on either side;
    a reader whose other operand is a broadcast view gets the broadcast; a broadcast also
    returned (%kept, merged with %kb), or also read by a reduce, stays. Same bits, dtypes and memory order."""
    rng = np.random.default_rng(seed)
    amount = [np.uint32(5), np.uint32(31), np.uint32(40)][seed]
    args = [rng.integers(0, 2 ** 32, (8, 4096), dtype=np.uint32),
            rng.integers(0, 2 ** 32, 4096, dtype=np.uint32),
            np.array(rng.integers(0, 2 ** 32), np.uint32), np.array(amount),
            rng.random((8, 4096)) < 0.5, np.array(seed != 1),
            rng.integers(-100, 100, (8, 4096), dtype=np.int32), np.array(seed - 1, np.int32)]
    fast, source = _run_runtime(RUNTIME, args, True, monkeypatch)
    slow, plain = _run_runtime(RUNTIME, args, False, monkeypatch)
    assert source.count("flags.c_contiguous") == 5 and "flags.c_contiguous" not in plain
    for i, (a, b) in enumerate(zip(fast, slow, strict=True)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, i
        assert a.flags.c_contiguous == b.flags.c_contiguous, i
        assert a.tobytes() == b.tobytes(), i
    want = args[0] + (args[2] ^ args[3])
    np.testing.assert_array_equal(fast[0], want)
    loop_args = [args[0], args[2]]
    fast, source = _run_runtime(LOOP, loop_args, True, monkeypatch)
    slow, plain = _run_runtime(LOOP, loop_args, False, monkeypatch)
    assert "flags.c_contiguous" in source and "flags.c_contiguous" not in plain
    assert np.asarray(fast[0]).tobytes() == np.asarray(slow[0]).tobytes()
