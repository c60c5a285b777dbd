"""Float formatting exactly as MLIR's printer does it (`printFloatValue` + APFloat::toString).

MLIR first prints the value with 6 significant digits in scientific form (`1.000000e+00`)
and keeps that text when reading it back gives the same bits; otherwise it prints APFloat's
default form (enough digits for the type, e.g. `3.14159274`); when that has no `.` (an
integral value like `16777216`), or the value is Inf/NaN, it prints the raw bits in hex
(`0x4B800000`). APFloat's digit generation is reproduced exactly, including its truncating
pre-reduction of very long significands, with integer arithmetic only.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .storage import FLOAT_CODES, bits_float, float_bits
from .types import FloatType, Type, numpy_dtype

# (exponent bits, stored mantissa bits, bias, has sign bit, has subnormals) per float type.
_LAYOUT = {
    "f64": (11, 52, 1023, True, True), "f32": (8, 23, 127, True, True),
    "f16": (5, 10, 15, True, True), "bf16": (8, 7, 127, True, True),
    "tf32": (8, 10, 127, True, True),
    "f8E5M2": (5, 2, 15, True, True), "f8E4M3": (4, 3, 7, True, True),
    "f8E4M3FN": (4, 3, 7, True, True), "f8E4M3FNUZ": (4, 3, 8, True, True),
    "f8E4M3B11FNUZ": (4, 3, 11, True, True), "f8E5M2FNUZ": (5, 2, 16, True, True),
    "f8E3M4": (3, 4, 3, True, True), "f8E8M0FNU": (8, 0, 127, False, False),
    "f6E2M3FN": (2, 3, 1, True, True), "f6E3M2FN": (3, 2, 3, True, True),
    "f4E2M1FN": (2, 1, 1, True, True),
}


TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction


class _Ratio:
    """An exact non-negative rational `numerator / denominator` (a power of two): what
    `apfloat_to_string` reads of a hardware float, without importing `fractions` (~5 ms of
    a launch) for the common f64/f32/f16 values."""

    __slots__ = ("numerator", "denominator")

    def __init__(self, numerator: int, denominator: int) -> None:
        self.numerator = numerator
        self.denominator = denominator


# Types `struct` (and numpy) convert a double to with a single correct rounding.
_NATIVE = FLOAT_CODES


def _precision(name: str) -> int:
    """Significand precision in bits, including the implicit bit (APFloat `precision`)."""
    return _LAYOUT[name][1] + 1


def _magnitude(name: str, mag_bits: int) -> Fraction:
    """The value of a non-negative bit pattern, continuing the exponent range past the largest
    finite value (so the neighbour of the largest finite value is a virtual next step)."""
    from fractions import Fraction

    ebits, mbits, bias, _, subnormals = _LAYOUT[name]
    e = mag_bits >> mbits
    m = mag_bits & ((1 << mbits) - 1)
    if e == 0 and subnormals:
        sig, exp2 = m, 1 - bias - mbits
    else:
        sig, exp2 = (1 << mbits) + m, e - bias - mbits
    return Fraction(sig << exp2) if exp2 >= 0 else Fraction(sig, 1 << -exp2)


def apfloat_to_string(negative: bool, value: Fraction | _Ratio, precision_bits: int,
                      format_precision: int = 0, max_padding: int = 3,
                      truncate_zero: bool = True) -> str:
    """APFloat::toString for a finite value (`value` >= 0, sign given separately)."""
    sign = "-" if negative else ""
    if value.numerator == 0:
        if max_padding:
            return sign + "0"
        if truncate_zero:
            return sign + "0.0E+0"
        return sign + "0.0" + "0" * (format_precision - 1) + "e+00"
    if format_precision == 0:
        format_precision = 2 + precision_bits * 59 // 196
    sig, den = value.numerator, value.denominator
    exp = 0
    if den != 1:  # den is a power of two
        exp = -(den.bit_length() - 1)
    trailing = (sig & -sig).bit_length() - 1
    sig >>= trailing
    exp += trailing
    if exp > 0:
        sig <<= exp
        exp = 0
    elif exp < 0:
        sig *= 5 ** (-exp)  # now sig * 10**exp
    bits = sig.bit_length()
    needed = (format_precision * 196 + 58) // 59
    if bits > needed:
        cut = (bits - needed) * 59 // 196
        if cut > 0:
            sig //= 10 ** cut
            exp += cut
    digits = str(sig)
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    digits = stripped
    if len(digits) > format_precision:
        dropped = len(digits) - format_precision
        first_dropped = digits[format_precision]
        kept = digits[:format_precision]
        exp += dropped
        if first_dropped >= "5":
            kept = str(int(kept) + 1)
        stripped = kept.rstrip("0")
        exp += len(kept) - len(stripped)
        digits = stripped
    count = len(digits)
    if max_padding == 0:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or count + exp > format_precision
    else:
        msd = exp + count - 1
        scientific = msd < 0 and -msd > max_padding
    if scientific:
        out = sign + digits[0] + "."
        if count == 1 and truncate_zero:
            out += "0"
        else:
            out += digits[1:]
        if not truncate_zero and format_precision > count - 1:
            out += "0" * (format_precision - count + 1)
        e10 = exp + count - 1
        out += "E" if truncate_zero else "e"
        out += "+" if e10 >= 0 else "-"
        e_text = str(abs(e10))
        if not truncate_zero and len(e_text) < 2:
            e_text = "0" + e_text
        return out + e_text
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + count
    if whole > 0:
        return sign + digits[:whole] + "." + digits[whole:]
    return sign + "0." + "0" * (-whole) + digits


def _round_trips(text: str, name: str, mag_bits: int, value: Fraction) -> bool:
    """Whether parsing `text` (a magnitude) into type `name` gives back `mag_bits` exactly
    (round to nearest, ties to even), decided with exact rational arithmetic."""
    from fractions import Fraction

    parsed = Fraction(text.lstrip("-"))
    if parsed == value:
        return True
    up = _magnitude(name, mag_bits + 1)
    if parsed > value:
        mid = (value + up) / 2
        return parsed < mid or (parsed == mid and mag_bits % 2 == 0)
    if mag_bits == 0:  # only f8E8M0FNU has no zero below its smallest value
        down = value / 2
    else:
        down = _magnitude(name, mag_bits - 1)
    mid = (value + down) / 2
    return parsed > mid or (parsed == mid and mag_bits % 2 == 0)


def _bits_of(value: float | np.generic, ftype: FloatType) -> int:
    """The raw bit pattern of `value` stored in `ftype`."""
    if ftype.name in _NATIVE and type(value) in (float, int, bool):  # no numpy needed
        return float_bits(float(value), ftype.name)
    dtype = numpy_dtype(ftype)
    arr = np.asarray(value)
    if arr.dtype != dtype:
        arr = arr.astype(dtype)
    raw = arr.reshape(1).view(np.uint8 if dtype.itemsize == 1 else f"u{dtype.itemsize}")
    width = _LAYOUT[ftype.name][0] + _LAYOUT[ftype.name][1] + _LAYOUT[ftype.name][3]
    return int(raw[0]) & ((1 << width) - 1)


@lru_cache(maxsize=1 << 16)
def format_float_bits(bits: int, name: str) -> str:
    """MLIR's text for the float of type `name` whose raw bit pattern is `bits`."""
    ebits, mbits, bias, signed, _ = _LAYOUT[name]
    width = ebits + mbits + int(signed)
    negative = signed and bool(bits >> (width - 1))
    mag_bits = bits & ((1 << (width - 1)) - 1) if signed else bits
    if not _is_finite(name, mag_bits, negative):
        return f"0x{bits:X}"
    precision = _precision(name)
    if name in _NATIVE:  # value straight from the hardware float: exact
        ratio = _Ratio(*abs(bits_float(bits, name)).as_integer_ratio())
        text = apfloat_to_string(negative, ratio, precision, 6, 0, False)
        # Reading 6 significant digits back: Python's float() rounds correctly to f64, and
        # the f64 -> f32/f16 rounding cannot double-round a number this short.
        if float_bits(float(text), name) == bits:
            return text
        text = apfloat_to_string(negative, ratio, precision)
    else:
        from fractions import Fraction

        value = _magnitude(name, mag_bits) if (mag_bits or name == "f8E8M0FNU") else Fraction(0)
        text = apfloat_to_string(negative, value, precision, 6, 0, False)
        if _round_trips(text, name, mag_bits, value):
            return text
        text = apfloat_to_string(negative, value, precision)
    if "." in text:
        return text
    return f"0x{bits:X}"


