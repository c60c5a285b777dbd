"""The reader's fast paths (builtin entries decoded directly in `entries.py`, string tables
with one-byte sizes) read exactly what the generic decoders read: the same IR for good files
and the same diagnostic for corrupt ones (every byte of a file mutated in turn)."""

from __future__ import annotations

import random

import pytest

from shlo_cli.formats import read_bytecode, write_bytecode
from shlo_cli.formats.bytecode import reader as bytecode_reader
from shlo_cli.formats.bytecode import tables
from shlo_cli.formats.bytecode.encoding import Reader, read_string_table
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

LONG = "x" * 70  # a string whose size takes a two-byte varint

SOURCE = f"""func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<?xi1>) -> tensor<2x3xf32>
    attributes {{note = "{LONG}", flags = [1 : i32, -7 : si8, 200 : ui8, 5 : index, true],
                 nested = {{a = unit, b = @callee, t = tensor<4xbf16>}}}} {{
  %0 = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %1 = stablehlo.add %arg0, %0 : tensor<2x3xf32>
  %2 = stablehlo.constant dense<-3> : tensor<i64>
  %3 = stablehlo.constant dense<[1, 2]> : tensor<2xui16>
  %4 = stablehlo.transpose %1, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}}
func.func private @callee(%a: tensor<f64>) -> (tensor<f64>, tensor<i1>) {{
  %c = stablehlo.constant dense<true> : tensor<i1>
  return %a, %c : tensor<f64>, tensor<i1>
}}
"""


@pytest.fixture(scope="module")
def data() -> bytes:
    # Many lines, so later locations need two-byte varints too.
    return write_bytecode(parse_source("\n" * 150 + SOURCE, "fast.mlir"))


def outcome(blob: bytes) -> str:
    """What reading `blob` gives: the module's generic text with locations, or the error."""
    try:
        module = read_bytecode(blob, "f.mlirbc", allow_unregistered=True)
    except Diagnostic as d:
        return "error: " + d.render()
    try:
        return print_module(module, generic=True, debuginfo=True)
    except Exception as e:  # noqa: BLE001  (corrupt IR the printer rejects: same either way)
        return f"unprintable: {type(e).__name__}"


def generic(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the fast paths off: every entry and string table goes the generic way."""
    monkeypatch.setattr(tables, "ATTRIBUTES", {})
    monkeypatch.setattr(tables, "TYPES", {})
    monkeypatch.setattr(bytecode_reader, "_string_table", read_string_table)


def test_fast_and_generic_read_the_same_module(data: bytes,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    fast = outcome(data)
    assert '"builtin.module"' in fast and LONG in fast and '"fast.mlir":151:' in fast
    generic(monkeypatch)
    assert outcome(data) == fast


def test_corrupt_bytes_give_the_same_diagnostics(data: bytes,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    blobs = []
    for pos in range(4, len(data)):
        for value in (data[pos] ^ 1, data[pos] ^ 0x80, rng.randrange(256)):
            blobs.append(data[:pos] + bytes([value]) + data[pos + 1:])
    fast = [outcome(blob) for blob in blobs]
    generic(monkeypatch)
    slow = [outcome(blob) for blob in blobs]
    differ = [i for i, (a, b) in enumerate(zip(fast, slow, strict=True)) if a != b]
    assert not differ, (fast[differ[0]], slow[differ[0]])
    assert sum(o.startswith("error:") for o in fast) > len(blobs) // 10  # errors were met


@pytest.mark.parametrize("strings", [[], ["a"], ["", "b", LONG, "é"], ["s"] * 200])
def test_string_table(strings: list[str]) -> None:
    from shlo_cli.formats.bytecode.encoding import Emitter, StringTable

    table = StringTable()
    table.index = {s: i for i, s in enumerate(dict.fromkeys(strings))}
    out = Emitter()
    table.write(out)
    raw = bytes(out.buf)
    assert bytecode_reader._string_table(Reader(raw)) == read_string_table(Reader(raw))
