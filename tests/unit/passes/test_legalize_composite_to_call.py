"""stablehlo-legalize-composite-to-call, with its `except` list."""

from __future__ import annotations

from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes

PROGRAM = """func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.composite "foo.bar" %a {decomposition = @id} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "foo.baz" %0 {decomposition = @id} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func @id(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"""


def _run(options: str | None) -> str:
    module = parse_source(PROGRAM)
    run_passes(module, ["stablehlo-legalize-composite-to-call" if options is None else
                        ("stablehlo-legalize-composite-to-call", options)])
    return print_module(module)


def test_every_composite_becomes_a_call() -> None:
    out = _run(None)
    assert "composite" not in out
    assert "%1 = call @id(%0)" in out


def test_excepted_names_stay() -> None:
    out = _run("except='foo.baz, foo.qux'")
    assert '%1 = stablehlo.composite "foo.baz" %0' in out
    assert "%0 = call @id(%arg0)" in out
