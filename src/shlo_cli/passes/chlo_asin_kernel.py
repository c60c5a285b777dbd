"""Complex asin, acos, acosh and asinh for `--chlo-legalize-to-stablehlo`, op for op as
upstream emits them: each is a few ops around `chlo._asin_acos_kernel` (decomposed in place),
the modified Hull et al. algorithm of functional_algorithms.

kernel(z) = sqrt(a^2 - x^2) + i log(a + sqrt(a^2 - 1)) with x = |Re z|, y = |Im z| and
a = (hypot(x + 1, y) + hypot(x - 1, y)) / 2, each part evaluated per region (near the
real axis, around |x| = 1, beyond safe_max = sqrt(max) / 8).
asin z = atan2(Re z, Re w) + i sign(Im z) Im w, acos z = atan2(Re w, Re z) - i sign(Im z)
Im w, acosh z = Im w + i sign(Im z) atan2(Re w, Re z), asinh z = -i asin(i z).
"""

from __future__ import annotations

import math

from ..ir.core import Value
from ..ir.types import ComplexType
from .chlo_builder import Ex
from .chlo_legalize import Rewriter, pattern


def _hypot(e: Ex, u: Value, y: Value, one: Value, sqrt_two: Value | None, zero: Value | None,
           two: Value | None, like: Value) -> tuple[Value, Value, Value, Value]:
    """hypot(|u|, y) without overflow; returns (value, sqrt_two, zero, two), the constants
    made on first use."""
    mx = e("maximum", abs_u := e("abs", u), y)
    mn = e("minimum", abs_u, y)
    equal = e.cmp("EQ", mx, mn)
    sqrt_two = sqrt_two or e.const(1.4142135623730951, like)
    at_equal = e("multiply", sqrt_two, mx)
    r = e("multiply", ratio := e("divide", mn, mx), ratio)
    sqa = e("sqrt", e("add", one, r))
    keeps = e("and", e.cmp("EQ", sqa, one), e.cmp("GT", r, zero := zero or e.const(0, like)))
    general = e.select(keeps, e("add", mx, e("divide", e("multiply", mx, r),
                                                 two := two or e.const(2, like))),
                       e("multiply", mx, sqa))
    return e.select(equal, at_equal, general), sqrt_two, zero, two


def asin_acos_kernel(e: Ex, z: Value) -> Value:
    x = e("abs", sx := e.part("real", z))
    big = e.cmp("GE", e("maximum", x, y := e("abs", sy := e.part("imag", z))),
                safe_max := e("divide", e("sqrt", e.max_finite(sx)), e.const(8, sx)))
    le_one = e.cmp("LE", x, one := e.const(1, sx))
    half = e.const(0.5, sx)
    xp1 = e("add", x, one)
    r, sqrt_two, zero, two = _hypot(e, xp1, y, one, None, None, None, sx)
    xm1 = e("subtract", x, one)
    s, *_ = _hypot(e, xm1, y, one, sqrt_two, zero, two, sx)
    a = e("multiply", half, e("add", r, s))
    half_apx = e("multiply", half, e("add", a, x))
    near = e("sqrt", e("multiply", half_apx, e("add", e(
        "divide", yy := e("multiply", y, y), rpxp1 := e("add", r, xp1)),
        smxm1 := e("subtract", s, xm1))))
    far = e("multiply", y, e("sqrt", e("add", e("divide", half_apx, rpxp1), e(
        "divide", half_apx, spxm1 := e("add", s, xm1)))))
    real = e.select(big, y, e.select(le_one, near, far))

    safe_max_opt = e.select(e.cmp("LT", x, e("multiply", safe_max, e.const(1e12, sx))),
                            e("multiply", safe_max, e.const(1e-6, sx)),
                            e("multiply", safe_max, e.const(100.0, sx)))
    y_gt = e.cmp("GE", y, safe_max_opt)
    mx = e.select(y_gt, y, x)
    huge = e.cmp("GE", mx, e.select(y_gt, safe_max_opt, safe_max))
    log_two_mx = e("add", e("log", two), e("log", mx))
    finite_y = e("not", e.cmp("EQ", y, e.const(math.inf, sy)))
    xoy = e.select(e("and", y_gt, finite_y), e("divide", x, y), zero)
    at_huge = e("add", log_two_mx, e("multiply", half, e("log_plus_one", e("multiply", xoy, xoy))))
    tiny = e("and", e.cmp("LT", y, e("multiply", e("sqrt", e.smallest_normal(sx)),
                                     e.const(4, sx))), e.cmp("LT", x, one))
    xp1_xm1 = e("multiply", xp1, xm1)
    ap1 = e("add", a, one)
    below = e("negate", e("divide", xp1_xm1, ap1))
    x_ge_one = e.cmp("GE", x, one)
    half_yy = e("multiply", half, yy)
    d = e("divide", half_yy, rpxp1)
    above = e("add", d, e("multiply", half, spxm1))
    middle = e.select(e.cmp("LE", a, e.const(1.5, sx)), e("add", d, e("divide", half_yy, smxm1)),
                      e("subtract", a, one))
    am1 = e.select(tiny, below, e.select(x_ge_one, above, middle))
    sq = e("sqrt", e("multiply", am1, ap1))
    imag = e.select(huge, at_huge, e.select(tiny, e("divide", y, sq),
                                            e("log_plus_one", e("add", am1, sq))))
    return e.complex(real, imag)


def _complex_operand(rw: Rewriter) -> tuple[Ex, Value] | None:
    (z,) = rw.op.operands
    if not isinstance(getattr(z.type, "element", None), ComplexType):
        return None
    return Ex(rw), z


