"""VHLO attributes: the versioned, frozen spelling of every attribute a portable artifact holds.

Each class mirrors one attribute of upstream `stablehlo/dialect/VhloAttrs.td` /
`VhloEnums.td`; its record fields are exactly that attribute's parameters, in the same
order (the bytecode encodings write them in that order). Every class has ``mnemonic``,
``min_version`` and ``max_version`` (inclusive; CURRENT for all today).

    ArrayV1Attr(value: tuple[Attribute, ...])           #vhlo.array_v1<[a, b]>          0.9.0
    BooleanV1Attr(value: bool)                          #vhlo.bool_v1<true>             0.9.0
    DictionaryV1Attr(value: tuple[(key, value), ...])   #vhlo.dict_v1<{k = v}>          0.9.0
    FloatV1Attr(type: Type, value: float)               #vhlo.float_v1<1.0 : !vhlo.f32_v1>
    IntegerV1Attr(type: Type, value: int)               #vhlo.integer_v1<1 : i64>       0.9.0
    OutputOperandAliasV1Attr(output_tuple_indices: tuple[int, ...], operand_index: int,
                             operand_tuple_indices: tuple[int, ...])                    0.9.0
    StringV1Attr(value: str)                            #vhlo.string_v1<"text">         0.9.0
    TensorV1Attr(type: Type, data: DenseElementsAttr)   #vhlo.tensor_v1<dense<1> : tensor<i64>>
    TypeV1Attr(value: Type)                             #vhlo.type_v1<!vhlo.f32_v1>     0.9.0
    TypeExtensionsV1Attr(bounds: tuple[int, ...])       #vhlo.type_extensions_v1<bounds = [?]>
    ResultAccuracyV1Attr(atol: float, rtol: float, ulps: int, mode: Attribute)          1.9.0
    SubAxisInfoV1Attr(pre_size: int, size: int)                                         1.16.0
    AxisRefV1Attr(name: Attribute, sub_axis_info: Attribute | None)                     1.16.0
    ReplicaGroupMeshAxesV1Attr(mesh: Attribute, axes: Attribute)                        1.16.0
    MeshAxisV1Attr(name: Attribute, size: int)                                          1.16.0
    MeshV1Attr(axes: Attribute, device_ids: Attribute | None)                           1.16.0

Enums (`#vhlo<mnemonic CASE>`; field ``value`` is the case name, ``code`` its number):

    ComparisonDirectionV1Attr  comparison_direction_v1  EQ=0 NE=1 GE=2 GT=3 LE=4 LT=5
    ComparisonTypeV1Attr       comparison_type_v1   NOTYPE=0 FLOAT=1 TOTALORDER=2 SIGNED=3
                                                    UNSIGNED=4
    CustomCallApiVersionV1Attr api_version_v1       API_VERSION_UNSPECIFIED=0 .._ORIGINAL=1
                               .._STATUS_RETURNING=2 .._STATUS_RETURNING_UNIFIED=3 .._TYPED_FFI=4
    FftTypeV1Attr              fft_type_v1          FFT=0 IFFT=1 RFFT=2 IRFFT=3
    PrecisionV1Attr            precision_v1         DEFAULT=0 HIGH=1 HIGHEST=2
    RngAlgorithmV1Attr         rng_algorithm_v1     DEFAULT=0 THREE_FRY=1 PHILOX=2
    RngDistributionV1Attr      rng_distribution_v1  UNIFORM=1 NORMAL=2
    TransposeV1Attr            transpose_v1         TRANSPOSE_INVALID=0 NO_TRANSPOSE=1
                                                    TRANSPOSE=2 ADJOINT=3
    ResultAccuracyModeV1Attr   result_accuracy_mode_v1 (1.9.0)  DEFAULT=0 HIGHEST=1 TOLERANCE=2

Integer and float values keep the number; the VHLO ``type`` says how to print it (the
attribute prints through the builtin type it stands for, as upstream does). ``data`` of a
tensor keeps the builtin dense attribute (its builtin tensor type included).
"""

