"""Decoding `dense<...>` literals into numpy arrays of the exact element type.

Hex blobs are decoded in one `np.frombuffer` call; nested lists are flattened with a
single regex pass and converted in one `np.array` call.
"""

from __future__ import annotations

import math
import struct
from functools import lru_cache

import numpy as np

from . import regex_programs, storage
from .attributes import DenseElementsAttr, all_equal, raw_bytes
from .dense_literal import LiteralError, element_starts, number_offset, read_literal
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


class DenseLiteralError(ValueError):
    """A malformed literal: `offset` into its body (-1: at `dense`), or `element`, the flat
    index of the element at fault (complex parts counted one by one), which the parser
    turns into that element's place, as MLIR reports at the element's token."""

    def __init__(self, message: str, offset: int = -1, element: int | None = None,
                 note: str | None = None, shift: int = 0) -> None:
        super().__init__(message)
        self.offset = offset
        self.element = element
        self.note = note
        self.shift = shift  # characters into the element (where MLIR's lexer stops)


# MLIR lexes `1e30` as the integer `1` then `e30`: the literal ends before the `e`.
STRAY_EXPONENT = "stray exponent"


_DECIMAL_FLOAT = ("unexpected decimal integer literal for a floating point value",
                  "add a trailing dot to make the literal a float")


def _is_decimal_integer(text: str) -> bool:
    """An element text MLIR lexes as a decimal integer (no `.`, not hex)."""
    return "." not in text and "x" not in text


def _float_text_error(text: str, index: int | None) -> DenseLiteralError | None:
    """MLIR's complaint about a float element spelled `text`, if any."""
    if text in ("true", "false"):
        return DenseLiteralError("expected floating point literal", element=index)
    if text.startswith("-0x"):
        return DenseLiteralError("hexadecimal float literal should not have a leading minus",
                                 element=index)
    if _is_decimal_integer(text):
        exponent = next((i for i, c in enumerate(text) if c in "eE"), None)
        if exponent is not None:
            return DenseLiteralError(STRAY_EXPONENT, element=index,
                                     shift=exponent - (text[0] == "-"))
        return DenseLiteralError(_DECIMAL_FLOAT[0], element=index, note=_DECIMAL_FLOAT[1])
    return None


def _check_float_texts(texts: list[str]) -> None:
    """Raise MLIR's complaint about the first float element text that has one (the usual
    all-`d.d` list is cleared by one join and count)."""
    if "".join(texts).count(".") == len(texts):
        return
    for i, x in enumerate(texts):
        error = _float_text_error(x, i)
        if error is not None:
            raise error


def element_offset(body: str, index: int) -> int:
    """Offset in `body` of the number of its `index`-th element (after any sign)."""
    starts = element_starts(body)
    return number_offset(body, starts[index]) if index < len(starts) else 0


_HEX_SIZE = "elements hex data size is invalid for provided type"
_HEX_RANGE = "hexadecimal float constant out of range for type"


class _hex_size_names:  # (a class: contextlib stays out of the tools' start-up)
    """MLIR's hex size complaint names the literal's type (the decoders know only sizes)."""

    def __init__(self, type: TensorType | VectorType) -> None:
        self.type = type

    def __enter__(self) -> None:
        pass

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        if isinstance(error, DenseLiteralError) and str(error) == _HEX_SIZE:
            raise DenseLiteralError(f"{_HEX_SIZE}: '{self.type}'", error.offset) from None


def storage_type(t: Type) -> Type:
    etype = element_type(t)
    return etype.storage if isinstance(etype, QuantizedType) else etype


def parse_dense(body: str, type: TensorType | VectorType) -> DenseElementsAttr:
    """The attribute `dense<body> : type`; elements of a type `storage.layout` knows are
    kept as storage bytes, without numpy."""
    etype = storage_type(type)
    lay = storage.layout(etype)
    if lay is None:
        data, splat = parse_dense_literal(body, type)
        return DenseElementsAttr(type, data, splat)
    shape = tuple(type.shape)
    count = math.prod(shape)
    stripped = body.strip()
    if not stripped:
        if count != 0:
            raise DenseLiteralError(
                f"parsed zero elements, but type ('{type}') expected at least 1")
        return DenseElementsAttr.from_storage(type, b"", False)
    if stripped.startswith('"'):
        with _hex_size_names(type):
            raw, splat = _stored_from_raw(_hex_bytes(stripped), lay, count)
        return DenseElementsAttr.from_storage(type, raw, splat)
    items, splat = _literal_items(body, stripped, type)
    return DenseElementsAttr.from_storage(type, _encode(items, etype, lay), splat)


