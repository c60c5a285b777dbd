"""convert float -> int: the in-range fast path and the saturating path agree with the spec's
truncate-toward-zero, saturate, NaN -> 0 on boundary values, whole arrays and single elements."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo.conversions import convert_array

VALUES = [0.0, -0.0, -0.5, 0.5, -1.5, 2.9, -2147483648.0, -2147483904.0, 2147483520.0,
          2147483648.0, math.inf, -math.inf, math.nan, 1e30, -1e30, 255.9, 256.0, -128.5,
          -129.0, 127.9, 18446744073709551615.0, 9.2e18, -9.3e18, 65535.5, -32768.7]
TARGETS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _expected(value: float, target: str) -> int:
    info = np.iinfo(target)
    if math.isnan(value):
        return 0
    if value >= info.max + 1:
        return int(info.max)
    if value <= info.min - 1:
        return int(info.min)
    return int(math.trunc(value))


@pytest.mark.parametrize("source", [np.float32, np.float64])
@pytest.mark.parametrize("target", TARGETS)
def test_float_to_int_saturates_and_truncates(source: type, target: str) -> None:
    x = np.array(VALUES, np.float64).astype(source)
    for part in [x, *[x[i:i + 1] for i in range(len(x))]]:  # single elements take the fast path
        got = convert_array(part, np.dtype(target))
        assert got.dtype == np.dtype(target)
        assert [int(v) for v in got] == [_expected(float(v), target) for v in part]


def test_float_to_int_keeps_shape() -> None:
    assert convert_array(np.array(2.5, np.float32), np.dtype(np.int32)).shape == ()
    assert convert_array(np.zeros((0, 3), np.float32), np.dtype(np.int8)).shape == (0, 3)