from __future__ import annotations

from ...ir.attributes import (
    Attribute,
    BoolAttr,
    DenseElementsAttr,
    IntegerAttr,
    escape_string,
)
from ...ir.floats import format_float
from ...ir.lexer import BARE, INT, STRING, Token, unescape_string
from ...ir.record import Record, set_field
from ...ir.types import DYNAMIC, F64, FloatType, IntegerType, Type
from .type_conversion import to_vhlo_type
from .types import SimpleVhloType, is_vhlo, parse_float_literal
from .version import CURRENT, Version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar


class VhloAttr(Attribute, Record):
    """Base of every VHLO attribute: its mnemonic and the versions that know it."""

    __slots__ = ()
    mnemonic: ClassVar[str] = ""
    min_version: ClassVar[Version] = Version(0, 9, 0)
    max_version: ClassVar[Version] = CURRENT


def _dims(values: tuple[int, ...]) -> str:
    return "[" + ", ".join("?" if v == DYNAMIC else str(v) for v in values) + "]"


def _float_text(value: float, vhlo_type: Type | None) -> str:
    builtin = vhlo_type.builtin if isinstance(vhlo_type, SimpleVhloType) else None
    return format_float(value, builtin if isinstance(builtin, FloatType) else F64)


class ArrayV1Attr(VhloAttr):
    __slots__ = ("value",)
    mnemonic: ClassVar[str] = "array_v1"
    value: tuple[Attribute, ...]

    def __init__(self, value: tuple[Attribute, ...]) -> None:
        set_field(self, "value", value)

    def __str__(self) -> str:
        return "#vhlo.array_v1<[" + ", ".join(map(str, self.value)) + "]>"


class BooleanV1Attr(VhloAttr):
    __slots__ = ("value",)
    mnemonic: ClassVar[str] = "bool_v1"
    value: bool

    def __init__(self, value: bool) -> None:
        set_field(self, "value", value)

    def __str__(self) -> str:
        return f"#vhlo.bool_v1<{'true' if self.value else 'false'}>"


class DictionaryV1Attr(VhloAttr):
    """Entries in stored order; keys are VHLO attributes (string_v1 in practice)."""

    __slots__ = ("value",)
    mnemonic: ClassVar[str] = "dict_v1"
    value: tuple[tuple[Attribute, Attribute], ...]

    def __init__(self, value: tuple[tuple[Attribute, Attribute], ...]) -> None:
        set_field(self, "value", value)

    def __str__(self) -> str:
        return "#vhlo.dict_v1<{" + ", ".join(f"{k} = {v}" for k, v in self.value) + "}>"

    def get(self, key: str) -> Attribute | None:
        for k, v in self.value:
            if isinstance(k, StringV1Attr) and k.value == key:
                return v
        return None


class FloatV1Attr(VhloAttr):
    __slots__ = ("type", "value")
    mnemonic: ClassVar[str] = "float_v1"
    type: Type
    value: float

    def __init__(self, type: Type, value: float) -> None:
        set_field(self, "type", type)
        set_field(self, "value", value)

    def __str__(self) -> str:
        return f"#vhlo.float_v1<{_float_text(self.value, self.type)} : {self.type}>"


class IntegerV1Attr(VhloAttr):
    __slots__ = ("type", "value")
    mnemonic: ClassVar[str] = "integer_v1"
    type: Type
    value: int

    def __init__(self, type: Type, value: int) -> None:
        set_field(self, "type", type)
        set_field(self, "value", value)

    def __str__(self) -> str:
        builtin = self.type.builtin if isinstance(self.type, SimpleVhloType) else self.type
        return f"#vhlo.integer_v1<{IntegerAttr(self.value, builtin)}>"