def parse_dense_literal(body: str, type: TensorType | VectorType) -> tuple[np.ndarray, bool]:
    """The elements of `dense<body> : type` and whether the literal is a splat."""
    etype = storage_type(type)
    try:
        dtype = numpy_dtype(etype)
    except ValueError as e:
        raise DenseLiteralError(str(e)) from None
    shape = tuple(type.shape)
    count = math.prod(shape)
    stripped = body.strip()
    if not stripped:
        if count != 0:
            raise DenseLiteralError(
                f"parsed zero elements, but type ('{type}') expected at least 1")
        return np.zeros(shape, dtype), False
    if stripped.startswith('"'):
        with _hex_size_names(type):
            return _from_raw(_hex_bytes(stripped), etype, dtype, shape, count)
    items, splat = _literal_items(body, stripped, type)
    data = _convert(items, etype, dtype)
    return (data.reshape(()), True) if splat else (data.reshape(shape), False)


def _literal_items(body: str, stripped: str,
                   type: TensorType | VectorType) -> tuple[list[Any], bool]:
    """The element texts of a nested-list or single-element literal (complex elements as
    pairs) and whether it is a splat; raises on a structure that does not fit `type`."""
    shape = tuple(type.shape)
    if "(" not in stripped and not isinstance(storage_type(type), ComplexType):
        fast = _fast_flatten(stripped, shape)
        if fast is not None:
            return fast
    try:
        items, dims = read_literal(body)
    except LiteralError as e:
        raise DenseLiteralError(str(e), e.offset) from None
    if dims is not None and tuple(dims) != shape:
        raise DenseLiteralError(
            f"inferred shape of elements literal ([{', '.join(map(str, dims))}]) does not "
            f"match type ([{', '.join(map(str, shape))}])")
    return _paired(items, dims is None, type)


def _paired(items: list[Any], splat: bool,
            type: TensorType | VectorType) -> tuple[list[Any], bool]:
    """`items` and splat-ness checked as MLIR counts elements, parts one by one: a complex
    type wants a pair per element; another type takes a pair's parts as elements of their
    own (`dense<(1, 2)> : tensor<2xi32>` is [1, 2])."""
    etype = storage_type(type)
    if splat and not isinstance(etype, ComplexType) and not isinstance(items[0], tuple):
        return items, True
    parsed = sum(2 if isinstance(x, tuple) else 1 for x in items)
    count = math.prod(type.shape)
    if isinstance(etype, ComplexType):
        want = 2 if splat else 2 * count
        if parsed != want or not all(isinstance(x, tuple) for x in items):
            raise DenseLiteralError(f"parsed {parsed} elements, but type "
                                    f"('{etype if splat else type}') expected {want} elements")
        return items, splat
    if parsed == len(items):
        return items, splat
    if parsed != count:
        raise DenseLiteralError(
            f"parsed {parsed} elements, but type ('{type}') expected {count} elements")
    return [part for x in items for part in (x if isinstance(x, tuple) else (x,))], False


def _encode(items: list[Any], etype: Type, lay: storage.Layout) -> bytes:
    """Storage bytes of element texts `items` (numpy-free twin of `_convert`)."""
    if lay.kind == "bool":
        return bytes(_bools(items))
    if lay.kind == "int":
        return struct.pack(f"<{len(items)}{lay.code}", *_int_values(items, etype))
    if lay.kind == "float":
        assert isinstance(etype, FloatType)
        _check_float_texts(items)
        bits = [_float_bits(x, etype, i) for i, x in enumerate(items)]
    else:
        assert isinstance(etype, ComplexType) and isinstance(etype.element, FloatType)
        parts = [x for pair in items for x in pair]
        _check_float_texts(parts)
        bits = [_float_bits(x, etype.element, i) for i, x in enumerate(parts)]
    return struct.pack(f"<{len(bits)}{lay.code}", *bits)


def _float_bits(text: str, etype: FloatType, index: int) -> int:
    """The f16/f32/f64 bit pattern of element `index`'s text (decimal or `0x` bits), checked
    by `_check_float_texts`; bits too wide are reported at that element, as MLIR does."""
    if text.startswith("0x"):
        bits = int(text, 16)
        if bits >> etype.width:
            raise DenseLiteralError(_HEX_RANGE, element=index)
        return bits
    try:
        value = float(text)
    except ValueError:
        raise DenseLiteralError(f"expected floating point literal, got '{text}'", 0) from None
    return storage.float_bits(value, etype.name)


