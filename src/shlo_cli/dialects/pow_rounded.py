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

NaN arguments (a signalling NaN makes even pow(1, y) and pow(x, 0) a NaN) and results near
a rounding boundary still go to `libm.power`, the C library itself. The invalid operations
(a negative finite base to a finite non-integer power) take the C library's NaN, asked of
a few of them, as `libm.power` itself does when there are many.

Where numpy's guess decides is found as libm_f32 finds it for unary functions: the guess
rounded twice, from g(1 - 2^-39) and from that times 1 + 2^-38 (which brackets g's whole
2^-40 margin); both equal is sure. Only the elements it doubts take `libm.margin_sure`'s
test and the rules for zero and infinite guesses (margin_sure over every element cost
nine passes; the two roundings cost five)."""

from __future__ import annotations

import numpy as np

from . import libm

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# The guess's bounds (libm_f32's): g(1 - 2^-39) rounded, times 1 + 2^-38, is at least
# g(1 + 2^-39 - 2^-52): the two products bracket every value within 2^-40 of g.
_BELOW, _WIDEN = 1 - 2.0 ** -39, 1 + 2.0 ** -38
_SPARSE = 4  # negative bases in at most a quarter of the lanes are handled by index
_SAMPLED = 32  # more invalid operations than this take one sampled NaN (as libm's do)
_SAMPLES = 4


def rounded_power(x: np.ndarray, y: np.ndarray,
                  round_to: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """`round_to(libm.power(x, y))` bit for bit, x and y broadcast against each other;
    `round_to` rounds double once to a float type narrower than double."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    with np.errstate(all="ignore"):
        base = _flat(x, shape)
        exponent = _flat(y, shape)
        unknown = invalid = None
        if _ordinary(base, exponent):
            guess = np.power(base, exponent)  # (the usual case: four cheap reductions)
        else:
            single = float(exponent[0]) if np.size(y) == 1 and exponent.size else None
            guess, unknown, invalid = _guess(base, exponent, single)
        scaled = guess * _BELOW
        out = round_to(scaled)
        scaled *= _WIDEN
        bits = f"u{out.dtype.itemsize}"
        doubtful = out.view(bits) != round_to(scaled).view(bits)
        if unknown is not None:
            doubtful |= unknown
        if invalid is not None:
            _invalid_operations(base, exponent, invalid, doubtful, out, round_to)
        if doubtful.any():
            _settle(base, exponent, guess, np.flatnonzero(doubtful), out, round_to)
    return out.reshape(shape)


