"""Dialect hooks: how a dialect encodes its attributes and types (upstream's
`BytecodeDialectInterface`), which dialect owns an attribute or type, and what an op's
properties look like.

A dialect without hooks has its attributes and types written as MLIR text (the fallback
upstream uses too, `hasCustomEncoding = 0`), which every dialect we can parse supports.

A dialect module provides hooks as plain module-level functions, found by name so the
dialect never imports this package (layers point one way: formats -> dialects):

- ``write_attribute(attr, writer) -> bool`` / ``write_type(type, writer) -> bool``:
  encode, or return False (before writing anything) to fall back to text;
- ``read_attribute(reader)`` / ``read_type(reader)``: decode (``reader.error(msg)``
  builds the exception to raise);
- ``owns(obj) -> bool``: whether an attribute or type object belongs to the dialect;
- ``op_properties(op_name)``: the op's properties as ``((name, optional), ...)`` in
  encoding order, ``()`` for a registered op without properties, None when unknown.
"""

from __future__ import annotations

import importlib

from ...ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DialectAttr,
    DictAttr,
    FloatAttr,
    IntegerAttr,
    OpaqueAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from ...ir.locations import LocationAttr
from ...ir.record import Struct
from ...ir.types import (
    ComplexType,
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    NoneType,
    OpaqueType,
    QuantizedType,
    TensorType,
    TokenType,
    TupleType,
    Type,
    UnrankedTensorType,
    VectorType,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ...ir.codec import AttrTypeReader, AttrTypeWriter

OpSpec = tuple[tuple[str, bool], ...]
"""An op's properties in encoding order: (name, written as an optional attribute)."""


class DialectHooks(Struct):
    name: str
    write_attribute: Callable[[Attribute, AttrTypeWriter], bool] | None
    write_type: Callable[[Type, AttrTypeWriter], bool] | None
    read_attribute: Callable[[AttrTypeReader], Attribute] | None
    read_type: Callable[[AttrTypeReader], Type] | None
    owns: Callable[[object], bool] | None
    op_properties: Callable[[str], OpSpec | None] | None

    def __init__(self, name: str,
                 write_attribute: Callable[[Attribute, AttrTypeWriter], bool] | None = None,
                 write_type: Callable[[Type, AttrTypeWriter], bool] | None = None,
                 read_attribute: Callable[[AttrTypeReader], Attribute] | None = None,
                 read_type: Callable[[AttrTypeReader], Type] | None = None,
                 owns: Callable[[object], bool] | None = None,
                 op_properties: Callable[[str], OpSpec | None] | None = None) -> None:
        self.name = name
        self.write_attribute = write_attribute
        self.write_type = write_type
        self.read_attribute = read_attribute
        self.read_type = read_type
        self.owns = owns
        self.op_properties = op_properties


# Dialects whose hooks live in a dialect module, imported on first use.
_MODULES = {"builtin": "shlo_cli.formats.bytecode.builtin",
            "vhlo": "shlo_cli.dialects.vhlo.bytecode"}
_HOOKS: dict[str, DialectHooks | None] = {}


def register_hooks(hooks: DialectHooks) -> None:
    _HOOKS[hooks.name] = hooks


def hooks_for(dialect: str) -> DialectHooks | None:
    """The hooks of `dialect`, or None (text fallback)."""
    if dialect in _HOOKS:
        return _HOOKS[dialect]
    hooks = None
    path = _MODULES.get(dialect)
    if path is not None:
        try:
            module = importlib.import_module(path)
        except ImportError:
            module = None
        if module is not None and hasattr(module, "read_attribute"):
            hooks = DialectHooks(
                dialect, getattr(module, "write_attribute", None),
                getattr(module, "write_type", None), getattr(module, "read_attribute", None),
                getattr(module, "read_type", None), getattr(module, "owns", None),
                getattr(module, "op_properties", None))
    _HOOKS[dialect] = hooks
    return hooks


_BUILTIN_ATTRS = (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr, DenseResourceAttr,
                  DictAttr, FloatAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr,
                  UnitAttr, LocationAttr)
_BUILTIN_TYPES = (ComplexType, FloatType, FunctionType, IndexType, IntegerType, NoneType,
                  TensorType, TupleType, UnrankedTensorType, VectorType)


def _prefix_dialect(text: str) -> str:
    """`#stablehlo<...>` / `!quant.uniform<...>` -> the dialect; builtin for the rest."""
    if text[:1] in ("#", "!"):
        name = text[1:]
        for i, ch in enumerate(name):
            if not (ch.isalnum() or ch == "_"):
                return name[:i] or "builtin"
        return name or "builtin"
    return "builtin"


_DIALECT_OF_CLASS: dict[type, str] = {}  # attribute classes whose dialect the class decides


def attribute_dialect(attr: Attribute) -> str:
    """The dialect an attribute belongs to, as MLIR would say. A builtin class, or one a
    dialect's `owns` claims (owners decide by class), is looked up once per class."""
    cls = attr.__class__
    found = _DIALECT_OF_CLASS.get(cls)
    if found is not None:
        return found
    if isinstance(attr, _BUILTIN_ATTRS):
        _DIALECT_OF_CLASS[cls] = "builtin"
        return "builtin"
    if isinstance(attr, DialectAttr):
        return attr.dialect
    for name in _owning_dialects():
        hooks = hooks_for(name)
        if hooks is not None and hooks.owns is not None and hooks.owns(attr):
            if not isinstance(attr, OpaqueAttr):
                _DIALECT_OF_CLASS[cls] = name
            return name
    if isinstance(attr, OpaqueAttr):
        return _prefix_dialect(attr.text)
    return _prefix_dialect(str(attr))


def type_dialect(type: Type) -> str:
    if isinstance(type, _BUILTIN_TYPES):
        return "builtin"
    if isinstance(type, TokenType):
        return "stablehlo"
    if isinstance(type, QuantizedType):
        return "quant"
    for name in _owning_dialects():
        hooks = hooks_for(name)
        if hooks is not None and hooks.owns is not None and hooks.owns(type):
            return name
    if isinstance(type, OpaqueType):
        return _prefix_dialect(type.text)
    return _prefix_dialect(str(type))


def _owning_dialects() -> tuple[str, ...]:
    return tuple(name for name in _MODULES if name != "builtin")
