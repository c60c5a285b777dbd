"""Builtin dialect encodings: every attribute and type we model survives write -> read, and
the entries carry upstream's codes and field encodings (`BuiltinDialectBytecode.td`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shlo_cli.formats import read_bytecode, write_bytecode
from shlo_cli.formats.bytecode.encoding import encode_varint, zigzag
from shlo_cli.formats.bytecode.reader import _Reader
from shlo_cli.ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
    DictAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from shlo_cli.ir.core import Block, Module, Operation, Region
from shlo_cli.ir.locations import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc, UnknownLoc
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import (
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
    VectorType,
)

F32 = FloatType("f32")


def module_with(attrs: dict[str, Attribute], arg_types: tuple[Type, ...] = ()) -> Module:
    """A module holding one unregistered op with `attrs` and a region with `arg_types`."""
    inner = Block(list(arg_types))
    op = Operation("test.op", attributes=dict(attrs), regions=[Region([inner])])
    body = Block()
    body.append(op)
    return Module(Operation("builtin.module", regions=[Region([body])]))


def round_trip(module: Module, version: int = 6) -> Module:
    data = write_bytecode(module, version)
    back = read_bytecode(data, "t.mlirbc", allow_unregistered=True)
    assert write_bytecode(back, version) == data  # stable: reading loses nothing we write
    return back


def entries(data: bytes) -> tuple[list[tuple[str, bool, bytes]], list[tuple[str, bool, bytes]]]:
    """(dialect, custom, bytes) of every attribute and type entry of a file."""
    state = _Reader(data, "t.mlirbc", True)
    state.read()
    table = state.table
    raw = table.data.data

    def rows(items: list) -> list[tuple[str, bool, bytes]]:
        return [(d.name, custom, bytes(raw[start:start + size]))
                for d, custom, start, size in items]

    return rows(table.attr_entries), rows(table.type_entries)


ATTRS: list[Attribute] = [
    UnitAttr(), BoolAttr(True), BoolAttr(False),
    IntegerAttr(-1, IntegerType(8)), IntegerAttr(-1, IntegerType(32)),
    IntegerAttr(-(1 << 63), IntegerType(64)), IntegerAttr((1 << 64) - 1, IntegerType(64, "u")),
    IntegerAttr(7, IntegerType(16, "s")), IntegerAttr(-5, IndexType()),
    IntegerAttr((1 << 100) + 3, IntegerType(128)), IntegerAttr(-2, IntegerType(128)),
    FloatAttr(1.5, F32), FloatAttr(-0.0, FloatType("f64")), FloatAttr(0.0, FloatType("f64")),
    FloatAttr(float("inf"), FloatType("f16")), FloatAttr(0.25, FloatType("bf16")),
    FloatAttr(float("nan"), F32), FloatAttr(448.0, FloatType("f8E4M3FN")),
    StringAttr(""), StringAttr('quote " and \\ and é\n'),
    TypeAttr(TensorType((2,), F32)), SymbolRefAttr("f"), SymbolRefAttr("a", ("b", "c")),
    ArrayAttr((IntegerAttr(1), ArrayAttr(()), StringAttr("x"))),
    DictAttr((("b", UnitAttr()), ("a", IntegerAttr(1)))),
    DenseArrayAttr(IntegerType(64), (1, -2, 3)), DenseArrayAttr(IntegerType(1), (True, False)),
    DenseArrayAttr(IntegerType(8), ()), DenseArrayAttr(F32, (0.5, -1.0)),
    DenseArrayAttr(FloatType("f64"), (1e300,)),
    FileLineColLoc("in.mlir", 3, 7), NameLoc("n"), NameLoc("n", FileLineColLoc("f", 1, 2)),
    CallSiteLoc(NameLoc("callee"), FileLineColLoc("f", 9, 1)), UnknownLoc(),
    FusedLoc((FileLineColLoc("a", 1, 1), UnknownLoc())),
    FusedLoc((NameLoc("x"),), StringAttr("meta")),
]


@pytest.mark.parametrize("attr", ATTRS, ids=lambda a: type(a).__name__)
@pytest.mark.parametrize("version", [0, 4, 6])
def test_attribute_round_trip(attr: Attribute, version: int) -> None:
    back = round_trip(module_with({"a": attr}), version)
    got = back.body.operations[0].attributes["a"]
    assert str(got) == str(attr)
    if isinstance(attr, FloatAttr):
        assert math.copysign(1, got.number) == math.copysign(1, attr.number) or math.isnan(
            attr.number)


DENSE = [
    ("dense<1.0> : tensor<4xf32>", True),
    ("dense<[1, 2, 3]> : tensor<3xi32>", False),
    ("dense<[true, false, true]> : tensor<3xi1>", False),
    ("dense<true> : tensor<9xi1>", True),
    ("dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>", False),
    ("dense<> : tensor<0xf32>", False),
    ("dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>", False),
    ("dense<[-1, 7]> : tensor<2xi4>", False),
    ("dense<[1.0, 2.0]> : tensor<2xf8E4M3FN>", False),
    ("dense<[5, 5, 5]> : tensor<3xi64>", True),  # equal elements: MLIR stores a splat
]


@pytest.mark.parametrize(("text", "splat"), DENSE)
def test_dense_elements(text: str, splat: bool) -> None:
    source = f'"test.op"() {{a = {text}}} : () -> ()'
    module = parse_source(source, allow_unregistered=True)
    back = round_trip(module)
    got = back.body.operations[0].attributes["a"]
    want = module.body.operations[0].attributes["a"]
    assert isinstance(got, DenseElementsAttr) and str(got) == str(want)
    assert np.array_equal(got.value, want.value)
    attrs, _ = entries(write_bytecode(module))
    (entry,) = [e for e in attrs if e[2][:1] == encode_varint(18)]
    blob_size = len(entry[2]) - 3  # code, type index, blob size (all one byte here)
    itemsize = max(1, got.data.dtype.itemsize)
    count = math.prod(got.type.shape)
    assert blob_size == (itemsize if splat else itemsize * count)


TYPES: list[Type] = [
    IntegerType(1), IntegerType(8, "s"), IntegerType(16, "u"), IndexType(), NoneType(),
    FloatType("f16"), FloatType("bf16"), F32, FloatType("f64"), FloatType("f8E5M2"),
    ComplexType(F32), TensorType((2, -1), F32), TensorType((), IntegerType(32)),
    UnrankedTensorType(F32), VectorType((4,), F32), TupleType((F32, TupleType(()))),
    FunctionType((F32,), (F32, IndexType())),
]


@pytest.mark.parametrize("type", TYPES, ids=str)
def test_type_round_trip(type: Type) -> None:
    back = round_trip(module_with({}, (type,)))
    assert str(back.body.operations[0].regions[0].entry.arguments[0].type) == str(type)


def test_dialect_types_and_attributes_fall_back_to_text() -> None:
    source = ('"test.op"(%t) {d = #stablehlo<comparison_direction EQ>, m = affine_map<(d0) -> '
              '(d0)>} : (!stablehlo.token) -> ()')
    module = parse_source("func.func @f(%t: !stablehlo.token) {\n" + source + "\n return\n}",
                          allow_unregistered=True)
    data = write_bytecode(module)
    attrs, types = entries(data)
    assert ("stablehlo", False, b"#stablehlo<comparison_direction EQ>\x00") in attrs
    assert ("builtin", False, b"affine_map<(d0) -> (d0)>\x00") in attrs
    assert ("stablehlo", False, b"!stablehlo.token\x00") in types
    back = read_bytecode(data, "t", allow_unregistered=True)
    assert print_module(back) == print_module(module)


def test_integer_values_are_zero_extended_before_zigzag() -> None:
    """APInt's getLimitedValue: an i32 -1 is written as the unsigned 0xFFFFFFFF."""
    attrs, types = entries(write_bytecode(module_with({
        "a": IntegerAttr(-1, IntegerType(32)), "b": IntegerAttr(-1, IntegerType(8))})))
    i32 = types.index(("builtin", True, b"\x01" + encode_varint(32 << 2)))
    i8 = types.index(("builtin", True, b"\x01" + encode_varint(8 << 2)))
    assert ("builtin", True, b"\x11" + encode_varint(i32) + encode_varint(zigzag(0xFFFFFFFF))
            ) in attrs
    assert ("builtin", True, b"\x11" + encode_varint(i8) + b"\xff") in attrs


