"""convert f32 -> ml_dtypes' float types (bf16, f8, f6, f4) rounds once from f32 itself: the
same bits as the general path's float64 copy rounded to odd then to the type, on random bit
patterns and the rounding edges (ties to even, the carry into the exponent, overflow,
subnormals, NaN)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.stablehlo.conversions import convert_array
from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float, widen

EDGES = [0, 0x80000000, 0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0x7F7FFFFF,
         0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x00008000, 0x00018000, 0x007FFFFF, 0x00000001,
         0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0xFFC12345, 0x7FA00001]
TYPES = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
         "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
         "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]


@pytest.mark.parametrize("name", TYPES)
def test_one_rounding_from_f32_is_the_widened_conversion(name: str) -> None:
    target = np.dtype(getattr(ml_dtypes, name))
    rng = np.random.default_rng(3)
    bits = np.concatenate([rng.integers(0, 1 << 32, 100_000, dtype=np.uint64).astype(np.uint32),
                           np.array(EDGES, np.uint32)])
    x = bits.view(np.float32)
    with np.errstate(all="ignore"):
        want = round_float(widen(x), target)
    got = convert_array(x, target)
    assert got.dtype == target
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


BYTE_TYPES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e8m0fnu",
              "float6_e2m3fn", "float4_e2m1fn"]


@pytest.mark.parametrize("name", BYTE_TYPES)
@pytest.mark.parametrize("target", ["float32", "float64", "float16", "bfloat16", "int32",
                                    "uint8", "float8_e5m2"])
def test_one_byte_floats_convert_by_table(name: str, target: str) -> None:
    """Past 256 elements a one-byte float converts by looking its bits up in a table that
    the conversion itself filled: every pattern gives what small arrays (no table) give."""
    source = np.dtype(getattr(ml_dtypes, name))
    to = np.dtype(getattr(ml_dtypes, target, None) or target)
    if source == to:
        return
    patterns = np.arange(256, dtype=np.uint8)
    x = np.random.default_rng(4).permutation(np.tile(patterns, 8)).view(source).reshape(64, 32)
    with np.errstate(all="ignore"):
        got = convert_array(x, to)
        want = np.concatenate([convert_array(row, to) for row in x]).reshape(x.shape)
    assert got.dtype == to and got.shape == x.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
