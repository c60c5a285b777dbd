"""MLIR attributes. Each prints itself in MLIR syntax via ``str`` and exposes its Python value
through ``value`` so op evaluators can decode attributes once when a plan is built."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .floats import format_float, format_float_array
from .types import (
    ComplexType,
    FloatType,
    IndexType,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    VectorType,
    element_type,
    numpy_dtype,
)


class Attribute:
    """Base of every attribute."""

    __slots__ = ()

    @property
    def value(self) -> Any:
        return self


@dataclass(frozen=True, slots=True)
class UnitAttr(Attribute):
    def __str__(self) -> str:
        return "unit"

    @property
    def value(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class BoolAttr(Attribute):
    flag: bool

    def __str__(self) -> str:
        return "true" if self.flag else "false"

    @property
    def value(self) -> bool:
        return self.flag


@dataclass(frozen=True, slots=True)
class IntegerAttr(Attribute):
    number: int
    type: Type = IntegerType(64)

    def __str__(self) -> str:
        if isinstance(self.type, IntegerType) and self.type.width == 1:
            return "true" if self.number else "false"
        return f"{self.number} : {self.type}"

    @property
    def value(self) -> int:
        return self.number


@dataclass(frozen=True, slots=True)
class FloatAttr(Attribute):
    number: float
    type: Type = FloatType("f64")

    def __str__(self) -> str:
        return f"{format_float(self.number, self.type)} : {self.type}"

    @property
    def value(self) -> float:
        return self.number


_PLAIN_STRING = re.compile(r'[ !#-\[\]-~]*')  # printable ASCII but `"` and `\\`


def escape_string(text: str) -> str:
    """Quote `text` as MLIR prints string attributes."""
    if _PLAIN_STRING.fullmatch(text):
        return f'"{text}"'
    out = ['"']
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch == "\\":
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F and ch != '"':
            out.append(ch)
        else:
            out.append(f"\\{byte:02X}")
    out.append('"')
    return "".join(out)


@dataclass(frozen=True, slots=True)
class StringAttr(Attribute):
    text: str
    type: Type | None = None  # `"foo" : tensor<3xf32>`: a string with a type (rare)

    def __str__(self) -> str:
        if self.type is not None:
            return f"{escape_string(self.text)} : {self.type}"
        return escape_string(self.text)

    @property
    def value(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class TypeAttr(Attribute):
    type: Type

    def __str__(self) -> str:
        return str(self.type)

    @property
    def value(self) -> Type:
        return self.type


@dataclass(frozen=True, slots=True)
class SymbolRefAttr(Attribute):
    root: str
    nested: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "::".join(_symbol(s) for s in (self.root, *self.nested))

    @property
    def value(self) -> str:
        return self.root


def _symbol(name: str) -> str:
    import re

    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", name):
        return "@" + name
    return "@" + escape_string(name)


@dataclass(frozen=True, slots=True)
class ArrayAttr(Attribute):
    elements: tuple[Attribute, ...]

    def __str__(self) -> str:
        return "[" + ", ".join(map(_elided, self.elements)) + "]"

    @property
    def value(self) -> list[Any]:
        return [e.value for e in self.elements]


def _elided(attr: Attribute) -> str:
    """Array elements drop the `: i64` / `: f64` suffix (MLIR's `AttrTypeElision::May`),
    except a float printed in hex, which needs its type to read back."""
    if isinstance(attr, IntegerAttr) and attr.type == IntegerType(64):
        return str(attr.number)
    if isinstance(attr, FloatAttr) and attr.type == FloatType("f64"):
        text = format_float(attr.number, attr.type)
        return text if not text.startswith("0x") else f"{text} : f64"
    return str(attr)


@dataclass(frozen=True, slots=True)
class DenseArrayAttr(Attribute):
    """`array<i64: 1, 2>`."""

    element: Type
    items: tuple[Any, ...]

    def __str__(self) -> str:
        if not self.items:
            return f"array<{self.element}>"
        items = ", ".join(_format_scalar(x, self.element) for x in self.items)
        return f"array<{self.element}: {items}>"

    @property
    def value(self) -> tuple[Any, ...]:
        return self.items


@dataclass(frozen=True, slots=True)
class DictAttr(Attribute):
    entries: tuple[tuple[str, Attribute], ...]

    def __str__(self) -> str:
        return "{" + format_attr_entries(dict(self.entries)) + "}"

    @property
    def value(self) -> dict[str, Any]:
        return dict(self.entries)

    def get(self, name: str) -> Attribute | None:
        for key, val in self.entries:
            if key == name:
                return val
        return None


def format_attr_entries(entries: dict[str, Attribute]) -> str:
    """`a = 1 : i32, b` with names sorted, as MLIR stores dictionaries."""
    parts = []
    for name in sorted(entries):
        val = entries[name]
        key = name if _is_bare(name) else escape_string(name)
        parts.append(key if isinstance(val, UnitAttr) else f"{key} = {val}")
    return ", ".join(parts)


def _is_bare(name: str) -> bool:
    import re

    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", name) is not None


@dataclass(frozen=True, slots=True)
class OpaqueAttr(Attribute):
    """An attribute we keep as its text (affine maps, unknown dialect attributes, locations)."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class DialectAttr(Attribute):
    """`#dialect<body>` (enums: `#stablehlo<comparison_direction EQ>`) or
    `#dialect.name<body>` (structs: `#stablehlo.gather<offset_dims = [1], ...>`).

    ``fields`` holds the parsed `key = value` pairs of struct bodies; ``body`` the text.
    """

    dialect: str
    name: str
    body: str
    fields: tuple[tuple[str, Any], ...] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        if self.name:
            return f"#{self.dialect}.{self.name}<{self.body}>"
        return f"#{self.dialect}<{self.body}>"

    @property
    def value(self) -> Any:
        if not self.name:  # enum: `comparison_direction EQ` -> "EQ"
            return self.body.split()[-1]
        return self

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.fields or ():
            if k == key:
                return v
        return default


@dataclass(frozen=True, slots=True)
class DenseResourceAttr(Attribute):
    """`dense_resource<key> : type`; the data is in the file's `{-# dialect_resources #-}`
    section, which the parser reads after the uses (``blobs`` is filled in then)."""

    handle: str
    type: Type
    blobs: dict[str, str] | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return f"dense_resource<{self.handle}> : {self.type}"

    @property
    def value(self) -> np.ndarray:
        """The elements: the blob's hex after its 4-byte alignment prefix."""
        blob = (self.blobs or {}).get(self.handle)
        if blob is None:
            raise ValueError(f"dense_resource '{self.handle}' has no data in this file")
        raw = bytes.fromhex(blob[2:] if blob.startswith("0x") else blob)[4:]
        etype = element_type(self.type)
        dtype = numpy_dtype(etype.storage if isinstance(etype, QuantizedType) else etype)
        shape = tuple(self.type.shape) if isinstance(self.type, TensorType) else ()
        return np.frombuffer(raw, dtype=dtype).reshape(shape)


class DenseElementsAttr(Attribute):
    """`dense<...> : tensor<...>`: the elements live in a numpy array of the exact dtype.

    A splat keeps a single element (shape `()`) and broadcasts on demand.
    """

    __slots__ = ("type", "data", "splat")

    HEX_THRESHOLD = 100

    def __init__(self, type: TensorType | VectorType, data: np.ndarray,
                 splat: bool = False) -> None:
        self.type = type
        self.data = data
        self.splat = splat

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DenseElementsAttr)
            and self.type == other.type
            and self.splat == other.splat
            and self.data.tobytes() == other.data.tobytes()
        )

    def __hash__(self) -> int:
        return hash((self.type, self.data.tobytes()))

    @property
    def value(self) -> np.ndarray:
        """The elements as an array of the tensor's shape (read-only)."""
        if self.splat:
            arr = np.broadcast_to(self.data.reshape(()), self.type.shape)
        else:
            arr = self.data.reshape(self.type.shape)
        return arr

    def __str__(self) -> str:
        return f"dense<{self.format_elements()}> : {self.type}"

    def format_elements(self, allow_hex: bool = True) -> str:
        """The text between `dense<` and `>`."""
        etype = element_type(self.type)
        if isinstance(etype, QuantizedType):
            etype = etype.storage
        n = self.data.size
        if isinstance(self.type, TensorType) and 0 in self.type.shape:
            # MLIR prints an empty complex tensor as a zero splat in this spelling.
            return "(0.0, 0.0)" if isinstance(etype, ComplexType) else ""
        if self.splat or (n and all_equal(self.data)):
            return format_elements_flat(self.data.reshape(-1)[:1], etype)[0]
        if n == 0:
            return ""
        if allow_hex and n > self.HEX_THRESHOLD:
            return '"0x' + raw_bytes(self.data, etype).hex().upper() + '"'
        return format_nested(self.data.reshape(self.type.shape), etype)


