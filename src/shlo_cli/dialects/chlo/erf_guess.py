"""Fast double-precision guesses of erf and erfc, for results rounded to a narrower float.

numpy has no erf, so the exact path calls the C library once per element (~0.1 us each: a
GELU over 100k activations costs 12 ms). For f32, f16 and bf16 results `libm.rounded` needs
only a guess within its trusted margin (2^-40 relative) of the C library's double result:
it keeps the guess where every value in that margin rounds the same, and recomputes the
rest (a handful per array) with the C library.

The guess is piecewise polynomial, fitted once at first use: on each piece of width
`_WIDTH` a Chebyshev interpolant of degree `_DEGREE` through the C library's own values at
the Chebyshev points, turned into powers of the piece's local variable u in [-1/2, 1/2]
(exact: a fraction's extraction; the coefficients decay fast, so Horner's rule there loses
nothing that matters). erf's guess is a * (erf(a) / a) for a = |x| up to 6 (past it erf is
1 in double), from its own pieces of degree 4 (`_erf_columns`), and erf(-a) = -erf(a).
erf_inv's Halley steps need erf near 1 as 1 - erfc, so their pieces (`_columns`) fit
erf(a) / a on [0, 1/2] (erf = a * fit) and erfcx(a) = exp(a^2) erfc(a), smooth and slowly
varying, on the pieces up to 12 (erfc = exp(-a^2) * fit; a^2 is exact for f32 and f16
inputs, whose doubles have at most 24 significant bits). erfc's
pieces are over signed x in [-12, 12]: erfc itself (between 1/2 and 2) below 1/2, erfcx
from there, so no symmetry step is needed; past 12 erfc is below 1.4e-64, far under any
narrower float's least subnormal, so every result there rounds alike. NaN stays NaN. Every
element is evaluated with its own piece's coefficients in one pass (no per-piece masks).
The unit tests bound the guess's error against the C library at 2^-47 relative.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

_DEGREE = 7
_WIDTH = 0.0625  # every piece's width: a's piece is int(a / _WIDTH), no search
_INNER = 0.5  # below: erf(a) / a is fitted; from here up: erfcx(a)
_LIMIT = 12.0


def _erf_over_a(a: float) -> float:
    return math.erf(a) / a


def _erfcx(a: float) -> float:
    """exp(a^2) erfc(a), with a^2 split so that exp sees an exact square (a rounded a^2
    would cost up to a^2 * 2^-53 relative, 2^-46 at a = 12)."""
    high = float(np.float32(a))
    low = a - high
    return math.erfc(a) * math.exp(high * high) * math.exp(low * (2.0 * high + low))


@functools.cache
def _interpolation(degree: int = _DEGREE) -> tuple[list[float], np.ndarray, np.ndarray]:
    """The Chebyshev points t, the linear map from a function's values there to its
    interpolant's Chebyshev coefficients, and the (integer) map from those to powers of t:
    the same for every piece, so each piece's fit is two matrix products (fitting them one
    by one cost 80 ms at first use). The power basis is reached from the coefficients, as
    `cheb2poly` does: they decay fast, so the conversion's cancellation stays small."""
    k = np.arange(degree + 1)
    t = np.cos(np.pi * (k + 0.5) / (degree + 1))
    chebyshev = np.polynomial.chebyshev
    units = np.eye(degree + 1)
    to_chebyshev = np.array([chebyshev.chebfit(t, unit, degree) for unit in units]).T
    to_powers = np.zeros((degree + 1, degree + 1))
    for j, unit in enumerate(units):
        powers = chebyshev.cheb2poly(unit)  # (trailing zeros trimmed)
        to_powers[:len(powers), j] = powers
    return t.tolist(), to_chebyshev, to_powers


def _power_fit(fn: Any, low: float, high: float, degree: int = _DEGREE) -> np.ndarray:
    """Coefficients (constant first) in t = (2a - low - high) / (high - low) of the
    Chebyshev interpolant of `fn` on [low, high]."""
    points, to_chebyshev, to_powers = _interpolation(degree)
    values = np.array([fn(0.5 * (high + low) + 0.5 * (high - low) * v) for v in points])
    return to_powers @ (to_chebyshev @ values)


