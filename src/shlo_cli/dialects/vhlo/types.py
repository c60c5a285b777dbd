"""VHLO types: the versioned, frozen spelling of every type a portable artifact can hold.

Each class mirrors one type of upstream `stablehlo/dialect/VhloTypes.td`; its record
fields are exactly that type's parameters, in the same order (the bytecode encodings write
them in that order). Every class has ``mnemonic`` (the `!vhlo.<mnemonic>` text),
``min_version`` and ``max_version`` (inclusive; CURRENT for all of them today).

Parameterless types (field-less classes; ``builtin`` is the builtin type they stand for):

    BooleanV1Type        bool_v1            0.9.0   i1
    FloatBF16V1Type      bf16_v1            0.9.0   bf16
    FloatF16V1Type       f16_v1             0.9.0   f16
    FloatF32V1Type       f32_v1             0.9.0   f32
    FloatF64V1Type       f64_v1             0.9.0   f64
    FloatF4E2M1FNV1Type  f4E2M1FN_v1        1.8.0   f4E2M1FN
    FloatF6E2M3FNV1Type  f6E2M3FN_v1        1.8.0   f6E2M3FN
    FloatF6E3M2FNV1Type  f6E3M2FN_v1        1.8.0   f6E3M2FN
    FloatF8E3M4V1Type    f8E3M4_v1          1.7.0   f8E3M4
    FloatF8E4M3V1Type    f8E4M3_v1          1.7.0   f8E4M3
    FloatF8E4M3FNV1Type  f8E4M3FN_v1        0.9.0   f8E4M3FN
    FloatF8E5M2V1Type    f8E5M2_v1          0.9.0   f8E5M2
    FloatF8E4M3FNUZV1Type f8E4M3FNUZ_v1     0.10.0  f8E4M3FNUZ
    FloatF8E4M3B11FNUZV1Type f8E4M3B11FNUZ_v1 0.11.0 f8E4M3B11FNUZ
    FloatF8E5M2FNUZV1Type f8E5M2FNUZ_v1     0.10.0  f8E5M2FNUZ
    FloatF8E8M0FNUV1Type f8E8M0FNU_v1       1.8.0   f8E8M0FNU
    FloatTF32V1Type      tf31_v1 (sic)      1.6.0   tf32
    IndexV1Type          index_v1           0.9.0   index
    IntegerSI{2,4,8,16,32,64}V1Type  i{N}_v1   0.9.0 (i2: 1.2.0)  signless iN
    IntegerUI{2,4,8,16,32,64}V1Type  ui{N}_v1  0.9.0 (ui2: 1.2.0) uiN
    NoneV1Type           none_v1            1.6.0   none
    TokenV1Type          token_v1           0.9.0   !stablehlo.token
    WitnessV1Type        witness_v1         0.9.0   !shape.witness

Types with parameters (fields in upstream order):

    ComplexV1Type(element_type)                        complex_v1         0.9.0
    FunctionV1Type(inputs, outputs)                    func_v1            0.9.0
    RankedTensorV1Type(shape, element_type, encoding)  tensor_v1          0.9.0
    FutureV1Type(types)                                future_v1          1.15.0
    TupleV1Type(types)                                 tuple_v1           0.9.0
    UniformQuantizedV1Type(flags, storage_type, expressed_type, scale, zero_point,
                           storage_type_min, storage_type_max)   quant_v1  0.9.0
    UniformQuantizedPerAxisV1Type(flags, storage_type, expressed_type,
                           quantized_dimension, scales, zero_points,
                           storage_type_min, storage_type_max)   quant_per_axis_v1 0.18.0
    UnrankedTensorV1Type(element_type)                 unranked_tensor_v1 0.9.0
    RankedBufferV1Type(shape, element_type)            buffer_v1          1.13.0

``shape`` is a tuple of ints with DYNAMIC (-1) for `?`; ``encoding`` is a VHLO attribute or
None; ``scale``/``scales`` are Python floats (upstream keeps them as f64 APFloats);
``flags`` is the quant dialect's flag word (1 = signed storage).
"""

