"""Special functions on float64 numpy arrays, vectorized (no per-element Python loops).

The CHLO evaluators compute in double and round once to the element type, so these need
double accuracy (within 0.5 ulp where the algorithm allows; tests/unit/test_chlo_every_op.py
compares them with upstream's decompositions). Algorithms: the C library's lgamma, erf and
erfc; digamma by shifting to z + 12 and its asymptotic series (reflection below 1/2, a Taylor
series about the positive root) in extended precision; Newton steps on erf for erf_inv;
power series / asymptotic expansion for bessel_i1e and Euler-Maclaurin for the Hurwitz zeta
function, both in extended precision. XLA's Lanczos lgamma is kept for comparison.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ...lazy_imports import lazy
from .. import libm
from . import erf_guess

LANCZOS_GAMMA = 7.0
LANCZOS_BASE = 0.99999999999980993227684700473478
LANCZOS_COEFFICIENTS = (
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894, -176.61502916214059906584551354,
    12.507343278686904814458936853, -0.13857109526572011689554707,
    9.984369578019570859563e-6, 1.50563273514931155834e-7,
)
LOG_SQRT_TWO_PI = 0.5 * math.log(2.0 * math.pi)
LOG_PI = math.log(math.pi)


def _lanczos_log_t(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """t = z + g + 1/2 and log(t), computed as log(g + 1/2) + log1p(z / (g + 1/2))."""
    half_g = LANCZOS_GAMMA + 0.5
    return z + half_g, math.log(half_g) + libm.log1p(z / half_g)


def lgamma(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| by the C library (math.lgamma is CPython's own Lanczos sum): exact
    zeros at 1 and 2, +inf at the poles (non-positive integers) and at +-inf; a Lanczos sum
    is off by ~1e-16 absolute, which is unbounded relative error next to the zeros."""
    return np.asarray(libm.lgamma(np.asarray(x, np.float64)), np.float64)


