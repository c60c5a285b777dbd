"""Special functions on float64 numpy arrays, vectorized (no per-element Python loops).

The CHLO evaluators compute in double and round once to the element type, so these only
need double accuracy. Algorithms: XLA's Lanczos approximation (g = 7, 9 terms) for lgamma and
digamma, an all-positive-terms series and a continued fraction for erf/erfc, Newton steps on
erf for erf_inv, power series / asymptotic expansion for bessel_i1e, Euler-Maclaurin for the
Hurwitz zeta function.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...lazy_imports import lazy
from .. import libm

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
    """log|Gamma(x)| by libm: exact zeros at 1 and 2, +inf at the poles (non-positive
    integers) and at +-inf; a Lanczos sum is off by ~1e-15 absolute, which is unbounded
    relative error next to the zeros."""
    return _lgamma(x)


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


def digamma(x: np.ndarray) -> np.ndarray:
    """d/dx log Gamma(x); NaN at the poles, the integers <= 0 (as upstream's CHLO
    decomposition, which defines the op)."""
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        z = np.where(reflect, -x, x - 1.0)
        num = np.zeros(x.shape)
        denom = np.full(x.shape, LANCZOS_BASE)
        for i, c in enumerate(LANCZOS_COEFFICIENTS):
            d = z + (i + 1)
            num = num - c / (d * d)
            denom = denom + c / d
        t, log_t = _lanczos_log_t(z)
        y = log_t + num / denom - LANCZOS_GAMMA / t
        reduced = x + np.abs(np.floor(x + 0.5))
        reflection = y - np.pi * libm.cos(np.pi * reduced) / libm.sin(np.pi * reduced)
        result = np.where(reflect, reflection, y)
        result = np.where((x <= 0) & (x == np.floor(x)), np.nan, result)
        return np.where(x == np.inf, np.inf, result)


_ERF_SERIES_LIMIT = 6.0
_ERF_TERMS = 160
_ERFC_CF_START = 3.0
_ERFC_CF_TERMS = 120


def _erf_series(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2/sqrt(pi) e^(-x^2) sum_n 2^n x^(2n+1) / (2n+1)!! (terms all positive)."""
    x2 = x * x
    term = x.copy()
    total = x.copy()
    for n in range(1, _ERF_TERMS):
        term = term * (2.0 * x2) / (2 * n + 1)
        total = total + term
    return 2.0 / math.sqrt(math.pi) * libm.exp(-x2) * total


def _erfc_fraction(x: np.ndarray) -> np.ndarray:
    """erfc(x) for x >= 3: e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))."""
    f = x.copy()
    for k in range(_ERFC_CF_TERMS, 0, -1):
        f = x + (k / 2.0) / f
    return libm.exp(-x * x) / math.sqrt(math.pi) / f


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
_lgamma = _libm(math.lgamma, math.inf)


def erf(x: np.ndarray) -> np.ndarray:
    """libm's erf: a series or fraction in double loses up to ~10 ulp near |x| = 2.5."""
    return _erf(x)


def erfc(x: np.ndarray) -> np.ndarray:
    """libm's erfc: 1 - erf(x) cancels (thousands of ulp at x = 2.6)."""
    return _erfc(x)


def erf_inv(y: np.ndarray) -> np.ndarray:
    """Inverse of erf on [-1, 1]: Winitzki's approximation refined by Newton steps on erf
    (on erfc near +-1, where erf loses the digits that matter)."""
    with np.errstate(all="ignore"):
        a = np.abs(y)
        inside = a < 1.0
        w = np.where(inside, a, 0.0)
        log_term = libm.log1p(-w * w)
        k = 0.147
        c = 2.0 / (math.pi * k) + 0.5 * log_term
        x = np.sqrt(np.sqrt(c * c - log_term / k) - c)
        tail = w > 0.5
        complement = 1.0 - w
        for _ in range(6):
            slope = 2.0 / math.sqrt(math.pi) * libm.exp(-x * x)
            residual = np.where(tail, complement - erfc(x), erf(x) - w)
            x = x - residual / slope
            x = np.where(np.isfinite(x), x, 0.0)
        result = np.where(inside, x, np.where(a == 1.0, np.inf, np.nan))
        return np.copysign(result, y)


_I1E_SERIES_LIMIT = 30.0
_I1E_SERIES_TERMS = 140
_I1E_ASYMPTOTIC_TERMS = 30


def bessel_i1e(x: np.ndarray) -> np.ndarray:
    """e^(-|x|) I1(x): power series for |x| <= 30, Hankel's asymptotic expansion beyond."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        s = np.where(a <= _I1E_SERIES_LIMIT, a, 0.0)
        q = 0.25 * s * s
        term = 0.5 * s
        total = term.copy()
        for k in range(1, _I1E_SERIES_TERMS):
            term = term * q / (k * (k + 1))
            total = total + term
        series = total * libm.exp(-s)
        big = np.where(a > _I1E_SERIES_LIMIT, a, _I1E_SERIES_LIMIT + 1)
        mu = 4.0
        term = np.ones(x.shape)
        acc = np.ones(x.shape)
        for k in range(1, _I1E_ASYMPTOTIC_TERMS):
            term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * big)
            acc = acc + term
        asymptotic = acc / np.sqrt(2.0 * math.pi * big)
        result = np.where(a <= _I1E_SERIES_LIMIT, series, asymptotic)
        result = np.where(np.isinf(a), 0.0, result)
        return np.where(np.isnan(x), np.nan, np.copysign(result, x))


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)
_ZETA_N = 9


def zeta(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hurwitz zeta(s, q) = sum_k (q + k)^-s for s > 1 (Euler-Maclaurin, as Cephes/XLA)."""
    with np.errstate(all="ignore"):
        total = np.zeros(np.broadcast_shapes(s.shape, q.shape))
        for k in range(_ZETA_N):
            total = total + libm.power(q + k, -s)
        w = q + _ZETA_N
        total = total + libm.power(w, 1.0 - s) / (s - 1.0) + 0.5 * libm.power(w, -s)
        factor = s * libm.power(w, -s - 1.0)
        coeff = np.ones_like(total)
        correction = np.zeros_like(total)
        for j, a in enumerate(_ZETA_A):
            correction = correction + coeff * factor / a
            coeff = coeff * (s + 2 * j + 1) * (s + 2 * j + 2)
            factor = factor / (w * w)
            del a
        total = total + correction
        q_pole = (q <= 0) & (q == np.floor(q))
        result = np.where(s == 1.0, np.inf, total)
        result = np.where(s < 1.0, np.nan, result)
        result = np.where(q_pole & (s > 1) & (s == np.floor(s)) & (s % 2 == 0), np.inf, result)
        result = np.where(q_pole & ~((s > 1) & (s == np.floor(s)) & (s % 2 == 0)), np.nan,
                          result)
        return np.where(np.isnan(s) | np.isnan(q), np.nan, result)


def polygamma(n: np.ndarray, x: np.ndarray) -> np.ndarray:
    """psi^(n)(x): digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x); NaN unless n is a
    non-negative integer."""
    with np.errstate(all="ignore"):
        n, x = np.broadcast_arrays(n, x)
        valid = (n >= 0) & (n == np.floor(n))
        nn = np.where(valid, n, 0.0)
        sign = np.where(np.fmod(nn, 2.0) == 0, -1.0, 1.0)
        factorial = libm.exp(lgamma(nn + 1.0))
        higher = sign * factorial * zeta(nn + 1.0, x)
        result = np.where(nn == 0, digamma(x), higher)
        return np.where(valid, result, np.nan)