class OutputOperandAliasV1Attr(VhloAttr):
    __slots__ = ("output_tuple_indices", "operand_index", "operand_tuple_indices")
    mnemonic: ClassVar[str] = "output_operand_alias_v1"
    output_tuple_indices: tuple[int, ...]
    operand_index: int
    operand_tuple_indices: tuple[int, ...]

    def __init__(self, output_tuple_indices: tuple[int, ...], operand_index: int,
                 operand_tuple_indices: tuple[int, ...]) -> None:
        set_field(self, "output_tuple_indices", output_tuple_indices)
        set_field(self, "operand_index", operand_index)
        set_field(self, "operand_tuple_indices", operand_tuple_indices)

    def __str__(self) -> str:
        return (f"#vhlo.output_operand_alias_v1<outputTupleIndices = "
                f"{_dims(self.output_tuple_indices)}, operandIndex = {self.operand_index}, "
                f"operandTupleIndices = {_dims(self.operand_tuple_indices)}>")


class StringV1Attr(VhloAttr):
    __slots__ = ("value",)
    mnemonic: ClassVar[str] = "string_v1"
    value: str

    def __init__(self, value: str) -> None:
        set_field(self, "value", value)

    def __str__(self) -> str:
        return f"#vhlo.string_v1<{escape_string(self.value)}>"


class TensorV1Attr(VhloAttr):
    __slots__ = ("type", "data")
    mnemonic: ClassVar[str] = "tensor_v1"
    type: Type
    data: DenseElementsAttr

    def __init__(self, type: Type, data: DenseElementsAttr) -> None:
        set_field(self, "type", type)
        set_field(self, "data", data)

    def __str__(self) -> str:
        return f"#vhlo.tensor_v1<{self.data}>"


class TypeV1Attr(VhloAttr):
    __slots__ = ("value",)
    mnemonic: ClassVar[str] = "type_v1"
    value: Type

    def __init__(self, value: Type) -> None:
        set_field(self, "value", value)

    def __str__(self) -> str:
        return f"#vhlo.type_v1<{self.value}>"


class TypeExtensionsV1Attr(VhloAttr):
    __slots__ = ("bounds",)
    mnemonic: ClassVar[str] = "type_extensions_v1"
    bounds: tuple[int, ...]

    def __init__(self, bounds: tuple[int, ...]) -> None:
        set_field(self, "bounds", bounds)

    def __str__(self) -> str:
        return f"#vhlo.type_extensions_v1<bounds = {_dims(self.bounds)}>"


class ResultAccuracyV1Attr(VhloAttr):
    __slots__ = ("atol", "rtol", "ulps", "mode")
    mnemonic: ClassVar[str] = "result_accuracy_v1"
    min_version: ClassVar[Version] = Version(1, 9, 0)
    atol: float
    rtol: float
    ulps: int
    mode: Attribute

    def __init__(self, atol: float, rtol: float, ulps: int, mode: Attribute) -> None:
        set_field(self, "atol", atol)
        set_field(self, "rtol", rtol)
        set_field(self, "ulps", ulps)
        set_field(self, "mode", mode)

    def __str__(self) -> str:
        return (f"#vhlo.result_accuracy_v1<atol = {format_float(self.atol, F64)}, "
                f"rtol = {format_float(self.rtol, F64)}, ulps = {self.ulps}, "
                f"mode = {self.mode}>")


class SubAxisInfoV1Attr(VhloAttr):
    __slots__ = ("pre_size", "size")
    mnemonic: ClassVar[str] = "sub_axis_info_v1"
    min_version: ClassVar[Version] = Version(1, 16, 0)
    pre_size: int
    size: int

    def __init__(self, pre_size: int, size: int) -> None:
        set_field(self, "pre_size", pre_size)
        set_field(self, "size", size)

    def __str__(self) -> str:
        return f"#vhlo.sub_axis_info_v1<pre_size = {self.pre_size}, size = {self.size}>"


