"""`pow` rounded once to a float narrower than double (stablehlo.power on f16, bf16, f32)
at numpy's speed, with `libm.rounded`'s results: the C library's double result rounded once.

`libm.rounded` trusts numpy's double result only for positive finite bases, so a negative
base (jax's `x ** i` for integer i, a polynomial) went to the C library one element at a
time, and an infinite result (an infinite base, an overflow) was recomputed too. Here:

- pow(x, y) = +-pow(|x|, y), negative exactly when x's sign bit is set and y is an odd
  integer: the mathematical value for finite nonzero x (which numpy and the C library both
  approximate within a few ulp, so `libm.margin_sure` applies as for positive bases), and
  C99 Annex F (F.9.4.4) for zero and infinite bases, which glibc and musl follow.
- C99's conventions for non-NaN arguments (a zero or infinite base, an infinite exponent:
  pow(-1, inf) is 1) are written exactly, not taken from numpy's loop; pow(x, 0) and
  pow(1, y) of finite arguments are 1 mathematically, as numpy's result then is.
- An infinite result of finite arguments is an overflow: the C library's double is at
  least DBL_MAX, infinite in every narrower type. A zero one is an underflow far below
  every narrower type's least subnormal: +-0 there, with the sign found above.

NaN arguments (a signalling NaN makes even pow(1, y) and pow(x, 0) a NaN), the invalid
operations (a negative finite base to a finite non-integer power: the C library's NaN) and
results near a rounding boundary still go to `libm.power`, the C library itself."""

from __future__ import annotations

import numpy as np

from . import libm

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def rounded_power(x: np.ndarray, y: np.ndarray,
                  round_to: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """`round_to(libm.power(x, y))` bit for bit, x and y broadcast against each other;
    `round_to` rounds double once to a float type narrower than double."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    with np.errstate(all="ignore"):
        base = _flat(x, shape)
        exponent = _flat(y, shape)
        if base.size and base.min() > 0 and base.max() < np.inf \
                and exponent.min() > -np.inf and exponent.max() < np.inf:
            guess = np.power(base, exponent)  # (the usual case: four cheap reductions)
        else:  # (a NaN fails every comparison)
            guess = _guess(base, exponent)
        out = round_to(guess)
        doubtful = ~libm.margin_sure(guess, round_to, f"u{out.dtype.itemsize}")
        if doubtful.any():  # infinities and zeros are sure (-0.0 fails the margin test)
            doubtful &= guess != 0
            doubtful &= ~np.isinf(guess)
            index = np.flatnonzero(doubtful)
            if index.size:
                out[index] = round_to(np.asarray(libm.power(base[index], exponent[index]),
                                                 np.float64))
    return out.reshape(shape)


def _flat(v: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`v` broadcast to `shape` as a fresh C-ordered float64 vector."""
    return np.array(np.broadcast_to(v, shape), np.float64, order="C").reshape(-1)


def _guess(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """numpy's pow(x, y) for any arguments (flat float64 vectors): +-pow(|x|, y), C99's
    special values, NaN where the C library must decide."""
    magnitude = np.abs(base)
    special = _special_lanes(magnitude, exponent)
    if special is not None:  # numpy's loop sees 1 there (its zeros and infinities are slow)
        values = _special_values(magnitude[special], exponent[special])
        magnitude[special] = 1.0
    guess: np.ndarray = np.power(magnitude, exponent)
    if special is not None:
        guess[special] = values
    negative = np.signbit(base)
    if negative.any():
        _negative_bases(base, exponent, negative, guess)
    unknown = np.isnan(base)
    unknown |= np.isnan(exponent)
    if unknown.any():  # the C library's NaN, or 1 unless a NaN signals
        guess[unknown] = np.nan
    return guess


def _special_lanes(magnitude: np.ndarray, exponent: np.ndarray) -> np.ndarray | None:
    """Indices of a zero or infinite base or an infinite exponent (NaN lanes may be among
    them), or None: the lanes whose value is C99's convention rather than numpy's
    approximation of a real power (pow(1, inf) is 1). pow(x, 0) and pow(1, y) of finite y
    are 1 exactly, which numpy's accurate result passes the margin test as."""
    special = magnitude == 0
    special |= np.isinf(magnitude)
    special |= np.isinf(exponent)
    return np.flatnonzero(special) if special.any() else None


def _special_values(magnitude: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """C99's pow(|x|, y) (F.9.4.4) at special lanes: pow(|x|, +-0) = pow(1, y) = 1;
    otherwise +inf when |x| > 1 and y > 0 or |x| < 1 and y < 0, else +0."""
    value = np.where((magnitude > 1) == (exponent > 0), np.inf, 0.0)
    value[(exponent == 0) | (magnitude == 1)] = 1.0
    return value


def _negative_bases(base: np.ndarray, exponent: np.ndarray, negative: np.ndarray,
                    guess: np.ndarray) -> None:
    """Bases with the sign bit set: the result is negated for an odd integer exponent (one
    whose half is not an integer: every double of magnitude 2^53 or more is even), and a
    finite nonzero base to a finite non-integer power is the C library's invalid operation
    (NaN here: recomputed). Whole-array passes only: numpy's fmod and masked ufuncs cost
    three times the power itself."""
    integral = np.floor(exponent) == exponent  # (infinities too, not NaN)
    half = exponent * 0.5
    odd = np.floor(half) != half
    odd &= integral
    odd &= negative
    guess *= 1.0 - 2.0 * odd  # (exact: -0.0 and -inf too)
    invalid = ~integral
    invalid &= np.isfinite(exponent)
    invalid &= np.isfinite(base)
    invalid &= base < 0
    if invalid.any():
        guess[invalid] = np.nan
