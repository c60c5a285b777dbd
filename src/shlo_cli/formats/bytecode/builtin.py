"""The builtin dialect's bytecode encodings (upstream `BuiltinDialectBytecode.td`).

Each attribute and type starts with a varint code from the frozen tables below; the fields
follow in the order upstream lists them. What has no code here (affine maps, the f8 types,
memrefs, ...) is written as text, exactly as upstream falls back for it.
"""

from __future__ import annotations

import struct

import numpy as np

from ...ir import storage
from ...ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DictAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from ...ir.codec import bits_to_float, float_to_bits
from ...ir.dense import decode_raw_dense, encode_raw_dense
from ...ir.locations import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc, UnknownLoc
from ...ir.types import (
    DYNAMIC,
    FLOAT_WIDTHS,
    ComplexType,
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    NoneType,
    TensorType,
    TupleType,
    Type,
    UnrankedTensorType,
    UnsupportedTypeError,
    VectorType,
    numpy_dtype,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ...ir.codec import AttrTypeReader, AttrTypeWriter

# Attribute codes (upstream `BuiltinDialectAttributes`, in order).
(ARRAY, DICTIONARY, STRING, STRING_WITH_TYPE, FLAT_SYMBOL_REF, SYMBOL_REF, TYPE, UNIT,
 INTEGER, FLOAT, CALL_SITE_LOC, FILE_LINE_COL_LOC, FUSED_LOC, FUSED_LOC_WITH_METADATA,
 NAME_LOC, UNKNOWN_LOC, DENSE_RESOURCE_ELEMENTS, DENSE_ARRAY, DENSE_INT_OR_FP_ELEMENTS,
 DENSE_STRING_ELEMENTS, SPARSE_ELEMENTS, DISTINCT, FILE_LINE_COL_RANGE) = range(23)

# Type codes (upstream `BuiltinDialectTypes`, in order).
(INTEGER_TYPE, INDEX_TYPE, FUNCTION_TYPE, BF16_TYPE, F16_TYPE, F32_TYPE, F64_TYPE,
 F80_TYPE, F128_TYPE, COMPLEX_TYPE, MEMREF_TYPE, MEMREF_TYPE_WITH_MEMSPACE, NONE_TYPE,
 RANKED_TENSOR_TYPE, RANKED_TENSOR_TYPE_WITH_ENCODING, TUPLE_TYPE, UNRANKED_MEMREF_TYPE,
 UNRANKED_MEMREF_TYPE_WITH_MEMSPACE, UNRANKED_TENSOR_TYPE, VECTOR_TYPE,
 VECTOR_TYPE_WITH_SCALABLE_DIMS) = range(21)

_FLOAT_CODES = {"bf16": BF16_TYPE, "f16": F16_TYPE, "f32": F32_TYPE, "f64": F64_TYPE,
                "f80": F80_TYPE, "f128": F128_TYPE}
FLOAT_TYPES_BY_CODE = {code: FloatType(name) for name, code in _FLOAT_CODES.items()}
_SIGNEDNESS = {"": 0, "s": 1, "u": 2}
SIGNEDNESS_BY_CODE = {v: k for k, v in _SIGNEDNESS.items()}
INT64_MIN = -(1 << 63)  # ShapedType::kDynamic
MAX_INT_WIDTH = 16777215  # IntegerType::kMaxWidth
UNKNOWN = UnknownLoc()
I1 = IntegerType(1)


def _dims_out(shape: tuple[int, ...]) -> list[int]:
    return [INT64_MIN if d == DYNAMIC else d for d in shape]


def _dims_in(values: list[int]) -> tuple[int, ...]:
    return tuple(DYNAMIC if d == INT64_MIN else d for d in values)


def int_width(type: Type) -> int | None:
    """The APInt width of an integer attribute's value (index is 64 bits)."""
    if isinstance(type, IntegerType):
        return type.width
    if isinstance(type, IndexType):
        return 64
    return None


def signed_value(value: int, width: int) -> int:
    """Two's complement reading of a `width`-bit pattern."""
    if width and value >> (width - 1) & 1:
        return value - (1 << width)
    return value


# ---- writing ---------------------------------------------------------------------------


def write_attribute(attr: Attribute, w: AttrTypeWriter) -> bool:
    if isinstance(attr, FileLineColLoc) and attr.is_range:
        w.varint(FILE_LINE_COL_RANGE)
        w.attribute(StringAttr(attr.filename))
        same_line = attr.end_line == attr.line
        values = ((attr.line, attr.col, attr.end_col) if same_line
                  else (attr.line, attr.col, attr.end_line, attr.end_col))
        w.varint(len(values))
        for number in values:
            w.varint(number)
    elif isinstance(attr, FileLineColLoc):
        w.varint(FILE_LINE_COL_LOC)
        w.attribute(StringAttr(attr.filename))
        w.varint(attr.line)
        w.varint(attr.col)
    elif isinstance(attr, DictAttr):
        w.varint(DICTIONARY)
        entries = sorted(attr.entries, key=lambda kv: kv[0])
        w.varint(len(entries))
        for name, value in entries:
            w.attribute(StringAttr(name))
            w.attribute(value)
    elif isinstance(attr, StringAttr):
        w.varint(STRING)
        w.string(attr.text)
    elif isinstance(attr, ArrayAttr):
        w.varint(ARRAY)
        w.attributes(attr.elements)
    elif isinstance(attr, (IntegerAttr, BoolAttr)):
        return _write_integer(attr, w)
    elif isinstance(attr, FloatAttr):
        if not isinstance(attr.type, FloatType):
            return False
        bits = float_to_bits(attr.number, attr.type)
        if bits is None:
            return False
        w.varint(FLOAT)
        w.type(attr.type)
        w.apint(bits, FLOAT_WIDTHS[attr.type.name])
    elif isinstance(attr, UnitAttr):
        w.varint(UNIT)
    elif isinstance(attr, TypeAttr):
        w.varint(TYPE)
        w.type(attr.type)
    elif isinstance(attr, SymbolRefAttr):
        w.varint(SYMBOL_REF if attr.nested else FLAT_SYMBOL_REF)
        w.attribute(StringAttr(attr.root))
        if attr.nested:
            w.attributes([SymbolRefAttr(n) for n in attr.nested])
    elif isinstance(attr, DenseElementsAttr):
        raw = encode_raw_dense(attr)
        if raw is None:
            return False
        w.varint(DENSE_INT_OR_FP_ELEMENTS)
        w.type(attr.type)
        w.blob(raw)
    elif isinstance(attr, DenseArrayAttr):
        raw = _dense_array_bytes(attr)
        if raw is None:
            return False
        w.varint(DENSE_ARRAY)
        w.type(attr.element)
        w.varint(len(attr.items))
        w.blob(raw)
    elif isinstance(attr, DenseResourceAttr):
        w.varint(DENSE_RESOURCE_ELEMENTS)
        w.type(attr.type)
        w.resource(attr.handle)
    elif isinstance(attr, NameLoc):
        w.varint(NAME_LOC)
        w.attribute(StringAttr(attr.name))
        w.attribute(attr.child.resolved() if attr.child is not None else UNKNOWN)
    elif isinstance(attr, CallSiteLoc):
        w.varint(CALL_SITE_LOC)
        w.attribute(attr.callee.resolved())
        w.attribute(attr.caller.resolved())
    elif isinstance(attr, FusedLoc):
        w.varint(FUSED_LOC if attr.metadata is None else FUSED_LOC_WITH_METADATA)
        w.attributes([loc.resolved() for loc in attr.locations])
        if attr.metadata is not None:
            w.attribute(attr.metadata)
    elif isinstance(attr, UnknownLoc):
        w.varint(UNKNOWN_LOC)
    else:
        return False
    return True


def _write_integer(attr: IntegerAttr | BoolAttr, w: AttrTypeWriter) -> bool:
    if isinstance(attr, BoolAttr):
        type: Type = I1
        number = int(attr.flag)
    else:
        type, number = attr.type, int(attr.number)
    width = int_width(type)
    if width is None:
        return False
    w.varint(INTEGER)
    w.type(type)
    w.apint(number, width)
    return True


def _dense_array_bytes(attr: DenseArrayAttr) -> bytes | None:
    element = attr.element
    if isinstance(element, IntegerType) and element.width == 1:
        return bytes(1 if x else 0 for x in attr.items)
    lay = storage.layout(element)
    if lay is not None and lay.kind == "int":  # the bit patterns, without numpy
        mask = (1 << 8 * lay.size) - 1
        return struct.pack(f"<{len(attr.items)}{lay.code.upper()}",
                           *[int(x) & mask for x in attr.items])
    if lay is not None and lay.kind == "float":
        return struct.pack(f"<{len(attr.items)}{lay.code}",
                           *[storage.float_bits(float(x), lay.float_name) for x in attr.items])
    try:
        dtype = numpy_dtype(element)
    except UnsupportedTypeError:
        return None
    if isinstance(element, IntegerType):
        mask = (1 << element.width) - 1
        unsigned = np.dtype(f"u{dtype.itemsize}")
        return np.array([x & mask for x in attr.items], dtype=np.uint64).astype(
            unsigned).tobytes()
    return np.array(attr.items, dtype=np.float64).astype(dtype).tobytes()


def write_type(type: Type, w: AttrTypeWriter) -> bool:
    if isinstance(type, TensorType):
        if type.encoding is not None:
            w.varint(RANKED_TENSOR_TYPE_WITH_ENCODING)
            w.attribute(type.encoding)
        else:
            w.varint(RANKED_TENSOR_TYPE)
        w.signed_varints(_dims_out(type.shape))
        w.type(type.element)
    elif isinstance(type, IntegerType):
        w.varint(INTEGER_TYPE)
        w.varint(type.width << 2 | _SIGNEDNESS[type.signedness])
    elif isinstance(type, FloatType):
        code = _FLOAT_CODES.get(type.name)
        if code is None:
            return False
        w.varint(code)
    elif isinstance(type, FunctionType):
        w.varint(FUNCTION_TYPE)
        w.types(type.inputs)
        w.types(type.results)
    elif isinstance(type, IndexType):
        w.varint(INDEX_TYPE)
    elif isinstance(type, ComplexType):
        w.varint(COMPLEX_TYPE)
        w.type(type.element)
    elif isinstance(type, NoneType):
        w.varint(NONE_TYPE)
    elif isinstance(type, TupleType):
        w.varint(TUPLE_TYPE)
        w.types(type.types)
    elif isinstance(type, UnrankedTensorType):
        w.varint(UNRANKED_TENSOR_TYPE)
        w.type(type.element)
    elif isinstance(type, VectorType):
        w.varint(VECTOR_TYPE)
        w.signed_varints(list(type.shape))
        w.type(type.element)
    else:
        return False
    return True


# ---- reading ---------------------------------------------------------------------------


def read_attribute(r: AttrTypeReader) -> Attribute:
    code = r.varint()
    reader = _ATTR_READERS.get(code)
    if reader is None:
        raise r.error(f"unknown builtin attribute code: {code}")
    return reader(r)


def _read_string_attr(r: AttrTypeReader, what: str) -> str:
    attr = r.attribute()
    if not isinstance(attr, StringAttr):
        raise r.error(f"expected attribute of type: StringAttr, but got: {attr}")
    return attr.text


def _read_location(r: AttrTypeReader):  # type: ignore[no-untyped-def]
    from ...ir.locations import LocationAttr

    attr = r.attribute()
    if not isinstance(attr, LocationAttr):
        raise r.error(f"expected attribute of type: LocationAttr, but got: {attr}")
    return attr


def _read_dictionary(r: AttrTypeReader) -> Attribute:
    entries = []
    for _ in range(_count(r)):
        name = _read_string_attr(r, "name")
        entries.append((name, r.attribute()))
    return DictAttr(tuple(entries))


def _count(r: AttrTypeReader) -> int:
    return r.varint()


def _read_string_with_type(r: AttrTypeReader) -> Attribute:
    text = r.string()
    r.type()  # our StringAttr carries no type
    return StringAttr(text)


def _read_symbol_ref(r: AttrTypeReader, nested: bool) -> Attribute:
    root = _read_string_attr(r, "root")
    leaves: list[str] = []
    if nested:
        for leaf in r.attributes():
            if not isinstance(leaf, SymbolRefAttr) or leaf.nested:
                raise r.error(f"expected attribute of type: FlatSymbolRefAttr, but got: {leaf}")
            leaves.append(leaf.root)
    return SymbolRefAttr(root, tuple(leaves))


def _read_integer(r: AttrTypeReader) -> Attribute:
    type = r.type()
    width = int_width(type)
    if width is None:
        raise r.error(f"expected integer or index type for IntegerAttr, but got: {type}")
    value = r.apint(width)
    if isinstance(type, IntegerType):
        if type.width == 1:
            return BoolAttr(bool(value))
        if not type.is_unsigned:
            value = signed_value(value, width)
    else:
        value = signed_value(value, 64)
    return IntegerAttr(value, type)


def _read_float(r: AttrTypeReader) -> Attribute:
    type = r.type()
    if not isinstance(type, FloatType) or type.name not in FLOAT_WIDTHS:
        raise r.error(f"expected attribute of type: FloatType, but got: {type}")
    bits = r.apint(FLOAT_WIDTHS[type.name])
    try:
        return FloatAttr(bits_to_float(bits, type), type)
    except UnsupportedTypeError:
        raise r.error(f"unsupported float type {type}") from None


def _read_file_line_col(r: AttrTypeReader) -> Attribute:
    name = _read_string_attr(r, "filename")
    line = r.varint()
    col = r.varint()
    return FileLineColLoc(name, line, col)


def _read_file_line_col_range(r: AttrTypeReader) -> Attribute:
    name = _read_string_attr(r, "filename")
    values = [r.varint() for _ in range(_count(r))]
    if len(values) > 4:
        raise r.error("invalid FileLineColRange")
    # MLIR's encoding: none (all zero), the line, line and column (a point), line, column
    # and end column, or line, column, end line and end column.
    line = values[0] if values else 0
    col = values[1] if len(values) > 1 else 0
    if len(values) == 3:
        return FileLineColLoc(name, line, col, line, values[2])
    if len(values) == 4:
        return FileLineColLoc(name, line, col, values[2], values[3])
    return FileLineColLoc(name, line, col)


def _read_fused(r: AttrTypeReader, metadata: bool) -> Attribute:
    locations = tuple(_read_location(r) for _ in range(_count(r)))
    meta = r.attribute() if metadata else None
    return FusedLoc(locations, meta)


def _read_name_loc(r: AttrTypeReader) -> Attribute:
    name = _read_string_attr(r, "name")
    child = _read_location(r)
    return NameLoc(name, None if isinstance(child, UnknownLoc) else child)


def _read_dense_resource(r: AttrTypeReader) -> Attribute:
    type = r.type()
    return DenseResourceAttr(r.resource(), type)


def _read_dense_array(r: AttrTypeReader) -> Attribute:
    element = r.type()
    size = r.varint()
    raw = r.blob()
    if not isinstance(element, (IntegerType, FloatType)):
        raise r.error(f"expected integer or float element type, but got: {element}")
    if isinstance(element, IntegerType) and element.width == 1:
        if len(raw) != size:
            raise r.error("invalid dense array data size")
        return DenseArrayAttr(element, tuple(bool(b) for b in raw))
    lay = storage.layout(element)
    if lay is not None and lay.kind in ("int", "float"):  # without numpy
        if len(raw) != size * lay.size:
            raise r.error("invalid dense array data size")
        items = storage.unpack(bytes(raw), lay)
        if lay.kind == "float":
            return DenseArrayAttr(element, tuple(storage.bits_float(b, lay.float_name)
                                                 for b in items))
        return DenseArrayAttr(element, tuple(items))
    try:
        dtype = numpy_dtype(element)
    except UnsupportedTypeError:
        raise r.error(f"unsupported dense array element type {element}") from None
    if len(raw) != size * dtype.itemsize:
        raise r.error("invalid dense array data size")
    values = np.frombuffer(raw, dtype=dtype)
    if isinstance(element, FloatType):
        return DenseArrayAttr(element, tuple(float(x) for x in values))
    return DenseArrayAttr(element, tuple(int(x) for x in values))


def _read_dense_elements(r: AttrTypeReader) -> Attribute:
    type = r.type()
    raw = r.blob()
    if not isinstance(type, (TensorType, VectorType)):
        raise r.error(f"expected a shaped type for dense elements, but got: {type}")
    if any(d < 0 for d in type.shape):
        raise r.error(f"dense elements need a statically shaped type, but got: {type}")
    decoded = decode_raw_dense(bytes(raw), type)
    if decoded is None:
        raise r.error(f"invalid dense elements data for type {type}")
    return decoded


def _unsupported(name: str):  # type: ignore[no-untyped-def]
    def read(r: AttrTypeReader) -> Attribute:
        raise r.error(f"builtin {name} is not supported by this reader")
    return read


_ATTR_READERS: dict[int, Callable[[AttrTypeReader], Attribute]] = {
    ARRAY: lambda r: ArrayAttr(tuple(r.attributes())),
    DICTIONARY: _read_dictionary,
    STRING: lambda r: StringAttr(r.string()),
    STRING_WITH_TYPE: _read_string_with_type,
    FLAT_SYMBOL_REF: lambda r: _read_symbol_ref(r, False),
    SYMBOL_REF: lambda r: _read_symbol_ref(r, True),
    TYPE: lambda r: TypeAttr(r.type()),
    UNIT: lambda r: UnitAttr(),
    INTEGER: _read_integer,
    FLOAT: _read_float,
    CALL_SITE_LOC: lambda r: CallSiteLoc(_read_location(r), _read_location(r)),
    FILE_LINE_COL_LOC: _read_file_line_col,
    FUSED_LOC: lambda r: _read_fused(r, False),
    FUSED_LOC_WITH_METADATA: lambda r: _read_fused(r, True),
    NAME_LOC: _read_name_loc,
    UNKNOWN_LOC: lambda r: UNKNOWN,
    DENSE_RESOURCE_ELEMENTS: _read_dense_resource,
    DENSE_ARRAY: _read_dense_array,
    DENSE_INT_OR_FP_ELEMENTS: _read_dense_elements,
    DENSE_STRING_ELEMENTS: _unsupported("DenseStringElementsAttr"),
    SPARSE_ELEMENTS: _unsupported("SparseElementsAttr"),
    DISTINCT: _unsupported("DistinctAttr"),
    FILE_LINE_COL_RANGE: _read_file_line_col_range,
}


def read_type(r: AttrTypeReader) -> Type:
    code = r.varint()
    if code in FLOAT_TYPES_BY_CODE:
        return FLOAT_TYPES_BY_CODE[code]
    if code == INTEGER_TYPE:
        packed = r.varint()
        signedness = SIGNEDNESS_BY_CODE.get(packed & 3)
        if signedness is None:
            raise r.error(f"invalid integer signedness: {packed & 3}")
        if packed >> 2 > MAX_INT_WIDTH:
            raise r.error(f"integer bitwidth is limited to {MAX_INT_WIDTH} bits")
        return IntegerType(packed >> 2, signedness)
    if code == INDEX_TYPE:
        return IndexType()
    if code == FUNCTION_TYPE:
        inputs = tuple(r.types())
        return FunctionType(inputs, tuple(r.types()))
    if code == COMPLEX_TYPE:
        return ComplexType(r.type())
    if code == NONE_TYPE:
        return NoneType()
    if code in (RANKED_TENSOR_TYPE, RANKED_TENSOR_TYPE_WITH_ENCODING):
        encoding = r.attribute() if code == RANKED_TENSOR_TYPE_WITH_ENCODING else None
        shape = _dims_in(r.signed_varints())
        return TensorType(shape, r.type(), encoding)
    if code == TUPLE_TYPE:
        return TupleType(tuple(r.types()))
    if code == UNRANKED_TENSOR_TYPE:
        return UnrankedTensorType(r.type())
    if code == VECTOR_TYPE:
        shape = tuple(r.signed_varints())
        return VectorType(shape, r.type())
    if code in (MEMREF_TYPE, MEMREF_TYPE_WITH_MEMSPACE, UNRANKED_MEMREF_TYPE,
                UNRANKED_MEMREF_TYPE_WITH_MEMSPACE, VECTOR_TYPE_WITH_SCALABLE_DIMS):
        raise r.error(f"builtin type code {code} (memref / scalable vector) is not supported "
                      "by this reader")
    raise r.error(f"unknown builtin type code: {code}")


def owns(obj: object) -> bool:
    from .hooks import attribute_dialect, type_dialect

    if isinstance(obj, Type):
        return type_dialect(obj) == "builtin"
    return isinstance(obj, Attribute) and attribute_dialect(obj) == "builtin"


_BUILTIN_PROPERTIES: dict[str, tuple[tuple[str, bool], ...]] = {
    "builtin.module": (("sym_name", True), ("sym_visibility", True)),
    "builtin.unrealized_conversion_cast": (),
}


def op_properties(name: str) -> tuple[tuple[str, bool], ...] | None:
    return _BUILTIN_PROPERTIES.get(name)
