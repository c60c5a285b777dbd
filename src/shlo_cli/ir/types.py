"""MLIR types used by StableHLO programs.

Types are immutable and hashable so the parser can cache them by their text and the
interpreter can compare them cheaply. Every type prints itself in MLIR syntax via ``str``.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np

if TYPE_CHECKING:
    from .attributes import Attribute

DYNAMIC = -1
"""The size of a `?` dimension."""

# Encoding text -> its file-level alias (`#sparse`), set while the printer prints a module
# whose tensor encodings are hoisted into `#alias = ...` lines (see ir/printer.py).
ENCODING_ALIASES: ContextVar[dict[str, str] | None] = ContextVar("encoding_aliases",
                                                                  default=None)


class Type:
    """Base of every type."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class IntegerType(Type):
    width: int
    signedness: str = ""  # "" (signless), "s" or "u"

    def __str__(self) -> str:
        return f"{self.signedness}i{self.width}"

    @property
    def is_unsigned(self) -> bool:
        return self.signedness == "u"

    @property
    def is_bool(self) -> bool:
        return self.width == 1


@dataclass(frozen=True, slots=True)
class FloatType(Type):
    name: str  # as spelled in MLIR: f32, bf16, f8E4M3FN, ...

    def __str__(self) -> str:
        return self.name

    @property
    def width(self) -> int:
        return FLOAT_WIDTHS[self.name]


@dataclass(frozen=True, slots=True)
class IndexType(Type):
    def __str__(self) -> str:
        return "index"


@dataclass(frozen=True, slots=True)
class NoneType(Type):
    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True, slots=True)
class ComplexType(Type):
    element: Type

    def __str__(self) -> str:
        return f"complex<{self.element}>"