class AxisRefV1Attr(VhloAttr):
    __slots__ = ("name", "sub_axis_info")
    mnemonic: ClassVar[str] = "axis_ref_v1"
    min_version: ClassVar[Version] = Version(1, 16, 0)
    name: Attribute
    sub_axis_info: Attribute | None

    def __init__(self, name: Attribute, sub_axis_info: Attribute | None = None) -> None:
        set_field(self, "name", name)
        set_field(self, "sub_axis_info", sub_axis_info)

    def __str__(self) -> str:
        sub = f", sub_axis_info = {self.sub_axis_info}" if self.sub_axis_info else ""
        return f"#vhlo.axis_ref_v1<name = {self.name}{sub}>"


class ReplicaGroupMeshAxesV1Attr(VhloAttr):
    __slots__ = ("mesh", "axes")
    mnemonic: ClassVar[str] = "replica_group_mesh_axes_v1"
    min_version: ClassVar[Version] = Version(1, 16, 0)
    mesh: Attribute
    axes: Attribute

    def __init__(self, mesh: Attribute, axes: Attribute) -> None:
        set_field(self, "mesh", mesh)
        set_field(self, "axes", axes)

    def __str__(self) -> str:
        return f"#vhlo.replica_group_mesh_axes_v1<mesh = {self.mesh}, axes = {self.axes}>"


class MeshAxisV1Attr(VhloAttr):
    __slots__ = ("name", "size")
    mnemonic: ClassVar[str] = "mesh_axis_v1"
    min_version: ClassVar[Version] = Version(1, 16, 0)
    name: Attribute
    size: int

    def __init__(self, name: Attribute, size: int) -> None:
        set_field(self, "name", name)
        set_field(self, "size", size)

    def __str__(self) -> str:
        return f"#vhlo.mesh_axis_v1<name = {self.name}, size = {self.size}>"


class MeshV1Attr(VhloAttr):
    __slots__ = ("axes", "device_ids")
    mnemonic: ClassVar[str] = "mesh_v1"
    min_version: ClassVar[Version] = Version(1, 16, 0)
    axes: Attribute
    device_ids: Attribute | None

    def __init__(self, axes: Attribute, device_ids: Attribute | None = None) -> None:
        set_field(self, "axes", axes)
        set_field(self, "device_ids", device_ids)

    def __str__(self) -> str:
        ids = f", device_ids = {self.device_ids}" if self.device_ids else ""
        return f"#vhlo.mesh_v1<axes = {self.axes}{ids}>"


# ---- enums -----------------------------------------------------------------------------


class EnumV1Attr(VhloAttr):
    """`#vhlo<mnemonic CASE>`; ``cases`` maps each case name to its number."""

    __slots__ = ("value",)
    cases: ClassVar[dict[str, int]] = {}
    value: str

    def __init__(self, value: str) -> None:
        set_field(self, "value", value)

    def __str__(self) -> str:
        return f"#vhlo<{self.mnemonic} {self.value}>"

    @property
    def code(self) -> int:
        return self.cases[self.value]

    @classmethod
    def from_code(cls, code: int) -> EnumV1Attr:
        for name, number in cls.cases.items():
            if number == code:
                return cls(name)
        raise ValueError(f"{code} is not a case of {cls.mnemonic}")


def _enum(cpp_name: str, mnemonic: str, cases: str, min_version: str = "0.9.0") -> type:
    names = cases.split()
    numbers = {name: i for i, name in enumerate(names)}
    if mnemonic == "rng_distribution_v1":  # upstream numbers this enum from 1
        numbers = {name: i + 1 for i, name in enumerate(names)}
    cls = type(cpp_name, (EnumV1Attr,), {
        "mnemonic": mnemonic, "cases": numbers,
        "min_version": Version.parse(min_version), "__module__": __name__, "__slots__": (),
        "__doc__": f"`#vhlo<{mnemonic} {names[0]}>`: one of {', '.join(names)}.",
    })
    return cls


ComparisonDirectionV1Attr = _enum("ComparisonDirectionV1Attr", "comparison_direction_v1",
                                  "EQ NE GE GT LE LT")
