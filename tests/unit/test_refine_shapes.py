"""--stablehlo-refine-shapes and --stablehlo-refine-arguments (passes/stablehlo_refine_*.py,
shape_refinement.py, shape_inference.py, shape_folder.py): refined types, evaluated shape
computations, call refinement, and that refined programs compute what they did before."""

# ruff: noqa: E501  (MLIR test programs keep their one-statement lines)

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import DYNAMIC, F32, TensorType
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes
from shlo_cli.passes.shape_inference import merge_dims
from shlo_cli.passes.shape_refinement import most_specific

DYNAMIC_PROGRAM = """
func.func @main(%arg0: tensor<2x3xf32>) -> tensor<?xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<2x3xf32>) -> tensor<i32>
  %1 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  %2 = stablehlo.multiply %0, %1 : tensor<i32>
  %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
  %4 = stablehlo.dynamic_reshape %arg0, %3 : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<?xf32>
  %5 = stablehlo.dynamic_iota %3, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  %6 = stablehlo.add %4, %5 : tensor<?xf32>
  %7 = stablehlo.abs %6 : tensor<?xf32>
  return %7 : tensor<?xf32>
}
"""


def run(text: str, passes: list) -> str:
    module = parse_source(text, "t.mlir")
    run_passes(module, passes, lambda m: verify_module(m))
    return print_module(module)


def test_refined_program_is_static_and_computes_the_same() -> None:
    refined = run(DYNAMIC_PROGRAM, ["stablehlo-refine-shapes"])
    assert "?" not in refined
    assert "-> tensor<6xf32>" in refined
    assert "stablehlo.multiply" not in refined  # evaluated to a constant
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    [before] = shlo_cli.interpret(DYNAMIC_PROGRAM, x)
    [after] = shlo_cli.interpret(refined, x)
    np.testing.assert_array_equal(before, after)
    assert after.shape == (6,)


def test_refine_arguments_then_shapes_computes_the_same() -> None:
    text = """
    func.func @main(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
      %0 = stablehlo.multiply %arg0, %arg0 : tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }"""
    wrapped = run(text, [("stablehlo-refine-arguments", "types=tensor<4x3xf32>")])
    assert "shape_refinement_operand_wrapper" in wrapped
    refined = run(wrapped, ["stablehlo-refine-shapes"])
    assert "custom_call" not in refined and "tensor<4x3xf32>" in refined and "?" not in refined
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(shlo_cli.interpret(text, x)[0],
                                  shlo_cli.interpret(refined, x)[0])


def test_integer_folding_skips_floats_and_division_by_zero() -> None:
    text = """
    func.func @main() -> (tensor<f32>, tensor<i32>, tensor<i32>) {
      %0 = stablehlo.constant dense<2.0> : tensor<f32>
      %1 = stablehlo.add %0, %0 : tensor<f32>
      %2 = stablehlo.constant dense<7> : tensor<i32>
      %3 = stablehlo.constant dense<0> : tensor<i32>
      %4 = stablehlo.divide %2, %3 : tensor<i32>
      %5 = stablehlo.remainder %2, %2 : tensor<i32>
      return %1, %4, %5 : tensor<f32>, tensor<i32>, tensor<i32>
    }"""
    out = run(text, ["stablehlo-refine-shapes"])
    assert "stablehlo.add" in out and "stablehlo.divide" in out
    assert "stablehlo.remainder" not in out


def test_call_with_dimension_argument_is_specialized() -> None:
    text = """
    module {
      func.func @main(%arg0: tensor<4xf32>) -> tensor<?xf32> {
        %n = stablehlo.constant dense<4> : tensor<i64>
        %a = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<?xf32>
        %0 = func.call @callee(%n, %a) : (tensor<i64>, tensor<?xf32>) -> tensor<?xf32>
        return %0 : tensor<?xf32>
      }
      func.func @callee(%n: tensor<i64>, %x: tensor<?xf32>) -> tensor<?xf32> {
        %0 = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
        %1 = stablehlo.dynamic_iota %0, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
        %2 = stablehlo.add %x, %1 : tensor<?xf32>
        return %2 : tensor<?xf32>
      }
    }"""
    out = run(text, ["stablehlo-refine-shapes"])
    assert "func.func @callee(%arg0: tensor<4xf32>) -> tensor<4xf32>" in out
    assert "call @callee(%0) : (tensor<4xf32>) -> tensor<4xf32>" in out
    x = np.array([1, -2, 3, -4], dtype=np.float32)
    np.testing.assert_array_equal(shlo_cli.interpret(text, x)[0],
                                  shlo_cli.interpret(out, x)[0])


