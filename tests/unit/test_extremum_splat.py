"""maximum/minimum of an array and a splat (a broadcast constant, a 0-d operand, a blocked
chain's slice of one): past a few thousand elements the kernels meet the splat as a
contiguous array of its value, a chunk at a time (numpy vectorizes only that case). The
results are the general evaluator's bit for bit: NaN payloads and signs (signalling ones
made quiet), signed zeros on both sides, infinities, subnormals, every chunk edge, either
operand order, a ReLU's +0 and other splat values."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize_extremum
from shlo_cli.dialects.stablehlo.elementwise import _extremum
from shlo_cli.dialects.stablehlo.specialize_extremum import _signed_extremum, max_positive_zero

BITS = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}
CHUNK = specialize_extremum._DENSE_CHUNK


def _inputs(dtype: type, size: int, seed: int, nans: bool = True) -> np.ndarray:
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(size) * rng.choice([1e-40, 1e-3, 1.0, 1e4], size)).astype(dtype)
    x[rng.random(size) < 0.1] = 0.0
    x[rng.random(size) < 0.1] = -0.0
    bits = BITS[dtype]
    specials = np.array([np.inf, -np.inf, 5e-324, -5e-324], dtype).view(bits).tolist()
    one = 1 << (8 * np.dtype(dtype).itemsize - 1)
    if nans:  # (a NaN result is redone from the operands themselves)
        specials += [one | int(np.array(np.nan, dtype).view(bits)) | 5,  # a payload, -sign
                     int(np.array(np.inf, dtype).view(bits)) | 1, # signalling
                     int(np.array(np.nan, dtype).view(bits))]
    for start in range(0, size, 5000):
        count = min(len(specials), size - start)
        x[start:start + count].view(bits)[:] = specials[:count]
    return x


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


SIZES = [0, 7, 4096, specialize_extremum._DENSE_FROM, CHUNK, 2 * CHUNK + 1]
VALUES = [0.0, -0.0, 1.5, -np.inf, np.inf, 1e-42]


@pytest.mark.parametrize("dtype", list(BITS))
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("nans", [False, True])
def test_splat_operand_is_the_general_result(dtype: type, size: int, value: float,
                                             largest: bool, nans: bool) -> None:
    kernel = _signed_extremum(np.maximum if largest else np.minimum, largest)
    x = _inputs(dtype, size, size, nans)
    with np.errstate(all="ignore"):
        splat = np.array(value, dtype)
    spread = np.broadcast_to(splat, x.shape)
    with np.errstate(all="ignore"):
        for a, b in ((x, spread), (spread, x), (x, splat), (splat, x)):
            want = _extremum(np.broadcast_to(a, x.shape).copy(),
                             np.broadcast_to(b, x.shape).copy(), largest)
            got = kernel(a, b)
            assert got.shape == x.shape and got.dtype == x.dtype
            assert _bits(got) == _bits(want)
            if largest and value == 0 and not np.signbit(value):  # a ReLU
                assert _bits(max_positive_zero()(a, b)) == _bits(want)


@pytest.mark.parametrize("largest", [True, False])
def test_blocked_slices_of_a_splat(largest: bool) -> None:
    """A blocked chain passes (32, 512) slices of a broadcast constant, with a
    C-contiguous block or a strided view of the other operand (the latter as it is)."""
    kernel = _signed_extremum(np.maximum if largest else np.minimum, largest)
    x = _inputs(np.float32, 256 * 512, 3, nans=False).reshape(256, 512)
    splat = np.broadcast_to(np.float32(-0.0), x.shape)
    with np.errstate(all="ignore"):
        for view in (x[32:64], x[:, ::2], x.T[:100]):
            part = splat[:view.shape[0], :view.shape[1]]
            want = _extremum(view.copy(), np.zeros(view.shape, np.float32) * -1, largest)
            assert _bits(kernel(view, part)) == _bits(want)
            assert _bits(kernel(part, view)) == _bits(want)


@pytest.mark.parametrize("largest", [True, False])
def test_operands_that_are_not_splats(largest: bool) -> None:
    """Two arrays, a row or a column broadcast (some strides 0, not all) and a length-1
    array are each operand as they are."""
    kernel = _signed_extremum(np.maximum if largest else np.minimum, largest)
    x = _inputs(np.float32, 64 * 512, 4, nans=False).reshape(64, 512)
    y = _inputs(np.float32, 64 * 512, 6, nans=False).reshape(64, 512)
    with np.errstate(all="ignore"):
        for other in (y, np.broadcast_to(y[3], x.shape), np.broadcast_to(y[:, :1], x.shape)):
            want = _extremum(x.copy(), np.array(other), largest)
            assert _bits(kernel(x, other)) == _bits(want)
            assert _bits(kernel(other, x)) == _bits(_extremum(np.array(other), x.copy(), largest))


def test_nan_splat_keeps_the_operand_path() -> None:
    """A NaN splat is not met as an array (which NaN numpy returns may differ)."""
    x = _inputs(np.float32, 2 * CHUNK, 5)
    splat = np.broadcast_to(np.float32(np.nan), x.shape)
    with np.errstate(all="ignore"):
        want = _extremum(x.copy(), np.array(splat), True)
        assert _bits(_signed_extremum(np.maximum, True)(x, splat)) == _bits(want)
