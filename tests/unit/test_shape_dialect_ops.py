"""The shape dialect's syntax as MLIR prints it (dialects/shape.py)."""

from __future__ import annotations

from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def round_trip(text: str) -> str:
    return print_module(parse_source(text, "t.mlir"))


def test_const_shape_prints_its_attribute_dictionary_as_mlir_does() -> None:
    text = """func.func @f() -> (tensor<2xindex>, tensor<1xindex>) {
      %0 = shape.const_shape {a = 1 : i32} [4, 8] : tensor<2xindex>
      %1 = shape.const_shape [4] : tensor<1xindex>
      return %0, %1 : tensor<2xindex>, tensor<1xindex>
    }"""
    printed = round_trip(text)
    assert "%0 = shape.const_shape  {a = 1 : i32}[4, 8] : tensor<2xindex>" in printed
    assert "%1 = shape.const_shape [4] : tensor<1xindex>" in printed
    assert round_trip(printed) == printed
