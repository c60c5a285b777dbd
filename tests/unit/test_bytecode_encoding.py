"""MLIR bytecode primitives: PrefixVarInt edge values, zigzag, sections and alignment,
the string table, and the DenseMap order of use-list records."""

from __future__ import annotations

import pytest

from shlo_cli.formats.bytecode.encoding import (
    BytecodeError,
    Emitter,
    Reader,
    StringTable,
    encode_varint,
    read_string_table,
    unzigzag,
    zigzag,
)
from shlo_cli.formats.bytecode.uselists import decode_order, densemap_order

# (value, encoded bytes): the prefix's trailing zero count is the number of extra bytes.
VARINTS = [
    (0, b"\x01"),
    (1, b"\x03"),
    (127, b"\xff"),
    (128, b"\x02\x02"),
    ((1 << 14) - 1, b"\xfe\xff"),
    (1 << 14, b"\x04\x00\x02"),
    ((1 << 21) - 1, b"\xfc\xff\xff"),
    ((1 << 28) - 1, b"\xf8\xff\xff\xff"),
    ((1 << 35) - 1, b"\xf0\xff\xff\xff\xff"),
    ((1 << 42) - 1, b"\xe0" + b"\xff" * 5),
    ((1 << 49) - 1, b"\xc0" + b"\xff" * 6),
    ((1 << 56) - 1, b"\x80" + b"\xff" * 7),
    (1 << 56, b"\x00" + (1 << 56).to_bytes(8, "little")),
    ((1 << 64) - 1, b"\x00" + b"\xff" * 8),
]


@pytest.mark.parametrize(("value", "encoded"), VARINTS)
def test_varint_edges(value: int, encoded: bytes) -> None:
    assert encode_varint(value) == encoded
    out = Emitter()
    out.varint(value)
    assert bytes(out.buf) == encoded
    reader = Reader(encoded)
    assert reader.varint() == value and reader.empty()


@pytest.mark.parametrize("value", [0, 1, -1, 63, -64, 64, (1 << 63) - 1, -(1 << 63)])
def test_zigzag_round_trips(value: int) -> None:
    assert unzigzag(zigzag(value)) == value
    out = Emitter()
    out.signed_varint(value)
    assert Reader(bytes(out.buf)).signed_varint() == value


def test_zigzag_small_magnitudes_are_small() -> None:
    assert [zigzag(v) for v in (0, -1, 1, -2, 2)] == [0, 1, 2, 3, 4]


def test_varint_with_flag() -> None:
    out = Emitter()
    out.varint_flag(5, True)
    out.varint_flag(5, False)
    reader = Reader(bytes(out.buf))
    assert reader.varint_flag() == (5, True)
    assert reader.varint_flag() == (5, False)


@pytest.mark.parametrize("encoded", [b"", b"\x02", b"\x00\x01\x02", b"\x80\x01"])
def test_truncated_varints_raise(encoded: bytes) -> None:
    with pytest.raises(BytecodeError):
        Reader(encoded).varint()


def test_section_alignment_pads_with_0xcb() -> None:
    body = Emitter()
    body.varint(3)
    body.align_to(8)
    body.raw(b"\x11\x22")
    assert body.align == 8
    out = Emitter()
    out.raw(b"ML\xefR\x0d")
    out.section(5, body)
    data = bytes(out.buf)
    # id with the alignment bit, length, alignment, padding up to offset 8, then the body
    assert data[5] == 0x85 and data[6] == (len(body.buf) << 1 | 1) and data[7] == 8 << 1 | 1
    reader = Reader(data)
    reader.skip(5)
    section_id, section = reader.section()
    assert section_id == 5 and section.base % 8 == 0
    assert bytes(section.data[section.pos:section.end]) == bytes(body.buf)


def test_aligned_section_needs_no_padding_when_already_aligned() -> None:
    body = Emitter()
    body.align_to(4)
    body.raw(b"\x01\x02\x03\x04")
    out = Emitter()
    out.raw(b"\x00\x00")
    out.section(5, body)  # code + length end at offset 4: aligned already
    assert out.buf[2] == 5 and out.align == 4


def test_bad_padding_byte_is_rejected() -> None:
    reader = Reader(b"\x85\x03\x09\x00\x00")
    with pytest.raises(BytecodeError, match="expected alignment byte"):
        reader.section()


