"""Complex asin, acos, acosh, asinh, atanh and atan for `--chlo-legalize-to-stablehlo`: upstream's
modified Hull et al. algorithm (functional_algorithms), in real StableHLO ops of the part
type.

With x = |Re z|, y = |Im z|, a = (hypot(x + 1, y) + hypot(x - 1, y)) / 2:
  Re asin z = atan2(Re z, Q), Re acos z = atan2(Q, Re z) with Q = sqrt(a^2 - x^2) evaluated
  per region (Q ~ y once max(x, y) >= safe_max = sqrt(max) / 8);
  |Im asin z| = log(a + sqrt(a^2 - 1)) = log1p(a - 1 + sqrt((a - 1)(a + 1))), with a - 1
  taken from cancellation-free forms, log(2) + log(mx) + log1p((x/y)^2) / 2 for huge
  arguments and y / sqrt((a - 1)(a + 1)) for tiny y and x < 1.
acosh z = +-i acos z, asinh z = -i asin(i z).
atanh: see `_atanh`; atan z = -i atanh(i z).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes

from ..ir.core import Value
from ..ir.types import ComplexType, FloatType, TensorType, numpy_dtype
from .chlo_legalize import Real, Rewriter


@dataclass
class _AsinParts:
    q: Value  # Re asin z = atan2(Re z, q), Re acos z = atan2(q, Re z)
    imag: Value  # |Im asin z| = |Im acos z|


def hypot(e: Real, u: Value, y: Value, *, sqrt_two_constant: bool = False) -> Value:
    """hypot(u, y) for u, y >= 0 without overflow: mx sqrt(1 + (mn/mx)^2), exact for
    mn = mx and keeping the (mn/mx)^2 / 2 term when sqrt rounds to 1. For mn = mx the
    result is sqrt(2) mx, with sqrt(2) a `sqrt` of 2 as in upstream's chlo decompositions,
    or a constant as in its complex-math-expander (`sqrt_two_constant`)."""
    one, two = e.const(1.0), e.const(2.0)
    mx, mn = e("maximum", u, y), e("minimum", u, y)
    ratio = e("divide", mn, mx)
    r = e("multiply", ratio, ratio)
    sqa = e("sqrt", e("add", one, r))
    keeps_term = e.rw.create("stablehlo.and", [e.compare("EQ", sqa, one),
                                               e.compare("GT", r, e.const(0.0))], e.pred)
    general = e.select(keeps_term, e("add", mx, e("divide", e("multiply", mx, r), two)),
                       e("multiply", mx, sqa))
    equal = e.compare("EQ", mx, mn)
    sqrt_two = e.const(1.4142135623730951) if sqrt_two_constant else e("sqrt", two)
    return e.select(equal, e("multiply", sqrt_two, mx), general)


def _asin_parts(e: Real, signed_x: Value, signed_y: Value) -> _AsinParts:
    one, half, two, zero = e.const(1.0), e.const(0.5), e.const(2.0), e.const(0.0)
    big = float(ml_dtypes.finfo(numpy_dtype(e.t.element)).max)
    tiny = float(ml_dtypes.finfo(numpy_dtype(e.t.element)).smallest_normal)
    x, y = e("abs", signed_x), e("abs", signed_y)
    safe_max = e.const(math.sqrt(big) / 8)
    xp1, xm1 = e("add", x, one), e("subtract", x, one)
    r = hypot(e, e("abs", xp1), y)
    s = hypot(e, e("abs", xm1), y)
    a = e("multiply", half, e("add", r, s))
    half_apx = e("multiply", half, e("add", a, x))
    yy = e("multiply", y, y)
    rpxp1, smxm1, spxm1 = e("add", r, xp1), e("subtract", s, xm1), e("add", s, xm1)
    inside = e("sqrt", e("multiply", half_apx, e("add", e("divide", yy, rpxp1), smxm1)))
    outside = e("multiply", y, e("sqrt", e("add", e("divide", half_apx, rpxp1),
                                               e("divide", half_apx, spxm1))))
    q = e.select(e.compare("GE", e("maximum", x, y), safe_max), y,
                 e.select(e.compare("LE", x, one), inside, outside))

    x_small = e.compare("LT", x, e("multiply", safe_max, e.const(1e12)))
    safe_max_opt = e.select(x_small, e("multiply", safe_max, e.const(1e-6)),
                            e("multiply", safe_max, e.const(100.0)))
    y_huge = e.compare("GE", y, safe_max_opt)
    mx = e.select(y_huge, y, x)
    y_finite = e.rw.create("stablehlo.not", [e.compare("EQ", y, e.const(math.inf))], e.pred)
    xoy = e.select(e.rw.create("stablehlo.and", [y_huge, y_finite], e.pred),
                   e("divide", x, y), zero)
    huge = e("add", e("add", e("log", two), e("log", mx)),
             e("multiply", half, e("log_plus_one", e("multiply", xoy, xoy))))
    tiny_y = e.rw.create("stablehlo.and", [
        e.compare("LT", y, e.const(math.sqrt(tiny) * 4)), e.compare("LT", x, one)], e.pred)
    ap1 = e("add", a, one)
    half_yy = e("multiply", half, yy)
    half_yy_over_rpxp1 = e("divide", half_yy, rpxp1)
    am1 = e.select(
        tiny_y, e("negate", e("divide", e("multiply", xp1, xm1), ap1)),
        e.select(e.compare("GE", x, one),
                 e("add", half_yy_over_rpxp1, e("multiply", half, spxm1)),
                 e.select(e.compare("LE", a, e.const(1.5)),
                          e("add", half_yy_over_rpxp1, e("divide", half_yy, smxm1)),
                          e("subtract", a, one))))
    sq = e("sqrt", e("multiply", am1, ap1))
    imag = e.select(e.compare("GE", mx, e.select(y_huge, safe_max_opt, safe_max)), huge,
                    e.select(tiny_y, e("divide", y, sq), e("log_plus_one", e("add", am1, sq))))
    return _AsinParts(q, imag)


def _complex_operand(rw: Rewriter) -> tuple[Value, Value, Real, TensorType] | None:
    (z,) = rw.op.operands
    t = z.type
    if not (isinstance(t, TensorType) and isinstance(t.element, ComplexType)
            and isinstance(t.element.element, FloatType)):
        return None
    part = TensorType(t.shape, t.element.element)
    e = Real(rw, part)
    return e("real", z), e("imag", z), e, t


def _complex(e: Real, real: Value, imag: Value, t: TensorType) -> Value:
    return e.rw.create("stablehlo.complex", [real, imag], t)


def _asin(e: Real, signed_x: Value, signed_y: Value) -> tuple[Value, Value]:
    parts = _asin_parts(e, signed_x, signed_y)
    negative = e.compare("LT", signed_y, e.const(0.0))
    return (e("atan2", signed_x, parts.q),
            e.select(negative, e("negate", parts.imag), parts.imag))


def _acos(e: Real, signed_x: Value, signed_y: Value) -> tuple[Value, Value]:
    parts = _asin_parts(e, signed_x, signed_y)
    negative = e.compare("LT", signed_y, e.const(0.0))
    return (e("atan2", parts.q, signed_x),
            e.select(negative, parts.imag, e("negate", parts.imag)))


def _inv_negeps(e: Real) -> float:
    """2 / eps + 2 of the part type (upstream's `inv_negeps`): 2^53 + 2, 2^24 + 2, 2050."""
    largest = float(ml_dtypes.finfo(numpy_dtype(e.t.element)).max)
    if largest > 1e308:
        return 9007199254740994.0
    return 16777218.0 if largest > 1e38 else 2050.0


def _atanh(e: Real, x: Value, y: Value) -> tuple[Value, Value]:
    """atanh(x + iy) = 1/4 sign(x) log1p(4|x| / ((1 - |x|)^2 + y^2))
    + i/2 atan2(2y, (1 - |x|)(1 + |x|) - y^2) inside the safe region (|x|, |y| below
    (2 / eps)^2); outside it the real part's argument is 1/|x| (y negligible), 0 (an infinite
    part) or 1 / (|x|/y + y/|x|) / y, and the imaginary part sign(y) pi / 2."""
    zero, one = e.const(0.0), e.const(1.0)
    inv_negeps = _inv_negeps(e)
    safe_max = e.const(inv_negeps * inv_negeps)
    ax, ay = e("abs", x), e("abs", y)
    in_safe_region = e.rw.create("stablehlo.and", [e.compare("LT", ax, safe_max),
                                                   e.compare("LT", ay, safe_max)], e.pred)
    naxm1 = e("subtract", one, ax)
    y2 = e("multiply", y, y)
    infinite = e.rw.create("stablehlo.or", [e.compare("EQ", ax, e.const(math.inf)),
                                            e.compare("EQ", ay, e.const(math.inf))], e.pred)
    general = e("divide", e("divide", one, e("add", e("divide", ax, y), e("divide", y, ax))), y)
    ratio = e.select(in_safe_region, e("divide", ax, e("add", e("multiply", naxm1, naxm1), y2)),
                     e.select(e.compare("LT", e("multiply", ay, e.const(inv_negeps)), ax),
                              e("divide", one, ax), e.select(infinite, zero, general)))
    minus_one = e.const(-1.0)
    sign_x = e.select(e.compare("GE", x, zero), one, minus_one)
    real = e("multiply", e("multiply", sign_x, e("log_plus_one", e("multiply", e.const(4.0),
                                                                     ratio))), e.const(0.25))
    sign_y = e.select(e.compare("GE", y, zero), one, minus_one)
    angle = e.select(in_safe_region,
                     e("atan2", e("add", y, y),
                       e("subtract", e("multiply", naxm1, e("add", one, ax)), y2)),
                     e("multiply", sign_y, e.const(math.pi)))
    return real, e("multiply", angle, e.const(0.5))