from __future__ import annotations

import functools

from ...ir.floats import format_float
from ...ir.lexer import FLOAT, INT, Token
from ...ir.record import Record, set_field
from ...ir.types import (
    DYNAMIC,
    F64,
    FloatType,
    IndexType,
    IntegerType,
    NoneType,
    OpaqueType,
    TokenType,
    Type,
)
from .version import CURRENT, Version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from ...ir.attributes import Attribute


class VhloType(Type, Record):
    """Base of every VHLO type: its mnemonic and the versions that know it."""

    __slots__ = ()
    mnemonic: ClassVar[str] = ""
    min_version: ClassVar[Version] = Version(0, 9, 0)
    max_version: ClassVar[Version] = CURRENT


class SimpleVhloType(VhloType):
    """A VHLO type without parameters; ``builtin`` is the builtin type it stands for."""

    __slots__ = ()
    builtin: ClassVar[Type]

    def __str__(self) -> str:
        return f"!vhlo.{self.mnemonic}"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(self.mnemonic)


def _simple(cpp_name: str, mnemonic: str, min_version: str, builtin: Type) -> type:
    cls = type(cpp_name, (SimpleVhloType,), {
        "mnemonic": mnemonic, "min_version": Version.parse(min_version),
        "builtin": builtin, "__doc__": f"`!vhlo.{mnemonic}` (the builtin `{builtin}`).",
        "__module__": __name__, "__slots__": (),
    })
    return cls


BooleanV1Type = _simple("BooleanV1Type", "bool_v1", "0.9.0", IntegerType(1))
FloatBF16V1Type = _simple("FloatBF16V1Type", "bf16_v1", "0.9.0", FloatType("bf16"))
FloatF16V1Type = _simple("FloatF16V1Type", "f16_v1", "0.9.0", FloatType("f16"))
FloatF32V1Type = _simple("FloatF32V1Type", "f32_v1", "0.9.0", FloatType("f32"))
FloatF64V1Type = _simple("FloatF64V1Type", "f64_v1", "0.9.0", FloatType("f64"))
FloatF4E2M1FNV1Type = _simple("FloatF4E2M1FNV1Type", "f4E2M1FN_v1", "1.8.0",
                              FloatType("f4E2M1FN"))
FloatF6E2M3FNV1Type = _simple("FloatF6E2M3FNV1Type", "f6E2M3FN_v1", "1.8.0",
                              FloatType("f6E2M3FN"))
FloatF6E3M2FNV1Type = _simple("FloatF6E3M2FNV1Type", "f6E3M2FN_v1", "1.8.0",
                              FloatType("f6E3M2FN"))
FloatF8E3M4V1Type = _simple("FloatF8E3M4V1Type", "f8E3M4_v1", "1.7.0", FloatType("f8E3M4"))
FloatF8E4M3V1Type = _simple("FloatF8E4M3V1Type", "f8E4M3_v1", "1.7.0", FloatType("f8E4M3"))
FloatF8E4M3FNV1Type = _simple("FloatF8E4M3FNV1Type", "f8E4M3FN_v1", "0.9.0",
                              FloatType("f8E4M3FN"))
FloatF8E5M2V1Type = _simple("FloatF8E5M2V1Type", "f8E5M2_v1", "0.9.0", FloatType("f8E5M2"))
FloatF8E4M3FNUZV1Type = _simple("FloatF8E4M3FNUZV1Type", "f8E4M3FNUZ_v1", "0.10.0",
                                FloatType("f8E4M3FNUZ"))
FloatF8E4M3B11FNUZV1Type = _simple("FloatF8E4M3B11FNUZV1Type", "f8E4M3B11FNUZ_v1", "0.11.0",
                                   FloatType("f8E4M3B11FNUZ"))
FloatF8E5M2FNUZV1Type = _simple("FloatF8E5M2FNUZV1Type", "f8E5M2FNUZ_v1", "0.10.0",
                                FloatType("f8E5M2FNUZ"))
