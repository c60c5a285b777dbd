"""lgamma and digamma for `--chlo-legalize-to-stablehlo`: the Lanczos approximation
(g = 7, 9 terms) with Euler's reflection below 1/2, op for op as upstream emits it
(f16/bf16 computed in f32)."""

from __future__ import annotations

import math

from ..dialects.chlo.special_math import (
    LANCZOS_BASE,
    LANCZOS_COEFFICIENTS,
    LANCZOS_GAMMA,
    LOG_PI,
    LOG_SQRT_TWO_PI,
)
from ..ir.core import Value
from ..ir.types import BOOL, FloatType, TensorType
from .chlo_builder import Ex
from .chlo_legalize import Rewriter, _with_upcast, pattern

_G_HALF = LANCZOS_GAMMA + 0.5


def _reflected_argument(e: Ex, x: Value) -> tuple[Value, Value, Value, Value]:
    """(1/2, x < 1/2, 1, z) with z = -x below 1/2 and x - 1 otherwise."""
    half = e.const(0.5, x)
    reflect = e.cmp("LT", x, half)
    neg = e("negate", x)
    one = e.const(1, x)
    return half, reflect, one, e.select(reflect, neg, e("subtract", x, one))


def _log_t(e: Ex, x: Value, z: Value) -> tuple[Value, Value]:
    """t = g + 1/2 + z and log t = log(g + 1/2) + log1p(z / (g + 1/2))."""
    g_half = e.const(_G_HALF, x)
    t = e("add", g_half, z)
    log_t = e("add", e.const(math.log(_G_HALF), x), e("log_plus_one", e("divide", z, g_half)))
    return t, log_t


def lgamma(e: Ex, x: Value) -> Value:
    """log|gamma(x)|: log sqrt(2 pi) + (z + 1/2 - t / log t) log t + log a(z); below 1/2
    log pi - log|sin(pi frac|x|)| - lgamma(1 - x); +inf at +-inf."""
    half, reflect, one, z = _reflected_argument(e, x)
    a = e.const(LANCZOS_BASE, x)
    for i, c in enumerate(LANCZOS_COEFFICIENTS):
        a = e("add", a, e("divide", e.const(c, x), e("add", z, e.const(i + 1, x))))
    t, log_t = _log_t(e, x, z)
    t_over_log_t = e("divide", t, log_t)
    r = e("multiply", e("subtract", e("add", z, half), t_over_log_t), log_t)
    log_a = e("log", a)
    value = e("add", e("add", e.const(LOG_SQRT_TWO_PI, x), r), log_a)
    frac = e("subtract", ax := e("abs", x), e("floor", ax))
    frac = e.select(e.cmp("LT", half, frac), e("subtract", one, frac), frac)
    denom = e("log", e("sine", e("multiply", e.const(math.pi, x), frac)))
    reflection = e("subtract", e("subtract", e.const(LOG_PI, x), denom), value)
    finite = e("is_finite", denom, result=x.type.with_element(BOOL))  # type: ignore
    reflection = e.select(finite, reflection, e("negate", denom))
    value = e.select(reflect, reflection, value)
    infinite = e.chlo("is_inf", x, result=x.type.with_element(BOOL))  # type: ignore
    return e.select(infinite, e.const(math.inf, x), value)


def digamma(e: Ex, x: Value) -> Value:
    """log t + a'(z) / a(z) - g / t; below 1/2 minus pi cot(pi x) (x shifted into
    [-1/2, 1/2]); NaN at the poles (integers <= 0)."""
    half, reflect, one, z = _reflected_argument(e, x)
    zero = e.const(0.0, x)
    a, a_prime = e.const(LANCZOS_BASE, x), zero
    for i, c in enumerate(LANCZOS_COEFFICIENTS):
        coeff = e.const(c, x)
        term = e("add", z, e.const(i + 1, x))
        a_prime = e("subtract", a_prime, e("divide", coeff, e("multiply", term, term)))
        a = e("add", a, e("divide", coeff, term))
    t, log_t = _log_t(e, x, z)
    ratio = e("divide", a_prime, a)
    g_over_t = e("divide", e.const(LANCZOS_GAMMA, x), t)
    value = e("subtract", e("add", log_t, ratio), g_over_t)
    reduced = e("add", x, e("abs", e("floor", e("add", x, e.const(0.5, x)))))
    pi = e.const(math.pi, x)
    angle = e("multiply", pi, reduced)
    cos, sin = e("cosine", angle), e("sine", angle)
    reflection = e("subtract", value, e("divide", e("multiply", pi, cos), sin))
    value = e.select(reflect, reflection, value)
    pole = e("and", e.cmp("LE", x, zero), e.cmp("EQ", x, e("floor", x)))
    return e.select(pole, e.const(math.nan, x), value)


_ZETA_COEFFICIENTS = (-7.1661652561756670113e18, 1.8152105401943546773e17,
                      -4.5979787224074726105e15, 1.1646782814350067249e14,
                      -2.950130727918164224e12, 7.47242496e10, -1.8924375803183791606e9,
                      47900160.0, -1209600.0, 30240.0, -720.0, 12.0)
_ZETA_ITERATIONS = 9


