"""A generated loop ignores numpy's floating-point errors once around its iterations and
calls its kernels' `unquieted` forms (interpreter/loopgen.py, dialects/quiet.py): the same
results, bit for bit, as the kernels that switch the error state per call (bf16 arithmetic
and conversions, an f32 row-times-matrix product, a shallow f32 product), with overflow,
NaN of both signs, -0.0 and subnormals; the caller's error state is restored, also when
the loop fails."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.interpreter import loopgen
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

BF16 = np.dtype(ml_dtypes.bfloat16)

SCAN = """
func.func @main(%h0: tensor<1x16xbf16>, %w: tensor<16x16xf32>, %v: tensor<4x16xf32>, %s0: tensor<1x4xf32>, %n: tensor<i32>) -> (tensor<1x16xbf16>, tensor<1x4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = stablehlo.while(%i = %c0, %h = %h0, %s = %s0, %k = %n) : tensor<i32>, tensor<1x16xbf16>, tensor<1x4xf32>, tensor<i32>
  cond {
    %t = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %wide = stablehlo.convert %h : (tensor<1x16xbf16>) -> tensor<1x16xf32>
    %p = stablehlo.dot_general %wide, %w, contracting_dims = [1] x [0] : (tensor<1x16xf32>, tensor<16x16xf32>) -> tensor<1x16xf32>
    %q = stablehlo.convert %p : (tensor<1x16xf32>) -> tensor<1x16xbf16>
    %m = stablehlo.multiply %q, %h : tensor<1x16xbf16>
    %d = stablehlo.divide %m, %q : tensor<1x16xbf16>
    %a = stablehlo.add %d, %h : tensor<1x16xbf16>
    %x = stablehlo.subtract %a, %m : tensor<1x16xbf16>
    %sd = stablehlo.dot_general %s, %v, contracting_dims = [1] x [0] : (tensor<1x4xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
    %sw = stablehlo.dot_general %sd, %w, contracting_dims = [1] x [1] : (tensor<1x16xf32>, tensor<16x16xf32>) -> tensor<1x16xf32>
    %s2 = stablehlo.slice %sw [0:1, 0:4] : (tensor<1x16xf32>) -> tensor<1x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %x, %s2, %k : tensor<i32>, tensor<1x16xbf16>, tensor<1x4xf32>, tensor<i32>
  }
  return %r#1, %r#2 : tensor<1x16xbf16>, tensor<1x4xf32>
}
"""


def _run(args: list[np.ndarray], quiet: bool, monkeypatch: pytest.MonkeyPatch
         ) -> tuple[list[Any], int]:
    wrapped = []
    with monkeypatch.context() as m:
        if not quiet:
            m.setattr(loopgen, "unquiet", lambda ns: False)
        else:
            real = loopgen._quietly

            def counting(run: Any) -> Any:
                wrapped.append(run)
                return real(run)
            m.setattr(loopgen, "_quietly", counting)
        interpreter = Interpreter(parse_source(SCAN))
        with np.errstate(all="ignore"):
            out = interpreter.call(interpreter.lookup_function("main"), list(args))
    return [np.asarray(o) for o in out], len(wrapped)


def _args(rng: np.random.Generator, steps: int) -> list[np.ndarray]:
    h = (rng.standard_normal((1, 16)) * 4).astype(BF16)
    bits = h.view(np.uint16).reshape(-1)
    bits[:6] = rng.permutation(np.array([0x7FC1, 0xFFC3, 0x8000, 0x0001, 0x7F7F, 0xFF80],
                                        np.uint16))
    w = (rng.standard_normal((16, 16)) * 30).astype(np.float32)
    w.reshape(-1)[rng.integers(0, 256, 3)] = np.array([1e38, -0.0, 1e-42], np.float32)
    v = rng.standard_normal((4, 16)).astype(np.float32)
    s = rng.standard_normal((1, 4)).astype(np.float32)
    return [h, w, v, s, np.array(steps, np.int32)]


@pytest.mark.parametrize("seed", range(6))
def test_unquieted_kernels_give_the_same_bits(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    args = _args(rng, [0, 1, 3, 9, 30, 2][seed])
    got, wrapped = _run(args, True, monkeypatch)
    want, _ = _run(args, False, monkeypatch)
    assert wrapped == 1
    for x, y in zip(got, want, strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()


def test_the_callers_error_state_is_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Errors raise in the caller's state before and after the loop; the loop's own
    overflows (1e38 weights) do not reach it, and a failing loop restores the state too."""
    args = _args(np.random.default_rng(7), 12)
    interpreter = Interpreter(parse_source(SCAN))
    main = interpreter.lookup_function("main")
    with np.errstate(all="raise"):
        interpreter.call(main, list(args))
        assert np.geterr()["over"] == "raise"
        with pytest.raises(FloatingPointError):
            np.float32(3e38) * np.float32(10)
        with pytest.raises(Exception):  # noqa: B017 - any error: a wrong operand type
            interpreter.call(main, [args[0], args[1], args[2], args[3], np.array([1, 2], np.int32)])
        assert np.geterr()["over"] == "raise"