FloatF8E8M0FNUV1Type = _simple("FloatF8E8M0FNUV1Type", "f8E8M0FNU_v1", "1.8.0",
                               FloatType("f8E8M0FNU"))
# Upstream's mnemonic really is `tf31_v1` (a typo frozen into the format).
FloatTF32V1Type = _simple("FloatTF32V1Type", "tf31_v1", "1.6.0", FloatType("tf32"))
IndexV1Type = _simple("IndexV1Type", "index_v1", "0.9.0", IndexType())
IntegerSI2V1Type = _simple("IntegerSI2V1Type", "i2_v1", "1.2.0", IntegerType(2))
IntegerSI4V1Type = _simple("IntegerSI4V1Type", "i4_v1", "0.9.0", IntegerType(4))
IntegerSI8V1Type = _simple("IntegerSI8V1Type", "i8_v1", "0.9.0", IntegerType(8))
IntegerSI16V1Type = _simple("IntegerSI16V1Type", "i16_v1", "0.9.0", IntegerType(16))
IntegerSI32V1Type = _simple("IntegerSI32V1Type", "i32_v1", "0.9.0", IntegerType(32))
IntegerSI64V1Type = _simple("IntegerSI64V1Type", "i64_v1", "0.9.0", IntegerType(64))
IntegerUI2V1Type = _simple("IntegerUI2V1Type", "ui2_v1", "1.2.0", IntegerType(2, "u"))
IntegerUI4V1Type = _simple("IntegerUI4V1Type", "ui4_v1", "0.9.0", IntegerType(4, "u"))
IntegerUI8V1Type = _simple("IntegerUI8V1Type", "ui8_v1", "0.9.0", IntegerType(8, "u"))
IntegerUI16V1Type = _simple("IntegerUI16V1Type", "ui16_v1", "0.9.0", IntegerType(16, "u"))
IntegerUI32V1Type = _simple("IntegerUI32V1Type", "ui32_v1", "0.9.0", IntegerType(32, "u"))
IntegerUI64V1Type = _simple("IntegerUI64V1Type", "ui64_v1", "0.9.0", IntegerType(64, "u"))
NoneV1Type = _simple("NoneV1Type", "none_v1", "1.6.0", NoneType())
TokenV1Type = _simple("TokenV1Type", "token_v1", "0.9.0", TokenType())
WitnessV1Type = _simple("WitnessV1Type", "witness_v1", "0.9.0", OpaqueType("!shape.witness"))

SIMPLE_TYPES: tuple[type, ...] = (
    BooleanV1Type, FloatBF16V1Type, FloatF16V1Type, FloatF32V1Type, FloatF64V1Type,
    FloatF4E2M1FNV1Type, FloatF6E2M3FNV1Type, FloatF6E3M2FNV1Type, FloatF8E3M4V1Type,
    FloatF8E4M3V1Type, FloatF8E4M3FNV1Type, FloatF8E5M2V1Type, FloatF8E4M3FNUZV1Type,
    FloatF8E4M3B11FNUZV1Type, FloatF8E5M2FNUZV1Type, FloatF8E8M0FNUV1Type, FloatTF32V1Type,
    IndexV1Type, IntegerSI2V1Type, IntegerSI4V1Type, IntegerSI8V1Type, IntegerSI16V1Type,
    IntegerSI32V1Type, IntegerSI64V1Type, IntegerUI2V1Type, IntegerUI4V1Type,
    IntegerUI8V1Type, IntegerUI16V1Type, IntegerUI32V1Type, IntegerUI64V1Type, NoneV1Type,
    TokenV1Type, WitnessV1Type,
)


def _dims(shape: tuple[int, ...]) -> str:
    return "".join(("?" if d == DYNAMIC else str(d)) + "x" for d in shape)


class ComplexV1Type(VhloType):
    """`!vhlo.complex_v1<!vhlo.f32_v1>`."""

    __slots__ = ("element_type",)
    mnemonic: ClassVar[str] = "complex_v1"
    element_type: Type

    def __init__(self, element_type: Type) -> None:
        set_field(self, "element_type", element_type)

    def __str__(self) -> str:
        return f"!vhlo.complex_v1<{self.element_type}>"


