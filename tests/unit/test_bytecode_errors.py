"""Bad bytecode never escapes as a Python exception: truncated files (every prefix), corrupt
bytes, unknown dialects, too-new versions and malformed sections give located diagnostics
with upstream's wording and its `in bytecode version N produced by: P` note."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from shlo_cli.commands.opt import opt
from shlo_cli.formats import read_bytecode, write_bytecode
from shlo_cli.formats.bytecode.encoding import encode_varint
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

SOURCE = """func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xi1>) -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %arg0, %0 : tensor<2xf32>
  %2 = stablehlo.select %arg1, %1, %arg0 : tensor<2xi1>, tensor<2xf32>
  %3 = "stablehlo.reduce"(%2, %0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %4 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %4 : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  %5 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<2xf32>
  return %5 : tensor<2xf32>
}
"""


@pytest.fixture(scope="module")
def small() -> bytes:
    return write_bytecode(parse_source(SOURCE, "small.mlir"), 6, "test")


def read(data: bytes) -> str | None:
    """None when `data` reads, else the rendered diagnostic (other exceptions propagate)."""
    try:
        read_bytecode(data, "f.mlirbc")
    except Diagnostic as d:
        return d.render()
    return None


def test_small_file_reads(small: bytes) -> None:
    assert read(small) is None


def test_every_prefix_is_a_diagnostic(small: bytes) -> None:
    for end in range(len(small)):
        message = read(small[:end])
        assert message is not None and message.startswith("f.mlirbc:0:0: error: "), end
        if end > 10:
            assert "note: in bytecode version 6 produced by: test" in message


def test_corrupt_bytes_never_raise_python_errors(small: bytes) -> None:
    rng = random.Random(10)
    for position in range(4, len(small)):
        for value in (0x00, 0xFF, small[position] ^ 0x01, rng.randrange(256)):
            corrupt = bytearray(small)
            corrupt[position] = value
            read(bytes(corrupt))  # a diagnostic or a module, never another exception
    for _ in range(300):
        corrupt = bytearray(small)
        for _ in range(rng.randrange(1, 6)):
            corrupt[rng.randrange(4, len(small))] = rng.randrange(256)
        read(bytes(corrupt))


def test_not_bytecode() -> None:
    assert read(b"module {}") == "f.mlirbc:0:0: error: input buffer is not an MLIR bytecode file"


def test_too_new_version() -> None:
    message = read(b"ML\xefR" + encode_varint(7) + b"p\x00")
    assert message == "f.mlirbc:0:0: error: bytecode version 7 is newer than the current version 6"


def test_missing_section(small: bytes) -> None:
    header = b"ML\xefR" + encode_varint(6) + b"p\x00"
    message = read(header)
    assert message is not None
    assert "error: missing data for top-level section: String (0)" in message
    assert "note: in bytecode version 6 produced by: p" in message


def test_duplicate_section() -> None:
    header = b"ML\xefR" + encode_varint(1) + b"p\x00"
    message = read(header + b"\x00\x01" + b"\x00\x01")
    assert message is not None and "duplicate top-level section: String (0)" in message


def test_unknown_dialect(small: bytes) -> None:
    data = small.replace(b"stablehlo\x00", b"stablehlX\x00")
    message = read(data)
    assert message is not None and (
        "dialect 'stablehlX' is unknown. If this is intended, please call "
        "allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect "
        "with the MLIR tool used." in message)


def test_unknown_dialect_allowed_when_asked() -> None:
    source = '"foo.bar"() {x = 1 : i32} : () -> ()'
    data = write_bytecode(parse_source(source, allow_unregistered=True))
    assert read(data) is not None
    module = read_bytecode(data, "f", allow_unregistered=True)
    assert module.body.operations[0].name == "foo.bar"


def test_unsupported_write_version() -> None:
    from shlo_cli.ir.diagnostics import ShloError

    with pytest.raises(ShloError, match=r"unsupported version requested 7, must be in range"):
        write_bytecode(parse_source(SOURCE), 7)


def test_opt_reports_bad_bytecode_on_stdin(small: bytes) -> None:
    result = CliRunner().invoke(opt, ["-"], input=small[:40])
    assert result.exit_code == 1
    assert result.stderr.startswith("<stdin>:0:0: error: ")
    assert result.stdout == ""


def _with_dialect_version(data: bytes, dialect: str) -> bytes:
    """`data` with a version entry (3 varints) added to `dialect` in the dialect section."""
    from shlo_cli.formats.bytecode.encoding import DIALECT, DIALECT_VERSIONS, Emitter, Reader
    from shlo_cli.formats.bytecode.encoding import read_string_table as strings_of

    reader = Reader(data)
    reader.skip(4)
    reader.varint()
    reader.cstring()
    header = data[:reader.pos]
    sections = []
    while not reader.empty():
        section_id, body = reader.section()
        sections.append((section_id, bytes(body.data[body.pos:body.end])))
    strings = strings_of(Reader(dict(sections)[0]))
    out = Emitter()
    out.raw(header)
    for section_id, body in sections:
        if section_id == DIALECT:
            old = Reader(body)
            new = Emitter()
            count = old.varint()
            new.varint(count)
            for _ in range(count):
                name_id, _versioned = old.varint_flag()
                if strings[name_id] == dialect:
                    new.varint_flag(name_id, True)
                    version = Emitter()
                    for part in (1, 2, 3):
                        version.varint(part)
                    new.section(DIALECT_VERSIONS, version)
                else:
                    new.varint_flag(name_id, False)
            new.raw(bytes(old.data[old.pos:old.end]))
            body_emitter = new
        else:
            body_emitter = Emitter()
            body_emitter.raw(body)
        out.section(section_id, body_emitter)
    return bytes(out.buf)


def test_dialect_version_entries(small: bytes) -> None:
    versioned = _with_dialect_version(small, "stablehlo")
    assert versioned != small
    assert read(versioned) is None  # a dialect we know: the version is kept unread
    module = parse_source('"foo.bar"() : () -> ()', allow_unregistered=True)
    unknown = _with_dialect_version(write_bytecode(module), "foo")
    with pytest.raises(Diagnostic, match="dialect 'foo' does not implement the bytecode "
                                         "interface, but found a version entry"):
        read_bytecode(unknown, "f", allow_unregistered=True)
