"""Direct decoding of the commonest builtin attribute and type entries (the reader's hot path).

`builtin.read_attribute` / `read_type` decode any builtin entry through the generic
`DialectReader` (one object and several method calls per field). Most entries of a file are
a handful of shapes: strings, file:line:col locations, ranked tensor types, dictionaries,
arrays, integers, type attributes, flat symbol references and dense elements. These are read
here straight from the file's bytes with the same field order and the same checks.

A decoder returns None at anything unusual (a field out of range, a value of the wrong kind,
truncated or trailing bytes); the caller then decodes the entry the generic way, which
raises upstream's diagnostic. Referenced entries are resolved in the order the generic
decoder resolves them, so an error inside one surfaces the same either way.
"""

from __future__ import annotations

from ...ir.attributes import (
    ArrayAttr,
    BoolAttr,
    DictAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from ...ir.dense import decode_raw_dense
from ...ir.locations import FileLineColLoc
from ...ir.types import DYNAMIC, FunctionType, IndexType, IntegerType, TensorType, VectorType
from .builtin import (
    ARRAY,
    DENSE_INT_OR_FP_ELEMENTS,
    DICTIONARY,
    FILE_LINE_COL_LOC,
    FLAT_SYMBOL_REF,
    FLOAT_TYPES_BY_CODE,
    FUNCTION_TYPE,
    INDEX_TYPE,
    INT64_MIN,
    INTEGER,
    INTEGER_TYPE,
    MAX_INT_WIDTH,
    RANKED_TENSOR_TYPE,
    SIGNEDNESS_BY_CODE,
    STRING,
    TYPE,
    UNIT,
    signed_value,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .tables import AttrTypeTable

    Decoder = Callable[["AttrTypeTable", bytes, int, int], Any]


# Immutable values shared by every file read (the text parser shares its types the same
# way): building a frozen dataclass costs ten times a dictionary lookup. Keys name their
# parts by identity where those parts are themselves shared; each value keeps its parts
# alive, so an id is never reused while its entry exists.
_SHARED: dict[Any, Any] = {}
_SHARED_LIMIT = 1 << 15


def _share(key: Any, value: Any) -> Any:
    if len(_SHARED) >= _SHARED_LIMIT:
        _SHARED.clear()
    _SHARED[key] = value
    return value


def varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """(value, position after it) of the varint at `pos`; (-1, pos) if it runs past `end`."""
    if pos >= end:
        return -1, pos
    first = buf[pos]
    if first & 1:
        return first >> 1, pos + 1
    if first == 0:
        if pos + 9 > end:
            return -1, pos
        return int.from_bytes(buf[pos + 1:pos + 9], "little"), pos + 9
    extra = (first & -first).bit_length()
    if pos + extra > end:
        return -1, pos
    return int.from_bytes(buf[pos:pos + extra], "little") >> extra, pos + extra


def _string_of(table: AttrTypeTable, index: int) -> str | None:
    """The text of attribute entry `index` if it is a string attribute."""
    values = table.attr_values
    attr = values[index] if index < len(values) else None
    if attr.__class__ is not StringAttr:  # not decoded yet (or not a string)
        attr = table.attribute(index)
    return attr.text if attr.__class__ is StringAttr else None


# ---- attributes ----------------------------------------------------------------------------


def _string(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    first = buf[pos] if pos < end else 0
    if first & 1:
        index = first >> 1
        pos += 1
    else:
        index, pos = varint(buf, pos, end)
    strings = table.strings
    if pos != end or not 0 <= index < len(strings):
        return None
    text = strings[index]
    if len(text) > 256:  # not kept for the process: a long string is seldom repeated
        return StringAttr(text)
    found = _SHARED.get(text)  # the only `str` keys
    return found if found is not None else _share(text, StringAttr(text))


def _file_line_col(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    if pos + 3 == end and buf[pos] & buf[pos + 1] & buf[pos + 2] & 1:  # one byte each
        name = _string_of(table, buf[pos] >> 1)
        if name is None:
            return None
        return FileLineColLoc(name, buf[pos + 1] >> 1, buf[pos + 2] >> 1)
    index, pos = varint(buf, pos, end)
    if index < 0:
        return None
    name = _string_of(table, index)
    line, pos = varint(buf, pos, end)
    col, pos = varint(buf, pos, end)
    if name is None or col < 0 or line < 0 or pos != end:
        return None
    return FileLineColLoc(name, line, col)


def _dictionary(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    count, pos = varint(buf, pos, end)
    if count < 0:
        return None
    attribute = table.attribute
    entries = []
    for _ in range(count):
        index, pos = varint(buf, pos, end)
        if index < 0:
            return None
        name = _string_of(table, index)
        if name is None:
            return None
        index, pos = varint(buf, pos, end)
        if index < 0:
            return None
        entries.append((name, attribute(index)))
    return DictAttr(tuple(entries)) if pos == end else None


def _array(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    count, pos = varint(buf, pos, end)
    if count < 0:
        return None
    attribute = table.attribute
    elements = []
    for _ in range(count):
        index, pos = varint(buf, pos, end)
        if index < 0:
            return None
        elements.append(attribute(index))
    return ArrayAttr(tuple(elements)) if pos == end else None


def _type_attr(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    index, pos = varint(buf, pos, end)
    if index < 0:
        return None
    type = table.type(index)
    return TypeAttr(type) if pos == end else None


def _unit(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    return UnitAttr() if pos == end else None


def _flat_symbol_ref(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    index, pos = varint(buf, pos, end)
    if index < 0:
        return None
    root = _string_of(table, index)
    return SymbolRefAttr(root, ()) if root is not None and pos == end else None


def _integer(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    index, pos = varint(buf, pos, end)
    if index < 0:
        return None
    type = table.type(index)
    cls = type.__class__
    if cls is IntegerType:
        width = type.width  # type: ignore[attr-defined]
    elif cls is IndexType:
        width = 64
    else:
        return None
    if width <= 8:
        if pos >= end:
            return None
        value = buf[pos] & ((1 << width) - 1)
        pos += 1
    elif width <= 64:
        raw, pos = varint(buf, pos, end)
        if raw < 0:
            return None
        value = ((raw >> 1) ^ -(raw & 1)) & ((1 << width) - 1)
    else:
        return None
    if pos != end:
        return None
    if cls is IntegerType:
        if width == 1:
            return BoolAttr(bool(value))
        if type.signedness != "u":  # type: ignore[attr-defined]
            value = signed_value(value, width)
    else:
        value = signed_value(value, 64)
    return IntegerAttr(value, type)


def _dense_elements(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    index, pos = varint(buf, pos, end)
    if index < 0:
        return None
    type = table.type(index)
    size, pos = varint(buf, pos, end)
    if size < 0 or pos + size != end:
        return None
    if type.__class__ is not TensorType and type.__class__ is not VectorType:
        return None
    if any(d < 0 for d in type.shape):
        return None
    return decode_raw_dense(buf[pos:end], type)


ATTRIBUTES: dict[int, Decoder] = {
    STRING: _string,
    FILE_LINE_COL_LOC: _file_line_col,
    DICTIONARY: _dictionary,
    ARRAY: _array,
    TYPE: _type_attr,
    UNIT: _unit,
    FLAT_SYMBOL_REF: _flat_symbol_ref,
    INTEGER: _integer,
    DENSE_INT_OR_FP_ELEMENTS: _dense_elements,
}

# ---- types ---------------------------------------------------------------------------------


def _ranked_tensor(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    rank, pos = varint(buf, pos, end)
    if rank < 0 or rank > end - pos:
        return None
    shape = []
    for _ in range(rank):
        raw, pos = varint(buf, pos, end)
        if raw < 0:
            return None
        dim = (raw >> 1) ^ -(raw & 1)
        shape.append(DYNAMIC if dim == INT64_MIN else dim)
    index, pos = varint(buf, pos, end)
    if index < 0:
        return None
    element = table.type(index)
    if pos != end:
        return None
    key = (tuple(shape), id(element))
    found = _SHARED.get(key)
    if found is not None and found.element is element:
        return found
    return _share(key, TensorType(key[0], element, None))


def _integer_type(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    packed, pos = varint(buf, pos, end)
    if packed < 0 or pos != end:
        return None
    signedness = SIGNEDNESS_BY_CODE.get(packed & 3)
    if signedness is None or packed >> 2 > MAX_INT_WIDTH:
        return None
    found = _SHARED.get(packed)  # the only `int` keys
    return found if found is not None else _share(packed, IntegerType(packed >> 2, signedness))


def _index_type(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    return IndexType() if pos == end else None


def _function_type(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
    lists = []
    type = table.type
    for _ in range(2):
        count, pos = varint(buf, pos, end)
        if count < 0:
            return None
        items = []
        for _ in range(count):
            index, pos = varint(buf, pos, end)
            if index < 0:
                return None
            items.append(type(index))
        lists.append(tuple(items))
    if pos != end:
        return None
    key = ("->", tuple(map(id, lists[0])), tuple(map(id, lists[1])))
    found = _SHARED.get(key)
    if found is not None and _same(found.inputs, lists[0]) and _same(found.results, lists[1]):
        return found
    return _share(key, FunctionType(lists[0], lists[1]))


def _same(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    return all(a is b for a, b in zip(old, new, strict=True))


def _float_type(code: int) -> Decoder:
    value = FLOAT_TYPES_BY_CODE[code]

    def read(table: AttrTypeTable, buf: bytes, pos: int, end: int) -> Any:
        return value if pos == end else None
    return read


TYPES: dict[int, Decoder] = {
    RANKED_TENSOR_TYPE: _ranked_tensor,
    INTEGER_TYPE: _integer_type,
    INDEX_TYPE: _index_type,
    FUNCTION_TYPE: _function_type,
    **{code: _float_type(code) for code in FLOAT_TYPES_BY_CODE},
}