def _is_finite(name: str, mag_bits: int, negative: bool) -> bool:
    ebits, mbits, _, _, _ = _LAYOUT[name]
    all_ones = (1 << (ebits + mbits)) - 1
    if name in ("f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ"):
        return not (negative and mag_bits == 0)  # 0x80 is the only NaN
    if name == "f8E8M0FNU":
        return mag_bits != 0xFF
    if name in ("f8E4M3FN",):
        return mag_bits != all_ones
    if name in ("f6E2M3FN", "f6E3M2FN", "f4E2M1FN"):
        return True
    return (mag_bits >> mbits) != (1 << ebits) - 1


def format_float(value: float | np.generic, ftype: Type) -> str:
    """Format one float of type `ftype` the way MLIR prints it in attributes."""
    if not isinstance(ftype, FloatType) or ftype.name not in _LAYOUT:
        ftype = FloatType("f64")
    return format_float_bits(_bits_of(value, ftype), ftype.name)


def format_float_array(values: np.ndarray, ftype: FloatType) -> list[str]:
    """Format every element of a float array (the elements keep their exact type)."""
    dtype = numpy_dtype(ftype)
    flat = np.ascontiguousarray(values.reshape(-1).astype(dtype, copy=False))
    raw = flat.view(np.uint8 if dtype.itemsize == 1 else f"u{dtype.itemsize}")
    layout = _LAYOUT[ftype.name]
    mask = (1 << (layout[0] + layout[1] + int(layout[3]))) - 1
    name = ftype.name
    return [format_float_bits(b & mask, name) for b in raw.tolist()]