def test_invalid_section_id() -> None:
    with pytest.raises(BytecodeError, match="invalid section ID: 9"):
        Reader(b"\x09\x01").section()


def test_string_table_round_trip() -> None:
    table = StringTable()
    assert [table.insert(s) for s in ("builtin", "vhlo", "builtin", "", "é")] == [0, 1, 0, 2, 3]
    out = Emitter()
    table.write(out)
    data = bytes(out.buf)
    # count, sizes in reverse order (with the NUL), then the NUL-terminated data
    assert data[:5] == b"\x09\x07\x03\x0b\x11"  # é is 2 bytes in UTF-8
    assert read_string_table(Reader(data)) == ["builtin", "vhlo", "", "é"]


def test_string_table_with_trailing_garbage() -> None:
    with pytest.raises(BytecodeError, match="unexpected trailing data"):
        read_string_table(Reader(b"\x03\x05ab\x00\x00"))


def test_string_sizes_beyond_the_section() -> None:
    with pytest.raises(BytecodeError, match="string size exceeds"):
        read_string_table(Reader(b"\x03\x41ab\x00"))


def test_densemap_order_is_hash_order() -> None:
    # 64 buckets, hash k * 37: 0 -> 0, 1 -> 37, 2 -> 10, 3 -> 47
    assert densemap_order([0, 1, 2, 3]) == [0, 2, 1, 3]
    many = list(range(100))  # grows to 128, then 256 buckets
    assert sorted(densemap_order(many)) == many
    assert densemap_order(many) == sorted(many, key=lambda k: (k * 37) % 256)


def test_use_list_orders_decode() -> None:
    assert decode_order([2, 0, 1], False, 3) == (2, 0, 1)
    # pairs (position, reference index): use 3 sits at position 0, use 0 at position 3
    assert decode_order([0, 3, 3, 0], True, 5) == (3, 1, 2, 0, 4)
    assert decode_order([0, 0], False, 2) is None  # not a permutation
    assert decode_order([1, 0], False, 3) is None  # wrong number of uses
    assert decode_order([0, 1, 2], True, 3) is None  # odd pair list


def test_model_use_orders_puts_recreated_uses_first() -> None:
    """A value used by ops A, B, C (pre-order): the reference order is C, B, A. Recreating A
    last puts its use in front: C's and B's uses move back one place each."""
    from shlo_cli.formats.bytecode.uselists import model_use_orders
    from shlo_cli.ir.parser import parse_source

    module = parse_source("""func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %a = stablehlo.negate %x : tensor<f32>
  %b = stablehlo.abs %x : tensor<f32>
  %c = stablehlo.add %x, %b : tensor<f32>
  return %a : tensor<f32>
}""", "t.mlir")
    func = next(iter(module.functions()))
    x = func.regions[0].blocks[0].arguments[0]
    ops = func.regions[0].blocks[0].operations
    model_use_orders(module.op, [])
    assert x.use_order is None  # built in order: nothing to record
    model_use_orders(module.op, [ops[0]])
    # in memory: negate (recreated), add, abs; reference: add, abs, negate
    assert x.use_order == (1, 2, 0)


def test_model_use_orders_reverses_the_uses_of_recreated_results() -> None:
    """Replacing a recreated op's results moves their uses one by one to the front of the
    new value, reversing the list (what jaxlib's MLIR writes when a downgrade recreates an op
    whose result has two users that are not recreated)."""
    from shlo_cli.formats.bytecode.uselists import model_use_orders
    from shlo_cli.ir.parser import parse_source

    module = parse_source("""func.func @f(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %c = stablehlo.cosine %x : tensor<f32>
  %a = stablehlo.add %c, %x : tensor<f32>
  %m = stablehlo.multiply %c, %x : tensor<f32>
  return %a, %m : tensor<f32>, tensor<f32>
}""", "t.mlir")
    func = next(iter(module.functions()))
    ops = func.regions[0].blocks[0].operations
    cosine = ops[0].results[0]
    model_use_orders(module.op, [])
    assert cosine.use_order is None
    model_use_orders(module.op, [ops[0]])
    # reference: multiply, add; in memory after the replacement: add, multiply
    assert cosine.use_order == (1, 0)
    # recreating a user afterwards puts its use in front again
    model_use_orders(module.op, [ops[0], ops[2]])
    assert cosine.use_order is None
