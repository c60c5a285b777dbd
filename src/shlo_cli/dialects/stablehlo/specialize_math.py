"""f16/f32 array kernels of logistic, sqrt and rsqrt (specialize.py binds them), each what
elementwise_math computes, bit for bit, in as few numpy calls as a recurrent cell's gate
or a layer norm's scale can afford (each call costs more than their elements).

- logistic: 1 / (1 + exp(-x)), the negation on the sign bit (np.negative flips it, NaN
  payloads kept, as elementwise.negate does), exp in double rounded once (libm's kernel),
  then the add and the divide in the element type, in place on the exp's fresh result.
- sqrt: upcast_to_double's double sqrt rounded once equals the element type's own
  correctly rounded sqrt: rounding twice is innocuous for sqrt when the wider format has
  at least 2p + 2 bits for p in the narrower one (Figueroa, "When is double rounding
  innocuous?", 1995): 53 >= 2 * 24 + 2, and numpy's f16 sqrt rounds an f32 sqrt, 24 >=
  2 * 11 + 2. Negative and NaN operands give the same NaN: the hardware's default NaN, or
  the operand's payload quieted, in either width.
- rsqrt: 1 / sqrt(x) in double, rounded once; one positive f32 element (a layer norm's
  scale) through Python's floats (the same IEEE double operations) and the array's fill,
  which rounds double to f32 as astype does (a C conversion).

Each kernel's `unquieted` form leaves numpy's error state to a generated loop
(dialects/quiet.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import libm
from ..quiet import switches

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    Kernel = Callable[..., Any]


def logistic(dtype: np.dtype, general: Kernel) -> Kernel:
    """elementwise_math.logistic for f16/f32 arrays; `general` for all other input."""
    exp = libm.native_kernel(libm.exp, dtype)
    exp_unquieted = getattr(exp, "unquieted", exp)
    one = np.array(1, dtype)
    array = np.ndarray
    add, divide, negative = np.add, np.divide, np.negative

    def finished(out: np.ndarray) -> np.ndarray:
        """1 / (1 + e) of exp's fresh result e, in place."""
        add(one, out, out)  # 1 + exp: at most inf; 1 / that: no floating-point error
        divide(one, out, out)
        return out

    def make(exp: Kernel) -> Kernel:
        def kernel(x: Any) -> Any:
            if x.__class__ is not array or x.dtype != dtype or not x.ndim:
                return general(x)
            return finished(exp(negative(x)))
        kernel.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
        return kernel

    kernel = make(exp)
    kernel.unquieted = make(exp_unquieted)  # type: ignore[attr-defined]
    exp_speculative = getattr(exp_unquieted, "speculative", None)
    if exp_speculative is not None:  # (a generated loop's: interpreter/speculate.py)
        def speculative(kept: list[Any], x: Any) -> Any:
            """`kernel.unquieted` with exp's speculative form (its guess kept in `kept`)."""
            if x.__class__ is not array or x.dtype != dtype or not x.ndim:
                return general(x)
            return finished(exp_speculative(kept, negative(x)))
        kernel.unquieted.speculative = speculative  # type: ignore[attr-defined]
    # each element's result is the same in any array: codegen may run independent calls
    # on small arrays as one (interpreter/batching.py); the kernels of all logistic ops of
    # one type compute the same (`general` takes only other input)
    kernel.batch = ("logistic", dtype.str)  # type: ignore[attr-defined]
    return kernel


def root(reciprocal: bool, dtype: np.dtype, general: Kernel) -> Kernel:
    """elementwise_math's sqrt (upcast_to_double) or rsqrt (1 / sqrt in double) for f16/f32
    arrays, rounded once; `general` for all other input."""
    f64, f32 = np.dtype(np.float64), np.dtype(np.float32)
    array = np.ndarray
    sqrt, divide, one = np.sqrt, np.divide, np.array(1.0)
    python_sqrt = math.sqrt
    alone = dtype == f32  # one element through Python floats (fill rounds as astype)

    def unquieted(x: Any) -> Any:
        if x.__class__ is not array or x.dtype != dtype or not x.ndim:
            return general(x)
        if not reciprocal:
            return sqrt(x)
        if alone and x.size == 1:
            v = x.item()
            if v > 0.0:  # (not NaN, a zero or negative: their signs come from numpy)
                out = x.copy()
                out.fill(1.0 / python_sqrt(v))
                return out
        wide = x.astype(f64)
        sqrt(wide, wide)
        divide(one, wide, wide)
        return wide.astype(dtype)

    quiet, loud = switches()

    def kernel(x: Any) -> Any:
        token = quiet()  # a negative operand's invalid operation
        try:
            return unquieted(x)
        finally:
            loud(token)
    kernel.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
    kernel.unquieted = unquieted  # type: ignore[attr-defined]
    return kernel
