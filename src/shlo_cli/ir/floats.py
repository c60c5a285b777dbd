"""Float formatting exactly as MLIR's printer does it (APFloat::toString rules).

MLIR first tries a 6-digit scientific form (`1.000000e+00`) and keeps it when it reads back
to the same bits; otherwise it prints APFloat's shortest-ish default form (`3.14159274`),
and for values where that has no `.` (or inf/nan) the raw bits in hex (`0x7FC00000`).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Context, Decimal
from functools import lru_cache

import numpy as np

from .types import FloatType, Type, numpy_dtype

# Significand precision (incl. the implicit bit) of each float type, as APFloat defines it.
_PRECISION = {
    "f16": 11, "bf16": 8, "f32": 24, "f64": 53, "tf32": 11,
    "f4E2M1FN": 2, "f6E2M3FN": 4, "f6E3M2FN": 3, "f8E3M4": 5, "f8E4M3": 4, "f8E4M3FN": 4,
    "f8E4M3FNUZ": 4, "f8E4M3B11FNUZ": 4, "f8E5M2": 3, "f8E5M2FNUZ": 3, "f8E8M0FNU": 1,
}


def _digits(value: float, precision: int) -> tuple[str, int]:
    """Decimal digits of |value| rounded half-up to `precision` significant digits, trailing
    zeros dropped; returns (digits, exponent of the last digit)."""
    d = Decimal(abs(value))
    if d == 0:
        return "0", 0
    ctx = Context(prec=precision, rounding=ROUND_HALF_UP)
    d = ctx.plus(d).normalize(ctx)
    sign, digits, exp = d.as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    exp += len(digits) - len(text)
    return text, exp


def _scientific(value: float, precision: int, truncate_zero: bool) -> str:
    digits, exp = _digits(value, precision)
    exp += len(digits) - 1
    mantissa = digits[0] + "." + (digits[1:] or ("0" if truncate_zero else ""))
    if not truncate_zero:
        mantissa += "0" * (precision - len(digits) + 1)
    sign = "-" if np.signbit(value) else ""
    exp_text = str(abs(exp)).rjust(1 if truncate_zero else 2, "0")
    return f"{sign}{mantissa}{'E' if truncate_zero else 'e'}{'+' if exp >= 0 else '-'}{exp_text}"


def _default_form(value: float, precision_bits: int) -> str:
    """APFloat::toString() with its defaults (precision from the type, padding 3)."""
    precision = 2 + precision_bits * 59 // 196
    digits, exp = _digits(value, precision)
    n = len(digits)
    if exp >= 0:
        scientific = exp > 3 or n + exp > precision
    else:
        msd = exp + n - 1
        scientific = msd < 0 and -msd > 3
    if scientific:
        return _scientific(value, precision, truncate_zero=True)
    sign = "-" if np.signbit(value) else ""
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + n
    if whole > 0:
        return sign + digits[:whole] + "." + digits[whole:]
    return sign + "0." + "0" * (-whole) + digits


def _hex_bits(value: np.generic, ftype: FloatType) -> str:
    width = ftype.width
    raw = np.asarray(value).reshape(1).view(np.uint8 if width <= 8 else f"u{width // 8}")
    bits = int(raw[0])
    if width < 8:
        bits &= (1 << width) - 1
    return f"0x{bits:X}"


@lru_cache(maxsize=65536)
def _format_cached(value: float, bits_key: int, name: str) -> str:
    ftype = FloatType(name)
    dtype = numpy_dtype(ftype)
    scalar = np.array([value]).astype(dtype)[0]
    if not np.isfinite(float(scalar)):
        return _hex_bits(scalar, ftype)
    precision_bits = _PRECISION[name]
    text = _scientific(float(scalar), 6, truncate_zero=False)
    if _same_bits(np.array([float(text)]).astype(dtype)[0], scalar):
        return text
    text = _default_form(float(scalar), precision_bits)
    if "." in text:
        return text
    return _hex_bits(scalar, ftype)


def _same_bits(a: np.generic, b: np.generic) -> bool:
    return np.asarray(a).tobytes() == np.asarray(b).tobytes()


def format_float(value: float | np.generic, ftype: Type) -> str:
    """Format one float of type `ftype` the way MLIR prints it in attributes."""
    if not isinstance(ftype, FloatType):
        ftype = FloatType("f64")
    v = float(value)
    # Keep -0.0 and nan payloads apart in the cache key.
    key = int(np.array([v]).view(np.uint64)[0])
    if v != v:  # nan: format from the exact bits of the typed value
        return _hex_bits(np.asarray(value).astype(numpy_dtype(ftype)), ftype)
    return _format_cached(v, key, ftype.name)


def format_float_array(values: np.ndarray, ftype: FloatType) -> list[str]:
    """Format every element of a float array (the elements keep their exact type)."""
    flat = values.reshape(-1)
    out = []
    for x in flat:
        if np.isnan(x):
            out.append(_hex_bits(x, ftype))
        else:
            out.append(format_float(float(x), ftype))
    return out
