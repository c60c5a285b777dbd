"""Float `remainder` (C fmod) of f32/f16/bf16 arrays in whole-array passes, bit for bit.

numpy's fmod is a scalar libm loop (~20 ns an element). fmod's result is exact, so it can
be computed exactly from the truncated quotient. With both operands widened to f64 and
a = |x|, b = |y| (p = the type's significand bits, 24 for f32; Q = floor(a / b)):

- qf = a / b rounded to nearest lies in [Q, Q + 1] (rounding is monotonic and Q, Q + 1
  are representable). It is never Q + 1 while qf < 2^(53 - p): rounding up to Q + 1
  needs Q + 1 - a / b = (b - r) / b (r the remainder) below (Q + 1) * 2^-53, yet it is over
  2^-(p+1): for a >= b, a and Q * b lie on b's grid, so b - r is at least b's unit in the
  last place, over b * 2^-p; for b/2 <= a < b, b - a is at least half of it; for a < b/2
  it is over 1/2. So trunc(qf) = Q (no off-by-one correction is needed).
- Q < 2^(53 - p) has at most 53 - p bits, so Q * b is exact in f64, and r = a - Q * b is
  a multiple of b's grid below b, so representable: the subtraction is exact.
- The result takes x's sign (C fmod: a zero result too); r >= +0 here, so that is an OR
  of x's sign bit.

Other lanes (a zero or non-finite operand, quotients of 2^(53 - p) or more) are computed as
`elementwise.remainder` computes every lane (fmod in f64, rounded back), by index, or for
the whole array when there are many: NaN payloads are what that path gives. f64 operands
would need the product's low half (trunc(qf) * |y| is not exact in f64) and keep fmod.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ...lazy_imports import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _Layout:
    """What the exact path needs of a float type (numpy scalars of `unsigned`: the sign
    bit, the other bits, and +inf's bits: a magnitude's bits at least that are inf or NaN)."""

    __slots__ = ("bits", "unsigned", "sign", "magnitude", "infinity")

    def __init__(self, dtype: type, bits: int, unsigned: type) -> None:
        self.bits = bits  # significand bits, the implicit one included
        self.unsigned = unsigned
        width = 8 * np.dtype(unsigned).itemsize
        self.sign: Any = np.array(1 << (width - 1), unsigned)[()]
        self.magnitude: Any = ~self.sign
        self.infinity: Any = np.array(np.inf, dtype).view(unsigned)[()]


_FAST = lazy(lambda: {np.dtype(dtype): _Layout(dtype, bits, unsigned)
                      for dtype, bits, unsigned in ((np.float32, 24, np.uint32),
                                                    (np.float16, 11, np.uint16),
                                                    (ml_dtypes.bfloat16, 8, np.uint16))})
# Below this many elements the exact path's ~10 numpy calls cost more than fmod's ~20 ns an
# element (the two break even at about 300 f32 elements of fresh operands).
MIN_FAST_SIZE = 384
# Longer arrays go in blocks of this many elements: their f64 temporaries stay in cache.
_BLOCK = 1 << 16
# More lanes than size // this off the exact path: fmod on the whole array instead.
_FEW_SLOW = 8


def fmod_via_f64(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """C fmod in f64, rounded back to the operands' type (exact: fmod's result is
    representable in it)."""
    with np.errstate(all="ignore"):
        return np.fmod(lhs.astype(np.float64), rhs.astype(np.float64)).astype(lhs.dtype)


# f16 bits shifted into an f32's place encode the value times 2^(15 - 127), subnormals too.
_F16_IN_F32 = 2.0 ** (127 - 15)


def _widen(magnitude_bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The finite magnitudes as f64 (f16 via its bits: numpy's f16 conversions are slow);
    infinities and NaN give some value (those lanes are computed otherwise)."""
    if dtype != np.float16:
        return magnitude_bits.view(dtype).astype(np.float64)
    wide = magnitude_bits.astype(np.uint32)
    wide <<= 13
    out = wide.view(np.float32).astype(np.float64)
    out *= _F16_IN_F32
    return out


def _narrow(exact: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Non-negative f64 values representable in `dtype`, converted (consumes `exact`)."""
    if dtype != np.float16:
        return exact.astype(dtype)
    exact *= 1 / _F16_IN_F32
    bits = exact.astype(np.float32).view(np.uint32)
    bits >>= 13
    return bits.astype(np.uint16).view(np.float16)


def float_remainder(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """fmod(lhs, rhs) of two float arrays of one shape and type, as `fmod_via_f64`."""
    layout = _FAST.get(lhs.dtype)
    if (layout is None or lhs.size < MIN_FAST_SIZE or not isinstance(lhs, np.ndarray)
            or not isinstance(rhs, np.ndarray) or lhs.shape != rhs.shape
            or rhs.dtype != lhs.dtype):
        return fmod_via_f64(lhs, rhs)
    x, y = lhs.reshape(-1), rhs.reshape(-1)
    if len(x) <= _BLOCK:
        return _exact_remainder(x, y, layout).reshape(lhs.shape)
    out = np.empty(len(x), lhs.dtype)
    for start in range(0, len(x), _BLOCK):
        block = slice(start, start + _BLOCK)
        out[block] = _exact_remainder(x[block], y[block], layout)
    return out.reshape(lhs.shape)


def _exact_remainder(x: np.ndarray, y: np.ndarray, layout: _Layout) -> np.ndarray:
    """float_remainder of two 1-d arrays."""
    unsigned, magnitude, infinity = layout.unsigned, layout.magnitude, layout.infinity
    limit = 2.0 ** (53 - layout.bits)
    ax_bits = x.view(unsigned) & magnitude  # |x|, |y| (numpy's abs and max of f16/bf16 are slow)
    ay_bits = y.view(unsigned) & magnitude
    with np.errstate(all="ignore"):
        ax, ay = _widen(ax_bits, x.dtype), _widen(ay_bits, x.dtype)
        r = ax / ay
        np.trunc(r, out=r)
        slow: np.ndarray | None = None
        if not (r.max() < limit and ax_bits.max() < infinity  # (NaN compares False)
                and ay_bits.max() < infinity):
            slow = np.flatnonzero(~((r < limit) & (ax_bits < infinity) & (ay_bits < infinity)))
            if len(slow) * _FEW_SLOW > len(r):
                return fmod_via_f64(x, y)
        r *= ay
        np.subtract(ax, r, out=r)
        out = _narrow(r, x.dtype)
    out.view(unsigned)[...] |= x.view(unsigned) & layout.sign
    if slow is not None:
        out[slow] = fmod_via_f64(x[slow], y[slow])
    return out
