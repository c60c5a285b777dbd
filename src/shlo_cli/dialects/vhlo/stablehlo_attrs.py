"""StableHLO/builtin attributes and types <-> their VHLO counterparts, one value at a time.

The 1:1 cases of upstream's StablehloLegalizeToVhlo / VhloLegalizeToStablehlo ("generic"
conversion): enums, arrays, dictionaries, numbers, strings, symbols, types, dense elements,
result accuracy, output operand aliases, replica-group mesh axes. Per-op special cases
(dimension numbers, channel handles, defaults) live in the passes.

Conversions raise NoCounterpart when a value has none; the passes turn that into upstream's
"failed to legalize operation" diagnostic. StableHLO attributes are rebuilt from their text
with the parser, so they come out exactly as a parsed file holds them.
"""

from __future__ import annotations

import struct

from ...ir import regex_programs
from ...ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
    DialectAttr,
    DictAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    escape_string,
)
from ...ir.floats import format_float
from ...ir.parser import parse_attribute_text
from ...ir.types import DYNAMIC, F64, IntegerType, TensorType, Type
from . import attributes as va
from . import types as vt
from .type_conversion import to_builtin_type, to_vhlo_type
from .types import RankedTensorV1Type, is_vhlo


class NoCounterpart(ValueError):
    """A value with no VHLO (or StableHLO) counterpart."""


# StableHLO enum attribute name (`#stablehlo<name CASE>`) -> VHLO enum class.
ENUMS: dict[str, type] = {
    "comparison_direction": va.ComparisonDirectionV1Attr,
    "comparison_type": va.ComparisonTypeV1Attr,
    "fft_type": va.FftTypeV1Attr,
    "precision": va.PrecisionV1Attr,
    "rng_algorithm": va.RngAlgorithmV1Attr,
    "rng_distribution": va.RngDistributionV1Attr,
    "transpose": va.TransposeV1Attr,
}
_ENUM_NAMES = {cls: name for name, cls in ENUMS.items()}


# ---- types -------------------------------------------------------------------------------


def encoding_to_vhlo(attr: Attribute) -> Attribute | None:
    """Tensor encodings: VHLO ones stay, `#stablehlo.bounds` becomes type_extensions_v1,
    anything else (sparse tensors) has no counterpart."""
    if is_vhlo(attr):
        return attr
    if isinstance(attr, DialectAttr) and attr.dialect == "stablehlo" and attr.name == "bounds":
        bounds = attr.get("bounds") or []
        return va.TypeExtensionsV1Attr(tuple(DYNAMIC if b is None else b for b in bounds))
    return None


def encoding_to_stablehlo(attr: Attribute) -> Attribute | None:
    if isinstance(attr, va.TypeExtensionsV1Attr):
        items = ", ".join("?" if b == DYNAMIC else str(b) for b in attr.bounds)
        return parse_attribute_text(f"#stablehlo.bounds<{items}>")
    return attr


_CONVERTED: dict[Type, Type] = {}
"""Converted types, reused: one VHLO object per type lets the bytecode writer number a type
by identity instead of printing each copy (types are immutable, so sharing is safe)."""
_CONVERTED_LIMIT = 4096


def type_to_vhlo(t: Type, allow_other: bool = False) -> Type:
    converted = _CONVERTED.get(t)
    if converted is not None:
        return converted
    if is_vhlo(t):
        return t
    converted = to_vhlo_type(t, encoding_to_vhlo)
    if converted is not None:
        if len(_CONVERTED) >= _CONVERTED_LIMIT:
            _CONVERTED.clear()
        _CONVERTED[t] = converted
    if converted is None:
        if allow_other and not _is_builtin_or_stablehlo(t):
            return t
        raise NoCounterpart(f"type {t} has no VHLO counterpart")
    return converted


def _is_builtin_or_stablehlo(t: Type) -> bool:
    text = str(t)
    return not text.startswith("!") or text.startswith("!stablehlo.")


def type_to_stablehlo(t: Type) -> Type:
    if not is_vhlo(t):
        return t
    converted = to_builtin_type(t, encoding_to_stablehlo)
    if converted is None:
        raise NoCounterpart(f"type {t} has no StableHLO counterpart")
    return converted


# ---- attributes: StableHLO -> VHLO -------------------------------------------------------


def i64_attr(value: int) -> Attribute:
    return va.IntegerV1Attr(vt.IntegerSI64V1Type(), value)


def i64_tensor(values: list[int] | tuple[int, ...], shape: tuple[int, ...] | None = None
               ) -> Attribute:
    """tensor_v1 of `dense<...> : tensor<Nxi64>` (the form upstream gives every dims list)."""
    ints = [int(x) for x in values]
    shape = shape if shape is not None else (len(ints),)
    ttype = TensorType(shape, IntegerType(64))
    stored = struct.pack(f"<{len(ints)}q", *ints)  # MLIR's storage: no numpy needed
    return va.TensorV1Attr(RankedTensorV1Type(shape, vt.IntegerSI64V1Type()),
                           DenseElementsAttr.from_storage(ttype, stored, False))