def zeta(e: Ex, x: Value, q: Value) -> Value:
    """Hurwitz zeta by Euler-Maclaurin: sum_{k<10} (q + k)^-x plus the integral and
    Bernoulli tail terms at q + 10 (Horner form); NaN for x < 1 and for non-integer x
    when q <= 0, poles at integer q <= 0 (+inf for even x), +inf at x = 1."""
    pred = x.type.with_element(BOOL)  # type: ignore[union-attr,attr-defined]
    zero, one = e.const(0.0, q), e.const(1.0, q)
    acc = q
    neg_x = e("negate", x)
    power_sum = e("power", q, neg_x)
    for _ in range(_ZETA_ITERATIONS):
        acc = e("add", acc, one)
        power_sum = e("add", power_sum, e("power", acc, neg_x))
    acc = e("add", acc, one)
    q_neg_power = e("power", acc, neg_x)
    one_x = e.const(1.0, x)
    correction = e("divide", e("multiply", q_neg_power, acc), e("subtract", x, one_x))
    inv_acc_sq = e("divide", one, e("multiply", acc, acc))
    horner_sum = zero
    terms = len(_ZETA_COEFFICIENTS)
    for i in range(terms - 1):
        factor = e("multiply", e("add", x, e.const(2 * terms - 2 - 2 * i, x)),
                   e("add", x, e.const(2 * terms - 3 - 2 * i, x)))
        horner_sum = e("multiply", factor, e("multiply", inv_acc_sq, e(
            "add", horner_sum, e.const(1.0 / _ZETA_COEFFICIENTS[i], acc))))
    half = e.const(0.5, q_neg_power)
    tail = e("multiply", q_neg_power, e("add", half, e("multiply", e("divide", x, acc), e(
        "add", e.const(1.0 / _ZETA_COEFFICIENTS[-1], acc), horner_sum))))
    accurate = e("add", e("add", power_sum, correction), tail)
    negligible = e.cmp("LT", e("abs", q_neg_power),
                       e("multiply", e("abs", power_sum), e.smallest_subnormal(acc)))
    output = e.select(negligible, power_sum, accurate)
    nan = e.const(math.nan, x)
    output = e.select(e.cmp("LT", x, one_x), nan, output)
    q_le_zero = e.cmp("LE", q, zero)
    x_not_int = e.cmp("NE", x, e("floor", x))
    output = e.select(e("and", q_le_zero, x_not_int, result=pred), nan, output)
    inf = e.const(math.inf, x)
    at_pole = e("and", q_le_zero, e.cmp("EQ", q, e("floor", q)), result=pred)
    two = e.const(2.0, x)
    x_is_int = e.cmp("EQ", x, e("floor", x))
    even_int = e("and", x_is_int, e.cmp("EQ", e("remainder", x, two), zero), result=pred)
    output = e.select(at_pole, e.select(even_int, inf, nan), output)
    return e.select(e.cmp("EQ", x, one), inf, output)


def polygamma(e: Ex, n: Value, x: Value) -> Value:
    """(-1)^(n+1) n! zeta(n + 1, x) for natural n > 0, digamma(x) for n = 0, NaN otherwise
    (its lgamma, zeta and digamma decomposed in place)."""
    one, two = e.const(1.0, x), e.const(2.0, x)
    sign = e("subtract", e("multiply", two, e("remainder", n, two)), one)
    n_plus_one = e("add", n, one)
    factorial = e("exponential", e.chlo("lgamma", n_plus_one))
    z = e.chlo("zeta", n_plus_one, x)
    result = e("multiply", e("multiply", sign, factorial), z)
    zero = e.const(0.0, x)
    result = e.select(e.cmp("EQ", n, zero), e.chlo("digamma", x), result)
    non_natural = e("or", e.cmp("NE", n, e("floor", n)), e.cmp("LT", n, zero))
    return e.select(non_natural, e.const(math.nan, x), result)


def _binary(rw: Rewriter, body: object) -> list[Value] | None:
    """Both operands in f32 for f16/bf16 (converted in order), the result converted back."""
    a, b = rw.op.operands
    t = a.type
    if not (isinstance(t, TensorType) and isinstance(t.element, FloatType) and b.type == t):
        return None
    e = Ex(rw)
    if t.element.name in ("f16", "bf16"):
        wide = TensorType(t.shape, FloatType("f32"))
        a2, b2 = e("convert", a, result=wide), e("convert", b, result=wide)
        return [e("convert", body(e, a2, b2), result=t)]  # type: ignore[operator]
    return [body(e, a, b)]  # type: ignore[operator]


@pattern("chlo.zeta")
def _zeta(rw: Rewriter) -> list[Value] | None:
    return _binary(rw, zeta)


@pattern("chlo.polygamma")
def _polygamma(rw: Rewriter) -> list[Value] | None:
    return _binary(rw, polygamma)


def _unary(rw: Rewriter, body: object) -> list[Value] | None:
    (x,) = rw.op.operands
    if not isinstance(getattr(x.type, "element", None), FloatType):
        return None
    return _with_upcast(rw, lambda r, v, t: body(Ex(r), v))  # type: ignore[operator]


@pattern("chlo.lgamma")
def _lgamma(rw: Rewriter) -> list[Value] | None:
    return _unary(rw, lgamma)


@pattern("chlo.digamma")
def _digamma(rw: Rewriter) -> list[Value] | None:
    return _unary(rw, digamma)