def _type_array(types: tuple[Type, ...]) -> str:
    return ", ".join(map(str, types)) if types else "()"


class FunctionV1Type(VhloType):
    """`!vhlo.func_v1<(in, ...) -> out, ...>`; an empty list prints `()`, so a function
    without inputs is `(())`."""

    __slots__ = ("inputs", "outputs")
    mnemonic: ClassVar[str] = "func_v1"
    inputs: tuple[Type, ...]
    outputs: tuple[Type, ...]

    def __init__(self, inputs: tuple[Type, ...], outputs: tuple[Type, ...]) -> None:
        set_field(self, "inputs", inputs)
        set_field(self, "outputs", outputs)

    def __str__(self) -> str:
        return f"!vhlo.func_v1<({_type_array(self.inputs)}) -> {_type_array(self.outputs)}>"


class RankedTensorV1Type(VhloType):
    """`!vhlo.tensor_v1<2x?x!vhlo.f32_v1, #vhlo.type_extensions_v1<bounds = [?, 4]>>`."""

    __slots__ = ("shape", "element_type", "encoding")
    mnemonic: ClassVar[str] = "tensor_v1"
    shape: tuple[int, ...]
    element_type: Type
    encoding: Attribute | None

    def __init__(self, shape: tuple[int, ...], element_type: Type,
                 encoding: Attribute | None = None) -> None:
        set_field(self, "shape", shape)
        set_field(self, "element_type", element_type)
        set_field(self, "encoding", encoding)

    def __str__(self) -> str:
        enc = f", {self.encoding}" if self.encoding is not None else ""
        return f"!vhlo.tensor_v1<{_dims(self.shape)}{self.element_type}{enc}>"


class FutureV1Type(VhloType):
    """`!vhlo.future_v1<t, ...>`: the result of an async start."""

    __slots__ = ("types",)
    mnemonic: ClassVar[str] = "future_v1"
    min_version: ClassVar[Version] = Version(1, 15, 0)
    types: tuple[Type, ...]

    def __init__(self, types: tuple[Type, ...]) -> None:
        set_field(self, "types", types)

    def __str__(self) -> str:
        return "!vhlo.future_v1<" + ", ".join(map(str, self.types)) + ">"


class TupleV1Type(VhloType):
    """`!vhlo.tuple_v1<t, ...>`."""

    __slots__ = ("types",)
    mnemonic: ClassVar[str] = "tuple_v1"
    types: tuple[Type, ...]

    def __init__(self, types: tuple[Type, ...]) -> None:
        set_field(self, "types", types)

    def __str__(self) -> str:
        return "!vhlo.tuple_v1<" + ", ".join(map(str, self.types)) + ">"


class UniformQuantizedV1Type(VhloType):
    """`!vhlo.quant_v1<storage:expressed, scale:zero_point, min:max, flags>`."""

    __slots__ = ("flags", "storage_type", "expressed_type", "scale", "zero_point",
                 "storage_type_min", "storage_type_max")
    mnemonic: ClassVar[str] = "quant_v1"
    flags: int
    storage_type: Type
    expressed_type: Type
    scale: float
    zero_point: int
    storage_type_min: int
    storage_type_max: int

    def __init__(self, flags: int, storage_type: Type, expressed_type: Type, scale: float,
                 zero_point: int, storage_type_min: int, storage_type_max: int) -> None:
        set_field(self, "flags", flags)
        set_field(self, "storage_type", storage_type)
        set_field(self, "expressed_type", expressed_type)
        set_field(self, "scale", scale)
        set_field(self, "zero_point", zero_point)
        set_field(self, "storage_type_min", storage_type_min)
        set_field(self, "storage_type_max", storage_type_max)

    def __str__(self) -> str:
        return (f"!vhlo.quant_v1<{self.storage_type}:{self.expressed_type}, "
                f"{format_float(self.scale, F64)}:{self.zero_point}, "
                f"{self.storage_type_min}:{self.storage_type_max}, {self.flags}>")