def all_equal(data: np.ndarray) -> bool:
    """Whether every element has the same storage bytes (MLIR's splat test)."""
    flat = np.ascontiguousarray(data).reshape(-1)
    if flat.size <= 1:
        return True
    raw = flat.view(np.uint8).reshape(flat.size, -1)
    return bool((raw == raw[0]).all())


def raw_bytes(data: np.ndarray, etype: Type) -> bytes:
    """The little-endian storage bytes MLIR uses for hex dense literals."""
    if isinstance(etype, IntegerType) and etype.width == 1:  # one byte per element
        return data.reshape(-1).astype(np.uint8).tobytes()
    if isinstance(etype, FloatType) and etype.width < 8:
        return data.view(np.uint8).tobytes()
    return np.ascontiguousarray(data).tobytes()


def format_nested(arr: np.ndarray, etype: Type) -> str:
    """Nested `[[1, 2], [3, 4]]` text of `arr`."""
    flat = format_elements_flat(arr.reshape(-1), etype)
    shape = arr.shape
    if not shape:
        return flat[0]
    return _nest(flat, shape)


def _nest(flat: list[str], shape: tuple[int, ...]) -> str:
    if len(shape) == 1:
        return "[" + ", ".join(flat) + "]"
    step = len(flat) // shape[0] if shape[0] else 0
    parts = (_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0]))
    return "[" + ", ".join(parts) + "]"


def format_elements_flat(flat: np.ndarray, etype: Type) -> list[str]:
    """Each element as MLIR prints it inside dense literals."""
    if isinstance(etype, IntegerType) and etype.width == 1:
        return ["true" if x else "false" for x in flat.tolist()]
    if isinstance(etype, (IntegerType, IndexType)):
        wide = np.uint64 if getattr(etype, "is_unsigned", False) else np.int64
        return [str(x) for x in flat.astype(wide).tolist()]
    if isinstance(etype, FloatType):
        return format_float_array(flat, etype)
    if isinstance(etype, ComplexType):
        inner = etype.element
        if isinstance(inner, FloatType):
            parts = format_float_array(np.ascontiguousarray(flat).view(numpy_dtype(inner)), inner)
            return [f"({parts[i]},{parts[i + 1]})" for i in range(0, len(parts), 2)]
        return [f"({x.real},{x.imag})" for x in flat.tolist()]
    return [str(x) for x in flat.tolist()]


def _format_scalar(x: Any, etype: Type) -> str:
    dtype = np.int64 if isinstance(etype, IndexType) else numpy_dtype(etype)
    return format_elements_flat(np.asarray([x], dtype=dtype), etype)[0]
