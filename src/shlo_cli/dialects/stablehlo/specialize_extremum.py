"""Float maximum/minimum kernels for the specialized plan (specialize.py): numpy's
maximum/minimum with the spec's choice between +0 and -0, done on the bit patterns without
float64 temporaries."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...lazy_imports import lazy
from .elementwise_numerics import quiet_nans

Kernel = Callable[..., Any]

_BITS = lazy(lambda: {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
         np.dtype(np.float64): np.uint64})


def _fix_zeros(out: np.ndarray, a: np.ndarray, b: np.ndarray, both: bool) -> np.ndarray:
    """numpy's maximum/minimum are the spec's except for which zero they return when both
    operands are zeros. Where the result is a zero, the spec's sign bit is: for maximum, set
    exactly when both operands have it (both are <= 0 there); for minimum, when either has
    it. Done on the bit patterns (no float64 temporaries)."""
    zero = out == 0
    if not np.count_nonzero(zero):  # (ndarray.any's Python wrapper costs ~1.5 us)
        return out
    bits = _BITS[np.dtype(out.dtype)]
    sign = bits(1) << bits(8 * np.dtype(bits).itemsize - 1)
    ua, ub = np.asarray(a).view(bits), np.asarray(b).view(bits)
    signs = ((ua & ub) if both else (ua | ub)) & sign
    current = np.asarray(out).view(bits)
    # where(zero, signs, current) without a branch per element (a random mask makes
    # np.where 4x slower): current + (signs - current) * zero, in wrapping unsigned ints.
    with np.errstate(over="ignore"):
        fixed = signs - current
        fixed *= zero
        fixed += current
    return fixed.view(out.dtype)


# Elements from which a splat operand is met as a contiguous array (below, numpy's own
# loop costs less than the extra tests).
_DENSE_FROM = 8192
_DENSE_CHUNK = 1 << 14  # elements of the array of a splat's value (per dtype and value)


@functools.lru_cache(maxsize=32)
def _splat_chunk(dtype: np.dtype, value: bytes) -> np.ndarray:
    """A read-only array of `_DENSE_CHUNK` elements of the value whose bytes are `value`."""
    chunk = np.full(_DENSE_CHUNK, np.frombuffer(value, dtype)[0], dtype)
    chunk.flags.writeable = False
    return chunk


def dense_splat(ufunc: np.ufunc, a: Any, b: Any) -> np.ndarray | None:
    """ufunc(a, b) for maximum or minimum, where one operand is a splat (0-d, or a
    broadcast view: every stride 0) of a value that is not NaN and the other a
    C-contiguous array of at least `_DENSE_FROM` elements and the same float type (a ReLU's
    +0, a blocked chain's slice of a broadcast constant); else None. numpy vectorizes
    these two ufuncs only for contiguous operands (a splat costs four times as much), so
    the splat is met as a contiguous array of its value, a chunk at a time. Every result
    but a NaN's (all from the array operand: callers that keep NaN payloads redo those)
    and a zero's sign (which the callers set from the operands) is the same number."""
    array = np.ndarray
    if (a.__class__ is not array or b.__class__ is not array or a.dtype != b.dtype
            or a.dtype.kind != "f"):
        return None
    x, splat, first = (a, b, True) if a.flags.c_contiguous and a.ndim else (b, a, False)
    if (x.size < _DENSE_FROM or not x.flags.c_contiguous
            or (splat.ndim and (splat.shape != x.shape or any(splat.strides)))):
        return None
    value = splat[(0,) * splat.ndim]
    if value != value:
        return None
    chunk = _splat_chunk(x.dtype, value.tobytes())
    out = np.empty(x.shape, x.dtype)
    source, target = x.reshape(-1), out.reshape(-1)
    for start in range(0, source.size, _DENSE_CHUNK):
        part = source[start:start + _DENSE_CHUNK]
        pair = (part, chunk[:part.size]) if first else (chunk[:part.size], part)
        ufunc(*pair, out=target[start:start + _DENSE_CHUNK])
    return out


def extremum_of(ufunc: np.ufunc, a: Any, b: Any) -> Any:
    """ufunc(a, b): through `dense_splat` where an operand is large enough for it."""
    if a.__class__ is np.ndarray and b.__class__ is np.ndarray and (
            a.size >= _DENSE_FROM or b.size >= _DENSE_FROM):
        out = dense_splat(ufunc, a, b)
        if out is not None:
            return out
    return ufunc(a, b)


_ARGMAX_BELOW = 1 << 16  # past this numpy's SIMD maximum.reduce scans f32 faster than argmax
_ZERO_TEST_BELOW = 4096  # elements: below, a zero test replaces the sign-bit passes
_LIST_TEST_UPTO = 64  # vectors: searched for a zero as a list (a third of compare + count)


def _signed_extremum(ufunc: np.ufunc, both: bool) -> Kernel:
    """elementwise._extremum's float branch without widening, in four passes: numpy's
    result r, then its sign bit set from the operands' sign bits. For maximum the spec's
    sign is sa & sb: a zero result needs exactly that, and for any other non-NaN r it is
    r's own sign (r > 0 has a non-negative operand, r < 0 two negative ones), so r's bits
    AND (ua & ub | ~sign) is the result. For minimum likewise with sa | sb: r OR
    ((ua | ub) & sign). A NaN's sign must stay numpy's: when r has a NaN (its reduction by
    the same ufunc is NaN; below 2^16 elements, argmax finds a NaN first, cheaper)
    `_fix_zeros` redoes the zeros alone. Below `_ZERO_TEST_BELOW` elements (a loop over
    box coordinates), where each numpy call costs more than its elements, a result with
    no zero is numpy's own (a non-zero non-NaN result already has the spec's sign, a NaN
    keeps numpy's): one comparison and its count instead of the mask passes (a count, not
    `ndarray.any`, whose Python wrapper costs three times numpy's maximum of 300 floats)."""
    equal, count, array = np.equal, np.count_nonzero, np.ndarray
    unsigned = dict(_BITS)  # (a lazy table's lookup costs ~0.7 us a call)
    zeros = {d: np.zeros((), d) for d in unsigned}

    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = extremum_of(ufunc, a, b)
        if out.__class__ is array and 0 < out.size < _ZERO_TEST_BELOW:
            zero = zeros.get(out.dtype)
            if zero is not None and not (0 in out.tolist() if out.size <= _LIST_TEST_UPTO
                                         and out.ndim == 1 else count(equal(out, 0))):
                out += zero  # (no zero to change: NaNs made quiet, `quiet_nans`)
                return out
        bits = unsigned.get(out.dtype)
        if bits is None:  # a region body typed f32 called on other arrays (all_reduce)
            return out if out.dtype.kind in "biu" else quiet_nans(_fix_zeros(out, a, b, both))
        if out.ndim == 0 or out.size == 0:
            return quiet_nans(_fix_zeros(out, a, b, both))
        # argmax stops at the first NaN (numpy's argmax treats NaN as the largest): one
        # cheap scan and a Python float, where a reduce costs twice as much below ~2^16.
        total = out.item(out.argmax()) if out.size < _ARGMAX_BELOW else ufunc.reduce(out, None)
        if total != total:  # (numpy's own NaN: not dense_splat's)
            return quiet_nans(_fix_zeros(ufunc(a, b), a, b, both))
        width = 8 * out.dtype.itemsize
        ua, ub = np.asarray(a).view(bits), np.asarray(b).view(bits)
        current = out.view(bits)
        if both:
            mask = ua & ub
            mask |= bits((1 << (width - 1)) - 1)
            current &= mask
        else:
            mask = ua | ub
            mask &= bits(1 << (width - 1))
            current |= mask
        return out
    kernel.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
    return kernel


def _is_positive_zero(value: Any) -> bool:
    """Whether `value` (an op's operand) is +0.0 everywhere: a splat constant of +0.0 or a
    broadcast of one."""
    from ...ir.attributes import DenseElementsAttr  # (ir knows nothing of dialects)

    owner = value.owner
    if getattr(owner, "name", None) == "stablehlo.broadcast_in_dim" and owner.operands:
        owner = owner.operands[0].owner
    if getattr(owner, "name", None) != "stablehlo.constant":
        return False
    attr = owner.attr("value")
    if not isinstance(attr, DenseElementsAttr) or not attr.splat:
        return False
    data = attr.data
    return bool(data.dtype.kind == "f" and data.item() == 0 and not np.signbit(data))


def positive_zero_operand(op: Any) -> bool:
    """Whether a maximum's operand is +0.0 everywhere (a ReLU, `clip(x, 0)`)."""
    return op.name == "stablehlo.maximum" and any(_is_positive_zero(v) for v in op.operands)


@functools.cache
def max_positive_zero() -> Kernel:
    """maximum(x, +0) (either order): numpy's maximum is the spec's except that either zero
    may come back where the result is a zero, and there the spec's zero is +0 (its sign is
    set only when both operands' are). `+ 0` makes every zero +0 and leaves every other
    non-NaN value as it is, so it is done when the result has no NaN (argmax finds a NaN
    first, as in _signed_extremum); a NaN's bits stay numpy's, through the general kernel:
    half the passes of the sign-bit fix."""
    general = _signed_extremum(np.maximum, True)
    maximum, array = np.maximum, np.ndarray
    zeros = {np.dtype(t): np.zeros((), t) for t in (np.float16, np.float32, np.float64)}

    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = extremum_of(maximum, a, b)
        if out.__class__ is array and out.size:
            zero = zeros.get(out.dtype)
            if zero is not None:
                top = out.item(out.argmax()) if out.size < _ARGMAX_BELOW else maximum.reduce(
                    out, None)
                if top == top:
                    out += zero
                    return out
        return general(a, b)
    kernel.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
    return kernel
