"""A libm function over an f32 array of a few hundred elements (an RNN's gates, a decoding
step's attention row), rounded exactly as the C library's double result rounds, in seven
whole-array numpy calls: there each call costs more than its elements.

numpy's double result g is trusted to 2^-40 relative (see libm._TRUSTED). g is rounded to
f32 twice, as g(1 - 2^-39) and g(1 + 2^-39): every value within 2^-40 of g lies between
the two products, whatever their own double rounding, so where both round to the same f32
value the C library's result does too (rounding is monotonic). Their f32 difference is +0
exactly there (signed zeros included: both products carry g's sign) and nowhere else among
finite roundings; a NaN guess gives NaN, and roundings to an infinity (an infinite guess or
f32 overflow) inf - inf = NaN: those are redone (the C library's own NaN and overflow).
Equal zeros are as sure as any other pair: a masked softmax's exp(-1e9), or a result
between 2^-200 and half f32's least subnormal.
Guesses below 2^-1022 (double subnormals, whose relative error is unbounded) round to
+-0 on both sides: the C result, as tiny, rounds to zero too (libm._DEEP's premise).
"""

from __future__ import annotations

import numpy as np

from .libm_tiny import TINY
from .quiet import quieted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    Kernel = Callable[..., Any]

SMALL = 2048  # f32 arrays up to this many elements take this path (fewer numpy calls)
_ZEROS: dict[int, bytes] = {}  # byte count -> that many zero bytes (the sureness test)


def margin_kernel(plain: np.ufunc, dtype: np.dtype, general: Kernel,
                  tiny: Callable[[np.ndarray], np.ndarray | None] | None,
                  redo: Callable[[np.ndarray, np.ndarray, np.ndarray], None]) -> Kernel:
    """The kernel for arrays of `dtype` of 1..SMALL elements (`general` for all other
    input; `tiny`, when given, first for up to TINY elements, where it answers), numpy's
    `plain` as the guess; `redo(x, out, doubtful)` recomputes out's doubtful elements.
    Its `unquieted` form leaves numpy's error state to the caller (dialects/quiet.py)."""
    f64 = np.dtype(np.float64)
    array = np.ndarray
    multiply, subtract = np.multiply, np.subtract
    below, above = np.array(1 - 2.0 ** -39), np.array(1 + 2.0 ** -39)
    width = dtype.itemsize
    few = TINY if tiny is not None else 0
    tiny = getattr(tiny, "unquieted", tiny)
    zeros = _ZEROS

    def unquieted(x: Any) -> Any:
        """The rounded result; numpy's floating-point errors already ignored."""
        size = x.size if x.__class__ is array and x.dtype == dtype and x.ndim else 0
        if not 0 < size <= SMALL:
            return general(x)
        if size <= few:
            done = tiny(x)  # type: ignore[misc]
            if done is not None:
                return done
        guess = x.astype(f64)  # (never a broadcast view: specialize._VIEW_FROM > SMALL)
        plain(guess, guess)
        out = multiply(guess, below).astype(dtype)
        multiply(guess, above, guess)  # (the guess is spent)
        high = guess.astype(dtype)
        subtract(out, high, high)
        count = width * size
        if high.tobytes() != (zeros.get(count) or zeros.setdefault(count, bytes(count))):
            redo(x, out, high != 0.0)  # (NaN too)
        return out

    return quieted(unquieted)  # overflow, invalid: those elements are redone
