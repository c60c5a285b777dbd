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


def _away_by_trunc(x: np.ndarray) -> np.ndarray:
    """The straightforward ties-away rounding: trunc, then one step away where the dropped
    fraction is at least a half."""
    whole = np.trunc(x)
    with np.errstate(invalid="ignore"):
        away = np.abs(x - whole) >= 0.5
    return np.copysign(np.where(away, whole + np.sign(x), whole), x)


@pytest.mark.parametrize(("dtype", "bits"), [(np.float32, np.uint32), (np.float64, np.uint64)])
def test_round_half_away_is_the_truncating_rounding(dtype: type, bits: type) -> None:
    """rint mended at ties gives the bits of trunc-and-step for every class of value: ties
    of both signs and parities (rint rounds half of them toward zero), neighbours of
    ties, -0.0, subnormals, NaN (signaling too), infinities, values past 2^mantissa; arrays
    with no tie, only ties, 0-d and empty (fails if a tie is left to rint or the max test
    skips a tie)."""
    rng = np.random.default_rng(11)
    info = np.finfo(dtype)
    patterns = rng.integers(0, np.iinfo(bits).max, 20_000, dtype=bits, endpoint=True)
    whole = rng.integers(-(1 << 20), 1 << 20, 5000).astype(dtype)
    ties = whole + dtype(0.5)
    edges = np.array([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.0, 0.0, np.inf, -np.inf, np.nan,
                      -np.nan, 2.0 ** (info.nmant - 1) + 0.5, -(2.0 ** (info.nmant - 1)) - 0.5,
                      2.0 ** info.nmant, info.smallest_subnormal, -info.smallest_subnormal,
                      info.max, info.min], np.float64).astype(dtype)
    neighbours = np.concatenate([np.nextafter(ties, dtype(np.inf)),
                                 np.nextafter(ties, dtype(-np.inf))])
    signaling = np.array([0x7F800001 if bits is np.uint32 else 0x7FF0000000000001],
                         bits).view(dtype)
    cases = [patterns.view(dtype), ties, neighbours, edges, signaling,
             (rng.standard_normal(5000) * 4).astype(dtype), np.rint(ties),
             np.array(2.5, dtype), np.array(-0.3, dtype), np.empty(0, dtype)]
    for x in cases:
        with np.errstate(all="ignore"):
            want = _away_by_trunc(x)
            got = E._round_half_away(x)
        assert got.dtype == np.dtype(dtype) and got.shape == x.shape
        np.testing.assert_array_equal(np.asarray(got).view(bits), np.asarray(want).view(bits))
    assert E.round_nearest_afz(ties).tolist() == _away_by_trunc(ties).tolist()


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_round_half_away_every_16_bit_pattern(name: str) -> None:
    """Every f16 and bf16 bit pattern (rounded through float64) rounds as trunc-and-step.
    (All 2^32 f32 patterns were checked once the same way, outside the suite: 20 s.)"""
    import ml_dtypes

    dtype = np.dtype(np.float16 if name == "float16" else ml_dtypes.bfloat16)
    x = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    with np.errstate(all="ignore"):
        want = _away_by_trunc(widen(x)).astype(dtype)
    got = E.round_nearest_afz(x)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
