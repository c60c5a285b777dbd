"""--stablehlo-aggressive-simplification on dynamic-shape ops (passes/simplify/dynamic.py,
slicing.py): upstream's DynamicBroadcastInDimOpNotActuallyDynamic, DynamicReshapeOpIsStatic,
DynamicReshapeOpSameOperandAndResultShape and DynamicIotaOpToBroadcast on index shapes, and
that the rewritten programs compute what the originals do."""

from __future__ import annotations

import numpy as np

import shlo_cli
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes


def simplify(text: str) -> str:
    module = parse_source(text, "t.mlir")
    run_passes(module, ["stablehlo-aggressive-simplification"])
    return print_module(module)


def body(printed: str) -> list[str]:
    return [line.strip() for line in printed.splitlines()[2:-2]]


def test_dynamic_broadcast_to_constant_index_shape_is_a_refined_broadcast() -> None:
    text = """func.func @main(%arg0: tensor<f32>) -> tensor<?x?xf32> {
      %0 = shape.const_shape [4, 32] : tensor<2xindex>
      %1 = stablehlo.dynamic_broadcast_in_dim %arg0, %0, dims = []
          : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      return %1 : tensor<?x?xf32>
    }"""
    # func.return is of another dialect: a convert keeps the function's result type.
    assert body(simplify(text)) == [
        "%0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<4x32xf32>",
        "%1 = stablehlo.convert %0 : (tensor<4x32xf32>) -> tensor<?x?xf32>",
        "return %1 : tensor<?x?xf32>"]
    (got,) = shlo_cli.interpret(simplify(text), np.float32(2.5))
    assert got.shape == (4, 32) and np.all(got == 2.5)


def test_dynamic_broadcast_of_static_operand_to_static_result() -> None:
    text = """func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2xi64>) -> tensor<5x4xf32> {
      %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [1]
          : (tensor<4xf32>, tensor<2xi64>) -> tensor<5x4xf32>
      return %0 : tensor<5x4xf32>
    }"""
    assert body(simplify(text))[0] == (
        "%0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<5x4xf32>")


def test_dynamic_reshape_to_static_type_and_through_same_shape_ops() -> None:
    text = """func.func @main(%arg0: tensor<1xf32>, %arg1: tensor<2xi32>, %arg2: tensor<?xf16>,
                         %arg3: tensor<1xindex>) -> (tensor<1x1xf32>, tensor<?xf16>) {
      %0 = stablehlo.dynamic_reshape %arg0, %arg1
          : (tensor<1xf32>, tensor<2xi32>) -> tensor<1x1xf32>
      %1 = stablehlo.dynamic_reshape %arg2, %arg3
          : (tensor<?xf16>, tensor<1xindex>) -> tensor<?xf16>
      %2 = stablehlo.add %1, %1 : tensor<?xf16>
      %3 = stablehlo.dynamic_reshape %2, %arg3 : (tensor<?xf16>, tensor<1xindex>) -> tensor<?xf16>
      return %0, %3 : tensor<1x1xf32>, tensor<?xf16>
    }"""
    lines = body(simplify(text))
    assert lines[0] == "%0 = stablehlo.reshape %arg0 : (tensor<1xf32>) -> tensor<1x1xf32>"
    assert lines[-1] == "return %0, %2 : tensor<1x1xf32>, tensor<?xf16>"
    assert lines[-2].startswith("%2 = stablehlo.add %1, %1")


def test_dynamic_iota_on_an_index_shape_casts_it_with_arith_index_cast() -> None:
    text = """func.func @main(%arg0: tensor<2xindex>) -> tensor<5x?xi32> {
      %0 = stablehlo.dynamic_iota %arg0, dim = 1 : (tensor<2xindex>) -> tensor<5x?xi32>
      return %0 : tensor<5x?xi32>
    }"""
    printed = simplify(text)
    assert body(printed)[:3] == [
        "%0 = arith.index_cast %arg0 : tensor<2xindex> to tensor<2xi64>",
        "%1 = stablehlo.slice %0 [1:2] : (tensor<2xi64>) -> tensor<1xi64>",
        "%2 = stablehlo.dynamic_iota %1, dim = 0 : (tensor<1xi64>) -> tensor<?xi32>"]
    shape = np.array([5, 3], dtype=np.int64)
    (want,) = shlo_cli.interpret(text, shape)
    (got,) = shlo_cli.interpret(printed, shape)
    assert want.shape == (5, 3) and np.array_equal(got, want)