@pattern("chlo._asin_acos_kernel")
def _kernel(rw: Rewriter) -> list[Value] | None:
    if (got := _complex_operand(rw)) is None:
        return None
    return [asin_acos_kernel(*got)]


@pattern("chlo.asin")
def _asin(rw: Rewriter) -> list[Value] | None:
    if (got := _complex_operand(rw)) is None:
        return None
    e, z = got
    real = e("atan2", sx := e.part("real", z), e.part("real", w := e.chlo("_asin_acos_kernel", z)))
    negative = e.cmp("LT", e.part("imag", z), e.const(0, sx))
    w_imag_neg = e("negate", w_imag := e.part("imag", w))
    return [e.complex(real, e.select(negative, w_imag_neg, w_imag))]


@pattern("chlo.acos")
def _acos(rw: Rewriter) -> list[Value] | None:
    if (got := _complex_operand(rw)) is None:
        return None
    e, z = got
    real = e("atan2", e.part("real", w := e.chlo("_asin_acos_kernel", z)), e.part("real", z))
    negative = e.cmp("LT", sy := e.part("imag", z), e.const(0, sy))
    w_imag = e.part("imag", w)
    return [e.complex(real, e.select(negative, w_imag, e("negate", w_imag)))]


@pattern("chlo.acosh")
def _acosh(rw: Rewriter) -> list[Value] | None:
    if (got := _complex_operand(rw)) is None:
        return None
    e, z = got
    real = e.part("imag", w := e.chlo("_asin_acos_kernel", z))
    negative = e.cmp("LT", sy := e.part("imag", z), e.const(0, sy))
    angle = e("atan2", e.part("real", w), e.part("real", z))
    return [e.complex(real, e.select(negative, e("negate", angle), angle))]


@pattern("chlo.asinh")
def _asinh(rw: Rewriter) -> list[Value] | None:
    if (got := _complex_operand(rw)) is None:
        return None
    e, z = got
    negative = e.cmp("LT", sx := e.part("real", z), e.const(0, sx))
    iz = e.complex(e("negate", sy := e.part("imag", z)), sx)
    w_imag = e.part("imag", w := e.chlo("_asin_acos_kernel", iz))
    real = e.select(negative, e("negate", w_imag), w_imag)
    return [e.complex(real, e("atan2", sy, e.part("real", w)))]


def atanh_complex(e: Ex, z: Value) -> Value:
    """Complex atanh (functional_algorithms): Re = sign(x) log1p(4 |x| / ((1 - |x|)^2 + y^2))
    / 4 inside the safe region, with 1 / |x|-style asymptotes outside; Im = atan2(2y,
    (1 - |x|)(1 + |x|) - y^2) / 2, or sign(y) pi / 2 outside."""
    sign_x = e.select(e.cmp("GE", x := e.part("real", z), zero := e.const(0, x)),
                      one := e.const(1, x), neg_one := e.const(-1, x))
    four = e.const(4, x)
    ax = e("abs", x)
    largest = e.max_finite(x)
    inv_negeps = e.select(e.cmp("GT", largest, e.const(1e308, x)),
                          e.const(9007199254740994.0, x),
                          e.select(e.cmp("GT", largest, e.const(1e38, x)),
                                   e.const(16777218.0, x), e.const(2050.0, x)))
    safe_max = e("multiply", inv_negeps, inv_negeps)
    in_safe = e("and", e.cmp("LT", ax, safe_max),
                e.cmp("LT", ay := e("abs", y := e.part("imag", z)), safe_max))
    inside = e("divide", ax, e("add", e("multiply", naxm1 := e("subtract", one, ax), naxm1),
                                y2 := e("multiply", y, y)))
    small_y = e.cmp("LT", e("multiply", ay, inv_negeps), ax)
    reciprocal = e("divide", one, ax)
    infinite = e("or", e("or", e.cmp("EQ", x, pos_inf := e.const(math.inf, x)),
                         e.cmp("EQ", x, neg_inf := e.const(-math.inf, x))),
                 e("or", e.cmp("EQ", y, pos_inf), e.cmp("EQ", y, neg_inf)))
    general = e("divide", e("divide", one, e("add", e("divide", ax, y), e("divide", y, ax))), y)
    outside = e.select(small_y, reciprocal, e.select(infinite, zero, general))
    log_term = e("log_plus_one", e("multiply", four, e.select(in_safe, inside, outside)))
    real = e("multiply", e("multiply", sign_x, log_term), e.const(0.25, x))
    angle = e("atan2", e("add", y, y), e("subtract", e("multiply", naxm1, e("add", one, ax)), y2))
    sign_y = e.select(e.cmp("GE", y, e.const(0, y)), one, neg_one)
    imag = e("multiply", e.select(in_safe, angle, e("multiply", sign_y, e.const(math.pi, x))),
             e.const(0.5, x))
    return e.complex(real, imag)


@pattern("chlo.atanh")
def _atanh(rw: Rewriter) -> list[Value] | None:
    if (got := _complex_operand(rw)) is None:
        return None
    return [atanh_complex(*got)]


@pattern("chlo.atan")
def _atan(rw: Rewriter) -> list[Value] | None:
    """atan z = -i atanh(i z)."""
    if (got := _complex_operand(rw)) is None:
        return None
    e, z = got
    iz = e.complex(e("negate", e.part("imag", z)), e.part("real", z))
    w = e.chlo("atanh", iz)
    return [e.complex(e.part("imag", w), e("negate", e.part("real", w)))]
