"""floor, ceil, round_nearest_even and round_nearest_afz round f32 and f64 in their own type:
the same bits as rounding a float64 copy, for every bit pattern class (NaN payloads, signaling
NaNs, ±0, ±inf, halfway values, values past 2^mantissa)."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import elementwise as E
from shlo_cli.dialects.stablehlo.elementwise_numerics import widen

ROUNDINGS = {"floor": np.floor, "ceil": np.ceil, "rint": np.rint, "afz": E._round_half_away}


@pytest.mark.parametrize(("dtype", "bits"), [(np.float32, np.uint32), (np.float64, np.uint64)])
@pytest.mark.parametrize("name", sorted(ROUNDINGS))
def test_native_rounding_is_the_widened_rounding(dtype: type, bits: type, name: str) -> None:
    rng = np.random.default_rng(7)
    patterns = rng.integers(0, np.iinfo(bits).max, 50_000, dtype=bits, endpoint=True)
    halfway = np.array([0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 8388607.5, 4503599627370495.5,
                        -0.0, 0.0, np.inf, -np.inf, np.nan, 1e30], np.float64).astype(dtype)
    x = np.concatenate([patterns.view(dtype), halfway,
                        (rng.standard_normal(5000) * 10).astype(dtype)])
    fn = ROUNDINGS[name]
    with np.errstate(all="ignore"):
        want = fn(widen(x)).astype(dtype)
    got = E._round(x, fn)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.view(bits), want.view(bits))
