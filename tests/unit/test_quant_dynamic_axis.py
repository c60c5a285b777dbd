"""A per-axis quantized type whose quantized dimension is dynamic (`?`) passes the
verifier: the number of its scales is checked against the actual size at evaluation, a
mismatch a diagnostic there (a fuzzed uniform_quantize of 5 elements with 2 scales was a
numpy broadcast error)."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic

Q = "!quant.uniform<i8:f32:1, {0.5:-3, 0.25:4}>"
PROGRAM = """
func.func @main(%x: tensor<1xNx2xf32>) -> tensor<1xNx2xf32> {
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<1xNx2xf32>) -> tensor<1x?x2xQ>
  %d = "stablehlo.uniform_dequantize"(%q) : (tensor<1x?x2xQ>) -> tensor<1x?x2xf32>
  %r = "stablehlo.reshape"(%d) : (tensor<1x?x2xf32>) -> tensor<1xNx2xf32>
  return %r : tensor<1xNx2xf32>
}
""".replace("Q>", Q + ">")


def _program(n: int) -> str:
    return PROGRAM.replace("xNx", f"x{n}x")


def test_a_dynamic_quantized_dimension_of_the_right_size() -> None:
    x = np.array([[[1.0, -2.0], [3.0, 0.3]]], np.float32)
    (out,) = shlo_cli.interpret(_program(2), x)
    scales = np.array([0.5, 0.25], np.float32).reshape(1, 2, 1)
    zero_points = np.array([-3, 4], np.float32).reshape(1, 2, 1)
    want = (np.clip(np.rint(x / scales + zero_points), -128, 127) - zero_points) * scales
    np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("n", [5, 1])
def test_a_dynamic_quantized_dimension_of_another_size(n: int) -> None:
    x = np.zeros((1, n, 2), np.float32)
    with pytest.raises(Diagnostic, match=f"quantized dimension 1 has {n} elements, but the "
                                         "type has 2 scales"):
        shlo_cli.interpret(_program(n), x)