ComparisonTypeV1Attr = _enum("ComparisonTypeV1Attr", "comparison_type_v1",
                             "NOTYPE FLOAT TOTALORDER SIGNED UNSIGNED")
CustomCallApiVersionV1Attr = _enum(
    "CustomCallApiVersionV1Attr", "api_version_v1",
    "API_VERSION_UNSPECIFIED API_VERSION_ORIGINAL API_VERSION_STATUS_RETURNING "
    "API_VERSION_STATUS_RETURNING_UNIFIED API_VERSION_TYPED_FFI")
FftTypeV1Attr = _enum("FftTypeV1Attr", "fft_type_v1", "FFT IFFT RFFT IRFFT")
PrecisionV1Attr = _enum("PrecisionV1Attr", "precision_v1", "DEFAULT HIGH HIGHEST")
RngAlgorithmV1Attr = _enum("RngAlgorithmV1Attr", "rng_algorithm_v1", "DEFAULT THREE_FRY PHILOX")
RngDistributionV1Attr = _enum("RngDistributionV1Attr", "rng_distribution_v1", "UNIFORM NORMAL")
TransposeV1Attr = _enum("TransposeV1Attr", "transpose_v1",
                        "TRANSPOSE_INVALID NO_TRANSPOSE TRANSPOSE ADJOINT")
ResultAccuracyModeV1Attr = _enum("ResultAccuracyModeV1Attr", "result_accuracy_mode_v1",
                                 "DEFAULT HIGHEST TOLERANCE", "1.9.0")

ENUM_ATTRS: tuple[type, ...] = (
    ComparisonDirectionV1Attr, ComparisonTypeV1Attr, CustomCallApiVersionV1Attr,
    FftTypeV1Attr, PrecisionV1Attr, RngAlgorithmV1Attr, RngDistributionV1Attr,
    TransposeV1Attr, ResultAccuracyModeV1Attr,
)
STRUCT_ATTRS: tuple[type, ...] = (
    ArrayV1Attr, BooleanV1Attr, DictionaryV1Attr, FloatV1Attr, IntegerV1Attr,
    OutputOperandAliasV1Attr, StringV1Attr, TensorV1Attr, TypeV1Attr, TypeExtensionsV1Attr,
    ResultAccuracyV1Attr, SubAxisInfoV1Attr, AxisRefV1Attr, ReplicaGroupMeshAxesV1Attr,
    MeshAxisV1Attr, MeshV1Attr,
)
ATTRS_BY_MNEMONIC: dict[str, type] = {cls.mnemonic: cls for cls in (*ENUM_ATTRS, *STRUCT_ATTRS)}


# ---- parsing ---------------------------------------------------------------------------


def _parse_int(p: Any) -> int:
    negative = p.accept("-")
    tok = p.tok
    if tok.kind != INT:
        raise p.error("expected integer value")
    p.advance()
    value = int(tok.text, 16) if tok.text.startswith("0x") else int(tok.text)
    return -value if negative else value


def _parse_dims(p: Any) -> tuple[int, ...]:
    """`[1, ?, 3]` (upstream's parseDimSizes)."""
    p.expect("[")
    values: list[int] = []
    if not p.at("]"):
        while True:
            values.append(DYNAMIC if p.accept("?") else _parse_int(p))
            if not p.accept(","):
                break
    p.expect("]")
    return tuple(values)


def _parse_struct(p: Any, cls: type, fields: dict[str, Any], optional: tuple[str, ...] = ()
                  ) -> dict[str, Any]:
    """`name = value, ...` in any order (MLIR's `struct(params)`), each value read by the
    parser in ``fields``; every field but ``optional`` ones must appear."""
    found: dict[str, Any] = {}
    while p.tok.kind == BARE and p.tok.text in fields:
        name_tok = p.advance()
        if name_tok.text in found:
            raise p.error(f"duplicate '{name_tok.text}' parameter", name_tok)
        p.expect("=")
        found[name_tok.text] = fields[name_tok.text](p)
        if not p.accept(","):
            break
    for name in fields:
        if name not in found and name not in optional:
            raise p.error(f"struct is missing required parameter: {name}")
    return found


