"""`reduce_precision` on f16/f32/f64 in the float's own unsigned width (an engine binding
hook).

The general evaluator (conversions.reduce_precision) widens every bit pattern to uint64 so
that it serves every float type; on the native floats the same bit manipulation (round the
mantissa to nearest even by adding the bias and the last kept bit, then clear the dropped
bits; exponents above the reduced range become ±inf, at or below it ±0; NaN kept, or +inf
with no mantissa left) is done here in place in uint16/uint32/uint64. Unsigned addition
wraps modulo 2^width, which is what the general path's final mask to the width gives. A 0-d
value (a scalar loop's) takes the same steps on its bits as a Python int.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from .elementwise_numerics import NATIVE_FLOATS
from .specialize import _native_types

Kernel = Callable[..., Any]


def _round_mantissa(bits: np.ndarray, shift: int, unsigned: type) -> np.ndarray:
    """bits with the low `shift` mantissa bits rounded off (to nearest, ties to even): add
    the last kept bit and half an ulp less one, then clear the dropped bits (a fresh array)."""
    rounded = bits >> unsigned(shift)
    rounded &= unsigned(1)
    rounded += bits
    rounded += unsigned((1 << (shift - 1)) - 1)
    rounded &= ~unsigned((1 << shift) - 1)
    return rounded


def _clamp_exponent(bits: np.ndarray, width: int, mantissa: int, exponent_bits: int,
                    unsigned: type) -> np.ndarray:
    """Exponents past the reduced format's range: above to ±inf, at or below its minimum
    normal exponent to ±0, in place (both decided on the same bits, so the two sets are
    disjoint). Few elements usually change: masked copies, not whole-array selects."""
    src_exponent = width - mantissa - 1
    sign_mask = unsigned(1 << (width - 1))
    exp_mask = unsigned(((1 << src_exponent) - 1) << mantissa)
    bias = (1 << (src_exponent - 1)) - 1
    reduced_bias = (1 << (exponent_bits - 1)) - 1
    exponent = bits & exp_mask
    over = exponent > unsigned((bias + reduced_bias) << mantissa)
    under = exponent <= unsigned((bias - reduced_bias) << mantissa)
    if over.any() or under.any():
        signed_zero = bits & sign_mask
        np.copyto(bits, signed_zero | exp_mask, where=over)
        np.copyto(bits, signed_zero, where=under)
    return bits


def _one(width: int, mantissa: int, exponent_bits: int, shift: int) -> Callable[[int], int]:
    """The same bit manipulation on one element's bits as a Python int (a scalar loop's
    state: the whole-array passes cost ~16 us on 0-d values)."""
    shift = max(shift, 0)  # (a wider reduced mantissa keeps every bit)
    half = (1 << (shift - 1)) - 1 if shift else 0
    kept = ((1 << width) - 1) & ~((1 << shift) - 1)
    src_exponent = width - mantissa - 1
    sign = 1 << (width - 1)
    exp_mask = ((1 << src_exponent) - 1) << mantissa
    bias = (1 << (src_exponent - 1)) - 1
    reduced_bias = (1 << (exponent_bits - 1)) - 1
    above, at_or_below = (bias + reduced_bias) << mantissa, (bias - reduced_bias) << mantissa
    reduce_exponent = exponent_bits < src_exponent

    def one(bits: int) -> int:
        if shift:
            bits = (bits + ((bits >> shift) & 1) + half) & kept
        if reduce_exponent:
            exponent = bits & exp_mask
            if exponent > above:
                bits = (bits & sign) | exp_mask
            elif exponent <= at_or_below:
                bits &= sign
        return bits
    return one


def _kernel(dtype: np.dtype, exponent_bits: int, mantissa_bits: int, general: Kernel) -> Kernel:
    width = 8 * dtype.itemsize
    finfo = np.finfo(dtype)
    mantissa = int(finfo.nmant)
    unsigned = np.dtype(f"u{dtype.itemsize}").type
    shift = mantissa - mantissa_bits
    reduce_exponent = exponent_bits < width - mantissa - 1
    nan_value = None if mantissa_bits > 0 else np.array(np.inf, dtype)
    array = np.ndarray
    one = _one(width, mantissa, exponent_bits, shift)
    cell = np.empty((), unsigned)
    value = cell.view(dtype)

    def kernel(x: Any) -> Any:
        if getattr(x, "ndim", None) == 0 and x.dtype == dtype and x == x:  # (NaN: general)
            cell[()] = one(int(x.view(unsigned)))
            return value[()]
        if (x.__class__ is not array or x.dtype != dtype or x.ndim == 0
                or not x.flags.c_contiguous):
            return general(x)
        bits = x.view(unsigned)
        bits = _round_mantissa(bits, shift, unsigned) if shift > 0 else bits.copy()
        if reduce_exponent:
            bits = _clamp_exponent(bits, width, mantissa, exponent_bits, unsigned)
        out = bits.view(dtype)
        nan = np.isnan(x)
        if nan.any():
            out = np.where(nan, x if nan_value is None else nan_value, out)
        return out
    kernel.on_bits = one  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def bind_rounding(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A native-width reduce_precision kernel, or None (the general evaluator)."""
    if op.name != "stablehlo.reduce_precision":
        return None
    dtypes = _native_types(op)
    if dtypes is None or dtypes[0] not in NATIVE_FLOATS or dtypes[1] != dtypes[0]:
        return None
    try:
        exponent_bits = int(kwargs["exponent_bits"])
        mantissa_bits = int(kwargs["mantissa_bits"])
    except (KeyError, TypeError, ValueError):
        return None
    dtype = dtypes[0]
    mantissa = int(np.finfo(dtype).nmant)
    if exponent_bits < 1 or mantissa_bits < 0:
        return None
    if mantissa_bits >= mantissa and exponent_bits >= 8 * dtype.itemsize - mantissa - 1:
        return None  # nothing to reduce: the general evaluator's copy
    return _kernel(dtype, exponent_bits, mantissa_bits, bind_after(bind_rounding, op, opdef,
                                                                   kwargs))


register_bind_hook(bind_rounding, 55, ops=("stablehlo.reduce_precision",))