def bool_tensor(values: list[bool]) -> Attribute:
    ttype = TensorType((len(values),), IntegerType(1))
    return va.TensorV1Attr(RankedTensorV1Type((len(values),), vt.BooleanV1Type()),
                           DenseElementsAttr.from_storage(ttype, bytes(map(bool, values)), False))


def to_vhlo_attr(attr: Attribute, allow_other: bool = False) -> Attribute:
    """The VHLO attribute for a StableHLO/builtin one (upstream's `convertGeneric`)."""
    if is_vhlo(attr):
        return attr
    if isinstance(attr, DialectAttr) and attr.dialect == "stablehlo":
        return _stablehlo_to_vhlo(attr)
    if isinstance(attr, ArrayAttr):
        return va.ArrayV1Attr(tuple(to_vhlo_attr(a, allow_other) for a in attr.elements))
    if isinstance(attr, DenseElementsAttr):
        return va.TensorV1Attr(type_to_vhlo(attr.type), attr)
    if isinstance(attr, DenseArrayAttr):
        element = attr.element
        if element == IntegerType(64):
            return i64_tensor(list(attr.items))
        if element == IntegerType(1):
            return bool_tensor([bool(x) for x in attr.items])
        raise NoCounterpart(f"{attr} has no VHLO counterpart")
    if isinstance(attr, DictAttr):
        # MLIR dictionaries hold their entries sorted by name.
        entries = sorted(attr.entries, key=lambda kv: kv[0].encode())
        return va.DictionaryV1Attr(tuple((va.StringV1Attr(k), to_vhlo_attr(v, allow_other))
                                         for k, v in entries))
    if isinstance(attr, FloatAttr):
        return va.FloatV1Attr(type_to_vhlo(attr.type), attr.number)
    if isinstance(attr, BoolAttr):
        return va.BooleanV1Attr(attr.flag)
    if isinstance(attr, IntegerAttr):
        if isinstance(attr.type, IntegerType) and attr.type.width == 1:
            return va.BooleanV1Attr(bool(attr.number))
        return va.IntegerV1Attr(type_to_vhlo(attr.type), attr.number)
    if isinstance(attr, SymbolRefAttr):
        if attr.nested:
            raise NoCounterpart(f"nested symbol {attr} has no VHLO counterpart")
        return va.StringV1Attr(attr.root)
    if isinstance(attr, StringAttr):
        if attr.type is not None:
            raise NoCounterpart("strings with a type have no VHLO counterpart")
        return va.StringV1Attr(attr.text)
    if isinstance(attr, TypeAttr):
        return va.TypeV1Attr(type_to_vhlo(attr.type))
    if allow_other and not (isinstance(attr, DialectAttr) and attr.dialect == "stablehlo"):
        return attr
    raise NoCounterpart(f"{attr} has no VHLO counterpart")


def _stablehlo_to_vhlo(attr: DialectAttr) -> Attribute:
    if not attr.name:  # enum: `#stablehlo<comparison_direction EQ>`
        kind, _, case = attr.body.partition(" ")
        cls = ENUMS.get(kind)
        if cls is None or case.strip() not in cls.cases:
            raise NoCounterpart(f"{attr} has no VHLO counterpart")
        return cls(case.strip())
    name = attr.name
    if name == "result_accuracy_mode":
        return va.ResultAccuracyModeV1Attr(attr.body.strip())
    if name == "result_accuracy":
        mode = attr.get("mode")
        mode_vhlo = (_stablehlo_to_vhlo(mode) if isinstance(mode, DialectAttr)
                     else va.ResultAccuracyModeV1Attr("DEFAULT"))
        return va.ResultAccuracyV1Attr(float(attr.get("atol", 0.0)), float(attr.get("rtol", 0.0)),
                                       int(attr.get("ulps", 0)), mode_vhlo)
    if name == "output_operand_alias":
        return va.OutputOperandAliasV1Attr(
            tuple(attr.get("output_tuple_indices", []) or []), int(attr.get("operand_index", 0)),
            tuple(attr.get("operand_tuple_indices", []) or []))
    if name == "replica_group_mesh_axes":
        mesh = attr.get("mesh")
        mesh_vhlo = (va.StringV1Attr(mesh.root) if isinstance(mesh, SymbolRefAttr)
                     else to_vhlo_attr(mesh))
        axes = attr.get("axes") or []
        return va.ReplicaGroupMeshAxesV1Attr(
            mesh_vhlo, va.ArrayV1Attr(tuple(_stablehlo_to_vhlo(a) for a in axes)))
    if name == "axis_ref":
        m = _AXIS_REF.fullmatch(attr.body.strip())
        if m is None:
            raise NoCounterpart(f"{attr} has no VHLO counterpart")
        sub = (va.SubAxisInfoV1Attr(int(m.group(2)), int(m.group(3)))
               if m.group(2) is not None else None)
        return va.AxisRefV1Attr(va.StringV1Attr(_unquote(m.group(1))), sub)
    raise NoCounterpart(f"{attr} has no VHLO counterpart")