def _bools(items: list[Any]) -> list[bool]:
    """i1 elements: `true`/`false` or the integers MLIR's APInt check lets through for one
    bit (0, 1 and -1, hex too)."""
    out = []
    for i, x in enumerate(items):
        if x in ("true", "false"):
            out.append(x == "true")
            continue
        _check_int_text(x, i)
        value = int(x, 16) if "0x" in x else int(x)
        if value not in (0, 1, -1) or (value == 0 and x.startswith("-")):
            raise DenseLiteralError("integer constant out of range for type", element=i)
        out.append(value != 0)
    return out


def _check_int_text(text: str, index: int) -> None:
    """MLIR's complaint about an integer element spelled `text`, if any."""
    if text in ("true", "false"):
        raise DenseLiteralError("expected i1 type for 'true' or 'false' values", element=index)
    if "." in text:
        raise DenseLiteralError("expected integer elements, but parsed floating-point",
                                element=index)
    exponent = next((i for i, c in enumerate(text) if c in "eE"), None)
    if exponent is not None and "x" not in text:  # MLIR's lexer ends the integer there
        raise DenseLiteralError(STRAY_EXPONENT, element=index,
                                shift=exponent - (text[0] == "-"))


def _int_values(items: list[Any], etype: Type) -> list[int]:
    """The integers of element texts `items`, range-checked for `etype`; a signed type's
    values wrapped into its signed range."""
    try:
        values = [int(x, 16) if "0x" in x else int(x) for x in items]
    except ValueError:
        for i, x in enumerate(items):
            _check_int_text(x, i)
        raise  # every element text the reader lets through is one of those
    width: int = 64 if isinstance(etype, IndexType) else etype.width  # type: ignore[attr-defined]
    unsigned = isinstance(etype, IntegerType) and etype.is_unsigned
    signless = isinstance(etype, IntegerType) and not etype.signedness
    lo = 0 if unsigned else -(1 << (width - 1))
    hi = (1 << width) - 1 if unsigned else (1 << (width - 1)) - 1
    for i, v in enumerate(values):
        if unsigned and items[i].startswith("-"):
            raise DenseLiteralError(
                "expected unsigned integer elements, but parsed negative value", element=i)
        if v == 0 and items[i].startswith("-"):  # MLIR: a negated zero has no sign bit
            raise DenseLiteralError("integer constant out of range for type", element=i)
        if v < lo or v > hi:
            if signless and 0 <= v < (1 << width):
                continue  # MLIR accepts the unsigned spelling of a signless bit pattern
            raise DenseLiteralError("integer constant out of range for type", element=i)
    if not unsigned:
        mask = (1 << width) - 1
        values = [((v & mask) ^ (1 << (width - 1))) - (1 << (width - 1)) for v in values]
    return values


def _stored_from_raw(raw: bytes, lay: storage.Layout, count: int) -> tuple[bytes, bool]:
    """(storage bytes, splat) of hex or blob data `raw` (numpy-free twin of `_from_raw`)."""
    if lay.kind == "bool":
        if len(raw) == count:
            return bytes(b != 0 for b in raw), False
        if len(raw) == 1 and raw[0] in (0x00, 0xFF):
            return bytes([raw[0] != 0]), True
        if len(raw) == (count + 7) // 8:
            return bytes((raw[i >> 3] >> (i & 7)) & 1 for i in range(count)), False
        raise DenseLiteralError(_HEX_SIZE)
    if len(raw) == lay.size and count != 1:
        return raw, True
    if len(raw) != lay.size * count:
        raise DenseLiteralError(_HEX_SIZE)
    return raw, False


_ELEMENT = regex_programs.compile(
    r"-?(?:0x[0-9A-Fa-f]+|[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?)|true|false")
_NO_SPACE = str.maketrans("", "", " \t\r\n")


def _fast_flatten(text: str, shape: tuple[int, ...]) -> tuple[list[str], bool] | None:
    """Elements of a well-formed literal of exactly `shape` (or a single-element splat) in a
    few C-level passes; None when the literal needs the careful parser (or is malformed)."""
    items = _ELEMENT.findall(text)
    if text[0] != "[":
        return (items, True) if len(items) == 1 and items[0] == text else None
    if len(items) != math.prod(shape) or not shape:
        return None
    # Spaces go after the elements are replaced: `- 1` (a sign apart from its number) and
    # `1 2` then leave the careful parser to read them.
    if _ELEMENT.sub("e", text).translate(_NO_SPACE) != _skeleton(shape):
        return None
    return items, False


