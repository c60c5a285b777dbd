"""Kernels for 0-d values of the narrow float types numpy holds through ml_dtypes (bf16, the
f8 types; an engine binding hook beside specialize_scalar.py): a bf16 recurrent step's state.

The general evaluators run such a value through whole-array code (float_op's f32 copies and
rounding, round_float's round-to-odd passes): a bf16 scalar RNN step cost ~100 us, an f32
one 0.1 us. Here every result is the general evaluator's, computed on one Python float:

- add, subtract, multiply, divide: float_op computes in f32 and rounds that result to the
  type. The operands' values are exact doubles, and the double result rounded to f32 (a C
  cast through a 0-d float memoryview) is the f32 operation's result (a double holds more
  than twice f32's precision plus two bits: for + - * / the second rounding changes
  nothing), which numpy's cast then rounds to the type. NaN results and division by zero
  take the general evaluator (which NaN numpy's loop returns is its own choice).
- the libm functions (exp, log, tanh, ...): upcast_to_double rounds the C library's double
  result once to the type, as `round_float` does it: to f32 rounding to odd (toward zero,
  the last bit set when inexact), then to nearest in the type; here the same steps on the
  f32 cell's bits.
- compare (not TOTALORDER): the operators on the numpy scalars, which compare the exact
  values as the general evaluator's doubles do.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from .elementwise_numerics import is_float
from .specialize import _native_types
from .specialize_scalar import _COMPARE, _LIBM, _is_scalar

Kernel = Callable[..., Any]

_ARITH = {"stablehlo.add": operator.add, "stablehlo.subtract": operator.sub,
          "stablehlo.multiply": operator.mul, "stablehlo.divide": operator.truediv}
_SYMBOLS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/"}


def _is_narrow(dtype: np.dtype) -> bool:
    """A float type narrower than f32 that numpy holds through ml_dtypes (not f16)."""
    return is_float(dtype) and dtype.itemsize <= 2 and dtype.name != "float16"


class RoundingCells:
    """One f32 cell (a 0-d float memoryview and its bits) and one 0-d array of the type: a
    double rounded to f32 by the C cast, and that f32 value cast by numpy to the type."""

    __slots__ = ("f32", "bits", "out")

    def __init__(self, to: np.dtype) -> None:
        raw = bytearray(4)
        self.f32 = memoryview(raw).cast("f", shape=[])
        self.bits = memoryview(raw).cast("I", shape=[])
        self.out: np.ndarray = np.empty((), to)

    def nearest(self, v: float) -> Any:
        """v rounded to nearest f32 (an f32 operation's result), then to the type."""
        self.f32[()] = v
        self.out[()] = self.f32[()]  # (an f32 value: numpy's cast rounds it once)
        return self.out[()]

    def odd(self, v: float) -> Any:
        """v rounded once to the type: to f32 rounding to odd, then to nearest."""
        f32 = self.f32
        f32[()] = v
        back = f32[()]
        if back != v and v - v == 0.0:  # inexact, finite (an overflow's inf included)
            bits = self.bits[()]
            if abs(back) > abs(v):  # rounded away from zero: one step back
                bits -= 1
            self.bits[()] = bits | 1
        self.out[()] = f32[()]
        return self.out[()]


def _arithmetic(fn: Callable[[float, float], float], to: np.dtype, general: Kernel) -> Kernel:
    cells = RoundingCells(to)
    divide = fn is operator.truediv

    def kernel(a: Any, b: Any) -> Any:
        if a.ndim or b.ndim:
            return general(a, b)
        x, y = float(a), float(b)
        if divide and y == 0.0:
            return general(a, b)
        r = fn(x, y)
        if r != r:
            return general(a, b)
        return cells.nearest(r)
    kernel.arith_symbol = _SYMBOLS[fn]  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def _transcendental(scalar: Callable[[float], float], to: np.dtype, general: Kernel) -> Kernel:
    cells = RoundingCells(to)

    def kernel(x: Any) -> Any:
        if x.ndim:
            return general(x)
        r = scalar(float(x))
        if r != r:  # (the NaN's payload: the general evaluator's)
            return general(x)
        return cells.odd(r)
    kernel.rounded_once = scalar  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def bind_scalar_narrow(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A 0-d kernel for `op` on a narrow float type, or None (the next hook)."""
    name = op.name
    if not op.results or not all(_is_scalar(t) for t in (*op.operand_types,
                                                          *op.result_types)):
        return None
    dtypes = _native_types(op)
    if dtypes is None or not _is_narrow(dtypes[0]):
        return None
    operand = dtypes[0]
    if name == "stablehlo.compare":
        direction = kwargs.get("comparison_direction")
        if kwargs.get("compare_type") == "TOTALORDER" or direction not in _COMPARE:
            return None
        return _COMPARE[direction] if dtypes[1] == operand else None
    if any(d != operand for d in dtypes) or opdef.evaluate is None:
        return None
    general = bind_after(bind_scalar_narrow, op, opdef, kwargs)
    if name in _ARITH:
        return _arithmetic(_ARITH[name], operand, general)
    if name in _LIBM:
        return _transcendental(_LIBM[name].scalar, operand, general)  # type: ignore[attr-defined]
    return None


register_bind_hook(bind_scalar_narrow, 21, ops=("stablehlo.compare", *_ARITH, *_LIBM))
