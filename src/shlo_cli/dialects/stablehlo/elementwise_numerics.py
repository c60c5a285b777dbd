"""Element-type arithmetic shared by the elementwise kernels.

Upstream's interpreter computes on APInt/APFloat: integers wrap at their width, basic float
ops round once to the element type, and transcendental functions run on `double` and round
once to the element type. These helpers reproduce that on whole numpy arrays:

- integers are handled as width-bit patterns in `uint64` (`to_bits`/`from_bits`), or as
  exact `int64`/`uint64` values (`widen`);
- narrow floats (bf16, f8, f6, f4) are widened exactly to f32/f64 and rounded back once;
  f64 -> narrow goes through f32 with round-to-odd so the result is correctly rounded
  (ml_dtypes alone would round twice).
"""

from __future__ import annotations

import functools
import warnings

import ml_dtypes
import numpy as np

from ...lazy_imports import after_load, lazy
from .. import libm

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any



def _quiet_numpy() -> None:
    """Overflow to inf, NaN from inf - inf and integer wrap-around are the defined results of
    these ops, not problems: numpy must not warn about them on stderr (in any thread)."""
    warnings.filterwarnings(
        "ignore", category=RuntimeWarning,
        module=r"shlo_cli\.dialects\.stablehlo\.(elementwise.*|conversions|constants)$")


after_load("numpy", _quiet_numpy)  # (only computing warns: a launch that parses needs no re)

_NATIVE_FLOATS = lazy(lambda: {np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)})
NATIVE_INTS = lazy(lambda: frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)))
NATIVE_FLOATS = lazy(lambda: frozenset(_NATIVE_FLOATS))
# Element types numpy's ufuncs widen to double themselves (not ml_dtypes' narrow floats).
_NATIVE_WIDENABLE = lazy(lambda: NATIVE_FLOATS | {np.dtype(np.complex64), np.dtype(np.complex128)})
NATIVE_COMPLEX = lazy(lambda: frozenset((np.dtype(np.complex64), np.dtype(np.complex128))))
# Element types whose numpy add/subtract (and comparisons) already behave like the spec's.
NATIVE_ARITH = lazy(lambda: NATIVE_INTS | NATIVE_FLOATS | NATIVE_COMPLEX)
_SUBBYTE_INTS = lazy(lambda: {
    np.dtype(ml_dtypes.int2): (2, True), np.dtype(ml_dtypes.int4): (4, True),
    np.dtype(ml_dtypes.uint2): (2, False), np.dtype(ml_dtypes.uint4): (4, False),
})
_FLOAT_BITS = lazy(lambda: {
    np.dtype(ml_dtypes.float4_e2m1fn): 4, np.dtype(ml_dtypes.float6_e2m3fn): 6,
    np.dtype(ml_dtypes.float6_e3m2fn): 6,
})


def is_bool(dtype: np.dtype) -> bool:
    return dtype == np.bool_


def is_int(dtype: np.dtype) -> bool:
    """Integer element types other than i1."""
    return dtype.kind in "iu" or dtype in _SUBBYTE_INTS


def is_signed(dtype: np.dtype) -> bool:
    if dtype in _SUBBYTE_INTS:
        return _SUBBYTE_INTS[dtype][1]
    return dtype.kind == "i"


def is_complex(dtype: np.dtype) -> bool:
    return dtype.kind == "c"


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or (dtype.kind == "V" and dtype not in _SUBBYTE_INTS)


def num_bits(dtype: np.dtype) -> int:
    """The element type's width in bits, as upstream's `numBits` counts it."""
    if is_bool(dtype):
        return 1
    if dtype in _SUBBYTE_INTS:
        return _SUBBYTE_INTS[dtype][0]
    if dtype in _FLOAT_BITS:
        return _FLOAT_BITS[dtype]
    return dtype.itemsize * 8


def mlir_type_name(dtype: np.dtype) -> str:
    """The MLIR spelling of the element type numpy stores as `dtype` (for messages)."""
    if not _MLIR_NAMES:
        from ...ir.types import FLOAT_WIDTHS, ComplexType, FloatType, IntegerType, numpy_dtype

        candidates = [IntegerType(w, s) for w in (1, 2, 4, 8, 16, 32, 64) for s in ("", "u")]
        candidates += [FloatType(n) for n in FLOAT_WIDTHS]
        candidates += [ComplexType(FloatType("f32")), ComplexType(FloatType("f64"))]
        for t in candidates:
            try:
                _MLIR_NAMES.setdefault(numpy_dtype(t), str(t))
            except ValueError:
                continue
    return _MLIR_NAMES.get(dtype, str(dtype))


_MLIR_NAMES: dict[np.dtype, str] = {}


# ---- integers ---------------------------------------------------------------------------