@lru_cache(maxsize=256)
def _skeleton(shape: tuple[int, ...]) -> str:
    """`[[e,e],[e,e]]` for shape (2, 2): the bracket structure a literal must have."""
    inner = "e" if len(shape) == 1 else _skeleton(shape[1:])
    return "[" + ",".join([inner] * shape[0]) + "]"


def _convert(items: list[Any], etype: Type, dtype: np.dtype) -> np.ndarray:
    if isinstance(etype, ComplexType):
        inner = numpy_dtype(etype.element)
        parts = [x for pair in items for x in pair]
        _check_float_texts(parts)
        flat = [_float_item(x, etype.element, inner, i) for i, x in enumerate(parts)]
        arr = np.array(flat, dtype=inner)
        return arr.view(dtype) if arr.size else np.zeros(0, dtype)
    if isinstance(etype, IntegerType) and etype.width == 1:
        return np.array(_bools(items), dtype=np.bool_)
    if isinstance(etype, (IntegerType, IndexType)):
        values = _int_values(items, etype)
        unsigned = isinstance(etype, IntegerType) and etype.is_unsigned
        wide = np.array(values, dtype=np.uint64 if unsigned else np.int64)
        return wide.astype(dtype)
    if isinstance(etype, FloatType):
        _check_float_texts(items)
        if any(x.startswith("0x") for x in items):
            return _floats_with_bits(items, etype, dtype)
        try:
            wide = np.array(items, dtype=np.float64)
        except ValueError:
            wide = np.array([_float_item(x, etype, dtype, i) for i, x in enumerate(items)],
                            dtype=np.float64)
        return round_to_dtype(wide, dtype)
    raise DenseLiteralError(f"unsupported element type {etype}")


_SINGLE_ROUNDING = ("float64", "float32", "float16")


