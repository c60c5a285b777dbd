"""Element storage without numpy: MLIR's little-endian bytes for the common element types.

Parsing, printing and (de)serializing a program never needs numpy when its dense literals
are bool, 8- to 64-bit integers, index, f16/bf16/f32/f64 or complex of f32/f64: such elements stay
the bytes MLIR itself stores (`struct` packs and unpacks them; Python's `struct` rounds a
double to f32/f16 to nearest-even exactly as numpy's cast does; bf16 is rounded here with
integer arithmetic, once, as `dense.round_to_dtype` rounds it), and become a numpy array only
when something computes with them. Other element types (f8*, i4, ...) go through numpy.
"""

from __future__ import annotations

import math
import struct

from .types import ComplexType, FloatType, IndexType, IntegerType, Type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Kind = Literal["bool", "int", "float", "complex"]

# Float name -> (struct code of the value, struct code of its bit pattern, bytes).
FLOAT_CODES = {"f16": ("e", "H", 2), "f32": ("f", "I", 4), "f64": ("d", "Q", 8)}
_INT_CODES = {8: "b", 16: "h", 32: "i", 64: "q"}
# bf16: (exponent bits, stored mantissa bits, bias); its values are the top half of an f32.
_BF16 = (8, 7, 127)
_BF16_MAX = float.fromhex("0x1.fep127")


class Layout:
    """How one element of a numpy-free type is stored: ``kind``, the struct ``code`` that
    reads it as an integer (the bit pattern for floats, each half for complex), ``size`` in
    bytes, and for floats the ``float_name`` (f16/f32/f64)."""

    __slots__ = ("kind", "code", "size", "float_name")

    def __init__(self, kind: Kind, code: str, size: int, float_name: str = "") -> None:
        self.kind = kind
        self.code = code
        self.size = size
        self.float_name = float_name


_LAYOUTS: dict[Type, Layout | None] = {}


def layout(etype: Type) -> Layout | None:
    """The storage of element type `etype` if it needs no numpy, else None."""
    try:
        return _LAYOUTS[etype]
    except KeyError:
        pass
    found: Layout | None = None
    if isinstance(etype, IntegerType):
        if etype.width == 1:
            found = Layout("bool", "B", 1)
        elif etype.width in _INT_CODES:
            code = _INT_CODES[etype.width]
            found = Layout("int", code.upper() if etype.is_unsigned else code, etype.width // 8)
    elif isinstance(etype, IndexType):
        found = Layout("int", "q", 8)
    elif isinstance(etype, FloatType) and etype.name in FLOAT_CODES:
        _, bits, size = FLOAT_CODES[etype.name]
        found = Layout("float", bits, size, etype.name)
    elif isinstance(etype, FloatType) and etype.name == "bf16":
        found = Layout("float", "H", 2, "bf16")
    elif isinstance(etype, ComplexType):
        inner = etype.element
        if isinstance(inner, FloatType) and inner.name in ("f32", "f64"):
            _, bits, size = FLOAT_CODES[inner.name]
            found = Layout("complex", bits, 2 * size, inner.name)
    _LAYOUTS[etype] = found
    return found


def float_bits(value: float, name: str) -> int:
    """The bit pattern of `value` rounded (to nearest, ties to even) into f16/f32/f64; values
    past the largest finite one become infinities, as numpy's cast makes them. (A NaN keeps
    the top bits of its payload; `struct` drops an f16 NaN's, so numpy casts that one.)"""
    if name == "bf16":
        return _bf16_bits(value)
    code, _, _ = FLOAT_CODES[name]
    if name == "f16" and value != value:
        import numpy as np

        return int(np.array([value], np.float64).astype(np.float16).view(np.uint16)[0])
    try:
        raw = struct.pack("<" + code, value)
    except OverflowError:
        raw = struct.pack("<" + code, math.copysign(math.inf, value))
    return int.from_bytes(raw, "little")


def bits_float(bits: int, name: str) -> float:
    """The f16/f32/f64 value whose bit pattern is `bits` (an f16 NaN through numpy, which
    keeps its payload where `struct` does not)."""
    if name == "bf16":
        return float(struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0])
    code, bits_code, _ = FLOAT_CODES[name]
    if name == "f16" and bits & 0x7C00 == 0x7C00 and bits & 0x3FF:
        import numpy as np

        return float(np.array([bits], np.uint16).view(np.float16)[0])
    return float(struct.unpack("<" + code, struct.pack("<" + bits_code, bits))[0])


def _bf16_bits(value: float) -> int:
    """`value` rounded once, to nearest-even, into bf16 (NaN: the quiet NaN of its sign)."""
    if value != value:
        return 0xFFC0 if math.copysign(1.0, value) < 0 else 0x7FC0
    negative = math.copysign(1.0, value) < 0
    magnitude = abs(value)
    if magnitude > _BF16_MAX:  # overflow: as the numpy path (`round_to_dtype`) decides it
        import numpy as np

        from .dense import round_to_dtype
        from .types import FloatType, numpy_dtype

        bf16 = numpy_dtype(FloatType("bf16"))
        with np.errstate(all="ignore"):
            return int(round_to_dtype(np.array([value]), bf16).view(np.uint16)[0])
    ebits, mbits, bias = _BF16
    sign = int(negative) << (ebits + mbits)
    if magnitude == 0:
        return sign
    bits: int = struct.unpack("<Q", struct.pack("<d", magnitude))[0]
    exp, mant = bits >> 52, bits & ((1 << 52) - 1)
    sig, exp2 = (mant, -1074) if exp == 0 else (mant | (1 << 52), exp - 1075)
    top = exp2 + sig.bit_length() - 1  # floor(log2(magnitude))
    quantum = max(top, 1 - bias) - mbits  # exponent of one unit in the last place
    shift = quantum - exp2
    if shift <= 0:
        n = sig << -shift
    else:
        n, rest = sig >> shift, sig & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and n & 1):
            n += 1
    if n >= 1 << (mbits + 1):  # rounded up into the next binade
        n >>= 1
        quantum += 1
    if n < 1 << mbits:  # subnormal
        return sign | n
    return sign | ((quantum + mbits + bias) << mbits) | (n - (1 << mbits))


def unpack(raw: bytes, lay: Layout) -> tuple[int, ...]:
    """Every stored integer of `raw`: elements (bool as 0/1), float bit patterns, or the
    (real, imaginary) bit patterns of complex elements, flattened."""
    size = lay.size // 2 if lay.kind == "complex" else lay.size
    return struct.unpack(f"<{len(raw) // size}{lay.code}", raw)


def all_equal(raw: bytes, size: int) -> bool:
    """Whether every `size`-byte element of `raw` has the same bytes (MLIR's splat test)."""
    return raw[:size] * (len(raw) // size) == raw
