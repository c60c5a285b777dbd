"""A libm function over an f32 array of any size, rounded exactly as the C library's double
result rounds: numpy's double guess rounded twice, sure where both roundings agree.

numpy's double result g is trusted to 2^-40 relative (see libm._TRUSTED). g is rounded to
f32 twice, as g(1 - 2^-39) and as that product times 1 + 2^-38 (at least g(1 + 2^-39 -
2^-52)): every value within 2^-40 of g lies between the two, whatever their own double
rounding, so where both round to the same f32 value the C library's result does too
(rounding is monotonic). Their f32 difference is +0
exactly there (signed zeros included: both products carry g's sign) and nowhere else among
finite roundings; a NaN guess gives NaN, and roundings to an infinity (an infinite guess or
f32 overflow) inf - inf = NaN: those are redone (the C library's own NaN and overflow).
Equal zeros are as sure as any other pair: a masked softmax's exp(-1e9), or a result
between 2^-200 and half f32's least subnormal; so are equal subnormals.
Guesses below 2^-1022 (double subnormals, whose relative error is unbounded) round to
+-0 on both sides: the C result, as tiny, rounds to zero too (libm._DEEP's premise).

The test costs five whole-array passes beyond the guess itself (two products, a second
rounding, the difference, one arg-max): fewer than a bit test of the guess's discarded
bits plus a range test of its exponent, which also sends every zero and subnormal result
to a second look. Large C-ordered arrays go by blocks whose doubles stay in the cache.
A function with a floor (exp: arguments below it underflow whatever they are, and numpy's
exp is slow on them) raises C-contiguous arguments to it while widening them, one pass of
numpy's maximum written as doubles (the softmax exp of 8x256x256 plus one of 1M f32: 3.2-3.5
-> 2.5-2.8 ms of CPU time).
Arrays of up to SMALL elements are what a recurrent step computes: there each numpy call
costs more than its elements, so they take the shortest code.

In a loop the test can wait (interpreter/speculate.py): the kernel's `speculative` form
rounds the guess once (where the test finds it sure, the value the kernel returns) and
keeps the guess; `all_sure` then tests the kept guesses of many steps in one pass, and
the loop is run again exactly from its last tested state when one is not sure.
"""

from __future__ import annotations

import numpy as np

from .layout import astype
from .libm_tiny import TINY
from .quiet import quieted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    Kernel = Callable[..., Any]

SMALL = 2048  # f32 arrays up to this many elements: the shortest path (and speculation)
BLOCK = 32768  # elements per block of a large C-ordered array (its doubles: 256 KiB; against
# 16384, f32 exp 3-6% faster on 64K to 1M elements with a 1 MiB L2, equal on 128K)
FEW_REDO = 4  # doubtful elements of a larger array redone one by one, each by one arg-max
_ZEROS: dict[int, bytes] = {}  # byte count -> that many zero bytes (the sureness test)
_BELOW, _ABOVE = 1 - 2.0 ** -39, 1 + 2.0 ** -39  # the guess's bounds (relative)
# g(1 - 2^-39), rounded, times this is at least g(1 + 2^-39 - 2^-52): above g(1 + 2^-40)
_WIDEN = 1 + 2.0 ** -38


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
    doubtful = np.flatnonzero(high != 0.0)  # (NaN too; nonzero reads bool masks fastest)
    ends = np.cumsum([entry[2].size for entry in kept])
    for k in np.unique(np.searchsorted(ends, doubtful, "right")).tolist():
        kernel, x, guess = kept[k]
        if kernel(x).tobytes() != guess.astype(np.float32).tobytes():
            return False
    return True


