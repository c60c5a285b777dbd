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

In a loop the test can wait (interpreter/speculate.py): the kernel's `speculative` form
rounds the guess once (where the test finds it sure, the value the kernel returns) and
keeps the guess; `all_sure` then tests the kept guesses of many steps in one pass, and
the loop is run again exactly from its last tested state when one is not sure.
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
_BELOW, _ABOVE = 1 - 2.0 ** -39, 1 + 2.0 ** -39  # the guess's bounds (relative)


def all_sure(kept: list[tuple[Kernel, np.ndarray, np.ndarray]]) -> bool:
    """Whether each result a `speculative` kernel returned is the kernel's own: `kept`
    holds (kernel, argument, double guess) of each call. The kernel's test, on all
    guesses at once; a guess it doubts is sure where the kernel's result (the C library's,
    computed again) is the guess rounded once all the same (most are)."""
    if len(kept) == 1:
        guess = kept[0][2]
    else:  # (one bytes join: np.concatenate of many small arrays costs several times more)
        guess = np.frombuffer(b"".join([entry[2].tobytes() for entry in kept]), np.float64)
    low = np.multiply(guess, _BELOW).astype(np.float32)
    high = np.multiply(guess, _ABOVE).astype(np.float32)
    np.subtract(low, high, high)  # +0 exactly where sure (NaN where a rounding is not finite)
    if high.tobytes() == bytes(high.nbytes):
        return True
    doubtful = np.flatnonzero(high.view(np.uint32))
    ends = np.cumsum([entry[2].size for entry in kept])
    for k in np.unique(np.searchsorted(ends, doubtful, "right")).tolist():
        kernel, x, guess = kept[k]
        if kernel(x).tobytes() != guess.astype(np.float32).tobytes():
            return False
    return True


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
    below, above = np.array(_BELOW), np.array(_ABOVE)
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

    def speculative(kept: list[tuple[Kernel, np.ndarray, np.ndarray]], x: Any) -> Any:
        """`unquieted(x)` where `all_sure` finds it so (the double guess rounded once,
        (unquieted, x, guess) appended to `kept`); else `unquieted(x)` itself, appending
        nothing. x must not change until then (kept holds it: no kernel writes into an
        array another holds, in_place.py)."""
        if x.__class__ is array and x.dtype == dtype and x.ndim and 0 < x.size <= SMALL:
            guess = x.astype(f64)
            plain(guess, guess)
            kept.append((unquieted, x, guess))
            return guess.astype(dtype)
        return unquieted(x)

    if dtype == np.float32:
        unquieted.speculative = speculative  # type: ignore[attr-defined]
    return quieted(unquieted)  # overflow, invalid: those elements are redone