@functools.cache
def _columns() -> np.ndarray:
    """Per coefficient (highest power first) its value on every piece, for the powers of
    u = t / 2 in [-1/2, 1/2] (scaled by powers of two: exact)."""
    pieces = round(_LIMIT / _WIDTH)
    rows = [_power_fit(_erf_over_a if (i + 1) * _WIDTH <= _INNER else _erfcx,
                       i * _WIDTH, (i + 1) * _WIDTH) for i in range(pieces)]
    scaled = np.array(rows) * 2.0 ** np.arange(_DEGREE + 1)
    return scaled.T[::-1].copy()


def _fit(a: np.ndarray) -> np.ndarray:
    """Each element's piece's fitted function at a (NaN stays NaN). The piece's local
    variable u = a / _WIDTH - piece - 1/2 is exact (a fraction's extraction)."""
    return _evaluate(_columns(), a * (1.0 / _WIDTH))


def _evaluate(columns: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The fitted polynomials at the scaled arguments `u` (consumed): piece int(u) of
    `columns` (clipped to the table) at u - piece - 1/2."""
    piece = u.astype(np.intp)
    np.clip(piece, 0, columns.shape[1] - 1, out=piece)
    u -= piece
    u -= 0.5
    value = columns[0].take(piece)
    for column in columns[1:]:
        value *= u
        value += column.take(piece)
    return value


# erf's own table: erf(a) / a (entire, no cancellation anywhere) on pieces of [0, _ONE],
# degree 4 on width 1/128 (interpolation error 2^-48): five coefficients, a third fewer
# gathers and Horner steps than the erfcx pieces' eight, and no exp, tail or select.
_ERF_DEGREE = 4
_ERF_WIDTH = 1.0 / 128
_ONE = 6.0  # from here the C library's erf is 1.0 (erf(6) = 1 - 2e-17): a is clipped to it


@functools.cache
def _erf_columns() -> np.ndarray:
    """_columns for erf(a) / a on [0, _ONE] in pieces of _ERF_WIDTH, one more piece past
    _ONE (the piece of a = _ONE itself: no clip of the piece index)."""
    pieces = round(_ONE / _ERF_WIDTH) + 1
    rows = [_power_fit(_erf_over_a, i * _ERF_WIDTH, (i + 1) * _ERF_WIDTH, _ERF_DEGREE)
            for i in range(pieces)]
    scaled = np.array(rows) * 2.0 ** np.arange(_ERF_DEGREE + 1)
    return scaled.T[::-1].copy()


def _horner(columns: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The fitted polynomials at scaled arguments u >= 0 (consumed; at most the table's
    last piece index): piece floor(u) at u - piece - 1/2. The floor is taken as a float,
    so the local variable is one exact subtraction; a NaN's piece is 0 (fmax drops the
    NaN; its value is NaN anyway), so every index is in the table and `take` needs no
    bounds mode ("wrap" on valid indices gathers in two thirds of "clip"'s time; on the
    integer a NaN converts to it would count down to the table for ever)."""
    start = np.floor(u)
    u -= start
    u -= 0.5
    np.fmax(start, 0.0, out=start)
    piece = start.astype(np.intp)
    value = columns[0].take(piece, mode="wrap")
    term = np.empty_like(value)
    for column in columns[1:]:
        value *= u
        value += column.take(piece, out=term, mode="wrap")
    return value


def erf_guess(x: Any, out: np.ndarray | None = None) -> np.ndarray:
    """erf within 2^-47 relative of the C library's double result (`out` as a ufunc's):
    a * (erf(a) / a) with a = min(|x|, _ONE), the sign of x."""
    x = np.asarray(x, np.float64)
    flat = x.reshape(-1)
    with np.errstate(all="ignore"):
        a = np.abs(flat)
        np.minimum(a, _ONE, out=a)  # (NaN stays NaN)
        result = _horner(_erf_columns(), a * (1.0 / _ERF_WIDTH))
        result *= a
        if out is not None and out.shape == x.shape and out.flags.c_contiguous:
            np.copysign(result, flat, out=out.reshape(-1))  # (out may be x: elementwise)
            return out
        np.copysign(result, flat, out=result)
    return _into(result.reshape(x.shape), out)


# erfc's table: pieces over signed x in [-_LIMIT, _LIMIT], degree 5 on width 1/64
# (interpolation error 2^-49; six coefficients instead of eight).
_ERFC_DEGREE = 5
_ERFC_WIDTH = 1.0 / 64


@functools.cache
def _erfc_columns() -> np.ndarray:
    """_columns for erfc over [-_LIMIT, _LIMIT]: pieces ending at or below _INNER fit
    erfc, the others erfcx; one more piece past _LIMIT (x = _LIMIT's own)."""
    pieces = round(2 * _LIMIT / _ERFC_WIDTH) + 1
    rows = []
    for i in range(pieces):
        low = -_LIMIT + i * _ERFC_WIDTH
        rows.append(_power_fit(math.erfc if low + _ERFC_WIDTH <= _INNER else _erfcx,
                               low, low + _ERFC_WIDTH, _ERFC_DEGREE))
    scaled = np.array(rows) * 2.0 ** np.arange(_ERFC_DEGREE + 1)
    return scaled.T[::-1].copy()


def erfc_guess(x: Any, out: np.ndarray | None = None) -> np.ndarray:
    """erfc within 2^-47 relative of the C library's double result (`out` as a ufunc's).
    From pieces over signed x (`_erfc_columns`): erfc itself below _INNER (between 1/2
    and 2, no cancellation), exp(-x^2) erfcx(x) from there; arguments are clipped to
    [-_LIMIT, _LIMIT] (erfc(-12) is 2 within 1e-64, erfc(12) is below every narrow
    float's least subnormal). x + _LIMIT and its scaling are exact for the doubles of
    narrow floats (at most 24 significant bits)."""
    x = np.asarray(x, np.float64)
    flat = x.reshape(-1)
    with np.errstate(all="ignore"):
        clipped = np.minimum(flat, _LIMIT)  # NaN stays NaN
        np.maximum(clipped, -_LIMIT, out=clipped)
        u = clipped + _LIMIT
        u *= 1.0 / _ERFC_WIDTH
        result = _horner(_erfc_columns(), u)
        square = clipped * clipped
        np.multiply(square, clipped >= _INNER, out=square)  # 0 (exp: 1) below _INNER
        np.negative(square, out=square)
        np.exp(square, out=square)
        result *= square
    return _into(result.reshape(x.shape), out)


def _pick(mask: np.ndarray, on_true: np.ndarray, on_false: np.ndarray) -> np.ndarray:
    """np.where(mask, on_true, on_false) for 1-D float64 arrays of one size, bit for bit,
    without branches: np.where mispredicts on a mask with no pattern (erf's inner and outer
    pieces, the signs of a GELU's inputs), three times the cost of these five passes."""
    u64 = np.dtype(np.uint64)
    bits = mask.view(np.uint8).astype(u64)
    np.negative(bits, out=bits)  # all ones where mask holds, else zero
    low = on_false.view(u64)
    out = on_true.view(u64) ^ low
    out &= bits
    out ^= low
    return out.view(np.float64)


def _into(result: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    if out is None:
        return result
    out[...] = result
    return out


_TWO_OVER_ROOT_PI = 2.0 / math.sqrt(math.pi)


def halley_steps(x: np.ndarray, w: np.ndarray, steps: int) -> np.ndarray:
    """`steps` Halley steps from x >= 0 towards erf(x) = w, for w in [0, 1) (erf_inv's
    guess). f = erf(x) - w comes from one fit per element: x * fit - w below _INNER and
    (1 - w) - erfc(x) from there (erfc's own digits where erf is near 1; 1 - w is exact for
    w >= 1/2), so every element steps at once with no masked subsets. With f' = s = erf'(x)
    and f'' = -2x s the step f f' / (f'^2 - f f'' / 2) is f / (s + x f); a step that leaves
    the finite numbers restarts at 0."""
    gap = 1.0 - w
    for _ in range(steps):
        fit = _fit(x)
        slope = x * x
        np.negative(slope, out=slope)
        np.exp(slope, out=slope)
        tail = slope * fit
        np.subtract(gap, tail, out=tail)
        fit *= x
        fit -= w
        f = _pick(x < _INNER, fit, tail)
        slope *= _TWO_OVER_ROOT_PI
        fit = x * f
        fit += slope
        np.divide(f, fit, out=f)
        x = x - f
        x = np.where(np.isfinite(x), x, 0.0)
    return x