def _parse_attr(p: Any) -> Attribute:
    return p.parse_attribute()


def _vhlo_type_of(p: Any, builtin: Type, tok: Token) -> Type:
    converted = to_vhlo_type(builtin)
    if converted is None:
        raise p.error(f"type {builtin} has no VHLO counterpart", tok)
    return converted


def _parse_body(p: Any, cls: type, tok: Token) -> Attribute:
    p.expect("<")
    result: Attribute
    if cls is ArrayV1Attr:
        p.expect("[")
        items: list[Attribute] = []
        if not p.at("]"):
            items.append(p.parse_attribute())
            while p.accept(","):
                items.append(p.parse_attribute())
        p.expect("]")
        result = ArrayV1Attr(tuple(items))
    elif cls is BooleanV1Attr:
        word = p.tok
        if word.kind != BARE or word.text not in ("true", "false"):
            raise p.error("expected 'true' or 'false'")
        p.advance()
        result = BooleanV1Attr(word.text == "true")
    elif cls is DictionaryV1Attr:
        p.expect("{")
        entries: list[tuple[Attribute, Attribute]] = []
        if not p.at("}"):
            while True:
                key_tok = p.tok
                key = p.parse_attribute()
                if not is_vhlo(key):
                    raise p.error("expected VHLO key attribute", key_tok)
                p.expect("=")
                entries.append((key, p.parse_attribute()))
                if not p.accept(","):
                    break
        p.expect("}")
        result = DictionaryV1Attr(tuple(entries))
    elif cls is FloatV1Attr:
        value_tok = p.tok
        value = parse_float_literal(p)
        p.expect(":")
        type_tok = p.tok
        ftype = p.parse_type()
        if not is_vhlo(ftype):
            raise p.error("expected VHLO type", type_tok)
        if value_tok.kind == INT and value_tok.text.startswith("0x"):
            value = _float_bits(int(value_tok.text, 16), ftype)  # bits of the printed type
        result = FloatV1Attr(ftype, value)
    elif cls is IntegerV1Attr:
        value_tok = p.tok
        inner = p.parse_attribute()
        if isinstance(inner, BoolAttr):
            inner = IntegerAttr(int(inner.flag), IntegerType(1))
        if not isinstance(inner, IntegerAttr):
            raise p.error("expected integer attribute", value_tok)
        result = IntegerV1Attr(_vhlo_type_of(p, inner.type, value_tok), inner.number)
    elif cls is OutputOperandAliasV1Attr:
        found = _parse_struct(p, cls, {"outputTupleIndices": _parse_dims,
                                       "operandIndex": _parse_int,
                                       "operandTupleIndices": _parse_dims})
        result = OutputOperandAliasV1Attr(found["outputTupleIndices"], found["operandIndex"],
                                          found["operandTupleIndices"])
    elif cls is StringV1Attr:
        if p.tok.kind != STRING:
            raise p.error("expected string")
        result = StringV1Attr(unescape_string(p.advance().text))
    elif cls is TensorV1Attr:
        value_tok = p.tok
        inner = p.parse_attribute()
        if not isinstance(inner, DenseElementsAttr):
            raise p.error("expected dense elements attribute", value_tok)
        result = TensorV1Attr(_vhlo_type_of(p, inner.type, value_tok), inner)
    elif cls is TypeV1Attr:
        type_tok = p.tok
        value_type = p.parse_type()
        if not is_vhlo(value_type):
            raise p.error("expected VHLO type", type_tok)
        result = TypeV1Attr(value_type)
    elif cls is TypeExtensionsV1Attr:
        result = TypeExtensionsV1Attr(_parse_struct(p, cls, {"bounds": _parse_dims})["bounds"])
    elif cls is ResultAccuracyV1Attr:
        mode_tok: list[Token] = []

        def mode(p: Any) -> Attribute:
            mode_tok.append(p.tok)
            return p.parse_attribute()

        found = _parse_struct(p, cls, {"atol": parse_float_literal, "rtol": parse_float_literal,
                                       "ulps": _parse_int, "mode": mode})
        if not is_vhlo(found["mode"]):
            raise p.error("expected VHLO result accuracy mode", mode_tok[0])
        result = ResultAccuracyV1Attr(found["atol"], found["rtol"], found["ulps"],
                                      found["mode"])
    elif cls is SubAxisInfoV1Attr:
        found = _parse_struct(p, cls, {"pre_size": _parse_int, "size": _parse_int})
        result = SubAxisInfoV1Attr(found["pre_size"], found["size"])
    elif cls is AxisRefV1Attr:
        found = _parse_struct(p, cls, {"name": _parse_attr, "sub_axis_info": _parse_attr},
                              optional=("sub_axis_info",))
        result = AxisRefV1Attr(found["name"], found.get("sub_axis_info"))
    elif cls is ReplicaGroupMeshAxesV1Attr:
        found = _parse_struct(p, cls, {"mesh": _parse_attr, "axes": _parse_attr})
        result = ReplicaGroupMeshAxesV1Attr(found["mesh"], found["axes"])
    elif cls is MeshAxisV1Attr:
        found = _parse_struct(p, cls, {"name": _parse_attr, "size": _parse_int})
        result = MeshAxisV1Attr(found["name"], found["size"])
    else:  # MeshV1Attr
        found = _parse_struct(p, cls, {"axes": _parse_attr, "device_ids": _parse_attr},
                              optional=("device_ids",))
        result = MeshV1Attr(found["axes"], found.get("device_ids"))
    p.expect(">")
    return result


