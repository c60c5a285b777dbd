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


DYNAMIC_ADD = """func.func @main(%a: tensor<?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}"""

DYNAMIC_SELECT = """func.func @main(%p: tensor<1xi1>, %a: tensor<2x?x8xi32>, %b: tensor<2x8x8xi32>)
    -> tensor<2x?x8xi32> {
  %0 = "chlo.broadcast_select"(%p, %a, %b)
      : (tensor<1xi1>, tensor<2x?x8xi32>, tensor<2x8x8xi32>) -> tensor<2x?x8xi32>
  return %0 : tensor<2x?x8xi32>
}"""


def test_dynamic_binary_op_takes_the_shape_dialect_form() -> None:
    lines = body(legalize(DYNAMIC_ADD))
    assert lines[:4] == [
        "%0 = shape.shape_of %arg0 : tensor<?xf32> -> tensor<1xindex>",
        "%1 = shape.shape_of %arg1 : tensor<?x?xf32> -> tensor<2xindex>",
        "%2 = shape.cstr_broadcastable %0, %1 : tensor<1xindex>, tensor<2xindex>",
        "%3 = shape.assuming %2 -> (tensor<?x?xf32>) {"]
    assert lines[6] == ("%6 = shape.broadcast %4, %5 : tensor<1xindex>, tensor<2xindex> -> "
                        "tensor<2xindex>")
    assert lines[9] == "%9 = stablehlo.add %7, %8 : tensor<?x?xf32>"
    assert lines[10] == "shape.assuming_yield %9 : tensor<?x?xf32>"


def test_dynamic_select_folds_static_shapes_as_it_builds_them() -> None:
    lines = body(legalize(DYNAMIC_SELECT, "cse", "canonicalize"))
    assert lines[2:7] == [
        "%2 = shape.shape_of %arg1 : tensor<2x?x8xi32> -> tensor<3xindex>",
        "%3 = shape.cstr_broadcastable %2, %1, %0 : tensor<3xindex>, tensor<1xindex>, "
        "tensor<3xindex>",
        "%4 = shape.assuming %3 -> (tensor<2x?x8xi32>) {",
        "%5 = shape.broadcast %2, %0 : tensor<3xindex>, tensor<3xindex> -> tensor<3xindex>",
        "%6 = stablehlo.dynamic_broadcast_in_dim %arg0, %5, dims = [2] : "
        "(tensor<1xi1>, tensor<3xindex>) -> tensor<2x?x8xi1>"]


def test_shape_dialect_forms_compute_what_the_chlo_ops_do() -> None:
    a = np.array([1, 2], np.float32)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    (got,) = shlo_cli.interpret(legalize(DYNAMIC_ADD), a, b)
    assert np.array_equal(got, a + b)
    x = np.arange(128, dtype=np.int32).reshape(2, 8, 8)
    y = -x
    for flag in (True, False):
        (picked,) = shlo_cli.interpret(legalize(DYNAMIC_SELECT), np.array([flag]), x, y)
        assert np.array_equal(picked, x if flag else y)


def test_hlo_expand_keeps_dynamic_broadcasts_free_of_shape_ops() -> None:
    module = parse_source(DYNAMIC_ADD, "t.mlir")
    from shlo_cli.passes.chlo_legalize import legalize as legalize_chlo

    legalize_chlo(module)
    printed = print_module(module)
    assert "shape." not in printed and "chlo." not in printed
