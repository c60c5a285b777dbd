"""`--stablehlo-complex-math-expander`: rewrite complex `log_plus_one`, `log`, `sqrt` and
`exponential` into real-valued StableHLO ops that stay accurate at the edges (huge, tiny,
infinite parts, |z| ~ 1), following upstream's StablehloComplexMathExpanderPatterns (which
rewrites log_plus_one, sqrt and log; exponential is ours):

log1p(x + iy): see `_log_plus_one` (Dekker products and 2Sum against cancellation).
log(x + iy): see `_log` (Dekker products and Fast2Sum near |z| = 1).
sqrt(x + iy): see `_sqrt` (u = sqrt((|z| + |x|) / 2), rescaled where it under/overflows).
exp(x + iy) = e^x cos y + i e^x sin y, computed as (e^(x/2) cos y) e^(x/2) when e^x would
overflow, and exactly e^x + iy for y = 0 (so exp(inf) = inf, not inf + NaN i).
Real-valued ops are left alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..ir.core import Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import BOOL, ComplexType, FloatType, TensorType, numpy_dtype
from . import register_pass
from .chlo_complex import hypot
from .chlo_legalize import Real, Rewriter
from .rewrite import GreedyConfig, PatternRewriter, apply_patterns_greedily
from .rewrite import pattern as rewrite_pattern


def _parts(rw: Rewriter) -> tuple[Value, Value, TensorType] | None:
    (z,) = rw.op.operands
    t = z.type
    if not (isinstance(t, TensorType) and isinstance(t.element, ComplexType)
            and isinstance(t.element.element, FloatType)):
        return None
    part = TensorType(t.shape, t.element.element)
    return rw.create("stablehlo.real", [z], part), rw.create("stablehlo.imag", [z], part), part


def _max_finite(t: TensorType) -> float:
    return float(np.finfo(numpy_dtype(t.element)).max)


def _log_plus_one(rw: Rewriter) -> list[Value] | None:
    """log1p(x + iy) = 1/2 log((x + 1)^2 + y^2) + i atan2(y, x + 1), the real part by cases:
    large parts (max(|x|, |y|) > sqrt(max) / 100): log(mx) + 1/2 log1p((mn / mx)^2);
    near -1 (|x + 1| + |y| < 0.2): 1/2 log((x + 1)^2 + y^2); otherwise
    1/2 log1p(2x + x^2 + y^2) with the squares as Dekker products summed by 2Sum, which keeps
    x ~ -y^2 / 2 free of cancellation.

    Written as one nested expression: Python evaluates arguments left to right before the
    call, so ops are created operands-first in the order upstream's generated pattern
    builds them (which its CHECK lines record)."""
    z = rw.op.operands[0]
    t = z.type
    if not (isinstance(t, TensorType) and isinstance(t.element, ComplexType)
            and isinstance(t.element.element, FloatType)):
        return None
    e = Real(rw, TensorType(t.shape, t.element.element))
    x = rw.create("stablehlo.real", [z], e.t)
    ax = e("abs", x)
    y = rw.create("stablehlo.imag", [z], e.t)
    ay = e("abs", y)
    mx = e("maximum", ax, ay)
    too_big = e.compare("GT", mx, e("multiply", e("sqrt", largest := e.max_finite()),
                                    e.const(0.01)))
    large = e("add", e("log", mx), e("multiply", half := e.const(0.5), e("log_plus_one", e.select(
        e.compare("EQ", mn := e("minimum", ax, ay), mx), one := e.const(1.0),
        e("multiply", r := e("divide", mn, mx), r)))))
    near = e.compare("LT", e("add", e("abs", xp1 := e("add", x, one)), ay), e.const(0.2))
    near_minus_one = e("multiply", half, e("log", e("add", e("multiply", xp1, xp1),
                                                    yyh := e("multiply", y, y))))
    h2 = e("add", x2h := e("add", x, x), yyh)
    h1 = e("add", h2, xxh := e("multiply", x, x))
    built: list[Value] = []

    def splitter() -> Value:
        if not built:
            built.append(e.select(
                e.compare("GT", largest, e.const(1e308)), e.const(134217729.0),
                e.select(e.compare("GT", largest, e.const(1e38)), e.const(4097.0),
                         e.const(65.0))))
        return built[0]

    h0 = e("add", h1, yyl := _dekker_low(e, y, yyh, splitter))
    xxl = _dekker_low(e, x, xxh, splitter)
    high = e("add", h0, xxl)
    low = e("add", e("add", e("add", _two_sum_low(e, x2h, yyh, h2), _two_sum_low(e, h2, xxh, h1)),
                     _two_sum_low(e, h1, yyl, h0)), _two_sum_low(e, h0, xxl, high))
    regular = e("multiply", half, e("log_plus_one", e("add", high, low)))
    real = e.select(too_big, large, e.select(near, near_minus_one, regular))
    imag = e("atan2", y, xp1)
    return [rw.create("stablehlo.complex", [real, imag], rw.op.result_types[0])]


def _two_sum_low(e: Real, a: Value, b: Value, total: Value) -> Value:
    """The rounding error of total = fl(a + b) (Knuth's 2Sum)."""
    return e("add", e("subtract", a, e("subtract", total, b_virtual := e("subtract", total, a))),
             e("subtract", b, b_virtual))


def _dekker_low(e: Real, v: Value, high: Value, splitter: Callable[[], Value]) -> Value:
    """The rounding error of high = fl(v * v): v split into halves vh + vl with Veltkamp's
    splitter (2^ceil(p/2) + 1, built on first use) so their products are exact (Dekker)."""
    negated = e("negate", high)
    vh = e("add", scaled := e("multiply", splitter(), v), e("subtract", v, scaled))
    partial = e("add", negated, e("multiply", vh, vh))
    cross = e("multiply", vh, vl := e("subtract", v, vh))
    return e("add", e("add", e("add", partial, cross), cross), e("multiply", vl, vl))


def _exponential(rw: Rewriter) -> list[Value] | None:
    parts = _parts(rw)
    if parts is None:
        return None
    x, y, t = parts
    pred = TensorType(t.shape, BOOL)

    def op(name: str, *args: Value) -> Value:
        return rw.create(f"stablehlo.{name}", list(args), t)

    def select(cond: Value, a: Value, b: Value) -> Value:
        return rw.create("stablehlo.select", [cond, a, b], t)

    e = op("exponential", x)
    e_half = op("exponential", op("multiply", x, rw.constant(0.5, t)))
    overflows = rw.compare("GT", x, rw.constant(math.log(_max_finite(t)) * 0.98, t), pred)
    cos, sin = op("cosine", y), op("sine", y)
    real = select(overflows, op("multiply", op("multiply", e_half, cos), e_half),
                  op("multiply", e, cos))
    imag = select(overflows, op("multiply", op("multiply", e_half, sin), e_half),
                  op("multiply", e, sin))
    y_zero = rw.compare("EQ", y, rw.constant(0.0, t), pred)
    real, imag = select(y_zero, e, real), select(y_zero, y, imag)
    return [rw.create("stablehlo.complex", [real, imag], rw.op.result_types[0])]


def _veltkamp_constant(e: Real) -> float:
    """2^ceil(p/2) + 1 for a p-bit significand: splits a float into two halves whose products
    are exact (Dekker)."""
    largest = _max_finite(e.t)
    if largest > 1e308:
        return 134217729.0
    return 4097.0 if largest > 1e38 else 65.0


def _square_dekker(e: Real, v: Value) -> tuple[Value, Value]:
    """v * v as high + low, high = fl(v * v), low its rounding error (Dekker's product)."""
    high = e("multiply", v, v)
    scaled = e("multiply", e.const(_veltkamp_constant(e)), v)
    vh = e("add", scaled, e("subtract", v, scaled))
    vl = e("subtract", v, vh)
    cross = e("multiply", vh, vl)
    low = e("add", e("add", e("add", e("add", e("negate", high), e("multiply", vh, vh)), cross),
                         cross), e("multiply", vl, vl))
    return high, low


def _sqrt(rw: Rewriter) -> list[Value] | None:
    """sqrt(x + iy) = u + i y / (2u) for x >= 0 and |y| / (2u) + i sign(y) u for x < 0, with
    u = sqrt((hypot(x, y) + |x|) / 2); where u underflows to 0 or overflows, u and |y| / u
    are rebuilt from sqrt(|x|), sqrt(|y|) and hypot(1, r) of the ratio r of the smaller
    part to the larger; |x| = |y| uses the closed form with sqrt((1 + sqrt 2) / 2)."""
    parts = _parts(rw)
    if parts is None:
        return None
    x, y, t = parts
    e = Real(rw, t)
    zero, one, two = e.const(0.0), e.const(1.0), e.const(2.0)
    sq_2 = e.const(1.4142135623730951)
    ax, ay = e("abs", x), e("abs", y)
    eq_ax_ay = e.compare("EQ", ax, ay)
    lt_ax_ay = e.compare("LT", ax, ay)
    gt_ax_ay = e.compare("GT", ax, ay)
    sq_ax, sq_ay = e("sqrt", ax), e("sqrt", ay)
    u_eq = e("divide", e("multiply", sq_ax, e.const(1.5537739740300374)), sq_2)
    abs_z = hypot(e, ax, ay, sqrt_two_constant=True)
    u_general = e("sqrt", e("add", e("divide", abs_z, two), e("divide", ax, two)))
    u_degenerate = rw.create("stablehlo.or", [e.compare("EQ", u_general, zero),
                                              e.compare("EQ", u_general, e.const(math.inf))],
                             e.pred)
    ratio = e.select(eq_ax_ay, one, e.select(lt_ax_ay, e("divide", ax, ay), e("divide", ay, ax)))
    h = hypot(e, one, e("abs", ratio), sqrt_two_constant=True)
    sq_1h = e("sqrt", e("add", one, h))
    sq_rh = e("sqrt", e("add", ratio, h))
    u = e.select(eq_ax_ay, u_eq, e.select(
        u_degenerate, e.select(gt_ax_ay, e("multiply", sq_ax, e("divide", sq_1h, sq_2)),
                               e("multiply", sq_ay, e("divide", sq_rh, sq_2))),
        u_general))
    sq_ratio = e.select(eq_ax_ay, one, e.select(lt_ax_ay, e("divide", sq_ax, sq_ay),
                                                e("divide", sq_ay, sq_ax)))
    ay_div_u = e.select(eq_ax_ay, e("divide", sq_ay, e.const(2.19736822693562)), e.select(
        u_degenerate, e.select(gt_ax_ay, e("divide", e("multiply", sq_ay, sq_ratio),
                                           e("multiply", sq_1h, sq_2)),
                               e("divide", sq_ay, e("multiply", sq_rh, sq_2))),
        e("divide", ay, e("multiply", u_general, two))))
    y_negative = e.compare("LT", y, zero)
    real = e.select(e.compare("GE", x, zero), u, ay_div_u)
    imag = e.select(e.compare("LT", x, zero),
                    e.select(y_negative, e("negate", u), u),
                    e.select(y_negative, e("negate", ay_div_u), ay_div_u))
    return [rw.create("stablehlo.complex", [real, imag], rw.op.result_types[0])]


def _log(rw: Rewriter) -> list[Value] | None:
    """log(x + iy) = log|z| + i atan2(y, x). Near |z| = 1 the real part is
    1/2 log1p(x^2 + y^2 - 1) with the squares as Dekker products summed by Fast2Sum (no
    cancellation); elsewhere log(mx) + 1/2 log1p((mn / mx)^2), mn / mx = 1 when equal (so
    zeros and infinities work)."""
    parts = _parts(rw)
    if parts is None:
        return None
    x, y, t = parts
    e = Real(rw, t)
    one, half, minus_one = e.const(1.0), e.const(0.5), e.const(-1.0)
    yy, yy_low = _square_dekker(e, y)
    xx, xx_low = _square_dekker(e, x)
    y_larger = e.compare("GT", yy, xx)
    mxh, mnh = e.select(y_larger, yy, xx), e.select(y_larger, xx, yy)
    # Fast2Sum of -1, mxh, mnh, yy_low, xx_low: running sums and their rounding errors.
    terms = [minus_one, mxh, mnh, yy_low, xx_low]
    total, errors = terms[0], []
    for term in terms[1:]:
        new_total = e("add", total, term)
        errors.append(e("subtract", term, e("subtract", new_total, total)))
        total = new_total
    correction = errors[0]
    for err in errors[1:]:
        correction = e("add", correction, err)
    s = e("add", total, correction)
    near_one = e("multiply", half, e("log_plus_one", s))
    abs_x, abs_y = e("abs", x), e("abs", y)
    mx, mn = e("maximum", abs_x, abs_y), e("minimum", abs_x, abs_y)
    mn_over_mx = e.select(e.compare("EQ", mn, mx), one, e("divide", mn, mx))
    general = e("add", e("log", mx), e("multiply", half, e("log_plus_one", e(
        "multiply", mn_over_mx, mn_over_mx))))
    real = e.select(e.compare("LT", e("abs", s), half), near_one, general)
    imag = e("atan2", y, x)
    return [rw.create("stablehlo.complex", [real, imag], rw.op.result_types[0])]


PATTERNS: dict[str, Callable[[Rewriter], list[Value] | None]] = {
    "stablehlo.log_plus_one": _log_plus_one,
    "stablehlo.exponential": _exponential,
    "stablehlo.sqrt": _sqrt,
    "stablehlo.log": _log,
}


def _default_accuracy(pattern: Callable[[Rewriter], list[Value] | None]
                      ) -> Callable[[Rewriter], list[Value] | None]:
    """Upstream's patterns match only ops whose result_accuracy is the default (absent or
    mode DEFAULT with zero tolerances); a requested accuracy keeps the op as is."""

    def rewrite(rw: Rewriter) -> list[Value] | None:
        accuracy = rw.op.attr("result_accuracy")
        if accuracy is not None:
            fields = dict(getattr(accuracy, "fields", None) or ())
            mode = fields.get("mode")
            if getattr(mode, "body", "DEFAULT") != "DEFAULT" or any(
                    fields.get(k, 0) for k in ("atol", "rtol", "ulps")):
                return None
        return pattern(rw)

    return rewrite


@rewrite_pattern(*PATTERNS)
def _expand(op: Operation, rewriter: PatternRewriter) -> bool:
    """One expansion as a pattern of the greedy driver, which then uniques the constants and
    hoists them to the top of the function as upstream's driver does."""
    rw = Rewriter(op)
    values = _default_accuracy(PATTERNS[op.name])(rw)
    if values is None:
        return False
    rewriter.set_insertion_point(op)
    for new in rw.ops:
        rewriter.insert(new)
    rewriter.replace_op(op, values)
    return True


@register_pass("stablehlo-complex-math-expander",
               "Expand complex log_plus_one, exponential, sqrt and log into real-valued "
               "StableHLO ops.")
def complex_math_expander(module: Module) -> None:
    config = GreedyConfig(top_down=True)
    for func in module.functions():
        if not apply_patterns_greedily(func, [_expand], config):
            raise Diagnostic("Failed to converge StableHLOComplexMathExpanderPass in "
                             f"{config.max_iterations} iterations",
                             line=func.location.line or None, col=func.location.col or None)
