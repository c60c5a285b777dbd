"""Elementwise arithmetic and logic ops: each evaluator applies the spec's per-element
semantics to whole arrays (see elementwise_numerics for how element types are honoured)."""

from __future__ import annotations

import numpy as np

from ...ir.attributes import DialectAttr
from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ...ir.parser import (
    DIALECT_ATTR_PARSERS,
    canonical_fields,
    format_field,
    parse_struct_fields,
)
from ...lazy_imports import lazy
from .. import libm
from ..asm import Format
from ..pow_rounded import rounded_power
from ..registry import define_op
from .elementwise_numerics import (
    NATIVE_ARITH,
    NATIVE_FLOATS,
    NATIVE_INTS,
    complex_parts_dtype,
    divide_complex,
    float_op,
    from_bits,
    is_bool,
    is_complex,
    is_float,
    is_int,
    is_signed,
    make_complex,
    mlir_type_name,
    num_bits,
    quiet_nans,
    round_complex,
    rounder,
    to_bits,
    upcast_to_double,
    widen,
)
from .elementwise_verify import (
    ANY,
    AXIS_QUANT,
    COMPLEX,
    FLOAT,
    INTEGERS,
    NUMERIC,
    PRED,
    QUANT,
    SINT,
    elementwise,
    verify_abs,
    verify_add,
    verify_is_finite,
    verify_real_imag,
)
from .float_remainder import float_remainder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LOGICAL = frozenset((PRED, *INTEGERS))
SIGNED_NUMERIC = frozenset((SINT, FLOAT, COMPLEX, QUANT))
SIGNED_REAL = frozenset((SINT, FLOAT, QUANT))
REAL_FLOAT = frozenset((FLOAT, QUANT))
FLOAT_OR_COMPLEX = frozenset((FLOAT, COMPLEX))


class ElementwiseFormat(Format):
    """`Format` that also elides `result_accuracy` when it holds the default value, as
    upstream's DefaultValuedOptionalAttr printing does."""

    def print(self, pr: Any, op: Operation) -> None:
        accuracy = op.properties.get("result_accuracy")
        if accuracy is not None and is_default_accuracy(accuracy):
            saved = dict(op.properties)
            del op.properties["result_accuracy"]
            try:
                super().print(pr, op)
            finally:
                op.properties.clear()
                op.properties.update(saved)
            return
        super().print(pr, op)


def is_default_accuracy(attr: Any) -> bool:
    """`#stablehlo.result_accuracy<atol = 0, rtol = 0, ulps = 0, mode = DEFAULT>`."""
    get = getattr(attr, "get", None)
    if get is None:
        return False
    mode = get("mode")
    mode_text = getattr(mode, "body", str(mode))
    return (mode_text.strip() == "DEFAULT" and not get("atol", 0) and not get("rtol", 0)
            and not get("ulps", 0))


def parse_result_accuracy(p: Any, body: str, offset: int) -> DialectAttr:
    """`#stablehlo.result_accuracy<...>`, checked as upstream's attribute verifier does
    while the attribute is built: HIGHEST mode admits no tolerance."""
    fields = parse_struct_fields(p, body, offset)
    if fields is None:
        return DialectAttr("stablehlo", "result_accuracy", " ".join(body.split()))
    values = dict(fields)
    real = (int, float)
    for key, expected, kinds in (("atol", "APFloat", real), ("rtol", "APFloat", real),
                                 ("ulps", "int64_t", (int,))):
        value = values.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise p.error(f"failed to parse ResultAccuracyAttr parameter '{key}' which is to be "
                          f"a `{expected}`", offset=offset - 1)
    mode = values.get("mode")
    if mode is not None and not (isinstance(mode, DialectAttr)
                                 and mode.name == "result_accuracy_mode"):
        raise p.error("failed to parse ResultAccuracyAttr parameter 'mode' which is to be a "
                      "`::mlir::stablehlo::ResultAccuracyModeAttr`", offset=offset - 1)
    if (getattr(mode, "body", str(mode)).strip() == "HIGHEST"
            and any(values.get(k, 0) for k in ("atol", "rtol", "ulps"))):
        raise p.error("Invalid tolerances for ResultAccuracyAttr with mode HIGHEST, must be all "
                      "zero.", offset=offset - 1)
    text = ", ".join(f"{k} = {format_field(v)}"
                     for k, v in canonical_fields("result_accuracy", fields))
    return DialectAttr("stablehlo", "result_accuracy", text, tuple(fields))


