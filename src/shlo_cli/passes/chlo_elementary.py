"""Real asin, acos, atan, atanh, acosh, asinh, sinh, cosh and square for
`--chlo-legalize-to-stablehlo`, op for op as upstream emits them.

Upstream's declarative patterns build each result tree operands first, left to right, with
a fresh splat constant per `constant like` use unless the tree names and reuses it. `Ex`
mirrors that: Python evaluates nested call arguments in the same post-order, so writing the
formula as one nested expression (naming a shared subtree with `:=`) emits the ops in
upstream's order. No f32 upcast here except where upstream does it (sinh, cosh).
"""

from __future__ import annotations

import math

from ..ir.core import Value
from ..ir.types import BOOL, ComplexType, FloatType, TensorType
from .chlo_builder import Ex
from .chlo_legalize import Rewriter, _with_upcast, pattern


def _real_operand(rw: Rewriter) -> tuple[Ex, Value] | None:
    (x,) = rw.op.operands
    t = x.type
    if not isinstance(t, TensorType) or isinstance(t.element, ComplexType):
        return None
    return Ex(rw), x


@pattern("chlo.asin")
def _asin(rw: Rewriter) -> list[Value] | None:
    """asin x = 2 atan2(x, 1 + sqrt((1 - x)(1 + x))), the doubling as an add."""
    if (got := _real_operand(rw)) is None:
        return None
    e, x = got
    ta = e("atan2", x, e("add", one := e.const(1, x), e("sqrt", e(
        "multiply", e("subtract", one, x), e("add", one, x)))))
    return [e("add", ta, ta)]


@pattern("chlo.acos")
def _acos(rw: Rewriter) -> list[Value] | None:
    """acos x = atan2(sqrt((1 - x)(1 + x)), x)."""
    if (got := _real_operand(rw)) is None:
        return None
    e, x = got
    return [e("atan2", e("sqrt", e("multiply", e("subtract", one := e.const(1, x), x),
                                   e("add", one, x))), x)]


@pattern("chlo.atan")
def _atan(rw: Rewriter) -> list[Value] | None:
    """atan x = atan2(x, 1)."""
    if (got := _real_operand(rw)) is None:
        return None
    e, x = got
    return [e("atan2", x, e.const(1, x))]


@pattern("chlo.atanh")
def _atanh(rw: Rewriter) -> list[Value] | None:
    """atanh x = (log1p(x) - log1p(-x)) / 2 for |x| <= 1, NaN beyond."""
    if (got := _real_operand(rw)) is None:
        return None
    e, x = got
    return [e.select(e.cmp("GT", e("abs", x), e.const(1, x)), e.const(math.nan, x),
                     e("multiply", e("subtract", e("log_plus_one", x),
                                     e("log_plus_one", e("negate", x))), e.const(0.5, x)))]


@pattern("chlo.acosh")
def _acosh(rw: Rewriter) -> list[Value] | None:
    """acosh x = log1p(sqrt(x - 1) (sqrt(x + 1) + sqrt(x - 1))), log 2 + log x from
    max / 2 on."""
    if (got := _real_operand(rw)) is None:
        return None
    e, x = got
    big = e.cmp("GE", x, e("divide", e.max_finite(x), two := e.const(2, x)))
    large = e("add", e("log", two), e("log", x))
    below = e("sqrt", e("subtract", x, one := e.const(1, x)))
    regular = e("log_plus_one", e("multiply", below, e("add", e("sqrt", e("add", x, one)), below)))
    return [e.select(big, large, regular)]


@pattern("chlo.asinh")
def _asinh(rw: Rewriter) -> list[Value] | None:
    """asinh x = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), and
    sign(x) (log 2 + log|x|) from sqrt(max) on."""
    if (got := _real_operand(rw)) is None:
        return None
    e, x = got
    sign = e("sign", x)
    big = e.cmp("GE", ax := e("abs", x), e("sqrt", e.max_finite(x)))
    large = e("add", e("log", e.const(2, x)), e("log", ax))
    regular = e("log_plus_one", e("add", ax, e("divide", ax2 := e("multiply", ax, ax), e(
        "add", one := e.const(1, x), e("sqrt", e("add", one, ax2))))))
    return [e("multiply", sign, e.select(big, large, regular))]


def _sinh_large(e: Ex, x: Value) -> Value:
    """e^(x + log 1/2) - e^(log 1/2 - x): halves of e^x and e^-x that overflow late."""
    log_half = e("log", e.const(0.5, x))
    return e("subtract", e("exponential", e("add", x, log_half)),
             e("exponential", e("subtract", log_half, x)))


def _sinh_real(rw: Rewriter, x: Value, t: TensorType) -> Value:
    """|x| < 1: (expm1 x + expm1 x / (expm1 x + 1)) / 2 (no cancellation), else the large
    form."""
    e = Ex(rw)
    large = _sinh_large(e, x)
    expm1 = e("exponential_minus_one", x)
    one, half = e.const(1, x), e.const(0.5, x)
    small = e("multiply", half, e("add", expm1, e("divide", expm1, e("add", expm1, one))))
    return e.select(e.cmp("LT", e("abs", x), one), small, large)


def _cosh_real(rw: Rewriter, x: Value, t: TensorType) -> Value:
    """e^(x + log 1/2) + e^(log 1/2 - x)."""
    e = Ex(rw)
    log_half = e("log", e.const(0.5, x))
    return e("add", e("exponential", e("add", x, log_half)),
             e("exponential", e("subtract", log_half, x)))


@pattern("chlo.sinh")
def _sinh(rw: Rewriter) -> list[Value] | None:
    (x,) = rw.op.operands
    element = getattr(x.type, "element", None)
    if isinstance(element, ComplexType):
        return [_sinh_large(Ex(rw), x)]
    if not isinstance(element, FloatType):
        return None
    return _with_upcast(rw, _sinh_real)


@pattern("chlo.cosh")
def _cosh(rw: Rewriter) -> list[Value] | None:
    (x,) = rw.op.operands
    element = getattr(x.type, "element", None)
    if isinstance(element, ComplexType):
        return [_cosh_real(rw, x, x.type)]  # type: ignore[arg-type]
    if not isinstance(element, FloatType):
        return None
    return _with_upcast(rw, _cosh_real)


@pattern("chlo.square")
def _square(rw: Rewriter) -> list[Value] | None:
    """x * x; complex: re = (a - b)(a + b), exactly 0 when |a| = |b| is finite,
    im = 2 (a b)."""
    (z,) = rw.op.operands
    e = Ex(rw)
    if not isinstance(getattr(z.type, "element", None), ComplexType):
        return [e("multiply", z, z)]
    same = e("and", e("is_finite", x := e.part("real", z), result=TensorType(
        z.type.shape, BOOL)), e.cmp("EQ", e("abs", x), e("abs", y := e.part("imag", z))))  # type: ignore
    re = e.select(same, e.const(0, x), e("multiply", e("subtract", x, y), e("add", x, y)))
    return [e.complex(re, e("multiply", e.const(2, x), e("multiply", x, y)))]
