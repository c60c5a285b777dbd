"""Splat constants as 0-d operands of binary ufuncs in compiled plans (interpreter/splat.py):
the same bits and memory order as with the folded full constant, for C-contiguous operands
and broadcast views (the full constant's path), NaN, infinities, -0.0, subnormals and empty tensors."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter import codegen
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