DIALECT_ATTR_PARSERS[("stablehlo", "result_accuracy")] = parse_result_accuracy

UNARY = ElementwiseFormat("$operand", operands=("operand",))
BINARY = ElementwiseFormat("$lhs `,` $rhs", operands=("lhs", "rhs"))
ACCURACY = ("result_accuracy?",)  # the attribute of the transcendental ops


def unsupported(what: str, dtype: np.dtype) -> EvaluationError:
    return EvaluationError(f"{what} is unsupported for element type {mlir_type_name(dtype)}")


def int_op(fn: Any, *xs: np.ndarray) -> np.ndarray:
    """An integer op that wraps at the element width: native numpy ints wrap by themselves,
    sub-byte ints go through their uint64 bit patterns."""
    dtype = xs[0].dtype
    with np.errstate(all="ignore"):
        if dtype.kind in "iu":
            return fn(*xs).astype(dtype, copy=False)
        return from_bits(fn(*[to_bits(x) for x in xs]), dtype)


# ---- arithmetic ---------------------------------------------------------------------------


@define_op("stablehlo.add", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(ANY, same_types=False, then=verify_add))
def add(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Sum; integers wrap, i1 is logical or."""
    dtype = lhs.dtype
    if dtype in NATIVE_ARITH:
        return np.add(lhs, rhs)
    if is_bool(dtype):
        return np.logical_or(lhs, rhs)
    if is_int(dtype):
        return int_op(np.add, lhs, rhs)
    if is_complex(dtype):
        return lhs + rhs
    return float_op(np.add, dtype, lhs, rhs)


@define_op("stablehlo.subtract", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(NUMERIC))
def subtract(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Difference; integers wrap."""
    dtype = lhs.dtype
    if dtype in NATIVE_ARITH:
        return np.subtract(lhs, rhs)
    if is_bool(dtype):
        raise unsupported("subtract", dtype)
    if is_int(dtype):
        return int_op(np.subtract, lhs, rhs)
    if is_complex(dtype):
        return lhs - rhs
    return float_op(np.subtract, dtype, lhs, rhs)


@define_op("stablehlo.multiply", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(ANY - {AXIS_QUANT}))  # HLO_Tensor
def multiply(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Product; integers wrap, i1 is logical and, complex parts are rounded per product."""
    dtype = lhs.dtype
    if dtype in NATIVE_INTS or dtype in NATIVE_FLOATS:
        return np.multiply(lhs, rhs)
    if is_bool(dtype):
        return np.logical_and(lhs, rhs)
    if is_int(dtype):
        return int_op(np.multiply, lhs, rhs)
    if is_complex(dtype):
        return complex_multiply(lhs, rhs)
    return float_op(np.multiply, dtype, lhs, rhs)


def complex_multiply(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """(a+bi)(c+di) = (ac - bd) + (ad + bc)i with every product rounded to the part type."""
    ar, ai, br, bi = lhs.real, lhs.imag, rhs.real, rhs.imag
    with np.errstate(all="ignore"):
        return make_complex(ar * br - ai * bi, ar * bi + ai * br, lhs.dtype)


def _magnitude(x: np.ndarray) -> np.ndarray:
    """|x| of signed values as uint64 (exact even for INT64_MIN)."""
    bits = x.astype(np.int64).view(np.uint64)
    return np.where(x < 0, np.uint64(0) - bits, bits)


def _integer_divmod(lhs: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Truncating quotient and remainder as uint64 bit patterns; the divisor is 1 where it
    is 0 (callers patch those elements)."""
    a, b = widen(lhs), widen(rhs)
    if not is_signed(lhs.dtype):
        safe = np.where(b == 0, np.uint64(1), b)
        return a // safe, a % safe
    ua, ub = _magnitude(a), _magnitude(b)
    ub = np.where(ub == 0, np.uint64(1), ub)
    q, r = ua // ub, ua % ub
    with np.errstate(over="ignore"):
        q = np.where((a < 0) != (b < 0), np.uint64(0) - q, q)
        r = np.where(a < 0, np.uint64(0) - r, r)
    return q, r


@define_op("stablehlo.divide", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(NUMERIC))
def divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Quotient; integer division truncates toward zero, INT_MIN / -1 wraps to INT_MIN and
    x / 0 gives -1 (all bits set), as XLA defines it."""
    dtype = lhs.dtype
    if is_int(dtype):
        q, _ = _integer_divmod(lhs, rhs)
        q = np.where(widen(rhs) == 0, np.uint64(0xFFFFFFFFFFFFFFFF), q)
        return from_bits(q, dtype)
    if is_complex(dtype):
        return round_complex(divide_complex(lhs.astype(np.complex128), rhs.astype(np.complex128)),
                             dtype)
    if is_bool(dtype):
        raise unsupported("divide", dtype)
    return float_op(np.divide, dtype, lhs, rhs)


@define_op("stablehlo.remainder", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(NUMERIC))
def remainder(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Remainder with the sign of the dividend (C fmod); x % 0 gives x, as XLA defines it."""
    dtype = lhs.dtype
    if is_int(dtype):
        _, r = _integer_divmod(lhs, rhs)
        r = np.where(widen(rhs) == 0, to_bits(lhs), r)
        return from_bits(r, dtype)
    if is_float(dtype):  # fmod is exact, so computing in f64 is exact
        return float_remainder(lhs, rhs)
    raise unsupported("remainder", dtype)


@define_op("stablehlo.power", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(NUMERIC))
def power(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """lhs ** rhs. Integers: exact wrapping power; a negative exponent gives 0 unless
    |lhs| = 1. Floats and complex: std::pow in double, rounded once."""
    dtype = lhs.dtype
    if is_int(dtype):
        return integer_power(lhs, rhs)
    if is_complex(dtype):
        def cpow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            # A zero base (C99 cpow, XLA): 0^0 = 1, 0^(positive real) = 0, otherwise NaN.
            general = libm.exp(y * libm.log(np.where(x == 0, 1, x)))
            at_zero = np.where(y == 0, 1 + 0j, np.where((y.real > 0) & (y.imag == 0), 0j,
                                                         complex(np.nan, np.nan)))
            return np.where(x == 0, at_zero, general)
        return upcast_to_double(cpow, dtype, lhs, rhs)
    if is_float(dtype):
        if dtype != np.float64:  # (f64: numpy's pow is not the C library's bit for bit)
            return rounded_power(lhs, rhs, rounder(dtype))
        return upcast_to_double(libm.power, dtype, lhs, rhs)
    raise unsupported("power", dtype)


def integer_power(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    dtype = lhs.dtype
    width = num_bits(dtype)
    base = to_bits(lhs)
    exponent = to_bits(rhs)
    zero_result = np.zeros(np.broadcast_shapes(base.shape, exponent.shape), bool)
    if is_signed(dtype):
        negative = widen(rhs) < 0
        unit = np.abs(widen(lhs)) == 1
        zero_result = negative & ~unit
        negated = (np.uint64(0) - exponent) & np.uint64((1 << width) - 1) if width < 64 \
            else np.uint64(0) - exponent
        with np.errstate(over="ignore"):
            exponent = np.where(negative & unit, negated, exponent)
    result = np.ones(zero_result.shape, np.uint64)
    base = np.broadcast_to(base, result.shape).copy()
    exponent = np.broadcast_to(exponent, result.shape).copy()
    with np.errstate(over="ignore"):
        for _ in range(width):
            if not exponent.any():
                break
            odd = (exponent & np.uint64(1)) != 0
            result = np.where(odd, result * base, result)
            base = base * base
            exponent = exponent >> np.uint64(1)
    result[zero_result] = 0
    return from_bits(result, dtype)


@define_op("stablehlo.maximum", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(ANY - {AXIS_QUANT}))  # HLO_Tensor
def maximum(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Larger element; NaN propagates, +0 > -0; complex is lexicographic."""
    return _extremum(lhs, rhs, largest=True)


@define_op("stablehlo.minimum", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(ANY - {AXIS_QUANT}))  # HLO_Tensor
def minimum(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Smaller element; NaN propagates, -0 < +0; complex is lexicographic."""
    return _extremum(lhs, rhs, largest=False)


def _extremum(lhs: np.ndarray, rhs: np.ndarray, largest: bool) -> np.ndarray:
    dtype = lhs.dtype
    if dtype in NATIVE_INTS:
        return np.maximum(lhs, rhs) if largest else np.minimum(lhs, rhs)
    if is_bool(dtype):
        return np.logical_or(lhs, rhs) if largest else np.logical_and(lhs, rhs)
    if is_complex(dtype):
        ar, ai, br, bi = lhs.real, lhs.imag, rhs.real, rhs.imag
        if largest:
            pick = np.where(ar == br, ai > bi, ar > br)
        else:
            pick = np.where(ar == br, ai < bi, ar < br)
        return np.where(pick, lhs, rhs).astype(dtype)
    a, b = widen(lhs), widen(rhs)  # (narrower floats: a signalling NaN made quiet)
    out = np.maximum(a, b) if largest else np.minimum(a, b)
    if is_float(dtype):
        out = quiet_nans(out)  # IEEE-754 maximum/minimum: a quiet NaN, f64 too
        zeros = (a == 0) & (b == 0)
        if zeros.any():
            neg_a = np.signbit(a)
            both = np.where(neg_a, b, a) if largest else np.where(neg_a, a, b)
            out = np.where(zeros, both, out)
    return np.asarray(out).astype(dtype)


# ---- bitwise and logical ------------------------------------------------------------------


def _bitwise(fn: Any, logical: Any, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if is_bool(lhs.dtype):
        return logical(lhs, rhs)
    if not is_int(lhs.dtype):
        raise unsupported("bitwise operation", lhs.dtype)
    return int_op(fn, lhs, rhs)


@define_op("stablehlo.and", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(LOGICAL))
def and_(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Bitwise (logical for i1) and."""
    return _bitwise(np.bitwise_and, np.logical_and, lhs, rhs)


@define_op("stablehlo.or", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(LOGICAL))
def or_(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Bitwise (logical for i1) or."""
    return _bitwise(np.bitwise_or, np.logical_or, lhs, rhs)


@define_op("stablehlo.xor", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(LOGICAL))
def xor(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Bitwise (logical for i1) exclusive or."""
    return _bitwise(np.bitwise_xor, np.logical_xor, lhs, rhs)


@define_op("stablehlo.not", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(LOGICAL))
def not_(operand: np.ndarray) -> np.ndarray:
    """Bitwise (logical for i1) complement."""
    if is_bool(operand.dtype):
        return np.logical_not(operand)
    return from_bits(~to_bits(operand), operand.dtype)


def _shift_amount(lhs: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The shift amount read as an unsigned width-bit number, and where it is >= width."""
    amount = to_bits(rhs)
    too_far = amount >= np.uint64(num_bits(lhs.dtype))
    return np.where(too_far, np.uint64(0), amount), too_far


@define_op("stablehlo.shift_left", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(INTEGERS))
def shift_left(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """lhs << rhs; shifting by the width or more gives 0."""
    amount, too_far = _shift_amount(lhs, rhs)
    out = np.where(too_far, np.uint64(0), to_bits(lhs) << amount)
    return from_bits(out, lhs.dtype)


@define_op("stablehlo.shift_right_logical", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(INTEGERS))
def shift_right_logical(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Logical lhs >> rhs; shifting by the width or more gives 0."""
    amount, too_far = _shift_amount(lhs, rhs)
    out = np.where(too_far, np.uint64(0), to_bits(lhs) >> amount)
    return from_bits(out, lhs.dtype)


@define_op("stablehlo.shift_right_arithmetic", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(INTEGERS))
def shift_right_arithmetic(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Arithmetic lhs >> rhs (sign-filling); shifting by the width or more leaves only copies
    of the sign bit."""
    dtype = lhs.dtype
    width = num_bits(dtype)
    amount, too_far = _shift_amount(lhs, rhs)
    bits = to_bits(lhs)
    signed = bits.view(np.int64) if width == 64 else (
        (bits ^ np.uint64(1 << (width - 1))).astype(np.int64) - (1 << (width - 1)))
    amount = np.where(too_far, np.uint64(width - 1), amount).astype(np.int64)
    return from_bits((signed >> amount).view(np.uint64), dtype)


@define_op("stablehlo.popcnt", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(INTEGERS))
def popcnt(operand: np.ndarray) -> np.ndarray:
    """Number of set bits."""
    return from_bits(np.bitwise_count(to_bits(operand)).astype(np.uint64), operand.dtype)


@define_op("stablehlo.count_leading_zeros", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(INTEGERS))
def count_leading_zeros(operand: np.ndarray) -> np.ndarray:
    """Number of leading zero bits at the element width."""
    bits = to_bits(operand)
    length = np.zeros(bits.shape, np.uint64)
    for shift in (32, 16, 8, 4, 2, 1):
        step = np.uint64(shift)
        high = (bits >> step) != 0
        length = np.where(high, length + step, length)
        bits = np.where(high, bits >> step, bits)
    length = length + (bits != 0).astype(np.uint64)
    return from_bits(np.uint64(num_bits(operand.dtype)) - length, operand.dtype)


# ---- unary arithmetic -----------------------------------------------------------------------


@define_op("stablehlo.negate", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(NUMERIC))
def negate(operand: np.ndarray) -> np.ndarray:
    """-x; integers wrap (-INT_MIN = INT_MIN)."""
    dtype = operand.dtype
    if is_int(dtype):
        return from_bits(np.uint64(0) - to_bits(operand), dtype)
    if is_complex(dtype):
        return -operand
    if is_bool(dtype):
        raise unsupported("negate", dtype)
    if dtype.itemsize in _SIGN_BIT:  # only the sign bit changes: NaN payloads (sNaN) are kept
        bits = operand.view(_SIGN_BIT[dtype.itemsize][0])
        return (bits ^ _SIGN_BIT[dtype.itemsize][1]).view(dtype)
    return np.negative(widen(operand)).astype(dtype)


# Storage ints of 16/32/64-bit floats (f16, bf16, f32, f64) and their sign-bit masks.
_SIGN_BIT = lazy(lambda: {2: (np.uint16, np.uint16(0x8000)), 4: (np.uint32, np.uint32(0x80000000)),
             8: (np.uint64, np.uint64(0x8000000000000000))})


@define_op("stablehlo.abs", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(SIGNED_NUMERIC, SIGNED_REAL, same_types=False, then=verify_abs))
def abs_(operand: np.ndarray, *, result_type: Any = None) -> np.ndarray:
    """|x|; |INT_MIN| = INT_MIN; complex gives the modulus, computed in double."""
    dtype = operand.dtype
    if is_int(dtype):
        return from_bits(np.abs(widen(operand)).astype(np.int64).view(np.uint64)
                         if is_signed(dtype) else widen(operand), dtype)
    if is_complex(dtype):
        parts = complex_parts_dtype(dtype)
        return np.abs(operand.astype(np.complex128)).astype(parts)
    if is_bool(dtype):
        raise unsupported("abs", dtype)
    if dtype.itemsize in _SIGN_BIT:  # only the sign bit is cleared: NaN payloads are kept
        bits = np.asarray(operand).view(_SIGN_BIT[dtype.itemsize][0])
        return (bits & ~_SIGN_BIT[dtype.itemsize][1]).view(dtype)
    return np.abs(widen(operand)).astype(dtype)


@define_op("stablehlo.sign", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(SIGNED_NUMERIC))
def sign(operand: np.ndarray) -> np.ndarray:
    """-1, 0 or 1 (floats keep ±0 and NaN; complex is x / |x|)."""
    dtype = operand.dtype
    if is_int(dtype):
        w = widen(operand)
        return np.sign(w).astype(dtype)
    if is_complex(dtype):
        nan = np.isnan(operand.real) | np.isnan(operand.imag)
        zero = (operand.real == 0) & (operand.imag == 0)
        modulus = abs_(operand).astype(np.float64)
        with np.errstate(all="ignore"):
            unit = divide_complex(operand.astype(np.complex128),
                                  np.where(zero | nan, 1.0, modulus).astype(np.complex128))
        out = round_complex(unit, dtype)
        out = np.where(zero, np.zeros((), dtype), out)
        return np.where(nan, np.array(complex(np.nan, np.nan), dtype), out)
    if is_bool(dtype):
        raise unsupported("sign", dtype)
    x = widen(operand)
    return np.where(x > 0, 1.0, np.where(x < 0, -1.0, x)).astype(dtype)


def _round(operand: np.ndarray, fn: Any) -> np.ndarray:
    """`fn` rounds to an integral value, which every float type holds exactly: f32 and f64
    round in place of their own type (the same bits as through float64, NaN payloads
    included), narrower types through float64."""
    dtype = operand.dtype
    if not is_float(dtype):
        raise unsupported("rounding", dtype)
    if dtype == np.float32 or dtype == np.float64:
        with np.errstate(invalid="ignore"):  # (signaling NaNs come out quiet, as widened)
            return np.asarray(fn(operand), dtype)
    return fn(widen(operand)).astype(dtype)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """Ties away from zero in three vectorized passes: trunc(x + copysign(h, x)) with h the
    float just below one half, in x's own type. The sum rounds up to the next integer
    exactly when x's fraction is at least a half (a fraction below it stays below the next
    integer: h leaves room for the sum's rounding); NaN keeps its payload, quieted, as trunc
    gives it. (np.where on a tie mask mispredicts: ten times the whole cost.)"""
    half_below = np.nextafter(x.dtype.type(0.5), x.dtype.type(0))
    return np.trunc(x + np.copysign(half_below, x))


@define_op("stablehlo.ceil", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(REAL_FLOAT))
def ceil(operand: np.ndarray) -> np.ndarray:
    """Round toward +inf."""
    return _round(operand, np.ceil)


@define_op("stablehlo.floor", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(REAL_FLOAT))
def floor(operand: np.ndarray) -> np.ndarray:
    """Round toward -inf."""
    return _round(operand, np.floor)


@define_op("stablehlo.round_nearest_even", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(REAL_FLOAT))
def round_nearest_even(operand: np.ndarray) -> np.ndarray:
    """Round to nearest, ties to even."""
    return _round(operand, np.rint)


@define_op("stablehlo.round_nearest_afz", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(REAL_FLOAT))
def round_nearest_afz(operand: np.ndarray) -> np.ndarray:
    """Round to nearest, ties away from zero."""
    return _round(operand, _round_half_away)


@define_op("stablehlo.is_finite", operands=("x",), results=1,
           syntax=Format("$x", operands=("x",), types="functional"),
           verify=elementwise(REAL_FLOAT, frozenset((PRED,)), False, verify_is_finite))
def is_finite(x: np.ndarray) -> np.ndarray:
    """Neither infinite nor NaN."""
    return np.isfinite(widen(x))


# ---- complex ---------------------------------------------------------------------------------


@define_op("stablehlo.real", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(FLOAT_OR_COMPLEX, frozenset((FLOAT,)), False, verify_real_imag))
def real(operand: np.ndarray) -> np.ndarray:
    """Real part (a float operand is its own real part)."""
    if is_complex(operand.dtype):
        return operand.real.copy()
    return operand


@define_op("stablehlo.imag", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(FLOAT_OR_COMPLEX, frozenset((FLOAT,)), False, verify_real_imag))
def imag(operand: np.ndarray) -> np.ndarray:
    """Imaginary part (zero for a float operand)."""
    if is_complex(operand.dtype):
        return operand.imag.copy()
    return np.zeros(operand.shape, operand.dtype)