_AXIS_REF = regex_programs.compile(r'name\s*=\s*("(?:[^"\\]|\\.)*")(?:\s*,\s*sub_axis_info\s*=\s*'
                       r'\(\s*(-?[0-9]+)\s*\)\s*(-?[0-9]+))?')


def _unquote(text: str) -> str:
    attr = parse_attribute_text(text)
    assert isinstance(attr, StringAttr)
    return attr.text


# ---- attributes: VHLO -> StableHLO -------------------------------------------------------


def _float(value: float) -> str:
    return format_float(value, F64)


def to_stablehlo_attr(attr: Attribute) -> Attribute:
    """The StableHLO/builtin attribute for a VHLO one (non-VHLO values pass through)."""
    if not is_vhlo(attr):
        return attr
    if isinstance(attr, va.ArrayV1Attr):
        return ArrayAttr(tuple(to_stablehlo_attr(a) for a in attr.value))
    if isinstance(attr, va.BooleanV1Attr):
        return BoolAttr(attr.value)
    if isinstance(attr, va.ResultAccuracyModeV1Attr):
        return parse_attribute_text(f"#stablehlo.result_accuracy_mode<{attr.value}>")
    if isinstance(attr, va.EnumV1Attr):
        kind = _ENUM_NAMES.get(type(attr))
        if kind is None:
            raise NoCounterpart(f"{attr} has no StableHLO counterpart")
        return parse_attribute_text(f"#stablehlo<{kind} {attr.value}>")
    if isinstance(attr, va.DictionaryV1Attr):
        entries = []
        for key, value in attr.value:
            name = to_stablehlo_attr(key)
            if not isinstance(name, StringAttr):
                raise NoCounterpart(f"dictionary key {key} is not a string")
            entries.append((name.text, to_stablehlo_attr(value)))
        return DictAttr(tuple(entries))
    if isinstance(attr, va.FloatV1Attr):
        return FloatAttr(attr.value, type_to_stablehlo(attr.type))
    if isinstance(attr, va.IntegerV1Attr):
        builtin = type_to_stablehlo(attr.type)
        if isinstance(builtin, IntegerType) and builtin.width == 1:
            return BoolAttr(bool(attr.value))
        return IntegerAttr(attr.value, builtin)
    if isinstance(attr, va.OutputOperandAliasV1Attr):
        return parse_attribute_text(
            "#stablehlo.output_operand_alias<output_tuple_indices = "
            f"{_list(attr.output_tuple_indices)}, operand_index = {attr.operand_index}, "
            f"operand_tuple_indices = {_list(attr.operand_tuple_indices)}>")
    if isinstance(attr, va.StringV1Attr):
        return StringAttr(attr.value)
    if isinstance(attr, va.TensorV1Attr):
        type_to_stablehlo(attr.type)  # must have a counterpart
        return attr.data
    if isinstance(attr, va.TypeV1Attr):
        return TypeAttr(type_to_stablehlo(attr.value))
    if isinstance(attr, va.ResultAccuracyV1Attr):
        mode = to_stablehlo_attr(attr.mode)
        return parse_attribute_text(
            f"#stablehlo.result_accuracy<atol = {_float(attr.atol)}, rtol = "
            f"{_float(attr.rtol)}, ulps = {attr.ulps}, mode = {mode}>")
    if isinstance(attr, va.ReplicaGroupMeshAxesV1Attr):
        mesh = attr.mesh
        mesh_text = (str(SymbolRefAttr(mesh.value)) if isinstance(mesh, va.StringV1Attr)
                     else str(to_stablehlo_attr(mesh)))
        axes = attr.axes.value if isinstance(attr.axes, va.ArrayV1Attr) else ()
        return parse_attribute_text(
            f"#stablehlo.replica_group_mesh_axes<mesh = {mesh_text}, axes = ["
            + ", ".join(_axis_ref_text(a) for a in axes) + "]>")
    if isinstance(attr, va.AxisRefV1Attr):
        return parse_attribute_text(_axis_ref_text(attr))
    raise NoCounterpart(f"{attr} has no StableHLO counterpart")


def _axis_ref_text(attr: Attribute) -> str:
    if not isinstance(attr, va.AxisRefV1Attr) or not isinstance(attr.name, va.StringV1Attr):
        raise NoCounterpart(f"{attr} is not an axis reference")
    text = f"#stablehlo.axis_ref<name = {escape_string(attr.name.value)}"
    sub = attr.sub_axis_info
    if isinstance(sub, va.SubAxisInfoV1Attr):
        text += f", sub_axis_info = ({sub.pre_size}){sub.size}"
    return text + ">"


def _list(values: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


def ints_of(attr: Attribute | None) -> list[int]:
    """The integers of a tensor_v1 (dims lists), raising NoCounterpart otherwise."""
    if not isinstance(attr, va.TensorV1Attr):
        raise NoCounterpart(f"expected an integer tensor, got {attr}")
    return [int(x) for x in attr.data.flat_values()]


def int_of(attr: Attribute | None) -> int:
    if not isinstance(attr, va.IntegerV1Attr):
        raise NoCounterpart(f"expected an integer, got {attr}")
    return attr.value