def margin_kernel(plain: np.ufunc, evaluate: Callable[[np.ndarray], Any], general: Kernel,
                  tiny: Callable[[np.ndarray], np.ndarray | None] | None,
                  scalar: Callable[[float], float] | None,
                  redo: Callable[[np.ndarray, np.ndarray, np.ndarray], None],
                  floor: float | None = None) -> Kernel:
    """The kernel for f32 arrays of at least one element (`general` for all other input;
    `tiny`, when given, first for up to TINY elements, where it answers). The guess is
    numpy's `plain` in place up to SMALL elements, `evaluate(guess)` (libm._guesser: no
    slow lanes) past them. `redo(x, out, index)` recomputes out's elements at the C-order
    flat positions `index`; up to FEW_REDO of a larger array go one by one through
    `scalar` (what the function does for one float). Arguments below `floor` (when given)
    are raised to it for the guess, as `evaluate` does (see `guessed`).
    Its `unquieted` form leaves numpy's error state to the caller (dialects/quiet.py)."""
    dtype, f64, u32 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.uint32)
    array = np.ndarray
    multiply, subtract, copyto = np.multiply, np.subtract, np.copyto
    below, widen = np.array(_BELOW), np.array(_WIDEN)
    width = dtype.itemsize
    few = TINY if tiny is not None else 0
    tiny = getattr(tiny, "unquieted", tiny)
    zeros = _ZEROS

    floors = None if floor is None else np.full(2 * BLOCK, floor, dtype)
    if floors is not None and float(floors[0]) != floor:  # (an f32 floor only: exact)
        floors = None
    maximum = np.maximum

    def guessed(x: np.ndarray) -> np.ndarray:
        """numpy's double result for x (`evaluate`'s). With a floor, a C-contiguous x is
        raised to it as f32 while widened, one pass of numpy's maximum written as doubles:
        exact (the floor is an f32 value, widening keeps the order), a pass fewer."""
        if floors is not None and x.flags.c_contiguous and x.size <= floors.size:
            guess = np.empty(x.shape, f64)
            flat = guess.reshape(-1)
            maximum(x.reshape(-1), floors[:flat.size], out=flat)
            plain(guess, guess)
            return guess
        guess = astype(x, f64)
        evaluate(guess)
        return guess

    def rounded(x: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(x's rounded guesses, written to `out` if given; their u32 difference, 0 where
        sure) of an array past SMALL elements."""
        guess = guessed(x)
        multiply(guess, below, guess)
        if out is None:
            out = guess.astype(dtype)
        else:
            copyto(out, guess, casting="unsafe")
        multiply(guess, widen, guess)
        high = guess.astype(dtype)
        subtract(out, high, high)
        return out, high.view(u32)

    def positions(difference: np.ndarray) -> np.ndarray | None:
        """The flat C-order positions of the doubtful (nonzero) elements, None if none:
        found one arg-max at a time while there are few (the typical array has none or
        one: a mask costs more), else from the mask."""
        top = difference.argmax()
        if not difference.item(top):
            return None
        found = []
        for _ in range(FEW_REDO):
            found.append(top)
            difference.put(top, 0)
            top = difference.argmax()
            if not difference.item(top):
                return np.array(found, np.intp)
        mask = difference != 0  # (numpy's nonzero reads a bool mask 20x faster)
        mask.put(found, True)
        return np.flatnonzero(mask)

    def blocks(x: np.ndarray) -> np.ndarray:
        """`rounded` block by block (whole, a large array's passes each stream its doubles
        from memory: twice the time); the doubtful elements of all blocks redone at the
        end, together (a softmax's or Sinkhorn's are in every block)."""
        out = np.empty(x.shape, dtype)
        source, target = x.reshape(-1), out.reshape(-1)
        found = []
        for start in range(0, source.size, BLOCK):
            end = start + BLOCK
            index = positions(rounded(source[start:end], target[start:end])[1])
            if index is not None:
                found.append(index + start)
        if found:
            redo(source, target, np.concatenate(found))
        return out

    def unquieted(x: Any) -> Any:
        """The rounded result; numpy's floating-point errors already ignored."""
        size = x.size if x.__class__ is array and x.dtype == dtype and x.ndim else 0
        if not size:
            return general(x)
        if size <= few:
            done = tiny(x)  # type: ignore[misc]
            if done is not None:
                return done
        if size > SMALL:
            if size > 2 * BLOCK and x.flags.c_contiguous:
                return blocks(x)
            out, difference = rounded(x)
            index = positions(difference)
            if index is None:
                return out
            if scalar is not None and index.size <= FEW_REDO:
                for i in index.tolist():
                    out.put(i, scalar(x.item(i)))  # (put rounds the double as astype does)
            else:
                redo(x, out, index)
            return out
        guess = x.astype(f64)  # (never a broadcast view: specialize._VIEW_FROM > SMALL)
        plain(guess, guess)
        multiply(guess, below, guess)
        out = guess.astype(dtype)
        multiply(guess, widen, guess)  # (the guess is spent)
        high = guess.astype(dtype)
        subtract(out, high, high)
        count = width * size
        if high.tobytes() != (zeros.get(count) or zeros.setdefault(count, bytes(count))):
            redo(x, out, np.flatnonzero(high != 0.0))  # (NaN too)
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

    speculative.plain = plain  # type: ignore[attr-defined]  # (interpreter/sigmoid.py)
    unquieted.speculative = speculative  # type: ignore[attr-defined]
    return quieted(unquieted)  # overflow, invalid: those elements are redone
