"""ir.parse_caches: the parser's text caches are registered and emptied together, and
parsing after a clear gives the same IR as with warm caches."""

from __future__ import annotations

from shlo_cli.ir import parse_caches, parse_types
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

TEXT = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = func.call @twice(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x {name = "t"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_clear_empties_every_cache_and_parsing_is_unchanged() -> None:
    warm = print_module(parse_source(TEXT))
    assert parse_types._TYPE_CACHE  # the types just read are kept
    parse_caches.clear_parse_caches()
    assert not any(parse_caches._CACHES)
    assert print_module(parse_source(TEXT)) == warm
    assert parse_types._TYPE_CACHE
