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


def test_compatibility_expander_below_1_9_makes_ranges_points() -> None:
    """Upstream's FileLineColRangeToLoc (targets before 1.9.0): ranges become their start,
    nested ones and block arguments' included; 1.9.0 keeps them."""
    from shlo_cli.passes import run_passes

    text = _program('callsite("n"("a.py":3:4 to :9) at "b.py":7:1 to 8:2)').replace(
        "%x: tensor<4xf32>", '%x: tensor<4xf32> loc("c.py":1:2 to :5)')
    for target, expected in (("1.8.0", ['"c.py":1:2)', 'callsite("n"("a.py":3:4) at "b.py":7:1)']),
                             ("1.9.0", ['"c.py":1:2 to :5)',
                                        'callsite("n"("a.py":3:4 to :9) at "b.py":7:1 to 8:2)'])):
        module = parse_source(text, "t.mlir")
        run_passes(module, [("stablehlo-compatibility-expander", f"target={target}")])
        printed = print_module(module, debuginfo=True, local_scope=True)
        assert f"%arg0: tensor<4xf32> loc({expected[0]}" in printed
        assert _cosine_loc(printed) == expected[1]
