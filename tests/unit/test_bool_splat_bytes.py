"""An i1 splat is stored as MLIR stores it (one byte, 0xFF for true: the bytes jaxlib's MLIR
writes for `dense<true>`), and reads back, an empty tensor's splat included."""

from __future__ import annotations

import pytest

from shlo_cli.formats import portable
from shlo_cli.formats.bytecode import write_bytecode
from shlo_cli.formats.bytecode.ir_facts import raw_dense
from shlo_cli.formats.bytecode.reader import read_bytecode
from shlo_cli.ir.dense import encode_raw_dense
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _program(shape: str, literal: str) -> str:
    t = f"tensor<{shape}xi1>"
    return f"""func.func @main() -> {t} {{
  %0 = stablehlo.constant {literal} : {t}
  return %0 : {t}
}}
"""


@pytest.mark.parametrize("shape", ["4", "1", "0"])
@pytest.mark.parametrize(("literal", "byte"), [("dense<true>", b"\xff"), ("dense<false>", b"\x00")])
def test_bool_splat_is_one_mlir_byte(shape: str, literal: str, byte: bytes) -> None:
    module = parse_source(_program(shape, literal), "t.mlir")
    attr = module.functions()[0].regions[0].entry.operations[0].properties["value"]
    assert raw_dense(attr) == byte and encode_raw_dense(attr) == byte
    data = write_bytecode(module, 6, "MLIR")
    back = print_module(read_bytecode(data, "t.mlirbc"))
    assert f"stablehlo.constant {literal}" in back
    artifact = portable.serialize(parse_source(_program(shape, literal), "t.mlir"), "1.0.0")
    # a VHLO tensor of no i1 elements holds no bytes: `dense<>` (jaxlib reads it so too)
    expected = "dense<>" if shape == "0" else literal
    assert f"stablehlo.constant {expected}" in print_module(portable.deserialize(artifact, "x"))
