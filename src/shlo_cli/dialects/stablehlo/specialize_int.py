"""Integer kernels on numpy's own integer types, specialized once per op when the plan is
built (an engine binding hook).

The general evaluators work on 64-bit patterns (`to_bits` / `from_bits`, `_magnitude`) so
that they also serve sub-byte integers, and integer `dot_general` goes to numpy's integer
matmul (no BLAS). Here, for i8..i64 and u8..u64:

- `dot_general` / `dot` with an integer result: the general path converts both operands to
  the result type and sums their products with wrap-around at its width, i.e. the exact sum
  modulo 2^bits. When K * max|lhs| * max|rhs| < 2^24 (checked per call on the converted
  values) every partial sum a float32 GEMM forms, in whatever order, is an integer of at
  most that size, so float32 BLAS gives the exact sums; below 2^53 float64 does. The exact
  sum is then wrapped to the result width through int64. Larger bounds go to the general
  evaluator.
- `divide` / `remainder`: truncating division of magnitudes in the unsigned type of the
  same width (the hardware divide; numpy's signed floor division is several times slower),
  the sign restored with an xor/subtract; a divisor broadcast from one value (`a // 7`) is
  divided by as a scalar (numpy's libdivide), a remainder by one value as a - (a / d) * d
  or, unsigned by a power of two, a mask. x / 0 = -1 (all bits), x % 0 = x and
  INT_MIN / -1 = INT_MIN as the general evaluator defines them. 0-d operands are divided
  as Python ints.
- `count_leading_zeros` as the width minus the bit count of the value with all bits below its
  top bit set, `popcnt` with numpy's bit count on the unsigned view, `abs`
  and `sign` of signed types directly (numpy's abs wraps INT_MIN to itself, as the spec's),
  `convert` from integer and bool types to integer types as numpy's astype (keeps the low
  bits).
Operands that are not arrays of the bound dtype go to the general evaluator (0-d ones too,
but for division).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from .blas_threads import matmul
from .elementwise_numerics import NATIVE_INTS
from .specialize import _native_types
from .specialize_dot import dot_layout

Kernel = Callable[..., Any]

_F32_EXACT = 1 << 24  # integers below this are exact in float32, and so every partial sum
_F64_EXACT = 1 << 53


# ---- dot_general ---------------------------------------------------------------------------


def _magnitude_bound(x: np.ndarray) -> int:
    """max |x| as a Python int (exact for INT_MIN too)."""
    return max(int(x.max()), -int(x.min()), 0)


def _int_dot(layout: tuple[Any, ...], dtypes: list[np.dtype], general: Kernel) -> Kernel:
    """The exact-float GEMM kernel described in the module docstring."""
    lperm, rperm, b, m, k, n, out_shape = layout
    ltype, rtype, dtype = dtypes
    # Operands whose conversion to the result type changes no value skip that copy.
    lkeep, rkeep = np.can_cast(ltype, dtype, "safe"), np.can_cast(rtype, dtype, "safe")
    fits = int(np.iinfo(dtype).max)
    array = np.ndarray

    def kernel(lhs: Any, rhs: Any) -> Any:
        if (lhs.__class__ is not array or rhs.__class__ is not array or lhs.dtype != ltype
                or rhs.dtype != rtype or lhs.size == 0 or rhs.size == 0):
            return general(lhs, rhs)
        left = lhs.transpose(lperm).reshape(b, m, k)
        right = rhs.transpose(rperm).reshape(b, k, n)
        if not lkeep:
            left = left.astype(dtype)
        if not rkeep:
            right = right.astype(dtype)
        bound = k * _magnitude_bound(left) * _magnitude_bound(right)
        if bound >= _F64_EXACT:
            return general(lhs, rhs)
        acc = np.float32 if bound < _F32_EXACT else np.float64
        left, right = left.astype(acc), right.astype(acc)
        out = matmul(left[0], right[0]) if b == 1 else matmul(left, right)
        if bound > fits:  # the exact sum wrapped to the result width
            out = out.astype(np.int64)
        return out.astype(dtype).reshape(out_shape)

    return kernel


# ---- divide / remainder --------------------------------------------------------------------


def _one_value(x: np.ndarray) -> bool:
    """Whether x is a non-empty broadcast of a single element (all strides 0)."""
    return x.size > 0 and not any(x.strides)


def _unsigned_divmod(a: np.ndarray, b: np.ndarray, want_quotient: bool) -> np.ndarray:
    """Quotient (all bits set where b = 0) or remainder (a where b = 0) of unsigned ints."""
    if _one_value(b):
        divisor = b.reshape(-1)[0]
        if divisor == 0:
            return np.full(a.shape, np.iinfo(a.dtype).max, a.dtype) if want_quotient else a.copy()
        if want_quotient:
            return a // divisor
        # numpy's % by a scalar divides element by element, its // multiplies and shifts
        # (libdivide): 20x faster on u8, and a mask for a power of two faster still
        step = int(divisor)
        if step & (step - 1) == 0:
            return a & a.dtype.type(step - 1)
        q = a // divisor
        q *= divisor  # (at most a: no wrap-around)
        return np.subtract(a, q, out=q)
    zero = b == 0
    if not np.count_nonzero(zero):  # (ndarray.any: a Python wrapper, ~1.5 us)
        return a // b if want_quotient else a % b
    safe = np.where(zero, b.dtype.type(1), b)
    if want_quotient:
        return np.where(zero, a.dtype.type(np.iinfo(a.dtype).max), a // safe)
    return np.where(zero, a, a % safe)


def _signed_quotient(a: np.ndarray, b: np.ndarray, unsigned: np.dtype) -> np.ndarray:
    """a / b truncated toward zero, b nonzero everywhere; INT_MIN / -1 wraps to INT_MIN.
    |a| // |b| in the unsigned type (np.abs wraps INT_MIN to itself, whose unsigned view is
    2^(bits-1)), then negated where the signs differ: (q ^ s) - s with s = -1 there."""
    shift = a.dtype.type(8 * a.dtype.itemsize - 1)
    if _one_value(b):
        divisor = int(b.reshape(-1)[0])
        q = (np.abs(a).view(unsigned) // unsigned.type(abs(divisor))).view(a.dtype)
        sign = a >> shift
        if divisor < 0:
            sign = ~sign
    else:
        q = (np.abs(a).view(unsigned) // np.abs(b).view(unsigned)).view(a.dtype)
        sign = (a ^ b) >> shift
    q ^= sign
    q -= sign
    return q


def _signed_divide(a: np.ndarray, b: np.ndarray, unsigned: np.dtype) -> np.ndarray:
    """elementwise.divide on a signed type: x / 0 = -1."""
    if _one_value(b):
        if b.reshape(-1)[0] == 0:
            return np.full(a.shape, -1, a.dtype)
        return _signed_quotient(a, b, unsigned)
    zero = b == 0
    if not np.count_nonzero(zero):  # (ndarray.any: a Python wrapper, ~1.5 us)
        return _signed_quotient(a, b, unsigned)
    q = _signed_quotient(a, np.where(zero, b.dtype.type(1), b), unsigned)
    q[zero] = -1
    return q


def _signed_remainder(a: np.ndarray, b: np.ndarray, unsigned: np.dtype) -> np.ndarray:
    """elementwise.remainder on a signed type, x % 0 = x. By one value: a - (a / b) * b with
    wrap-around (the identity holds modulo 2^bits, so INT_MIN % -1 = 0), the division by a
    scalar being numpy's fast one; else numpy's fmod (one hardware division)."""
    if _one_value(b):
        if b.reshape(-1)[0] == 0:
            return a.copy()
        q = _signed_quotient(a, b, unsigned)
        q *= b.reshape(-1)[0]
        return a - q
    zero = b == 0
    if not np.count_nonzero(zero):  # (ndarray.any: a Python wrapper, ~1.5 us)
        return np.fmod(a, b)  # C's %: the sign of the dividend; INT_MIN % -1 = 0
    return np.where(zero, a, np.fmod(a, np.where(zero, b.dtype.type(1), b)))


def _scalar_divmod(dtype: np.dtype, quotient: bool) -> Callable[[int, int], Any]:
    """The 0-d case on Python ints (`i % 4` in a loop: numpy's call overhead is most of the
    cost): the truncating quotient or remainder of the magnitudes, the sign restored, then
    wrapped to the width. x / 0 = -1 (all bits), x % 0 = x, INT_MIN / -1 = INT_MIN. A numpy
    scalar, as the general evaluator returns for 0-d operands."""
    make = dtype.type
    bits = 8 * dtype.itemsize
    modulus, half = 1 << bits, (1 << (bits - 1)) if dtype.kind == "i" else 0

    def scalar(x: int, y: int) -> Any:
        if y == 0:
            return make(-1 if dtype.kind == "i" else modulus - 1) if quotient else make(x)
        if quotient:
            value = abs(x) // abs(y)
            if (x < 0) != (y < 0):
                value = -value
        else:
            value = abs(x) % abs(y)
            if x < 0:
                value = -value
        return make((value + half) % modulus - half)
    return scalar


def _divmod_kernel(dtype: np.dtype, quotient: bool, general: Kernel) -> Kernel:
    unsigned = np.dtype(f"u{dtype.itemsize}")
    array, number = np.ndarray, dtype.type
    scalar = _scalar_divmod(dtype, quotient)

    def zero_d(x: Any) -> bool:
        """A numpy scalar or 0-d array of the type: a shape computation mixes both (a
        get_dimension_size result with a folded constant), and each goes as a Python int."""
        cls = x.__class__
        return cls is number or cls is array and x.ndim == 0 and x.dtype == dtype

    if dtype.kind == "u":
        def unsigned_kernel(a: Any, b: Any) -> Any:
            if a.__class__ is number and b.__class__ is number:
                return scalar(int(a), int(b))
            if zero_d(a) and zero_d(b):
                return scalar(int(a), int(b))
            if (a.__class__ is not array or b.__class__ is not array or a.dtype != dtype
                    or b.dtype != dtype or a.shape != b.shape):
                return general(a, b)
            return _unsigned_divmod(a, b, quotient)
        return unsigned_kernel
    body = _signed_divide if quotient else _signed_remainder

    def signed_kernel(a: Any, b: Any) -> Any:
        if a.__class__ is number and b.__class__ is number:
            return scalar(int(a), int(b))
        if zero_d(a) and zero_d(b):
            return scalar(int(a), int(b))
        if (a.__class__ is not array or b.__class__ is not array or a.dtype != dtype
                or b.dtype != dtype or a.shape != b.shape):
            return general(a, b)
        with np.errstate(over="ignore"):
            return body(a, b, unsigned)
    return signed_kernel


# ---- bit counting, abs, sign ----------------------------------------------------------------


def _clz_kernel(dtype: np.dtype, general: Kernel) -> Kernel:
    """Leading zeros = width - bit length; the bit length is the bit count of the value with
    every bit below its highest set bit also set (or-ing in shifts by 1, 2, 4, ...)."""
    width = 8 * dtype.itemsize
    unsigned = np.dtype(f"u{dtype.itemsize}")
    shifts = [unsigned.type(1 << i) for i in range(width.bit_length() - 1)]
    array = np.ndarray

    def kernel(x: Any) -> Any:
        if x.__class__ is not array or x.dtype != dtype or x.ndim == 0:
            return general(x)
        smeared = x.view(unsigned).copy()
        spare = np.empty_like(smeared)  # one buffer for every round's shifted copy
        for shift in shifts:
            smeared |= np.right_shift(smeared, shift, out=spare)
        length = np.bitwise_count(smeared)
        return (np.uint8(width) - length).astype(dtype)
    return kernel


def _popcnt_kernel(dtype: np.dtype, general: Kernel) -> Kernel:
    unsigned = np.dtype(f"u{dtype.itemsize}")
    array = np.ndarray

    def kernel(x: Any) -> Any:
        if x.__class__ is not array or x.dtype != dtype or x.ndim == 0:
            return general(x)
        return np.bitwise_count(x.view(unsigned)).astype(dtype)
    return kernel


def _unary_kernel(ufunc: np.ufunc, dtype: np.dtype, general: Kernel) -> Kernel:
    """ufunc(x) for x an array of `dtype` (np.abs / np.sign on signed ints)."""
    array = np.ndarray

    def kernel(x: Any) -> Any:
        if x.__class__ is not array or x.dtype != dtype or x.ndim == 0:
            return general(x)
        return ufunc(x)
    return kernel


# ---- the hook -------------------------------------------------------------------------------

def _int_convert(source: np.dtype, target: np.dtype, general: Kernel) -> Kernel:
    """conversions.convert_array from an integer or bool type to an integer type: numpy's
    astype keeps the low bits (sign- or zero-extending first), the general path's
    wrap-around, and makes a bool 0 or 1; numpy scalars too (`lax.cond`'s predicate turned
    into a branch index in a loop)."""
    array, number = np.ndarray, source.type

    def kernel(x: Any) -> Any:
        cls = x.__class__
        if cls is number or cls is array and x.dtype == source:
            return x.astype(target)
        return general(x)
    return kernel


_HANDLED = frozenset(("stablehlo.convert", "stablehlo.dot_general", "stablehlo.dot",
                      "stablehlo.divide", "stablehlo.remainder", "stablehlo.count_leading_zeros",
                      "stablehlo.popcnt", "stablehlo.abs", "stablehlo.sign"))


def bind_int(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """An integer kernel for `op`, or None (the next hook / the general evaluator)."""
    name = op.name
    if name not in _HANDLED:
        return None
    dtypes = _native_types(op)
    if dtypes is None or dtypes[-1] not in NATIVE_INTS:
        return None
    dtype = dtypes[-1]
    if name == "stablehlo.convert":
        if dtypes[0] not in NATIVE_INTS and dtypes[0] != np.bool_ or dtypes[0] == dtype:
            return None
        return _int_convert(dtypes[0], dtype, bind_after(bind_int, op, opdef, kwargs))
    if name in ("stablehlo.dot_general", "stablehlo.dot"):
        if len(dtypes) != 3 or any(d not in NATIVE_INTS and d != np.bool_ for d in dtypes[:2]):
            return None
        layout = dot_layout(op, kwargs)
        if layout is None:
            return None
        return _int_dot(layout, dtypes, bind_after(bind_int, op, opdef, kwargs))
    if any(d != dtype for d in dtypes):
        return None
    general = bind_after(bind_int, op, opdef, kwargs)
    if name in ("stablehlo.divide", "stablehlo.remainder"):
        return _divmod_kernel(dtype, name == "stablehlo.divide", general)
    if name == "stablehlo.count_leading_zeros":
        return _clz_kernel(dtype, general)
    if name == "stablehlo.popcnt":
        return _popcnt_kernel(dtype, general)
    if dtype.kind != "i":  # abs / sign of unsigned: the verifier's or evaluator's business
        return None
    return _unary_kernel(np.abs if name == "stablehlo.abs" else np.sign, dtype, general)


register_bind_hook(bind_int, 55, ops=_HANDLED)