def lgamma_lanczos(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| by XLA's Lanczos sum (kept for comparison); reflection for x < 1/2."""
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        z = np.where(reflect, -x, x - 1.0)
        series = np.full(x.shape, LANCZOS_BASE)
        for i, c in enumerate(LANCZOS_COEFFICIENTS):
            series = series + c / (z + (i + 1))
        t, log_t = _lanczos_log_t(z)
        log_y = LOG_SQRT_TWO_PI + (z + 0.5 - t / log_t) * log_t + libm.log(series)
        abs_x = np.abs(x)
        frac = abs_x - np.floor(abs_x)
        reduced = np.where(frac > 0.5, 1.0 - frac, frac)
        denom = libm.log(libm.sin(np.pi * reduced))
        reflection = np.where(np.isfinite(denom), LOG_PI - denom - log_y, -denom)
        result = np.where(reflect, reflection, log_y)
        return np.where(np.isinf(x), np.inf, result)


_PI_TEXT = "3.14159265358979323846264338327950288"  # read as np.longdouble where used
# The positive root of digamma as a sum of two doubles, and the Taylor coefficients
# psi^(k)(root) / k! there (mpmath, 300 bits).
_ROOT_HIGH, _ROOT_LOW = 1.4616321449683622, 9.549995429965697e-17
_ROOT_TAYLOR = lazy(lambda: tuple(np.longdouble(c) for c in (
    "0.9676722454476211704274448", "-0.4427631689835921060928653",
    "0.2584997609556510106244014", "-0.1639427054424065275042513",
    "0.1078240506912623657571829", "-0.07219956125645471092612178",
    "0.04880428816414310722509253")))
_ROOT_RADIUS = 0.004  # |x - root| where 7 Taylor terms are exact to extended precision
# B_2k / 2k, the coefficients of psi's asymptotic series in y^-2k.
_PSI_ASYMPTOTIC = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
_PSI_SHIFT = 12


def digamma(x: np.ndarray) -> np.ndarray:
    """d/dx log Gamma(x) in extended precision, rounded once: psi(z) = psi(z + 12) -
    sum 1/(z + k) with the asymptotic series at z + 12 >= 12.5; reflection psi(x) =
    psi(1 - x) - pi / tan(pi x) for x < 1/2 (tan of the exactly reduced pi (x - round x));
    a Taylor series about the positive root, where the shifted sum cancels. NaN at the
    poles, the integers <= 0, as upstream's decomposition (which defines the op)."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        wide = x.astype(np.longdouble)
        reflect = wide < 0.5
        z = np.where(reflect, 1 - wide, wide)
        shifted_sum = np.zeros(x.shape, np.longdouble)
        y = z.copy()
        for _ in range(_PSI_SHIFT):
            shifted_sum = shifted_sum + 1 / y
            y = y + 1
        inverse_square = 1 / (y * y)
        series = np.zeros(x.shape, np.longdouble)
        for c in reversed(_PSI_ASYMPTOTIC):
            series = (series + np.longdouble(c)) * inverse_square
        psi = np.log(y) - 1 / (2 * y) - series - shifted_sum
        offset = (wide - _ROOT_HIGH) - _ROOT_LOW
        taylor = np.zeros(x.shape, np.longdouble)
        for c in reversed(_ROOT_TAYLOR):
            taylor = (taylor + c) * offset
        psi = np.where(np.abs(offset) < _ROOT_RADIUS, taylor, psi)
        reduced = wide - np.round(wide)
        pi = np.longdouble(_PI_TEXT)
        psi = np.where(reflect, psi - pi / np.tan(pi * reduced), psi)
        result = psi.astype(np.float64)
        result = np.where((x <= 0) & (x == np.floor(x)), np.nan, result)
        return np.where(x == np.inf, np.inf, result)


def _libm(fn: Any, at_error: float) -> Any:
    """`fn` (a C99 libm function from `math`, accurate to ~1 ulp in double) over an array;
    the points where it raises (lgamma's poles) give `at_error`."""
    def one(v: float) -> float:
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return at_error

    ufunc = lazy(lambda: np.frompyfunc(one, 1, 1))  # numpy loads on first use

    def apply(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return np.asarray(ufunc(x), dtype=np.float64).reshape(x.shape)

    return apply


_erf = _libm(math.erf, math.nan)
_erfc = _libm(math.erfc, math.nan)


def erf(x: np.ndarray) -> np.ndarray:
    """libm's erf: a series or fraction in double loses up to ~10 ulp near |x| = 2.5."""
    return _erf(x)


def erfc(x: np.ndarray) -> np.ndarray:
    """libm's erfc: 1 - erf(x) cancels (thousands of ulp at x = 2.6)."""
    return _erfc(x)


# Results rounded to f32, f16, bf16 start from a fast guess and recompute only the elements
# near a rounding boundary with the C library (see `libm.rounded`, `erf_guess`).
erf.ufunc = erf_guess.erf_guess  # type: ignore[attr-defined]
erfc.ufunc = erf_guess.erfc_guess  # type: ignore[attr-defined]


def erf_inv(y: np.ndarray) -> np.ndarray:
    """Inverse of erf on [-1, 1]: Winitzki's approximation refined by six Newton steps on
    erf (on erfc near +-1, where erf loses the digits that matter), with the C library's
    functions."""
    return _erf_inv_refined(y, libm.log1p, functools.partial(_newton, libm.exp), erf, erfc)


def erf_inv_guess(y: Any, out: np.ndarray | None = None) -> np.ndarray:
    """erf_inv from numpy's log, a fitted start and one Halley step on erf_guess's erf/erfc
    (2^-47 relative to the C library's): within about 2^-48 relative of erf_inv's result,
    what `libm.rounded` needs to round it once to a narrower float without recomputing but
    near a rounding boundary (`out` as a ufunc's).

    The start is x = |y| P(w), w = -log((1 - |y|)(1 + |y|)) (Giles' variable: erf_inv(y) / y
    is smooth in w, and in sqrt(w) for the tails), P a Chebyshev fit of degree
    `_START_DEGREE` through the exact erf_inv on [0, _START_SPLIT) and [_START_SPLIT,
    _START_TOP] (2e-8 and 3e-7 relative). Halley's step is cubic: one leaves ~1e-17. The
    step runs on every element at once (`erf_guess.halley_steps` takes erf or erfc per
    element from one evaluation), not on masked subsets as `erf_inv`'s."""
    shape = np.shape(y)
    y = np.asarray(y, np.float64).reshape(-1)
    with np.errstate(all="ignore"):
        a = np.abs(y)
        inside = a < 1.0
        w = np.where(inside, a, 0.0)
        x = erf_guess.halley_steps(_inverse_start(w), w, 1)
        result = np.where(inside, x, np.where(a == 1.0, np.inf, np.nan))
        result = np.copysign(result, y).reshape(shape)
    if out is None:
        return result
    out[...] = result
    return out


_START_DEGREE = 10
_START_SPLIT = 6.25  # w from here (|y| > 0.998): the fit in sqrt(w)
_START_TOP = 37.0  # past the largest w of a double below 1 (36.04)


def _inverse_start(a: np.ndarray) -> np.ndarray:
    """erf_inv(a) for a in [0, 1) within 3e-7 relative (the fitted start)."""
    central, tail = _start_fits()
    w = (1.0 - a) * (1.0 + a)
    np.log(w, out=w)
    np.negative(w, out=w)
    far = w >= _START_SPLIT
    ratio = _horner(central, w * (2.0 / _START_SPLIT) - 1.0)
    if far.any():
        low, high = math.sqrt(_START_SPLIT), math.sqrt(_START_TOP)
        root = np.sqrt(w[far])
        ratio[far] = _horner(tail, (2.0 * root - low - high) / (high - low))
    ratio *= a
    return ratio


def _horner(coefficients: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The power series (highest power first) at t."""
    value = np.full(t.shape, coefficients[0])
    for c in coefficients[1:]:
        value *= t
        value += c
    return value


@functools.cache
def _start_fits() -> tuple[np.ndarray, np.ndarray]:
    """Power-series coefficients (highest first) in each branch's t in [-1, 1] of
    erf_inv(a) / a, least-squares Chebyshev fits through the exact erf_inv at 600 points
    per branch (fitted once, at first use)."""
    fits = []
    for low, high, tail in ((0.0, _START_SPLIT, False), (_START_SPLIT, _START_TOP, True)):
        w = np.linspace(max(low, 1e-12), high, 600)
        a = np.sqrt(-np.expm1(-w))
        a = a[a < 1.0]
        w = -np.log((1.0 - a) * (1.0 + a))  # as _inverse_start computes it
        if tail:
            lo, hi = math.sqrt(low), math.sqrt(high)
            t = (2.0 * np.sqrt(w) - lo - hi) / (hi - lo)
        else:
            t = w * (2.0 / high) - 1.0
        series = np.polynomial.chebyshev.chebfit(t, erf_inv(a) / a, _START_DEGREE)
        fits.append(np.polynomial.chebyshev.cheb2poly(series)[::-1].copy())
    return fits[0], fits[1]


def _winitzki(w: np.ndarray, log1p: Any) -> np.ndarray:
    """Winitzki's approximation of erf_inv(w) for w in [0, 1) (2e-3 relative)."""
    log_term = log1p(-w * w)
    k = 0.147
    c = 2.0 / (math.pi * k) + 0.5 * log_term
    return np.sqrt(np.sqrt(c * c - log_term / k) - c)


def _erf_inv_refined(y: Any, log1p: Any, refine: Any, erf_fn: Any,
                     erfc_fn: Any) -> np.ndarray:
    """Winitzki's start refined by `refine(x, offset, fn)` towards fn(x) + offset = 0: on
    erfc for |y| > 1/2, on erf for the others (each over its own elements only)."""
    shape = np.shape(y)
    y = np.asarray(y, np.float64).reshape(-1)  # 0-d too: the steps below assign by mask
    with np.errstate(all="ignore"):
        a = np.abs(y)
        inside = a < 1.0
        w = np.where(inside, a, 0.0)
        x = _winitzki(w, log1p)
        tail = w > 0.5
        x[tail] = refine(x[tail], 1.0 - w[tail], lambda v: -erfc_fn(v))
        head = ~tail
        x[head] = refine(x[head], -w[head], erf_fn)
        result = np.where(inside, x, np.where(a == 1.0, np.inf, np.nan))
        return np.copysign(result, y).reshape(shape)


def _newton(exp: Any, x: np.ndarray, offset: np.ndarray, fn: Any) -> np.ndarray:
    """Six Newton steps (fn' is erf's derivative); a step that leaves the finite numbers
    restarts at 0."""
    for _ in range(6):
        slope = _TWO_OVER_ROOT_PI * exp(-x * x)
        x = x - (fn(x) + offset) / slope
        x = np.where(np.isfinite(x), x, 0.0)
    return x


_TWO_OVER_ROOT_PI = 2.0 / math.sqrt(math.pi)


erf_inv.ufunc = erf_inv_guess  # type: ignore[attr-defined]


_I1E_SERIES_LIMIT = 30.0
_I1E_SERIES_TERMS = 140
_I1E_ASYMPTOTIC_TERMS = 30


def bessel_i1e(x: np.ndarray) -> np.ndarray:
    """e^(-|x|) I1(x): power series for |x| <= 30, Hankel's asymptotic expansion beyond,
    both summed in extended precision (the series' terms carry a rounding per step and
    peak near k = |x|/2, which costs double up to ~9 ulp), rounded once to double. The
    asymptotic form divides by sqrt(2 pi) sqrt(|x|), which stays finite up to the largest
    double."""
    wide = np.longdouble
    with np.errstate(all="ignore"):
        a = np.abs(np.asarray(x, np.float64)).astype(wide)
        s = np.where(a <= _I1E_SERIES_LIMIT, a, wide(0))
        q = wide(0.25) * s * s
        term = wide(0.5) * s
        total = term.copy()
        for k in range(1, _I1E_SERIES_TERMS):
            term = term * q / wide(k * (k + 1))
            total = total + term
        series = total * np.exp(-s)
        big = np.where(a > _I1E_SERIES_LIMIT, a, wide(_I1E_SERIES_LIMIT + 1))
        mu = wide(4)
        term = np.ones(a.shape, wide)
        acc = np.ones(a.shape, wide)
        for k in range(1, _I1E_ASYMPTOTIC_TERMS):
            term = -term * (mu - wide((2 * k - 1) ** 2)) / (wide(8 * k) * big)
            acc = acc + term
        asymptotic = acc / (np.sqrt(2 * np.longdouble(_PI_TEXT)) * np.sqrt(big))
        result = np.where(a <= _I1E_SERIES_LIMIT, series, asymptotic).astype(np.float64)
        result = np.where(np.isinf(a), 0.0, result)
        return np.where(np.isnan(x), np.nan, np.copysign(result, x))


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)
_ZETA_N = 10
_FACTORIALS = lazy(lambda: np.array([float(math.factorial(k)) for k in range(171)]))


def _zeta_positive(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """sum_k (q + k)^-s for q > 0, s > 1, in extended precision: the first terms summed,
    the rest by Euler-Maclaurin at w = q + 10 (its Bernoulli terms as ratios of the
    previous one, so a huge s makes them zero rather than inf * 0)."""
    total = np.zeros(s.shape, np.longdouble)
    for k in range(_ZETA_N):
        total = total + np.power(q + k, -s)
    w = q + _ZETA_N
    w_power = np.power(w, -s)
    total = total + np.power(w, 1 - s) / (s - 1) + w_power / 2
    term = s * w_power / w
    for j, a in enumerate(_ZETA_A):
        total = total + term / np.longdouble(a)
        term = term * ((s + (2 * j + 1)) / w) * ((s + (2 * j + 2)) / w)
    return total


def zeta_extended(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hurwitz zeta(s, q) = sum_k (q + k)^-s in extended precision, with the cases of
    upstream's decomposition (which defines the op outside s > 1, q > 0): NaN for s < 1 and
    for non-integer s when q <= 0; at the poles q = 0, -1, ... +inf for even s, NaN for odd;
    +inf at s = 1. A negative non-integer q with integer s splits the sum into its negative
    terms, (-1)^s (zeta(s, r) - zeta(s, r + K)) with r = -(q + K - 1) in (0, 1), and
    zeta(s, q + K), K = ceil(-q), all at positive arguments, where Euler-Maclaurin holds
    (at q + 10 < 0 it does not: upstream's decomposition is off there)."""
    s, q = np.broadcast_arrays(np.asarray(s, np.longdouble), np.asarray(q, np.longdouble))
    with np.errstate(all="ignore"):
        negative = q < 0
        k = np.where(negative, np.ceil(-q), 0)
        r = np.where(negative, -(q + k - 1), 1)
        sign = np.where(np.fmod(s, 2) == 0, 1, -1).astype(np.longdouble)
        shifted = np.where(negative, q + k, q)
        result = _zeta_positive(s, shifted)
        below = sign * (_zeta_positive(s, r) - _zeta_positive(s, r + k))
        result = np.where(negative, result + below, result)
        result = np.where(s < 1, np.nan, result)
        is_int = s == np.floor(s)
        result = np.where((q <= 0) & ~is_int, np.nan, result)
        even = is_int & (np.fmod(s, 2) == 0)
        at_pole = (q <= 0) & (q == np.floor(q))
        result = np.where(at_pole, np.where(even, np.inf, np.nan), result)
        return np.where(s == 1, np.inf, result)


def zeta(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hurwitz zeta(s, q), rounded once to double."""
    return zeta_extended(s, q).astype(np.float64)


def polygamma(n: np.ndarray, x: np.ndarray) -> np.ndarray:
    """psi^(n)(x): digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x) (in extended
    precision, n! exact to rounding); NaN unless n is a non-negative integer."""
    with np.errstate(all="ignore"):
        n, x = np.broadcast_arrays(n, x)
        valid = (n >= 0) & (n == np.floor(n))
        nn = np.where(valid, n, 0.0)
        sign = np.where(np.fmod(nn, 2.0) == 0, -1.0, 1.0)
        factorial = np.where(nn <= 170, _FACTORIALS[np.minimum(nn, 170).astype(np.int64)],
                             np.inf).astype(np.longdouble)
        higher = (sign * factorial * zeta_extended(nn + 1.0, x)).astype(np.float64)
        result = np.where(nn == 0, digamma(x), higher)
        return np.where(valid, result, np.nan)
