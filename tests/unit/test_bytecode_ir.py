"""The IR section: regions (isolated ones in their own section from version 2), blocks and
successors, forward references, use-list orders, properties by version, and the writer's
numbering (reference counts, dialect grouping)."""

from __future__ import annotations

import pytest

from shlo_cli.formats import read_bytecode, write_bytecode
from shlo_cli.formats.bytecode import ir_reader
from shlo_cli.formats.bytecode import reader as bytecode_reader
from shlo_cli.formats.bytecode.encoding import IR, PROPERTIES, Reader
from shlo_cli.formats.bytecode.numbering import OWNER, VALUE, group_by_dialect_per_byte, new_entry
from shlo_cli.ir.core import Module
from shlo_cli.ir.diagnostics import ShloError
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

CFG = """func.func @f(%arg0: tensor<i1>, %arg1: tensor<f32>) -> tensor<f32> {
  %0 = "test.cond"(%arg0) : (tensor<i1>) -> i1
  "test.br"(%0)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  "test.br"()[^bb2] : () -> ()
^bb2:
  %1 = stablehlo.add %arg1, %arg1 : tensor<f32>
  return %1 : tensor<f32>
}
"""

NESTED = """func.func @g(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "test.region"() ({
    %1 = stablehlo.add %arg0, %arg0 : tensor<f32>
    "test.yield"(%1) : (tensor<f32>) -> ()
  }) : () -> tensor<f32>
  %2 = "test.region"() ({
    %3 = stablehlo.constant dense<1.0> : tensor<f32>
    "test.yield"(%3) : (tensor<f32>) -> ()
  }) : () -> tensor<f32>
  return %0 : tensor<f32>
}
"""


def parse(text: str) -> Module:
    return parse_source(text, "in.mlir", allow_unregistered=True)


def round_trip(module: Module, version: int = 6) -> Module:
    data = write_bytecode(module, version)
    back = read_bytecode(data, "b", allow_unregistered=True)
    assert write_bytecode(back, version) == data
    assert print_module(back) == print_module(module)
    return back


@pytest.mark.parametrize("version", range(7))
@pytest.mark.parametrize("text", [CFG, NESTED])
def test_regions_blocks_and_successors(text: str, version: int) -> None:
    round_trip(parse(text), version)


