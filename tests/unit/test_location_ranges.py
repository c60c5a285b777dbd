"""MLIR's FileLineColRange locations (`loc("f.py":3:4 to :9)`, in every current jax export):
kept through parsing, printing with debug info and bytecode, as MLIR keeps them."""

from __future__ import annotations

import pytest

from shlo_cli.formats import portable
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

# (as written, as MLIR prints it)
CASES = [
    ('"a.py":3:4', '"a.py":3:4'),
    ('"a.py":3:4 to :9', '"a.py":3:4 to :9'),
    ('"a.py":3:4 to 5:6', '"a.py":3:4 to 5:6'),
    ('"a.py":3:4 to 3:9', '"a.py":3:4 to :9'),
    ('"a.py":3:4 to :4', '"a.py":3:4'),
    ('"a.py":3', '"a.py":3:0'),
    ('"n"("a.py":3:4 to :9)', '"n"("a.py":3:4 to :9)'),
    ('callsite("a.py":3:4 to :9 at "b.py":7:1 to 8:2)',
     'callsite("a.py":3:4 to :9 at "b.py":7:1 to 8:2)'),
]


def _program(loc: str) -> str:
    return f"""func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %c = stablehlo.cosine %x : tensor<4xf32> loc({loc})
  return %c : tensor<4xf32>
}}
"""


def _cosine_loc(text: str) -> str:
    line = next(line for line in text.splitlines() if "cosine" in line)
    return line.split(" loc(", 1)[1][:-1]


@pytest.mark.parametrize(("written", "printed"), CASES)
def test_ranges_print_as_mlir_prints_them(written: str, printed: str) -> None:
    module = parse_source(_program(written), "t.mlir")
    assert _cosine_loc(print_module(module, debuginfo=True, local_scope=True)) == printed


@pytest.mark.parametrize(("written", "printed"), CASES)
def test_ranges_survive_a_portable_artifact(written: str, printed: str) -> None:
    data = portable.serialize(parse_source(_program(written), "t.mlir"), "1.17.0")
    module = portable.deserialize(data, "t.mlir.bc")
    assert _cosine_loc(print_module(module, debuginfo=True, local_scope=True)) == printed


def test_jaxlib_reads_our_ranges() -> None:
    jsh = pytest.importorskip("jaxlib.mlir.dialects.stablehlo")
    jax_mlir = pytest.importorskip("jax._src.interpreters.mlir")
    for written, printed in CASES:
        data = portable.serialize(parse_source(_program(written), "t.mlir"), "1.17.0")
        with jax_mlir.make_ir_context() as ctx:
            module = jsh.deserialize_portable_artifact(ctx, data)
            text = module.operation.get_asm(enable_debug_info=True, use_local_scope=True)
        assert _cosine_loc(text) == printed
