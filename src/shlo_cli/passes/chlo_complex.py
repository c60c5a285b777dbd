"""hypot for the complex decompositions (complex_math_expander's sqrt/log1p, upstream's
modified Hull et al. algorithm in chlo_asin_kernel): real StableHLO ops of the part type."""

from __future__ import annotations

from ..ir.core import Value
from .chlo_legalize import Real


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