def _flat(v: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`v` broadcast to `shape` as a fresh C-ordered float64 vector."""
    return np.array(np.broadcast_to(v, shape), np.float64, order="C").reshape(-1)


def _ordinary(base: np.ndarray, exponent: np.ndarray) -> bool:
    """Every base positive and finite, every exponent finite (no NaN: it fails every
    comparison); four reductions."""
    return bool(base.size and base.min() > 0 and base.max() < np.inf
                and exponent.min() > -np.inf and exponent.max() < np.inf)


def _settle(base: np.ndarray, exponent: np.ndarray, guess: np.ndarray, index: np.ndarray,
            out: np.ndarray, round_to: Callable[[np.ndarray], np.ndarray]) -> None:
    """The doubtful elements at `index`: zero and infinite guesses are sure (C99's special
    values, overflows, underflows: the C result rounds alike), as are those whose 2^-40
    margin rounds to one value (`libm.margin_sure`); the others are the C library's."""
    picked = guess[index]
    sure = libm.margin_sure(picked, round_to, f"u{out.itemsize}")
    sure |= picked == 0
    sure |= np.isinf(picked)
    out[index[sure]] = round_to(picked[sure])
    rest = index[~sure]
    if rest.size:
        out[rest] = round_to(np.asarray(libm.power(base[rest], exponent[rest]), np.float64))


def _invalid_operations(base: np.ndarray, exponent: np.ndarray, where: np.ndarray,
                        doubtful: np.ndarray, out: np.ndarray,
                        round_to: Callable[[np.ndarray], np.ndarray]) -> None:
    """Negative finite bases to finite non-integer powers: the C library's NaN for an
    invalid operation. Past `_SAMPLED` of them, when a few spread over them give one NaN
    bit pattern, every one takes it (`out` written, `doubtful` cleared there); otherwise
    each stays doubtful, for the C library. `where`: their indices."""
    if where.size <= _SAMPLED:
        doubtful[where] = True
        return
    picks = where[np.linspace(0, where.size - 1, _SAMPLES).astype(np.intp)]
    results = np.asarray(libm.power(base[picks], exponent[picks]), np.float64)
    words = results.view(np.uint64)
    if not (np.isnan(results).all() and (words == words[0]).all()):
        doubtful[where] = True
        return
    out[where] = round_to(results[:1])[0]
    doubtful[where] = False


def _guess(base: np.ndarray, exponent: np.ndarray, single: float | None
           ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """numpy's pow(x, y) for any arguments (flat float64 vectors): +-pow(|x|, y) and C99's
    special values; with the mask of the NaN arguments' lanes (the C library decides) and
    of the invalid operations' indices (a NaN guess there), or None where there are none.
    `single`: the exponent when every lane has the same one."""
    magnitude = np.abs(base)
    ordinary = _ordinary(magnitude, exponent)  # (False where there is a NaN)
    special = None if ordinary else _special_lanes(magnitude, exponent)
    if special is not None:  # numpy's loop sees 1 there (its zeros and infinities are slow)
        values = _special_values(magnitude[special], exponent[special])
        magnitude[special] = 1.0
    guess: np.ndarray = np.power(magnitude, exponent)
    if special is not None:
        guess[special] = values
    invalid = None
    negative = np.signbit(base)
    if negative.any():
        invalid = (_negative_bases(base, exponent, negative, guess) if single is None
                   else _negative_bases_one_exponent(base, single, guess))
        if invalid is not None:
            guess[invalid] = np.nan
    unknown = None
    if not ordinary:
        unknown = np.isnan(base)
        unknown |= np.isnan(exponent)
        if unknown.any():
            guess[unknown] = np.nan
        else:
            unknown = None
    return guess, unknown, invalid


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
                    guess: np.ndarray) -> np.ndarray | None:
    """Bases with the sign bit set (`negative`): the result is negated for an odd integer
    exponent, and a finite nonzero base to a finite non-integer power is the C library's
    invalid operation (their indices are returned, None if there is none). Whole-array
    passes (numpy's fmod and masked ufuncs cost three times the power itself), over the
    negative lanes alone where they are few (a mostly positive array: a quarter of the
    time)."""
    if np.count_nonzero(negative) * _SPARSE > negative.size:
        odd, invalid = _parity(base, exponent)
        odd &= negative
        guess *= 1.0 - 2.0 * odd  # (exact: -0.0 and -inf too)
        return np.flatnonzero(invalid) if invalid.any() else None
    index = np.flatnonzero(negative)
    odd, invalid = _parity(base[index], exponent[index])
    part = guess[index]
    part *= 1.0 - 2.0 * odd
    guess[index] = part
    return index[invalid] if invalid.any() else None


def _parity(base: np.ndarray, exponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(odd integer exponents: their half is not an integer, and every double of
    magnitude 2^53 or more is even; finite negative bases to finite non-integer powers)."""
    integral = np.floor(exponent) == exponent  # (infinities too, not NaN)
    half = exponent * 0.5
    odd = np.floor(half) != half
    odd &= integral
    invalid = ~integral
    invalid &= np.isfinite(exponent)
    invalid &= np.isfinite(base)
    invalid &= base < 0
    return odd, invalid


def _negative_bases_one_exponent(base: np.ndarray, exponent: float, guess: np.ndarray
                                 ) -> np.ndarray | None:
    """`_negative_bases` when every lane's exponent is `exponent` (x ** c): its parity
    and integrality are decided once; an odd one gives the result the base's sign."""
    if exponent != exponent:
        return None
    if exponent == np.floor(exponent):  # (infinities too)
        half = exponent * 0.5
        if np.floor(half) != half:
            np.copysign(guess, base, out=guess)  # (the guess is +0, +inf or positive)
        return None
    invalid = base < 0
    invalid &= np.isfinite(base)
    return np.flatnonzero(invalid) if invalid.any() else None
