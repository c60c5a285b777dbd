"""CHLO non-broadcasting binary ops: next_after, polygamma, zeta, mulhi."""

from __future__ import annotations

import numpy as np

from ..registry import define_op
from ..stablehlo.elementwise_numerics import is_float, is_int, is_signed, num_bits
from ..stablehlo.elementwise_verify import FLOAT
from . import special_math
from .numeric import real_in_double, unsupported
from .syntax import BINARY
from .verify import typed, verify_compatible_operands_and_result, verify_mulhi

_FP = frozenset((FLOAT,))  # ChloOps.td's HLO_AnyFpTensor

_polygamma = real_in_double("polygamma", special_math.polygamma)
_zeta = real_in_double("zeta", special_math.zeta)


@define_op("chlo.polygamma", operands=("n", "x"), results=1, syntax=BINARY,
           verify=typed(_FP, _FP, verify_compatible_operands_and_result))
def polygamma(n: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of digamma at x."""
    return _polygamma(n, x)


@define_op("chlo.zeta", operands=("x", "q"), results=1, syntax=BINARY,
           verify=typed(_FP, _FP, verify_compatible_operands_and_result))
def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hurwitz zeta function zeta(x, q)."""
    return _zeta(x, q)


def next_after_values(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The representable neighbour of x towards y, on the bit patterns (any float type)."""
    dtype = x.dtype
    if not is_float(dtype):
        raise unsupported("next_after", dtype)
    x, y = np.broadcast_arrays(x, y)
    width = num_bits(dtype)
    udtype = np.dtype(f"u{dtype.itemsize}")
    bits = np.ascontiguousarray(x).view(udtype).astype(np.uint64)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    sign_bit = np.uint64(1 << (width - 1))
    # Moving away from zero adds one to the magnitude's bit pattern, towards zero subtracts.
    away = (yf > xf) == (xf > 0)
    stepped = np.where(away, bits + np.uint64(1), bits - np.uint64(1))
    smallest = np.where(yf < 0, sign_bit | np.uint64(1), np.uint64(1))
    result = np.where(xf == 0, smallest, stepped)
    out = result.astype(udtype).view(dtype).reshape(x.shape)
    out = np.where(xf == yf, y, out)
    return np.where(np.isnan(xf) | np.isnan(yf), np.array(np.nan, dtype), out).astype(dtype)


@define_op("chlo.next_after", operands=("x", "y"), results=1, syntax=BINARY,
           verify=typed(_FP, _FP, verify_compatible_operands_and_result))
def next_after(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The next representable value after x in the direction of y (y when equal)."""
    return next_after_values(x, y)


def _mulhi_unsigned64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """High 64 bits of a 64x64-bit unsigned product, from 32-bit halves."""
    mask = np.uint64(0xFFFFFFFF)
    shift = np.uint64(32)
    a_lo, a_hi = a & mask, a >> shift
    b_lo, b_hi = b & mask, b >> shift
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> shift) + (hi_lo & mask) + lo_hi
    return hi_hi + (hi_lo >> shift) + (cross >> shift)


@define_op("chlo.mulhi", operands=("lhs", "rhs"), results=1, syntax=BINARY, verify=verify_mulhi)
def mulhi(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The high half of the double-width integer product lhs * rhs."""
    dtype = lhs.dtype
    if not is_int(dtype) or dtype == np.bool_:
        raise unsupported("mulhi", dtype)
    width = num_bits(dtype)
    with np.errstate(all="ignore"):
        if width <= 32:
            wide = lhs.astype(np.int64) * rhs.astype(np.int64)
            return (wide >> width).astype(dtype)
        a, b = lhs.astype(np.uint64), rhs.astype(np.uint64)
        high = _mulhi_unsigned64(a, b)
        if is_signed(dtype):
            high = high - np.where(lhs < 0, b, np.uint64(0)) - np.where(rhs < 0, a, np.uint64(0))
        return high.astype(dtype)
