"""--chlo-legalize-to-stablehlo's broadcasting forms (passes/chlo_legalize.py), as upstream's
ChloLegalizeToStablehlo emits them, and that the legalized programs compute what the CHLO ops
do."""

from __future__ import annotations

import numpy as np

import shlo_cli
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes


def legalize(text: str, *extra: str) -> str:
    module = parse_source(text, "t.mlir")
    run_passes(module, ["chlo-legalize-to-stablehlo", *extra])
    return print_module(module)


def body(printed: str) -> list[str]:
    return [line.strip() for line in printed.splitlines()[2:-2]]


def test_static_select_keeps_a_scalar_predicate() -> None:
    text = """func.func @main(%p: tensor<i1>, %a: tensor<8x1xi32>, %b: tensor<2x8x8xi32>)
        -> tensor<2x8x8xi32> {
      %0 = "chlo.broadcast_select"(%p, %a, %b)
          : (tensor<i1>, tensor<8x1xi32>, tensor<2x8x8xi32>) -> tensor<2x8x8xi32>
      return %0 : tensor<2x8x8xi32>
    }"""
    printed = legalize(text)
    assert body(printed) == [
        "%0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8x1xi32>) -> "
        "tensor<2x8x8xi32>",
        "%1 = stablehlo.select %arg0, %0, %arg2 : tensor<i1>, tensor<2x8x8xi32>",
        "return %1 : tensor<2x8x8xi32>"]
    a = np.arange(8, dtype=np.int32).reshape(8, 1)
    b = -np.arange(128, dtype=np.int32).reshape(2, 8, 8)
    for flag in (True, False):
        (got,) = shlo_cli.interpret(printed, np.bool_(flag), a, b)
        assert np.array_equal(got, np.broadcast_to(a, (2, 8, 8)) if flag else b)


BOUNDED = """func.func @main(%a: tensor<?x3xf32, #stablehlo.bounds<5, ?>>, %b: tensor<3xf32>)
    -> tensor<?x3xf32, #stablehlo.bounds<5, ?>> {
  %0 = chlo.broadcast_add %a, %b : (tensor<?x3xf32, #stablehlo.bounds<5, ?>>, tensor<3xf32>)
      -> tensor<?x3xf32, #stablehlo.bounds<5, ?>>
  return %0 : tensor<?x3xf32, #stablehlo.bounds<5, ?>>
}"""


def test_bounded_dynamic_expanding_broadcasts_to_the_bound_then_sets_the_size() -> None:
    printed = legalize(BOUNDED)
    assert body(printed)[:4] == [
        "%0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>",
        "%1 = stablehlo.get_dimension_size %arg0, dim = 0 : "
        "(tensor<?x3xf32, #stablehlo.bounds<5, ?>>) -> tensor<i32>",
        "%2 = stablehlo.set_dimension_size %0, %1, dim = 0 : (tensor<5x3xf32>, tensor<i32>) -> "
        "tensor<?x3xf32, #stablehlo.bounds<5, ?>>",
        "%3 = stablehlo.add %arg0, %2 : tensor<?x3xf32, #stablehlo.bounds<5, ?>>"]
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = np.array([10, 20, 30], dtype=np.float32)
    (got,) = shlo_cli.interpret(printed, a, b)
    assert np.array_equal(got, a + b)