def test_incompatible_refinement_keys_are_reported_with_the_verifier_error() -> None:
    text = """
    module {
      func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>) -> tensor<?xf32> {
        %a = stablehlo.convert %arg0 : (tensor<2xf32>) -> tensor<?xf32>
        %b = stablehlo.convert %arg1 : (tensor<3xf32>) -> tensor<?xf32>
        %0 = func.call @id(%a) : (tensor<?xf32>) -> tensor<?xf32>
        %1 = func.call @id(%b) : (tensor<?xf32>) -> tensor<?xf32>
        return %1 : tensor<?xf32>
      }
      func.func @id(%x: tensor<?xf32>) -> tensor<?xf32> {
        return %x : tensor<?xf32>
      }
    }"""
    with pytest.raises(Diagnostic) as info:
        run(text, ["stablehlo-refine-shapes"])
    messages = [info.value.message] + [n.message for n in info.value.notes]
    assert any("refined with incompatible refinement keys" in m for m in messages)


@pytest.mark.parametrize(("types", "message"), [
    ("tensor<f32>", "number of refinements must match number of op operands 1 vs 2"),
    ("tensor<f32>,tensor<2xi32>", "refinement element types must match"),
    ("tensor<f32>,tensor<*xf32>", "refinement must be ranked"),
    ("tensor<f32>,!not.a_type", "Invalid type string: !not.a_type"),
])
def test_refine_arguments_rejects_bad_refinements(types: str, message: str) -> None:
    text = """
    func.func @main(%arg0: tensor<f32>, %arg1: tensor<?xf32>) -> tensor<f32> {
      return %arg0 : tensor<f32>
    }"""
    with pytest.raises(Diagnostic, match=message.replace("*", r"\*")):
        run(text, [("stablehlo-refine-arguments", f"types={types}")])


def test_most_specific_and_merge() -> None:
    a = TensorType((DYNAMIC, 3), F32)
    b = TensorType((2, DYNAMIC), F32)
    assert most_specific(a, b) == TensorType((2, 3), F32)
    assert most_specific(TensorType((2,), F32), TensorType((3,), F32)) is None
    assert merge_dims([[DYNAMIC, 3], [2, DYNAMIC], None]) == [2, 3]
    assert merge_dims([[1], [1, 2]]) is None


def test_no_function_is_left_alone() -> None:
    assert "module" in run("module {}", ["stablehlo-refine-shapes"])


# Ops with regions or several inputs: each result refined from its operands (upstream's
# type inference gives these too); `?` operand dimensions stay `?`.
REGION_OPS = """
func.func @main(%x: tensor<4x6xf32>, %y: tensor<?x6xf32>, %u: tensor<2x6xf32>, %i: tensor<i32>, %c: tensor<4x8xcomplex<f32>>) -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xcomplex<f32>>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = stablehlo.dynamic_update_slice %x, %u, %i, %i : (tensor<4x6xf32>, tensor<2x6xf32>, tensor<i32>, tensor<i32>) -> tensor<?x?xf32>
  %2 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %l = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %l : tensor<i1>
  }) {dimension = 1 : i64} : (tensor<4x6xf32>) -> tensor<?x?xf32>
  %3 = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>, padding = dense<[[0, 1], [2, 0]]> : tensor<2x2xi64>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<?x?xf32>
  %4 = stablehlo.fft %x, type = RFFT, length = [6] : (tensor<4x6xf32>) -> tensor<?x?xcomplex<f32>>
  %5 = stablehlo.fft %c, type = FFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<?x?xcomplex<f32>>
  %6 = stablehlo.fft %c, type = IRFFT, length = [14] : (tensor<4x8xcomplex<f32>>) -> tensor<?x?xf32>
  %7 = stablehlo.add %y, %y : (tensor<?x6xf32>, tensor<?x6xf32>) -> tensor<?x?xf32>
  %8 = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x6xf32>, tensor<f32>) -> tensor<?xf32>
  %r4 = stablehlo.real %4 : (tensor<?x?xcomplex<f32>>) -> tensor<?x?xf32>
  return %0, %1, %2, %3, %r4, %5, %6, %7, %8 : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xcomplex<f32>>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>
}
"""


def test_region_and_multi_input_ops_are_refined() -> None:
    text = run(REGION_OPS, ["stablehlo-refine-shapes"])
    main = text[text.index("-> ("):text.index(") {")]
    assert main == ("-> (tensor<4xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x3xf32>, "
                    "tensor<4x4xf32>, tensor<4x8xcomplex<f32>>, tensor<4x14xf32>, "
                    "tensor<?x6xf32>, tensor<?xf32>")
