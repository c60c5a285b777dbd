"""convert f32 -> bf16 on bit patterns (`conversions.f32_to_bfloat16`, chosen by the
specialized-kernel hook) against the general evaluator, on random bit patterns and the
rounding edges: ties to even, the carry into the exponent, overflow to inf, subnormals, NaN."""

from __future__ import annotations

import numpy as np
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo.conversions import f32_to_bfloat16
from shlo_cli.dialects.stablehlo.specialize import bind_specialized

PROGRAM = """
func.func @main(%x: tensor<Nxf32>) -> tensor<Nxbf16> {
  %0 = stablehlo.convert %x : (tensor<Nxf32>) -> tensor<Nxbf16>
  return %0 : tensor<Nxbf16>
}
"""
EDGES = [0, 0x80000000, 0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0x7F7FFFFF,
         0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x00008000, 0x00018000, 0x007FFFFF, 0x00000001,
         0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0xFFC12345, 0x7FA00001]


def test_bit_rounding_is_the_general_conversion() -> None:
    rng = np.random.default_rng(3)
    bits = np.concatenate([rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32),
                           np.array(EDGES, np.uint32)])
    x = bits.view(np.float32)
    program = PROGRAM.replace("N", str(x.size))
    fast, kernel = run_first_op(program, [x], bind_specialized, specialized=True)
    general, other = run_first_op(program, [x], bind_specialized, specialized=False)
    assert kernel is f32_to_bfloat16 and other is not f32_to_bfloat16
    np.testing.assert_array_equal(fast.view(np.uint16), general.view(np.uint16))


def test_shapes_and_empty() -> None:
    assert f32_to_bfloat16(np.array(1.5, np.float32)).shape == ()
    assert f32_to_bfloat16(np.ones((3, 4), np.float32)[:, ::2]).shape == (3, 2)
    assert f32_to_bfloat16(np.zeros((0, 2), np.float32)).shape == (0, 2)