class UniformQuantizedPerAxisV1Type(VhloType):
    """`!vhlo.quant_per_axis_v1<storage:expressed, dim, [scales], [zero points], min:max,
    flags>`."""

    __slots__ = ("flags", "storage_type", "expressed_type", "quantized_dimension", "scales",
                 "zero_points", "storage_type_min", "storage_type_max")
    mnemonic: ClassVar[str] = "quant_per_axis_v1"
    min_version: ClassVar[Version] = Version(0, 18, 0)
    flags: int
    storage_type: Type
    expressed_type: Type
    quantized_dimension: int
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    storage_type_min: int
    storage_type_max: int

    def __init__(self, flags: int, storage_type: Type, expressed_type: Type,
                 quantized_dimension: int, scales: tuple[float, ...],
                 zero_points: tuple[int, ...], storage_type_min: int,
                 storage_type_max: int) -> None:
        set_field(self, "flags", flags)
        set_field(self, "storage_type", storage_type)
        set_field(self, "expressed_type", expressed_type)
        set_field(self, "quantized_dimension", quantized_dimension)
        set_field(self, "scales", scales)
        set_field(self, "zero_points", zero_points)
        set_field(self, "storage_type_min", storage_type_min)
        set_field(self, "storage_type_max", storage_type_max)

    def __str__(self) -> str:
        scales = ", ".join(format_float(s, F64) for s in self.scales)
        zps = ", ".join(map(str, self.zero_points))
        return (f"!vhlo.quant_per_axis_v1<{self.storage_type}:{self.expressed_type}, "
                f"{self.quantized_dimension}, [{scales}], [{zps}], "
                f"{self.storage_type_min}:{self.storage_type_max}, {self.flags}>")


class UnrankedTensorV1Type(VhloType):
    """`!vhlo.unranked_tensor_v1<!vhlo.f32_v1>`."""

    __slots__ = ("element_type",)
    mnemonic: ClassVar[str] = "unranked_tensor_v1"
    element_type: Type

    def __init__(self, element_type: Type) -> None:
        set_field(self, "element_type", element_type)

    def __str__(self) -> str:
        return f"!vhlo.unranked_tensor_v1<{self.element_type}>"


class RankedBufferV1Type(VhloType):
    """`!vhlo.buffer_v1<2x!vhlo.f32_v1>` (a memref)."""

    __slots__ = ("shape", "element_type")
    mnemonic: ClassVar[str] = "buffer_v1"
    min_version: ClassVar[Version] = Version(1, 13, 0)
    shape: tuple[int, ...]
    element_type: Type

    def __init__(self, shape: tuple[int, ...], element_type: Type) -> None:
        set_field(self, "shape", shape)
        set_field(self, "element_type", element_type)

    def __str__(self) -> str:
        return f"!vhlo.buffer_v1<{_dims(self.shape)}{self.element_type}>"


PARAMETRIC_TYPES: tuple[type, ...] = (
    ComplexV1Type, FunctionV1Type, RankedTensorV1Type, FutureV1Type, TupleV1Type,
    UniformQuantizedV1Type, UniformQuantizedPerAxisV1Type, UnrankedTensorV1Type,
    RankedBufferV1Type,
)

TYPES_BY_MNEMONIC: dict[str, type] = {
    cls.mnemonic: cls for cls in (*SIMPLE_TYPES, *PARAMETRIC_TYPES)}


def is_vhlo(t: Any) -> bool:
    """Whether a type or attribute belongs to the VHLO dialect."""
    return isinstance(t, _vhlo_classes())


@functools.cache
def _vhlo_classes() -> tuple[type, ...]:
    from .attributes import VhloAttr  # attributes.py imports this module

    return (VhloType, VhloAttr)


# ---- parsing ---------------------------------------------------------------------------


