"""--stablehlo-canonicalize-dynamism and --shape-legalize-to-stablehlo: the static forms they
produce, what they refuse, and that results still compute the same values."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes


def run(text: str, passes: list) -> str:
    module = parse_source(text, "t.mlir")
    run_passes(module, passes, lambda m: verify_module(m))
    return print_module(module)


DYNAMIC_OPS = """
func.func @main(%arg0: tensor<4xf32>, %pad: tensor<f32>) -> tensor<2x7xf32> {
  %lo = stablehlo.constant dense<1> : tensor<1xi64>
  %hi = stablehlo.constant dense<2> : tensor<1xi64>
  %in = stablehlo.constant dense<0> : tensor<1xi64>
  %0 = stablehlo.dynamic_pad %arg0, %pad, %lo, %hi, %in
      : (tensor<4xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
      -> tensor<7xf32>
  %s = stablehlo.constant dense<[2, 7]> : tensor<2xi64>
  %1 = stablehlo.dynamic_broadcast_in_dim %0, %s, dims = [1]
      : (tensor<7xf32>, tensor<2xi64>) -> tensor<2x7xf32>
  %n = stablehlo.constant dense<14> : tensor<1xi64>
  %2 = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi64>) -> tensor<14xf32>
  %3 = stablehlo.dynamic_reshape %2, %s : (tensor<14xf32>, tensor<2xi64>) -> tensor<2x7xf32>
  %4 = stablehlo.add %1, %3 : tensor<2x7xf32>
  return %4 : tensor<2x7xf32>
}
"""


def test_canonicalize_dynamism_static_forms_compute_the_same() -> None:
    out = run(DYNAMIC_OPS, ["stablehlo-canonicalize-dynamism"])
    for op in ("dynamic_pad", "dynamic_broadcast_in_dim", "dynamic_iota", "dynamic_reshape"):
        assert f"stablehlo.{op}" not in out
    for op in ("pad", "broadcast_in_dim", "iota", "reshape"):
        assert f"stablehlo.{op} " in out
    x = np.array([1, 2, 3, 4], dtype=np.float32)
    pad = np.array(-1, dtype=np.float32)
    np.testing.assert_array_equal(shlo_cli.interpret(DYNAMIC_OPS, x, pad)[0],
                                  shlo_cli.interpret(out, x, pad)[0])


def test_canonicalize_dynamism_keeps_dynamic_shape_operands() -> None:
    text = """
    func.func @main(%arg0: tensor<4xf32>, %s: tensor<2xi64>) -> tensor<2x2xf32> {
      %0 = stablehlo.dynamic_reshape %arg0, %s : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    }"""
    assert "stablehlo.dynamic_reshape" in run(text, ["stablehlo-canonicalize-dynamism"])


def test_custom_call_shape_operands_are_dropped() -> None:
    text = """
    func.func @main(%arg0: tensor<4xf32>) -> tensor<1x2xf32> {
      %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %1 = stablehlo.custom_call @foo(%arg0, %0)
          {indices_of_shape_operands = dense<1> : tensor<1xi64>}
          : (tensor<4xf32>, tensor<2xi64>) -> tensor<1x2xf32>
      return %1 : tensor<1x2xf32>
    }"""
    out = run(text, ["stablehlo-canonicalize-dynamism"])
    assert "stablehlo.custom_call @foo(%arg0) : (tensor<4xf32>) -> tensor<1x2xf32>" in out


SHAPES = """
func.func @main(%arg0: tensor<2x3xf32>) -> (index, tensor<2xindex>) {
  %0 = shape.shape_of %arg0 : tensor<2x3xf32> -> tensor<2xindex>
  %1 = shape.num_elements %0 : tensor<2xindex> -> index
  %2 = shape.const_shape [1, 3] : tensor<2xindex>
  %3 = shape.broadcast %0, %2 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  return %1, %3 : index, tensor<2xindex>
}
"""


def test_shape_dialect_evaluates() -> None:
    x = np.zeros((2, 3), dtype=np.float32)
    count, shape = shlo_cli.interpret(SHAPES, x)
    assert int(count) == 6
    np.testing.assert_array_equal(shape, [2, 3])


def test_shape_legalize_produces_stablehlo() -> None:
    out = run(SHAPES, ["shape-legalize-to-stablehlo"])
    assert "shape." not in out
    assert "stablehlo.get_dimension_size %arg0, dim = 1" in out
    assert "stablehlo.maximum" in out


def test_shape_legalize_refuses_unranked() -> None:
    text = """
    func.func @main(%arg0: tensor<*xf32>) -> tensor<?xindex> {
      %0 = shape.shape_of %arg0 : tensor<*xf32> -> tensor<?xindex>
      return %0 : tensor<?xindex>
    }"""
    with pytest.raises(Diagnostic, match="failed to legalize operation 'shape.shape_of' that "
                                         "was explicitly marked illegal"):
        run(text, ["shape-legalize-to-stablehlo"])


def test_tensor_ops_round_trip_and_evaluate() -> None:
    text = """
    func.func @main(%arg0: tensor<3x2xi32>) -> (index, i32, tensor<2xindex>) {
      %c1 = arith.constant 1 : index
      %0 = tensor.dim %arg0, %c1 : tensor<3x2xi32>
      %1 = tensor.extract %arg0[%c1, %c1] : tensor<3x2xi32>
      %2 = tensor.from_elements %0, %c1 : tensor<2xindex>
      return %0, %1, %2 : index, i32, tensor<2xindex>
    }"""
    assert run(run(text, []), []) == run(text, [])
    x = np.arange(6, dtype=np.int32).reshape(3, 2)
    dim, element, packed = shlo_cli.interpret(text, x)
    assert int(dim) == 2 and int(element) == 3
    np.testing.assert_array_equal(packed, [2, 1])