def test_locations_and_shapes_encode_as_upstream() -> None:
    loc = FileLineColLoc("x.mlir", 300, 2)
    module = module_with({"l": loc}, (TensorType((2, -1), F32),))
    attrs, types = entries(write_bytecode(module))
    name = attrs.index(("builtin", True, b"\x05" + encode_varint(
        [s for s in _strings(write_bytecode(module))].index("x.mlir"))))
    assert ("builtin", True, b"\x17" + encode_varint(name) + encode_varint(300) + b"\x05"
            ) in attrs
    f32 = types.index(("builtin", True, b"\x0b"))
    dynamic = encode_varint(zigzag(-(1 << 63)))  # ShapedType::kDynamic
    assert ("builtin", True, b"\x1b\x05\x09" + dynamic + encode_varint(f32)) in types


def _strings(data: bytes) -> list[str]:
    state = _Reader(data, "t", True)
    state.read()
    return state.table.strings


def test_dense_resource_blobs_round_trip() -> None:
    source = ('"test.op"() {a = dense_resource<blob1> : tensor<2xi32>} : () -> ()\n'
              '{-#\n  dialect_resources: {\n    builtin: {\n'
              '      blob1: "0x040000000100000002000000"\n    }\n  }\n#-}\n')
    module = parse_source(source, allow_unregistered=True)
    back = round_trip(module)
    assert back.resources == {"blob1": "0x040000000100000002000000"}
    value = back.body.operations[0].attributes["a"].value
    assert value.tolist() == [1, 2]
    assert print_module(back) == print_module(module)


def test_block_argument_locations_by_version() -> None:
    module = parse_source("func.func @f(%a: tensor<f32> loc(unknown), %b: tensor<f32>) {\n"
                          "  return\n}", "m.mlir")
    for version in (3, 4, 6):
        back = round_trip(module, version)
        func = back.body.operations[0]
        locs = func.regions[0].entry.arg_locations
        assert locs[0] is None and str(locs[1]) == 'loc("m.mlir":1:44)'