@dataclass(frozen=True, slots=True)
class TensorType(Type):
    shape: tuple[int, ...]
    element: Type
    encoding: Attribute | None = None
    # The printed text, made once: the parser shares type objects, so printing repeats.
    _text: str | None = field(default=None, init=False, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        text = self._text
        if text is None:
            dims = "".join(("?" if d == DYNAMIC else str(d)) + "x" for d in self.shape)
            enc = f", {self.encoding}" if self.encoding is not None else ""
            text = f"tensor<{dims}{self.element}{enc}>"
            object.__setattr__(self, "_text", text)
        if self.encoding is not None:
            aliases = ENCODING_ALIASES.get()
            encoding = str(self.encoding)
            alias = aliases.get(encoding) if aliases else None
            if alias is not None:  # `text` ends with `{encoding}>`
                return text[:-len(encoding) - 1] + f"{alias}>"
        return text

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return DYNAMIC not in self.shape

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def with_shape(self, shape: tuple[int, ...]) -> TensorType:
        return TensorType(tuple(shape), self.element, None)

    def with_element(self, element: Type) -> TensorType:
        return TensorType(self.shape, element, self.encoding)


@dataclass(frozen=True, slots=True)
class UnrankedTensorType(Type):
    element: Type

    def __str__(self) -> str:
        return f"tensor<*x{self.element}>"


@dataclass(frozen=True, slots=True)
class VectorType(Type):
    shape: tuple[int, ...]
    element: Type

    def __str__(self) -> str:
        return "vector<" + "".join(f"{d}x" for d in self.shape) + f"{self.element}>"


@dataclass(frozen=True, slots=True)
class TokenType(Type):
    def __str__(self) -> str:
        return "!stablehlo.token"


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    types: tuple[Type, ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(map(str, self.types)) + ">"


@dataclass(frozen=True, slots=True)
class FunctionType(Type):
    inputs: tuple[Type, ...]
    results: tuple[Type, ...]
    _text: str | None = field(default=None, init=False, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        text = self._text
        if text is None:
            ins = "(" + ", ".join(map(str, self.inputs)) + ")"
            if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
                text = f"{ins} -> {self.results[0]}"
            else:
                text = f"{ins} -> (" + ", ".join(map(str, self.results)) + ")"
            object.__setattr__(self, "_text", text)
        return text


@dataclass(frozen=True, slots=True)
class QuantizedType(Type):
    """`!quant.uniform<storage<min:max>:expressed[:axis], scale:zero_point | {..}>`."""

    storage: IntegerType
    expressed: Type
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    quantized_dimension: int | None = None  # None: per-tensor
    storage_min: int | None = None
    storage_max: int | None = None
    # Storage spelled as a builtin integer type (`ui8`, `si8`) rather than the quant
    # dialect's `i8` / `u8`: MLIR keeps (and prints) that spelling, so the types differ.
    builtin_storage: bool = False

    def __str__(self) -> str:
        # The quant dialect spells storage `i8` / `u8` (or as written: `ui8`, `si8`), drops a
        # storage range equal to the type's full range, and prints scales with `%e`.
        width = self.storage.width
        prefix = "u" if self.storage.is_unsigned else "i"
        if self.builtin_storage:
            prefix = f"{self.storage.signedness}i"
        storage = f"{prefix}{width}"
        lo, hi = ((0, (1 << width) - 1) if self.storage.is_unsigned
                  else (-(1 << (width - 1)), (1 << (width - 1)) - 1))
        if self.storage_min is not None and (self.storage_min, self.storage_max) != (lo, hi):
            storage += f"<{self.storage_min}:{self.storage_max}>"
        head = f"{storage}:{self.expressed}"
        if self.quantized_dimension is not None:
            head += f":{self.quantized_dimension}"

        def pair(s: float, z: int) -> str:
            text = f"{s:e}"
            return text if z == 0 else f"{text}:{z}"

        pairs = [pair(s, z) for s, z in zip(self.scales, self.zero_points, strict=True)]
        if self.quantized_dimension is not None:
            return f"!quant.uniform<{head}, {{{','.join(pairs)}}}>"
        return f"!quant.uniform<{head}, {pairs[0]}>"

    @property
    def is_per_axis(self) -> bool:
        return self.quantized_dimension is not None


@dataclass(frozen=True, slots=True)
class OpaqueType(Type):
    """A dialect type we keep as text (`!dialect.name<...>`)."""

    text: str

    def __str__(self) -> str:
        return self.text


FLOAT_WIDTHS = {
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 19, "f80": 80, "f128": 128,
    "f4E2M1FN": 4, "f6E2M3FN": 6, "f6E3M2FN": 6, "f8E3M4": 8, "f8E4M3": 8, "f8E4M3FN": 8,
    "f8E4M3FNUZ": 8, "f8E4M3B11FNUZ": 8, "f8E5M2": 8, "f8E5M2FNUZ": 8, "f8E8M0FNU": 8,
}

@cache
def _dtype_tables() -> tuple[dict[str, np.dtype], dict[int, np.dtype], dict[int, np.dtype]]:
    """(float name, signed width, unsigned width) -> dtype, built on first use: touching
    numpy's attributes loads it, which the tools that only parse and print never do."""
    floats = {
        "f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16),
        "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
        "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
        "f6E2M3FN": np.dtype(ml_dtypes.float6_e2m3fn),
        "f6E3M2FN": np.dtype(ml_dtypes.float6_e3m2fn), "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
        "f8E4M3": np.dtype(ml_dtypes.float8_e4m3), "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
        "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
        "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
        "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
        "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
        "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
    }
    signed = {
        2: np.dtype(ml_dtypes.int2), 4: np.dtype(ml_dtypes.int4), 8: np.dtype(np.int8),
        16: np.dtype(np.int16), 32: np.dtype(np.int32), 64: np.dtype(np.int64),
    }
    unsigned = {
        1: np.dtype(np.bool_), 2: np.dtype(ml_dtypes.uint2), 4: np.dtype(ml_dtypes.uint4),
        8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
        64: np.dtype(np.uint64),
    }
    return floats, signed, unsigned


BOOL = IntegerType(1)
I32 = IntegerType(32)
I64 = IntegerType(64)
F32 = FloatType("f32")
F64 = FloatType("f64")


class UnsupportedTypeError(ValueError):
    """Raised when an element type has no numpy representation."""


def numpy_dtype(t: Type) -> np.dtype:
    """The numpy dtype that holds values of the element type `t` exactly."""
    if isinstance(t, IntegerType):
        if t.width == 1:
            return np.dtype(np.bool_)
        _, signed, unsigned = _dtype_tables()
        table = unsigned if t.is_unsigned else signed
        if t.width in table:
            return table[t.width]
    elif isinstance(t, FloatType):
        floats = _dtype_tables()[0]
        if t.name in floats:
            return floats[t.name]
    elif isinstance(t, IndexType):
        return np.dtype(np.int64)
    elif isinstance(t, ComplexType):
        inner = numpy_dtype(t.element)
        if inner == np.float32:
            return np.dtype(np.complex64)
        if inner == np.float64:
            return np.dtype(np.complex128)
    elif isinstance(t, QuantizedType):
        return numpy_dtype(t.storage)
    raise UnsupportedTypeError(f"element type {t} is not supported")


def element_type(t: Type) -> Type:
    """The element type of a tensor type, or `t` itself."""
    return t.element if isinstance(t, (TensorType, UnrankedTensorType, VectorType)) else t


def is_float(t: Type) -> bool:
    return isinstance(t, FloatType)


def is_integer(t: Type) -> bool:
    return isinstance(t, (IntegerType, IndexType))
