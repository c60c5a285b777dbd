"""MLIR types used by StableHLO programs.

Types are immutable and hashable so the parser can cache them by their text and the
interpreter can compare them cheaply. Every type prints itself in MLIR syntax via ``str``.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import cache

import ml_dtypes
import numpy as np

from .record import Record, set_field

TYPE_CHECKING = False
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


class IntegerType(Type, Record):
    __slots__ = ("width", "signedness")
    width: int
    signedness: str  # "" (signless), "s" or "u"

    def __init__(self, width: int, signedness: str = "") -> None:
        set_field(self, "width", width)
        set_field(self, "signedness", signedness)

    def __str__(self) -> str:
        return f"{self.signedness}i{self.width}"

    @property
    def is_unsigned(self) -> bool:
        return self.signedness == "u"

    @property
    def is_bool(self) -> bool:
        return self.width == 1


class FloatType(Type, Record):
    __slots__ = ("name",)
    name: str  # as spelled in MLIR: f32, bf16, f8E4M3FN, ...

    def __init__(self, name: str) -> None:
        set_field(self, "name", name)

    def __str__(self) -> str:
        return self.name

    @property
    def width(self) -> int:
        return FLOAT_WIDTHS[self.name]


class IndexType(Type, Record):
    __slots__ = ()

    def __str__(self) -> str:
        return "index"


class NoneType(Type, Record):
    __slots__ = ()

    def __str__(self) -> str:
        return "none"


class ComplexType(Type, Record):
    __slots__ = ("element",)
    element: Type

    def __init__(self, element: Type) -> None:
        set_field(self, "element", element)

    def __str__(self) -> str:
        return f"complex<{self.element}>"


class TensorType(Type, Record):
    # `_text`: the printed text, made once: the parser shares type objects, so printing repeats.
    __slots__ = ("shape", "element", "encoding", "_text")
    shape: tuple[int, ...]
    element: Type
    encoding: Attribute | None
    _text: str | None

    def __init__(self, shape: tuple[int, ...], element: Type,
                 encoding: Attribute | None = None) -> None:
        set_field(self, "shape", shape)
        set_field(self, "element", element)
        set_field(self, "encoding", encoding)
        set_field(self, "_text", None)

    def __str__(self) -> str:
        text = self._text
        if text is None:
            dims = "".join(("?" if d == DYNAMIC else str(d)) + "x" for d in self.shape)
            enc = f", {self.encoding}" if self.encoding is not None else ""
            text = f"tensor<{dims}{self.element}{enc}>"
            set_field(self, "_text", text)
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


class UnrankedTensorType(Type, Record):
    __slots__ = ("element",)
    element: Type

    def __init__(self, element: Type) -> None:
        set_field(self, "element", element)

    def __str__(self) -> str:
        return f"tensor<*x{self.element}>"


class VectorType(Type, Record):
    __slots__ = ("shape", "element")
    shape: tuple[int, ...]
    element: Type

    def __init__(self, shape: tuple[int, ...], element: Type) -> None:
        set_field(self, "shape", shape)
        set_field(self, "element", element)

    def __str__(self) -> str:
        return "vector<" + "".join(f"{d}x" for d in self.shape) + f"{self.element}>"


class TokenType(Type, Record):
    __slots__ = ()

    def __str__(self) -> str:
        return "!stablehlo.token"


class TupleType(Type, Record):
    __slots__ = ("types",)
    types: tuple[Type, ...]

    def __init__(self, types: tuple[Type, ...]) -> None:
        set_field(self, "types", types)

    def __str__(self) -> str:
        return "tuple<" + ", ".join(map(str, self.types)) + ">"


class FunctionType(Type, Record):
    __slots__ = ("inputs", "results", "_text")
    inputs: tuple[Type, ...]
    results: tuple[Type, ...]
    _text: str | None

    def __init__(self, inputs: tuple[Type, ...], results: tuple[Type, ...]) -> None:
        set_field(self, "inputs", inputs)
        set_field(self, "results", results)
        set_field(self, "_text", None)

    def __str__(self) -> str:
        text = self._text
        if text is None:
            ins = "(" + ", ".join(map(str, self.inputs)) + ")"
            if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
                text = f"{ins} -> {self.results[0]}"
            else:
                text = f"{ins} -> (" + ", ".join(map(str, self.results)) + ")"
            set_field(self, "_text", text)
        return text


class QuantizedType(Type, Record):
    """`!quant.uniform<storage<min:max>:expressed[:axis], scale:zero_point | {..}>`."""

    __slots__ = ("storage", "expressed", "scales", "zero_points", "quantized_dimension",
                 "storage_min", "storage_max", "builtin_storage")
    storage: IntegerType
    expressed: Type
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    quantized_dimension: int | None  # None: per-tensor
    storage_min: int | None
    storage_max: int | None
    # Storage spelled as a builtin integer type (`ui8`, `si8`) rather than the quant
    # dialect's `i8` / `u8`: MLIR keeps (and prints) that spelling, so the types differ.
    builtin_storage: bool

    def __init__(self, storage: IntegerType, expressed: Type, scales: tuple[float, ...],
                 zero_points: tuple[int, ...], quantized_dimension: int | None = None,
                 storage_min: int | None = None, storage_max: int | None = None,
                 builtin_storage: bool = False) -> None:
        set_field(self, "storage", storage)
        set_field(self, "expressed", expressed)
        set_field(self, "scales", scales)
        set_field(self, "zero_points", zero_points)
        set_field(self, "quantized_dimension", quantized_dimension)
        set_field(self, "storage_min", storage_min)
        set_field(self, "storage_max", storage_max)
        set_field(self, "builtin_storage", builtin_storage)

    def __str__(self) -> str:
        # The quant dialect spells storage `i8` / `u8` (or as written: `ui8`, `si8`), drops a
        # storage range equal to the type's full range, and prints a scale as AsmPrinter
        # prints a double (`out << scale` is `printFloat(APFloat(scale))`): `%e` when that
        # reads back exactly, else every digit (jax's `0.0078431033620647364`).
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

        from .floats import format_float_bits
        from .storage import float_bits

        def pair(s: float, z: int) -> str:
            text = format_float_bits(float_bits(s, "f64"), "f64")
            return text if z == 0 else f"{text}:{z}"

        pairs = [pair(s, z) for s, z in zip(self.scales, self.zero_points, strict=True)]
        if self.quantized_dimension is not None:
            return f"!quant.uniform<{head}, {{{','.join(pairs)}}}>"
        return f"!quant.uniform<{head}, {pairs[0]}>"

    @property
    def is_per_axis(self) -> bool:
        return self.quantized_dimension is not None


class OpaqueType(Type, Record):
    """A dialect type we keep as text (`!dialect.name<...>`)."""

    __slots__ = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        set_field(self, "text", text)

    def __str__(self) -> str:
        return self.text


FLOAT_WIDTHS = {
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 19, "f80": 80, "f128": 128,
    "f4E2M1FN": 4, "f6E2M3FN": 6, "f6E3M2FN": 6, "f8E3M4": 8, "f8E4M3": 8, "f8E4M3FN": 8,
    "f8E4M3FNUZ": 8, "f8E4M3B11FNUZ": 8, "f8E5M2": 8, "f8E5M2FNUZ": 8, "f8E8M0FNU": 8,
}

@cache
def _dtype_tables(extended: bool) -> tuple[dict[str, np.dtype], dict[int, np.dtype],
                                           dict[int, np.dtype]]:
    """(float name, signed width, unsigned width) -> dtype, built on first use: touching
    numpy's attributes loads it, which the tools that only parse and print never do.
    `extended` adds ml_dtypes' types (bf16, f8*, i2/i4, ...): importing ml_dtypes costs
    ~9 ms more, which a program of numpy's own types never pays."""
    floats: dict[str, np.dtype] = {"f16": np.dtype(np.float16), "f32": np.dtype(np.float32),
                                   "f64": np.dtype(np.float64)}
    signed: dict[int, np.dtype] = {8: np.dtype(np.int8), 16: np.dtype(np.int16),
                                   32: np.dtype(np.int32), 64: np.dtype(np.int64)}
    unsigned: dict[int, np.dtype] = {1: np.dtype(np.bool_), 8: np.dtype(np.uint8),
                                     16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
                                     64: np.dtype(np.uint64)}
    if extended:
        floats.update({
            "bf16": np.dtype(ml_dtypes.bfloat16),
            "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
            "f6E2M3FN": np.dtype(ml_dtypes.float6_e2m3fn),
            "f6E3M2FN": np.dtype(ml_dtypes.float6_e3m2fn),
            "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
            "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
            "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
            "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
            "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
            "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
            "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
            "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
        })
        signed.update({2: np.dtype(ml_dtypes.int2), 4: np.dtype(ml_dtypes.int4)})
        unsigned.update({2: np.dtype(ml_dtypes.uint2), 4: np.dtype(ml_dtypes.uint4)})
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
        for extended in (False, True):
            _, signed, unsigned = _dtype_tables(extended)
            table = unsigned if t.is_unsigned else signed
            if t.width in table:
                return table[t.width]
    elif isinstance(t, FloatType):
        for extended in (False, True):
            floats = _dtype_tables(extended)[0]
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