def _ir_sections(data: bytes, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many IR sections reading the file meets (top level plus isolated regions)."""
    seen = []
    original = ir_reader.open_section  # how the reader opens every section

    def counting(reader: Reader) -> tuple[int, Reader]:
        found = original(reader)
        seen.append(found[0])
        return found

    for module in (bytecode_reader, ir_reader):  # top-level sections, region sections
        monkeypatch.setattr(module, "open_section", counting)
    read_bytecode(data, "b", allow_unregistered=True)
    for module in (bytecode_reader, ir_reader):
        monkeypatch.setattr(module, "open_section", original)
    return seen.count(IR)


def test_isolated_regions_get_sections_from_version_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """`test.region` using %arg0 is not isolated (inline); the one that uses nothing from
    outside is (a nested IR section), and so are builtin.module and func.func."""
    module = parse(NESTED)
    assert _ir_sections(write_bytecode(module, 1), monkeypatch) == 1
    assert _ir_sections(write_bytecode(module, 2), monkeypatch) == 4


def test_forward_references_resolve() -> None:
    text = """func.func @h() {
  "test.loop"() ({
  ^bb0:
    "test.use"(%1) : (i32) -> ()
    "test.br"()[^bb1] : () -> ()
  ^bb1:
    %1 = "test.def"() : () -> i32
    "test.br"()[^bb0] : () -> ()
  }) : () -> ()
  return
}
"""
    back = round_trip(parse(text))
    loop = back.body.operations[0].regions[0].entry.operations[0]
    use = loop.regions[0].blocks[0].operations[0]
    define = loop.regions[0].blocks[1].operations[0]
    assert use.operands[0] is define.results[0]


def test_properties_by_version() -> None:
    module = parse(CFG)
    v4 = write_bytecode(module, 4)
    v6 = write_bytecode(module, 6)
    sections4 = _top_sections(v4)
    sections6 = _top_sections(v6)
    assert PROPERTIES not in sections4 and PROPERTIES in sections6
    for version in (4, 6):
        func = read_bytecode(write_bytecode(module, version), "b",
                             allow_unregistered=True).body.operations[0]
        assert set(func.properties) == {"function_type", "sym_name"}


def _top_sections(data: bytes) -> list[int]:
    reader = Reader(data)
    reader.skip(4)
    reader.varint()
    reader.cstring()
    ids = []
    while not reader.empty():
        ids.append(reader.section()[0])
    return ids


def test_identical_properties_are_stored_once() -> None:
    text = "\n".join(f"%{i} = stablehlo.constant dense<1.0> : tensor<f32>" for i in range(5))
    module = parse_source(f"func.func @c() {{\n{text}\nreturn\n}}")
    data = write_bytecode(module)
    reader = Reader(data)
    reader.skip(4)
    reader.varint()
    reader.cstring()
    while True:
        section_id, body = reader.section()
        if section_id == PROPERTIES:
            break
    assert body.varint() == 3  # builtin.module, func.func, one shared constant entry


def _uses_module() -> Module:
    return parse("""func.func @u(%arg0: tensor<f32>) {
  %0 = "test.def"() : () -> tensor<f32>
  "test.use"(%0) : (tensor<f32>) -> ()
  "test.use"(%0) : (tensor<f32>) -> ()
  "test.use"(%0) : (tensor<f32>) -> ()
  "test.use"(%0, %arg0) : (tensor<f32>, tensor<f32>) -> ()
  "test.use"(%0, %arg0) : (tensor<f32>, tensor<f32>) -> ()
  "test.use"(%0, %arg0) : (tensor<f32>, tensor<f32>) -> ()
  return
}
""")


@pytest.mark.parametrize("order", [(5, 4, 3, 2, 1, 0), (1, 0, 2, 3, 4, 5), (2, 0, 1, 3, 4, 5)])
def test_use_list_orders_survive(order: tuple[int, ...]) -> None:
    module = _uses_module()
    func = module.body.operations[0]
    value = func.regions[0].entry.operations[0].results[0]
    arg = func.regions[0].entry.arguments[0]
    value.use_order = order
    arg.use_order = (2, 1, 0)
    back = round_trip(module)
    func = back.body.operations[0]
    assert func.regions[0].entry.operations[0].results[0].use_order == order
    assert func.regions[0].entry.arguments[0].use_order == (2, 1, 0)
    for version in (0, 2):  # before version 3 there are no use-list orders
        old = read_bytecode(write_bytecode(module, version), "b", allow_unregistered=True)
        assert old.body.operations[0].regions[0].entry.arguments[0].use_order is None


def test_stale_use_list_orders_are_dropped() -> None:
    module = _uses_module()
    value = module.body.operations[0].regions[0].entry.operations[0].results[0]
    value.use_order = (1, 0)  # the value has six uses now: the order no longer applies
    plain = _uses_module()
    assert write_bytecode(module) == write_bytecode(plain)


def test_more_referenced_entries_come_first_grouped_by_dialect() -> None:
    class D:
        def __init__(self, number: int) -> None:
            self.number = number

    a, b = D(0), D(1)
    entries = [new_entry(i, d) for i, d in enumerate([b, a, b, a])]
    group_by_dialect_per_byte(entries)
    assert [e[VALUE] for e in entries] == [1, 3, 0, 2]
    many = [new_entry(i, b if i % 2 else a) for i in range(200)]
    group_by_dialect_per_byte(many)
    # the first 128 are grouped (dialect 0 first); the rest start with the last dialect
    assert [e[OWNER].number for e in many[:128]] == [0] * 64 + [1] * 64
    assert many[128][OWNER].number == 1


def test_writer_rejects_ir_it_cannot_reference() -> None:
    from shlo_cli.ir.core import Block, Operation, Region, Value
    from shlo_cli.ir.types import F32

    op = Operation("test.op", [Value(F32, None, 0)])
    body = Block()
    body.append(op)
    module = Module(Operation("builtin.module", regions=[Region([body])]))
    with pytest.raises(ShloError, match="not defined in an enclosing region"):
        write_bytecode(module)
