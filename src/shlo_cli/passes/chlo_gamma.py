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
    finite = e("is_finite", denom, result=TensorType(x.type.shape, BOOL))  # type: ignore
    reflection = e.select(finite, reflection, e("negate", denom))
    value = e.select(reflect, reflection, value)
    infinite = e.chlo("is_inf", x, result=TensorType(x.type.shape, BOOL))  # type: ignore
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
