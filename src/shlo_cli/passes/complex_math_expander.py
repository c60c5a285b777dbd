"""`--stablehlo-complex-math-expander`: rewrite complex `log_plus_one` and `exponential` into
real-valued StableHLO ops that stay accurate at the edges (huge, tiny, infinite parts), in the
spirit of upstream's StablehloComplexMathExpanderPatterns.

log1p(x + iy) = 1/2 log1p(x (x + 2) + y^2) + i atan2(y, x + 1), switching to
log(m) + 1/2 log1p((n/m)^2) with m, n = max, min(|x + 1|, |y|) when m is too large to square.
exp(x + iy) = e^x cos y + i e^x sin y, computed as (e^(x/2) cos y) e^(x/2) when e^x would
overflow, and exactly e^x + iy for y = 0 (so exp(inf) = inf, not inf + NaN i).
Other complex math ops are kept: the interpreter evaluates them in complex<double>.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..ir.clone import replace_uses
from ..ir.core import Module, Value
from ..ir.types import BOOL, ComplexType, FloatType, TensorType, numpy_dtype
from . import register_pass
from .chlo_legalize import Rewriter, legalize_block


def _parts(rw: Rewriter) -> tuple[Value, Value, TensorType] | None:
    (z,) = rw.op.operands
    t = z.type
    if not (isinstance(t, TensorType) and t.is_static and isinstance(t.element, ComplexType)
            and isinstance(t.element.element, FloatType)):
        return None
    part = TensorType(t.shape, t.element.element)
    return rw.create("stablehlo.real", [z], part), rw.create("stablehlo.imag", [z], part), part


def _max_finite(t: TensorType) -> float:
    return float(np.finfo(numpy_dtype(t.element)).max)


def _log_plus_one(rw: Rewriter) -> list[Value] | None:
    parts = _parts(rw)
    if parts is None:
        return None
    x, y, t = parts
    pred = TensorType(t.shape, BOOL)

    def op(name: str, *args: Value) -> Value:
        return rw.create(f"stablehlo.{name}", list(args), t)

    one, two, half = rw.constant(1.0, t), rw.constant(2.0, t), rw.constant(0.5, t)
    x_plus_one = op("add", x, one)
    ax, ay = op("abs", x_plus_one), op("abs", y)
    largest, smallest = op("maximum", ax, ay), op("minimum", ax, ay)
    ratio = rw.create("stablehlo.select",
                      [rw.compare("EQ", largest, smallest, pred), one,
                       op("divide", smallest, largest)], t)
    too_big = rw.compare("GT", largest,
                         rw.constant(math.sqrt(_max_finite(t)) * 0.01, t), pred)
    real_big = op("add", op("log", largest),
                  op("multiply", half, op("log_plus_one", op("multiply", ratio, ratio))))
    sum_sq = op("add", op("multiply", x, op("add", x, two)), op("multiply", y, y))
    real_small = op("multiply", half, op("log_plus_one", sum_sq))
    real = rw.create("stablehlo.select", [too_big, real_big, real_small], t)
    imag = op("atan2", y, x_plus_one)
    return [rw.create("stablehlo.complex", [real, imag], rw.op.result_types[0])]


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


PATTERNS: dict[str, Callable[[Rewriter], list[Value] | None]] = {
    "stablehlo.log_plus_one": _log_plus_one,
    "stablehlo.exponential": _exponential,
}


@register_pass("stablehlo-complex-math-expander",
               "Expand complex log_plus_one and exponential into real-valued StableHLO ops.")
def complex_math_expander(module: Module) -> None:
    replacements: dict[Value, Value] = {}
    patterns = {name: [pattern] for name, pattern in PATTERNS.items()}
    for region in module.op.regions:
        for block in region.blocks:
            legalize_block(block, replacements, patterns)
    replace_uses(module.op, replacements)