def to_bits(a: np.ndarray) -> np.ndarray:
    """The width-bit two's complement pattern of each integer, zero-extended to uint64."""
    width = num_bits(a.dtype)
    if is_bool(a.dtype):
        return a.astype(np.uint64)
    if is_signed(a.dtype):
        bits = a.astype(np.int64).view(np.uint64)
    else:
        bits = a.astype(np.uint64)
    if width < 64:
        bits = bits & np.uint64((1 << width) - 1)
    return bits


def from_bits(bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Integers of `dtype` from (possibly overlong) uint64 bit patterns: keeps the low bits."""
    width = num_bits(dtype)
    bits = np.asarray(bits, dtype=np.uint64)
    if is_bool(dtype):
        return (bits & np.uint64(1)).astype(np.bool_)
    if width < 64:
        bits = bits & np.uint64((1 << width) - 1)
    if is_signed(dtype):
        if width < 64:
            sign = np.uint64(1 << (width - 1))
            with np.errstate(over="ignore"):
                bits = (bits ^ sign) - sign
        return bits.view(np.int64).astype(dtype)
    return bits.astype(dtype)


def quiet_nans(out: Any) -> Any:
    """`out` with its NaNs quiet: IEEE-754 maximum/minimum return a signalling NaN operand
    quieted (payload and sign kept), and so does the general evaluator (elementwise._extremum),
    but numpy's maximum passes it on as it is. `x + 0` is x for a quiet NaN and the quiet
    NaN of a signalling one."""
    nan = out != out
    if not np.count_nonzero(nan):
        return out
    if np.ndim(out) == 0:
        return out + out.dtype.type(0)
    return np.where(nan, out + out.dtype.type(0), out)


def widen(a: np.ndarray) -> np.ndarray:
    """An exact wider copy: ints -> int64/uint64, floats -> float64, complex -> complex128."""
    dtype = a.dtype
    if is_bool(dtype):
        return a
    if is_int(dtype):
        return a.astype(np.int64 if is_signed(dtype) else np.uint64)
    if is_complex(dtype):
        return a.astype(np.complex128)
    return a.astype(np.float64)


def int_min(dtype: np.dtype) -> int:
    return -(1 << (num_bits(dtype) - 1)) if is_signed(dtype) else 0


def int_max(dtype: np.dtype) -> int:
    width = num_bits(dtype)
    return (1 << (width - 1)) - 1 if is_signed(dtype) else (1 << width) - 1


# ---- floats -----------------------------------------------------------------------------


def _round_to_odd_f32(x: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounding toward zero, with the last bit set when inexact (round-to-odd).

    Rounding that result to a type with at most 22 significand bits is then correct."""
    x = np.asarray(x)  # a numpy scalar (0-d results) has no item assignment
    with np.errstate(over="ignore", invalid="ignore"):
        y = np.array(x, np.float32)  # a fresh array, corrected in place below
        back = y.astype(np.float64)
        inexact = back != x
        inexact &= np.isfinite(x)
        if not inexact.any():
            return y
        # Whole-array passes, no masked indexing: rounded up in magnitude (never where
        # exact, NaN compares false) steps one ulp back towards zero, then every inexact
        # result gets its last bit set.
        bits = y.view(np.uint32)
        np.subtract(bits, np.abs(back) > np.abs(x), out=bits, casting="unsafe")
        np.bitwise_or(bits, inexact, out=bits, casting="unsafe")
        return y


def round_float(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Round float64 (or float32) values once to the float type `dtype`."""
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype in _NATIVE_FLOATS or x.dtype == dtype:
            return x.astype(dtype)
        if x.dtype == np.float64:
            x = _round_to_odd_f32(x)
        return x.astype(dtype)


@functools.cache
def rounder(dtype: np.dtype) -> Callable[[np.ndarray], np.ndarray]:
    """round_float to `dtype` as one function per type (a cache key for libm's kernels)."""
    def narrow(x: np.ndarray) -> np.ndarray:
        return round_float(x, dtype)
    return narrow


def compute_type(dtype: np.dtype) -> np.dtype:
    """Where basic float ops run: natively for f16/f32/f64, in f32 for narrower types (one
    rounding back is exact enough: f32 holds more than twice their precision plus two)."""
    return dtype if dtype in _NATIVE_FLOATS else np.dtype(np.float32)


def float_op(fn: Callable[..., np.ndarray], dtype: np.dtype, *xs: np.ndarray) -> np.ndarray:
    """A basic IEEE operation (+ - * / sqrt) in the element type, rounded once."""
    ct = compute_type(dtype)
    with np.errstate(all="ignore"):
        out = fn(*[x.astype(ct, copy=False) for x in xs])
    return out if ct == dtype else round_float(out, dtype)


def upcast_to_double(fn: Callable[..., np.ndarray], dtype: np.dtype,
                     *xs: np.ndarray) -> np.ndarray:
    """Upstream's mapWithUpcastToDouble: evaluate in double (complex<double>) and round once
    to the element type."""
    wide = np.dtype(np.complex128) if is_complex(dtype) else np.dtype(np.float64)
    if hasattr(fn, "ufunc") and is_float(dtype) and dtype != wide:
        # a C library function (dialects/libm) rounded to a narrower float: numpy's speed
        if len(xs) == 1 and dtype in _NATIVE_FLOATS:  # f16, f32: round_float is astype
            return libm.native_kernel(fn, dtype)(xs[0])
        if len(xs) == 1 and dtype == ml_dtypes.bfloat16:  # f32's exponent range, IEEE specials
            return libm.native_kernel(fn, dtype, rounder(dtype))(xs[0])
        return libm.rounded(fn, lambda r: round_float(r, dtype), *xs)
    with np.errstate(all="ignore"):
        if isinstance(fn, np.ufunc) and all(x.dtype in _NATIVE_WIDENABLE for x in xs):
            # The ufunc widens in its own buffers: no full-size double temporaries (on 1M
            # elements the temporaries cost 3x the exp itself). Same inner loop, same results.
            out = fn(*xs, dtype=wide)
        else:
            out = fn(*[x.astype(wide) for x in xs])
        if is_complex(dtype):
            return round_complex(np.asarray(out, dtype=wide), dtype)
        return round_float(np.asarray(out, dtype=wide), dtype)


def round_complex(z: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """complex128 -> `dtype`, rounding each part once."""
    if dtype == np.complex128:
        return z
    out = np.empty(z.shape, dtype)
    out.real = z.real.astype(np.float32)
    out.imag = z.imag.astype(np.float32)
    return out


def complex_parts_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64)


def make_complex(real: np.ndarray, imag: np.ndarray, dtype: np.dtype) -> np.ndarray:
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape), dtype)
    out.real = real
    out.imag = imag
    return out


def divide_complex(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """complex128 division as compiler-rt's `__divdc3` does it (logb scaling)."""
    ar, ai, c, d = a.real, a.imag, b.real, b.imag
    with np.errstate(all="ignore"):
        big = np.fmax(np.abs(c), np.abs(d))  # fmax, as C: a NaN part does not hide an inf
        _, exp = np.frexp(big)
        scale = np.where(np.isfinite(big) & (big != 0), exp - 1, 0).astype(np.int64)
        c = np.ldexp(c, -scale)
        d = np.ldexp(d, -scale)
        denom = c * c + d * d
        real = np.ldexp((ar * c + ai * d) / denom, -scale)
        imag = np.ldexp((ai * c - ar * d) / denom, -scale)
        out = make_complex(real, imag, np.dtype(np.complex128))
        bad = np.isnan(real) & np.isnan(imag)
        if bad.any():
            out[bad] = _divide_special(ar, ai, c, d, denom, big)[bad]
    return out


def _divide_special(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray,
                    denom: np.ndarray, big: np.ndarray) -> np.ndarray:
    """C99 Annex G's recovery of infinities and zeros where the formula gave NaN + NaN i:
    nonzero / 0 is infinite, infinite / finite is infinite, finite / infinite is zero."""
    a, b, c, d = (np.broadcast_to(v, denom.shape) for v in (a, b, c, d))
    real = np.full(denom.shape, np.nan)
    imag = np.full(denom.shape, np.nan)
    by_zero = (denom == 0) & (~np.isnan(a) | ~np.isnan(b))
    inf_c = np.copysign(np.inf, c)
    real = np.where(by_zero, inf_c * a, real)
    imag = np.where(by_zero, inf_c * b, imag)
    inf_num = ~by_zero & (np.isinf(a) | np.isinf(b)) & np.isfinite(c) & np.isfinite(d)
    a1 = np.copysign(np.where(np.isinf(a), 1.0, 0.0), a)
    b1 = np.copysign(np.where(np.isinf(b), 1.0, 0.0), b)
    real = np.where(inf_num, np.inf * (a1 * c + b1 * d), real)
    imag = np.where(inf_num, np.inf * (b1 * c - a1 * d), imag)
    inf_den = ~by_zero & ~inf_num & np.isinf(big) & np.isfinite(a) & np.isfinite(b)
    c1 = np.copysign(np.where(np.isinf(c), 1.0, 0.0), c)
    d1 = np.copysign(np.where(np.isinf(d), 1.0, 0.0), d)
    real = np.where(inf_den, 0.0 * (a * c1 + b * d1), real)
    imag = np.where(inf_den, 0.0 * (b * c1 - a * d1), imag)
    return make_complex(real, imag, np.dtype(np.complex128))