def round_to_dtype(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """f64 values rounded once, to nearest-even, into `dtype`. ml_dtypes converts through f32,
    which rounds twice; the values that lands on a midpoint that way are moved to the
    neighbour the exact value is nearer to."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = values.astype(dtype)
    if dtype.name in _SINGLE_ROUNDING or out.size == 0 or dtype.itemsize > 2:
        return out
    back = out.astype(np.float64)
    inexact = (back != values) & np.isfinite(back) & np.isfinite(values)
    if not inexact.any():
        return out
    uint = np.uint8 if dtype.itemsize == 1 else np.uint16
    bits = out.view(uint)
    step = np.where(np.abs(values) > np.abs(back), 1, -1).astype(np.int32)
    near_bits = (bits.astype(np.int32) + step).astype(uint)
    near = near_bits.view(dtype).astype(np.float64)
    with np.errstate(invalid="ignore"):
        d_out = np.abs(values - back)
        d_near = np.abs(values - near)
    better = (d_near < d_out) | ((d_near == d_out) & (near_bits % 2 == 0))
    fix = inexact & np.isfinite(near) & better
    if fix.any():
        bits = bits.copy()
        bits[fix] = near_bits[fix]
        out = bits.view(dtype)
    return out


def _floats_with_bits(items: list[Any], etype: FloatType, dtype: np.dtype) -> np.ndarray:
    out = np.zeros(len(items), dtype=dtype)
    for i, x in enumerate(items):
        out[i] = _float_item(x, etype, dtype, i)
    return out


def _float_item(text: str, etype: Type, dtype: np.dtype, index: int) -> Any:
    """Element `index`'s value from its text (checked by `_check_float_texts`)."""
    if text.startswith("0x"):
        bits = int(text, 16)
        if bits >> (etype.width if isinstance(etype, FloatType) else dtype.itemsize * 8):
            raise DenseLiteralError(_HEX_RANGE, element=index)
        width = dtype.itemsize * 8
        raw = np.array([bits], dtype=np.uint64).astype(np.dtype(f"u{dtype.itemsize}"))
        if width != 8 or dtype.itemsize == 1:
            return raw.view(dtype)[0]
    try:
        return float(text)
    except ValueError:
        raise DenseLiteralError(f"expected floating point literal, got '{text}'", 0) from None


def _hex_bytes(text: str) -> bytes:
    """The bytes of a `"0x..."` literal."""
    if not (text.startswith('"0x') and text.endswith('"')):
        raise DenseLiteralError("expected string containing hex digits starting with `0x`", 0)
    try:
        return bytes.fromhex(text[3:-1])
    except ValueError:
        raise DenseLiteralError("expected string containing hex digits starting with `0x`",
                                0) from None


def decode_raw_dense(raw: bytes, type: TensorType | VectorType) -> DenseElementsAttr | None:
    """The dense attribute of MLIR's raw storage bytes (bytecode blobs and hex literals): one
    element for a splat, else every element; None if the size fits neither."""
    etype = storage_type(type)
    shape = tuple(type.shape)
    count = math.prod(shape)
    lay = storage.layout(etype)
    if lay is not None:
        if count == 0 and not raw:
            return DenseElementsAttr.from_storage(type, b"", False)
        if lay.kind == "bool" and len(raw) == 1 and count > 1:
            return DenseElementsAttr.from_storage(type, bytes([raw[0] != 0]), True)
        try:
            stored, splat = _stored_from_raw(raw, lay, count)
        except DenseLiteralError:
            return None
        return DenseElementsAttr.from_storage(type, stored, splat)
    try:
        dtype = numpy_dtype(etype)
    except ValueError:
        return None
    if count == 0 and not raw:
        return DenseElementsAttr(type, np.zeros(shape, dtype), False)
    if isinstance(etype, IntegerType) and etype.width == 1 and len(raw) == 1 and count > 1:
        return DenseElementsAttr(type, np.array(raw[0] != 0, dtype=np.bool_), True)
    try:
        data, splat = _from_raw(raw, etype, dtype, shape, count)
    except DenseLiteralError:
        return None
    return DenseElementsAttr(type, data, splat)


def _from_raw(raw: bytes, etype: Type, dtype: np.dtype, shape: tuple[int, ...],
              count: int) -> tuple[np.ndarray, bool]:
    itemsize = dtype.itemsize
    if isinstance(etype, IntegerType) and etype.width == 1:
        return _parse_hex_bools(raw, shape, count)
    if len(raw) == itemsize and count != 1:
        data = np.frombuffer(raw, dtype=dtype).copy()
        return data.reshape(()), True
    if len(raw) != itemsize * count:
        raise DenseLiteralError(_HEX_SIZE)
    data = np.frombuffer(raw, dtype=dtype).copy()
    return data.reshape(shape), False


def _parse_hex_bools(raw: bytes, shape: tuple[int, ...], count: int) -> tuple[np.ndarray, bool]:
    """i1 hex data: one byte per element as MLIR prints it now; a single 0x00/0xFF byte is a
    splat; bits packed LSB first (older MLIR) are read too."""
    if len(raw) == count:
        return (np.frombuffer(raw, np.uint8) != 0).reshape(shape), False
    if len(raw) == 1 and raw[0] in (0x00, 0xFF):
        return np.array(raw[0] != 0, dtype=np.bool_), True
    if len(raw) == (count + 7) // 8:
        bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")[:count]
        return bits.astype(np.bool_).reshape(shape), False
    raise DenseLiteralError(_HEX_SIZE)


def encode_raw_dense(attr: DenseElementsAttr) -> bytes | None:
    """MLIR's raw storage bytes of a dense attribute: little-endian elements, one byte per
    i1, and a single element when all elements are equal (MLIR stores such a value as a
    splat). None if the element type has no numpy storage."""
    etype = storage_type(attr.type)
    if isinstance(etype, (IntegerType, FloatType, IndexType, ComplexType)) is False:
        return None
    held = attr.held_storage
    lay = storage.layout(etype)
    if held is not None and lay is not None:
        if not held:
            return b""
        raw = held[:lay.size] if attr.splat or storage.all_equal(held, lay.size) else held
        return bool_splat_byte(raw, etype)
    data = attr.data
    if data.size == 0:
        return b""
    flat = np.ascontiguousarray(data).reshape(-1)
    if attr.splat or all_equal(flat):
        flat = flat[:1]
    return bool_splat_byte(raw_bytes(flat, etype), etype)


def bool_splat_byte(raw: bytes, etype: Type) -> bytes:
    """An i1 splat as MLIR stores it: one byte, 0xFF for true (0x00 for false)."""
    if len(raw) == 1 and raw[0] and isinstance(etype, IntegerType) and etype.width == 1:
        return b"\xff"
    return raw
