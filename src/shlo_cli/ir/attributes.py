"""MLIR attributes. Each prints itself in MLIR syntax via ``str`` and exposes its Python value
through ``value`` so op evaluators can decode attributes once when a plan is built."""

from __future__ import annotations

import math

import numpy as np

from . import regex_programs, storage
from .floats import format_float, format_float_array, format_float_bits
from .record import Record, set_field
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_I64 = IntegerType(64)
_F64 = FloatType("f64")


class Attribute:
    """Base of every attribute."""

    __slots__ = ()

    @property
    def value(self) -> Any:
        return self


def entries_key(entries: dict[str, Any]) -> tuple[Any, ...]:
    """A hashable key of an op's properties or attributes, equal for equal dictionaries
    (what CSE compares); an unhashable attribute counts by its text."""
    return tuple(sorted((k, _hashable(v)) for k, v in entries.items()))


def _hashable(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return str(value)


class UnitAttr(Attribute, Record):
    __slots__ = ()

    def __str__(self) -> str:
        return "unit"

    @property
    def value(self) -> bool:
        return True


class BoolAttr(Attribute, Record):
    __slots__ = ("flag",)
    flag: bool

    def __init__(self, flag: bool) -> None:
        set_field(self, "flag", flag)

    def __str__(self) -> str:
        return "true" if self.flag else "false"

    @property
    def value(self) -> bool:
        return self.flag


class IntegerAttr(Attribute, Record):
    __slots__ = ("number", "type")
    number: int
    type: Type

    def __init__(self, number: int, type: Type = _I64) -> None:
        set_field(self, "number", number)
        set_field(self, "type", type)

    def __str__(self) -> str:
        if isinstance(self.type, IntegerType) and self.type.width == 1:
            return "true" if self.number else "false"
        return f"{self.number} : {self.type}"

    @property
    def value(self) -> int:
        return self.number


class FloatAttr(Attribute, Record):
    __slots__ = ("number", "type")
    number: float
    type: Type

    def __init__(self, number: float, type: Type = _F64) -> None:
        set_field(self, "number", number)
        set_field(self, "type", type)

    def __str__(self) -> str:
        return f"{format_float(self.number, self.type)} : {self.type}"

    @property
    def value(self) -> float:
        return self.number


_PLAIN_STRING = regex_programs.compile(r'[ !#-\[\]-~]*')  # printable ASCII but `"` and `\\`


def escape_string(text: str) -> str:
    """Quote `text` as MLIR prints string attributes (bytes that are not UTF-8, held as
    `surrogateescape` characters, print as `\\XX` escapes like other unprintable bytes)."""
    if _PLAIN_STRING.fullmatch(text):
        return f'"{text}"'
    out = ['"']
    for byte in text.encode("utf-8", "surrogateescape"):
        ch = chr(byte)
        if ch == "\\":
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F and ch != '"':
            out.append(ch)
        else:
            out.append(f"\\{byte:02X}")
    out.append('"')
    return "".join(out)


class StringAttr(Attribute, Record):
    __slots__ = ("text", "type")
    text: str
    type: Type | None  # `"foo" : tensor<3xf32>`: a string with a type (rare)

    def __init__(self, text: str, type: Type | None = None) -> None:
        set_field(self, "text", text)
        set_field(self, "type", type)

    def __str__(self) -> str:
        if self.type is not None:
            return f"{escape_string(self.text)} : {self.type}"
        return escape_string(self.text)

    @property
    def value(self) -> str:
        return self.text


class TypeAttr(Attribute, Record):
    __slots__ = ("type",)
    type: Type

    def __init__(self, type: Type) -> None:
        set_field(self, "type", type)

    def __str__(self) -> str:
        return str(self.type)

    @property
    def value(self) -> Type:
        return self.type


class SymbolRefAttr(Attribute, Record):
    __slots__ = ("root", "nested")
    root: str
    nested: tuple[str, ...]

    def __init__(self, root: str, nested: tuple[str, ...] = ()) -> None:
        set_field(self, "root", root)
        set_field(self, "nested", nested)

    def __str__(self) -> str:
        return "::".join(_symbol(s) for s in (self.root, *self.nested))

    @property
    def value(self) -> str:
        return self.root


_BARE_NAME = regex_programs.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")  # a symbol printed bare


def _symbol(name: str) -> str:

    if _BARE_NAME.fullmatch(name):
        return "@" + name
    return "@" + escape_string(name)


class ArrayAttr(Attribute, Record):
    __slots__ = ("elements",)
    elements: tuple[Attribute, ...]

    def __init__(self, elements: tuple[Attribute, ...]) -> None:
        set_field(self, "elements", elements)

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


class DenseArrayAttr(Attribute, Record):
    """`array<i64: 1, 2>`."""

    __slots__ = ("element", "items")
    element: Type
    items: tuple[Any, ...]

    def __init__(self, element: Type, items: tuple[Any, ...]) -> None:
        set_field(self, "element", element)
        set_field(self, "items", items)

    def __str__(self) -> str:
        if not self.items:
            return f"array<{self.element}>"
        items = ", ".join(_format_scalar(x, self.element) for x in self.items)
        return f"array<{self.element}: {items}>"

    @property
    def value(self) -> tuple[Any, ...]:
        return self.items


class DictAttr(Attribute, Record):
    __slots__ = ("entries",)
    entries: tuple[tuple[str, Attribute], ...]

    def __init__(self, entries: tuple[tuple[str, Attribute], ...]) -> None:
        set_field(self, "entries", entries)

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


def symbol_refs(attr: Attribute) -> list[SymbolRefAttr]:
    """Every symbol reference in `attr`, arrays and dictionaries looked into (what MLIR's
    SymbolTable::walkSymbolUses finds in an op's attributes)."""
    if isinstance(attr, SymbolRefAttr):
        return [attr]
    if isinstance(attr, ArrayAttr):
        return [ref for a in attr.elements for ref in symbol_refs(a)]
    if isinstance(attr, DictAttr):
        return [ref for _, a in attr.entries for ref in symbol_refs(a)]
    return []


def format_attr_entries(entries: dict[str, Attribute]) -> str:
    """`a = 1 : i32, b` with names sorted, as MLIR stores dictionaries."""
    parts = []
    for name in sorted(entries):
        val = entries[name]
        key = name if _is_bare(name) else escape_string(name)
        parts.append(key if isinstance(val, UnitAttr) else f"{key} = {val}")
    return ", ".join(parts)


def _is_bare(name: str) -> bool:

    return _BARE_NAME.fullmatch(name) is not None


class OpaqueAttr(Attribute, Record):
    """An attribute we keep as its text (affine maps, unknown dialect attributes, locations)."""

    __slots__ = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        set_field(self, "text", text)

    def __str__(self) -> str:
        return self.text


class DialectAttr(Attribute, Record):
    """`#dialect<body>` (enums: `#stablehlo<comparison_direction EQ>`) or
    `#dialect.name<body>` (structs: `#stablehlo.gather<offset_dims = [1], ...>`).

    ``fields`` holds the parsed `key = value` pairs of struct bodies (not compared: the
    body says the same); ``body`` the text.
    """

    __slots__ = ("dialect", "name", "body", "fields")
    _uncompared = ("fields",)
    dialect: str
    name: str
    body: str
    fields: tuple[tuple[str, Any], ...] | None

    def __init__(self, dialect: str, name: str, body: str,
                 fields: tuple[tuple[str, Any], ...] | None = None) -> None:
        set_field(self, "dialect", dialect)
        set_field(self, "name", name)
        set_field(self, "body", body)
        set_field(self, "fields", fields)

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


class DenseResourceAttr(Attribute, Record):
    """`dense_resource<key> : type`; the data is in the file's `{-# dialect_resources #-}`
    section, which the parser reads after the uses (``blobs`` is filled in then, and is
    not compared)."""

    __slots__ = ("handle", "type", "blobs")
    _uncompared = ("blobs",)
    handle: str
    type: Type
    blobs: dict[str, str] | None

    def __init__(self, handle: str, type: Type, blobs: dict[str, str] | None = None) -> None:
        set_field(self, "handle", handle)
        set_field(self, "type", type)
        set_field(self, "blobs", blobs)

    def __str__(self) -> str:
        return f"dense_resource<{self.handle}> : {self.type}"

    @property
    def value(self) -> np.ndarray:
        """The elements: the blob's hex after its 4-byte alignment prefix."""
        from .diagnostics import EvaluationError  # the interpreter reports it at the op

        blob = (self.blobs or {}).get(self.handle)
        if blob is None:
            raise EvaluationError(f"dense_resource '{self.handle}' has no data in this file")
        try:
            raw = bytes.fromhex(blob[2:] if blob.startswith("0x") else blob)[4:]
        except ValueError:
            raise EvaluationError(f"dense_resource '{self.handle}' is not a hex blob") from None
        etype = element_type(self.type)
        dtype = numpy_dtype(etype.storage if isinstance(etype, QuantizedType) else etype)
        shape = tuple(self.type.shape) if isinstance(self.type, TensorType) else ()
        count = math.prod(shape)
        if len(raw) != count * dtype.itemsize:
            raise EvaluationError(
                f"dense_resource '{self.handle}' holds {len(raw)} bytes of data but "
                f"{self.type} needs {count * dtype.itemsize}")
        return np.frombuffer(raw, dtype=dtype).reshape(shape)


class DenseElementsAttr(Attribute):
    """`dense<...> : tensor<...>`: the elements live in a numpy array of the exact dtype.

    A splat keeps a single element (shape `()`) and broadcasts on demand. An attribute read
    from text or bytecode whose element type needs no numpy (`storage.layout`) keeps MLIR's
    storage bytes instead and makes the array on first use of ``data``, so parsing and
    printing never load numpy.
    """

    __slots__ = ("type", "_data", "splat", "_raw")

    HEX_THRESHOLD = 100

    def __init__(self, type: TensorType | VectorType, data: np.ndarray,
                 splat: bool = False) -> None:
        self.type = type
        self._data: np.ndarray | None = data
        self.splat = splat
        self._raw: bytes | None = None

    @classmethod
    def from_storage(cls, type: TensorType | VectorType, raw: bytes,
                     splat: bool) -> DenseElementsAttr:
        """The attribute whose elements are MLIR's little-endian storage bytes `raw` (one
        element when `splat`; bool as one 0/1 byte each), for an element type
        `storage.layout` accepts."""
        attr = cls.__new__(cls)
        attr.type = type
        attr._data = None
        attr.splat = splat
        attr._raw = raw
        return attr

    @property
    def data(self) -> np.ndarray:
        """The elements as stored: shape `()` for a splat, else the tensor's shape."""
        if self._data is None:
            assert self._raw is not None
            self._data = _storage_array(self._raw, self.type, self.splat)
        return self._data

    @property
    def held_storage(self) -> bytes | None:
        """The storage bytes when the attribute holds those rather than an array."""
        return self._raw

    def storage(self) -> bytes:
        """MLIR's storage bytes of the elements held (one element for a splat)."""
        if self._raw is not None:
            return self._raw
        return raw_bytes(self.data, _storage_element(self.type))

    def __eq__(self, other: object) -> bool:
        if not (isinstance(other, DenseElementsAttr) and self.type == other.type
                and self.splat == other.splat):
            return False
        if self._raw is not None and other._raw is not None:
            return self._raw == other._raw
        return self.data.tobytes() == other.data.tobytes()

    def __hash__(self) -> int:
        return hash((self.type, self._raw if self._raw is not None else self.data.tobytes()))

    def flat_values(self) -> list[Any]:
        """Every element as a Python scalar in row-major order (a splat repeated); bool, int
        and float elements held as storage bytes need no numpy."""
        raw = self._raw
        lay = storage.layout(_storage_element(self.type)) if raw is not None else None
        if raw is not None and lay is not None and lay.kind != "complex":
            items: list[Any] = list(storage.unpack(raw, lay))
            if lay.kind == "bool":
                items = [bool(x) for x in items]
            elif lay.kind == "float":
                items = [storage.bits_float(b, lay.float_name) for b in items]
            if self.splat:
                items = items * math.prod(self.type.shape)
            return items
        return list(np.asarray(self.value).reshape(-1).tolist())

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
        etype = _storage_element(self.type)
        if isinstance(self.type, TensorType) and 0 in self.type.shape and not self.splat:
            # An empty tensor prints `dense<>`, unless it was written as a splat: MLIR keeps
            # that element (`dense<0> : tensor<1x0xi64>` prints back as written).
            return ""
        if self._raw is not None:
            return self._format_storage(etype, allow_hex)
        n = self.data.size
        if self.splat or (n and all_equal(self.data)):
            return format_elements_flat(self.data.reshape(-1)[:1], etype)[0]
        if n == 0:
            return ""
        if allow_hex and n > self.HEX_THRESHOLD:
            return '"0x' + raw_bytes(self.data, etype).hex().upper() + '"'
        return format_nested(self.data.reshape(self.type.shape), etype)

    def _format_storage(self, etype: Type, allow_hex: bool) -> str:
        raw = self._raw
        lay = storage.layout(etype)
        assert raw is not None and lay is not None
        if not raw:
            return ""
        if self.splat or storage.all_equal(raw, lay.size):
            return format_stored(raw[:lay.size], lay)[0]
        if allow_hex and len(raw) // lay.size > self.HEX_THRESHOLD:
            return '"0x' + raw.hex().upper() + '"'
        flat = format_stored(raw, lay)
        shape = tuple(self.type.shape)
        return _nest(flat, shape) if shape else flat[0]


def _storage_element(type: Type) -> Type:
    etype = element_type(type)
    return etype.storage if isinstance(etype, QuantizedType) else etype


def _storage_array(raw: bytes, type: TensorType | VectorType, splat: bool) -> np.ndarray:
    """The numpy array of storage bytes `raw` (see `DenseElementsAttr.from_storage`)."""
    etype = _storage_element(type)
    shape = () if splat else tuple(type.shape)
    if isinstance(etype, IntegerType) and etype.width == 1:
        return np.asarray(np.frombuffer(raw, np.uint8).reshape(shape) != 0)
    array: np.ndarray = np.frombuffer(raw, numpy_dtype(etype)).copy().reshape(shape)
    return array


def format_stored(raw: bytes, lay: storage.Layout) -> list[str]:
    """Each element of storage bytes `raw` as MLIR prints it inside dense literals."""
    items = storage.unpack(raw, lay)
    if lay.kind == "bool":
        return ["true" if x else "false" for x in items]
    if lay.kind == "int":
        return [str(x) for x in items]
    name = lay.float_name
    parts = [format_float_bits(bits, name) for bits in items]
    if lay.kind == "float":
        return parts
    return [f"({parts[i]},{parts[i + 1]})" for i in range(0, len(parts), 2)]


def int_matrix(attr: Attribute) -> tuple[tuple[int, ...], list[int]]:
    """(shape, row-major integers) of an `array<...>` or dense attribute: numpy-free for
    those, so verifiers reading window sizes or padding do not load numpy."""
    if isinstance(attr, DenseArrayAttr):
        return (len(attr.items),), [int(x) for x in attr.items]
    if isinstance(attr, DenseElementsAttr):
        return tuple(attr.type.shape), [int(x) for x in attr.flat_values()]
    arr = np.asarray(attr.value)
    return tuple(arr.shape), [int(x) for x in arr.reshape(-1)]


def int_matrix_shape(attr: Attribute) -> tuple[int, ...]:
    """The shape `int_matrix` would give, without listing the elements (a splat of a huge
    type, e.g. `dense<1> : tensor<99999999999x2xi64>`, has 2 * 10^11 of them)."""
    if isinstance(attr, DenseArrayAttr):
        return (len(attr.items),)
    if isinstance(attr, DenseElementsAttr):
        return tuple(attr.type.shape)
    return tuple(np.shape(attr.value))


def int_values(attr: Attribute) -> list[int]:
    """The integers of an `array<...>` or dense attribute, row-major (see `int_matrix`)."""
    return int_matrix(attr)[1]


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
    lay = storage.layout(etype)
    if lay is not None and lay.kind == "int" and type(x) is int:
        bits = 8 * lay.size
        lo, hi = (0, 1 << bits) if lay.code.isupper() else (-(1 << (bits - 1)), 1 << (bits - 1))
        if lo <= x < hi:
            return str(x)
    if lay is not None and lay.kind == "bool":
        return "true" if x else "false"
    if lay is not None and lay.kind == "float" and isinstance(x, (int, float)):
        return format_float_bits(storage.float_bits(float(x), lay.float_name), lay.float_name)
    dtype = np.int64 if isinstance(etype, IndexType) else numpy_dtype(etype)
    return format_elements_flat(np.asarray([x], dtype=dtype), etype)[0]