def _float_bits(bits: int, vhlo_type: Type) -> float:
    import numpy as np

    from ...ir import storage
    from ...ir.types import numpy_dtype

    builtin = vhlo_type.builtin if isinstance(vhlo_type, SimpleVhloType) else F64
    name = builtin.name if isinstance(builtin, FloatType) else "f64"
    if name in storage.FLOAT_CODES:
        return storage.bits_float(bits & ((1 << 8 * storage.FLOAT_CODES[name][2]) - 1), name)
    dtype = numpy_dtype(builtin if isinstance(builtin, FloatType) else F64)
    raw = np.array([bits], dtype=np.uint64).astype(f"u{max(dtype.itemsize, 1)}")
    return float(raw.view(dtype)[0])


def _parse_enum(p: Any) -> Attribute:
    """`<mnemonic CASE>` after `#vhlo`."""
    p.expect("<")
    name_tok = p.tok
    if name_tok.kind != BARE:
        raise p.error("expected attribute name")
    p.advance()
    cls = ATTRS_BY_MNEMONIC.get(name_tok.text)
    if cls is None or not issubclass(cls, EnumV1Attr):
        raise p.error("unknown vhlo attribute", name_tok)
    case_tok = p.tok
    if case_tok.kind != BARE or case_tok.text not in cls.cases:
        names = ", ".join(cls.cases)
        raise p.error(f"expected {cls.__name__[:-4]} to be one of: {names}", case_tok)
    p.advance()
    p.expect(">")
    return cls(case_tok.text)


def parse_vhlo_attribute(p: Any, tok: Token) -> Attribute:
    """The attribute named by `tok` (`#vhlo` or `#vhlo.<mnemonic>`, already consumed)."""
    if tok.text == "#vhlo":
        return _parse_enum(p)
    mnemonic = tok.text[len("#vhlo."):]
    cls = ATTRS_BY_MNEMONIC.get(mnemonic)
    if cls is None or issubclass(cls, EnumV1Attr):
        raise p.error("unknown vhlo attribute", tok)
    return _parse_body(p, cls, tok)

