"""The builtin attributes the numbering encodes directly (the bytes builtin.write_attribute
writes, recorded as a recipe: bytes and the entries referenced), and the cheap structural
keys of the simplest ones. Each function takes the IRNumbering (`numbering`) first."""

from __future__ import annotations

import struct
from operator import itemgetter

from ...ir.attributes import (
    ArrayAttr,
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
    DictAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from ...ir.types import IntegerType
from . import builtin
from .encoding import encode_varint
from .recipes import TemplateRecorder, apint_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TYPE_ATTR_CODE = encode_varint(builtin.TYPE)
_FLAT_SYMBOL_CODE = encode_varint(builtin.FLAT_SYMBOL_REF)
_UNIT_CODE = encode_varint(builtin.UNIT)
_INTEGER_CODE = encode_varint(builtin.INTEGER)
DENSE_CODE = encode_varint(builtin.DENSE_INT_OR_FP_ELEMENTS)
_DENSE_ARRAY_CODE = encode_varint(builtin.DENSE_ARRAY)
_ARRAY_HEADS = [encode_varint(builtin.ARRAY) + encode_varint(n) for n in range(128)]
_DICT_HEADS = [encode_varint(builtin.DICTIONARY) + encode_varint(n) for n in range(128)]
_UNSIGNED = {8: "B", 16: "H", 32: "I", 64: "Q"}  # struct codes of the integer widths
_by_name = itemgetter(0)


def encode_dict(numbering: Any, attr: DictAttr) -> list[Any]:
    entries = sorted(attr.entries, key=_by_name)
    count = len(entries)
    recipe: list[Any] = [_DICT_HEADS[count] if count < 128
                         else _DICT_HEADS[0][:1] + encode_varint(count)]
    number_string = numbering.number_string
    number_attr = numbering.number_attr
    for name, value in entries:
        recipe.append(number_string(name))
        recipe.append(number_string(value.text) if value.__class__ is StringAttr
                      else number_attr(value))
    return recipe


def encode_array(numbering: Any, attr: ArrayAttr) -> list[Any]:
    elements = attr.elements
    count = len(elements)
    recipe: list[Any] = [_ARRAY_HEADS[count] if count < 128
                         else _ARRAY_HEADS[0][:1] + encode_varint(count)]
    number_attr = numbering.number_attr
    for element in elements:
        recipe.append(number_attr(element))
    return recipe


def encode_type_attr(numbering: Any, attr: TypeAttr) -> list[Any]:
    return [TYPE_ATTR_CODE, numbering.number_type(attr.type)]


def encode_symbol(numbering: Any, attr: SymbolRefAttr) -> list[Any] | None:
    if attr.nested:
        recorder = TemplateRecorder(numbering.version)
        builtin.write_attribute(attr, recorder)
        recipe: list[Any] = numbering._resolve(recorder.finish())
        return recipe
    return [_FLAT_SYMBOL_CODE, numbering.number_string(attr.root)]


def encode_unit(numbering: Any, attr: UnitAttr) -> list[Any]:
    return [_UNIT_CODE]


def encode_integer(numbering: Any, attr: IntegerAttr) -> list[Any] | None:
    type = attr.type
    width = builtin.int_width(type)
    if width is None:
        return None
    return [_INTEGER_CODE, numbering.number_type(type), apint_bytes(int(attr.number), width)]


def encode_bool(numbering: Any, attr: BoolAttr) -> list[Any]:
    return [_INTEGER_CODE, numbering.number_type(builtin.I1), bytes((1 if attr.flag else 0,))]


def encode_dense(numbering: Any, attr: DenseElementsAttr) -> list[Any] | None:
    raw = numbering._dense_raw[id(attr)]  # set with its key (`attr` is held by `_keys`)
    if raw is None:  # no raw storage: written as text
        return None
    return [DENSE_CODE, numbering.number_type(attr.type), encode_varint(len(raw)), raw]


def encode_dense_array(numbering: Any, attr: DenseArrayAttr) -> list[Any] | None:
    element = attr.element
    code = _UNSIGNED.get(element.width) if isinstance(element, IntegerType) else None
    if code is not None:  # the items as unsigned little-endian words of their width
        mask = (1 << element.width) - 1  # type: ignore[attr-defined]
        raw = struct.pack(f"<{len(attr.items)}{code}", *[x & mask for x in attr.items])
    else:
        found = builtin._dense_array_bytes(attr)
        if found is None:
            return None
        raw = found
    return [_DENSE_ARRAY_CODE, numbering.number_type(element),
            encode_varint(len(attr.items)) + encode_varint(len(raw)) + raw]


def type_attr_key(numbering: Any, attr: TypeAttr) -> Any:
    return ("type", numbering._info(attr.type)[1])


def integer_key(numbering: Any, attr: IntegerAttr) -> Any:
    # equal exactly when the printed forms (`number : type`) are
    return ("int", numbering._info(attr.type)[1], attr.number)


def dense_key_by_items(numbering: Any, attr: DenseArrayAttr) -> Any:
    element = attr.element
    if element.__class__ is IntegerType and element.width > 1:
        return ("array", element.width, element.signedness, attr.items)
    return ("array?", str(attr))  # printed, as attr_key keys it


DIRECT: dict[type, Any] = {
    DictAttr: encode_dict, ArrayAttr: encode_array,
    TypeAttr: encode_type_attr, SymbolRefAttr: encode_symbol,
    UnitAttr: encode_unit, IntegerAttr: encode_integer,
    BoolAttr: encode_bool, DenseElementsAttr: encode_dense,
    DenseArrayAttr: encode_dense_array,
}
"""Builtin attribute classes encoded here directly (the same bytes as the builtin hook)."""


CHEAP_KEYS: dict[type, Any] = {
    TypeAttr: type_attr_key, IntegerAttr: integer_key,
    BoolAttr: lambda numbering, attr: ("bool", bool(attr.flag)),
    SymbolRefAttr: lambda numbering, attr: ("@", attr.root, attr.nested),
    UnitAttr: lambda numbering, attr: ("unit",),
    DenseArrayAttr: dense_key_by_items,
}
"""Builtin attribute classes keyed by value without caching the key per object: the key
costs less than that lookup (equal keys: equal printed forms, so the same MLIR attribute)."""