def parse_float_literal(p: Any) -> float:
    """AsmParser::parseFloat: `[-](int | float)`, or a hex literal holding f64 bits."""
    import struct

    negative = p.accept("-")
    tok = p.tok
    if tok.kind not in (INT, FLOAT):
        raise p.error("expected floating point literal")
    p.advance()
    if tok.text.startswith("0x"):
        value = struct.unpack("<d", int(tok.text, 16).to_bytes(8, "little"))[0]
    else:
        value = float(tok.text)
    return -value if negative else value


def _parse_int(p: Any) -> int:
    negative = p.accept("-")
    tok = p.tok
    if tok.kind != INT:
        raise p.error("expected integer value")
    p.advance()
    value = int(tok.text, 16) if tok.text.startswith("0x") else int(tok.text)
    return -value if negative else value


def _parse_types_until(p: Any, close: str) -> tuple[Type, ...]:
    if p.at(close):
        return ()
    return tuple(p.parse_type_list())


def _parse_type_array(p: Any) -> tuple[Type, ...]:
    """`()` for none, else `t, t, ...` (upstream's custom<TypeArray>)."""
    if p.at("(") and p.peek_next().text == ")":
        p.advance()
        p.advance()
        return ()
    return tuple(p.parse_type_list())


def _parse_body(p: Any, cls: type) -> Type:
    p.expect("<")
    if cls is ComplexV1Type or cls is UnrankedTensorV1Type:
        result: Type = cls(p.parse_type())
    elif cls is TupleV1Type or cls is FutureV1Type:
        result = cls(_parse_types_until(p, ">"))
    elif cls is FunctionV1Type:
        p.expect("(")
        inputs = _parse_type_array(p)
        p.expect(")")
        p.expect("->")
        result = FunctionV1Type(inputs, _parse_type_array(p))
    elif cls is RankedTensorV1Type or cls is RankedBufferV1Type:
        shape = tuple(p.parse_dimension_list())
        element = p.parse_type()
        if cls is RankedBufferV1Type:
            result = RankedBufferV1Type(shape, element)
        else:
            encoding = p.parse_attribute() if p.accept(",") else None
            result = RankedTensorV1Type(shape, element, encoding)
    elif cls is UniformQuantizedV1Type:
        storage = p.parse_type()
        p.expect(":")
        expressed = p.parse_type()
        p.expect(",")
        scale = parse_float_literal(p)
        p.expect(":")
        zero_point = _parse_int(p)
        p.expect(",")
        low = _parse_int(p)
        p.expect(":")
        high = _parse_int(p)
        p.expect(",")
        flags = _parse_int(p)
        result = UniformQuantizedV1Type(flags, storage, expressed, scale, zero_point, low, high)
    else:  # UniformQuantizedPerAxisV1Type
        storage = p.parse_type()
        p.expect(":")
        expressed = p.parse_type()
        p.expect(",")
        dim = _parse_int(p)
        p.expect(",")
        p.expect("[")
        scales = [parse_float_literal(p)]
        while p.accept(","):
            scales.append(parse_float_literal(p))
        p.expect("]")
        p.expect(",")
        p.expect("[")
        zps = [_parse_int(p)]
        while p.accept(","):
            zps.append(_parse_int(p))
        p.expect("]")
        p.expect(",")
        low = _parse_int(p)
        p.expect(":")
        high = _parse_int(p)
        p.expect(",")
        flags = _parse_int(p)
        result = UniformQuantizedPerAxisV1Type(flags, storage, expressed, dim, tuple(scales),
                                               tuple(zps), low, high)
    p.expect(">")
    return result


def parse_vhlo_type(p: Any, tok: Token) -> Type:
    """The type named by `tok` (`!vhlo.<mnemonic>`, already consumed) and its body."""
    mnemonic = tok.text[len("!vhlo."):]
    cls = TYPES_BY_MNEMONIC.get(mnemonic)
    if cls is None:
        raise p.error(f"unknown vhlo type: {mnemonic}", tok)
    if issubclass(cls, SimpleVhloType):
        return cls()
    return _parse_body(p, cls)
