"""stablehlo-compatibility-expander: each expansion happens only below its version and keeps
the program's results."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli import interpret
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes

GATHER = """func.func @main(%arg0: tensor<3x2x4x7x9xi32>, %arg1: tensor<4x3x5x2xi32>)
    -> tensor<4x3x5x8xi32> {
  %0 = "stablehlo.gather"(%arg0, %arg1) {
    dimension_numbers = #stablehlo.gather<offset_dims = [3], collapsed_slice_dims = [1, 3],
      operand_batching_dims = [0, 2], start_indices_batching_dims = [1, 0],
      start_index_map = [1, 3], index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 1, 1, 8>, indices_are_sorted = false
  } : (tensor<3x2x4x7x9xi32>, tensor<4x3x5x2xi32>) -> tensor<4x3x5x8xi32>
  func.return %0 : tensor<4x3x5x8xi32>
}
"""

SCATTER = """func.func @main(%arg0: tensor<3x2x4x9xi32>, %arg1: tensor<4x3x5xui8>,
    %arg2: tensor<4x3x5x8xi32>) -> tensor<3x2x4x9xi32> {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = false,
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3],
      inserted_window_dims = [1], input_batching_dims = [0, 2],
      scatter_indices_batching_dims = [1, 0], scatter_dims_to_operand_dims = [1],
      index_vector_dim = 3>, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<3x2x4x9xi32>, tensor<4x3x5xui8>, tensor<4x3x5x8xi32>) -> tensor<3x2x4x9xi32>
  func.return %0 : tensor<3x2x4x9xi32>
}
"""

TAN = """func.func @main(%x: tensor<3xf64>, %z: tensor<3xcomplex<f64>>)
    -> (tensor<3xf64>, tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>) {
  %0 = stablehlo.tan %x : tensor<3xf64>
  %1 = stablehlo.tan %z : tensor<3xcomplex<f64>>
  %2 = stablehlo.tan %z : tensor<3xcomplex<f64>>
  func.return %0, %1, %2 : tensor<3xf64>, tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>
}
"""


def _expand(text: str, target: str) -> str:
    module = parse_source(text)
    run_passes(module, [("stablehlo-compatibility-expander", f"target={target}")])
    return print_module(module)


def test_gather_batching_dims_expand_before_1_1_and_keep_results() -> None:
    rng = np.random.default_rng(0)
    operand = rng.integers(-100, 100, (3, 2, 4, 7, 9)).astype(np.int32)
    indices = np.stack([rng.integers(0, 2, (4, 3, 5)), rng.integers(0, 2, (4, 3, 5))],
                       axis=-1).astype(np.int32)
    expanded = _expand(GATHER, "1.0.0")
    assert "operand_batching_dims" not in expanded
    assert expanded.count("stablehlo.iota") == 2
    assert "collapsed_slice_dims = [0, 1, 2, 3]" in expanded
    assert "start_index_map = [0, 2, 1, 3]" in expanded
    np.testing.assert_array_equal(interpret(expanded, operand, indices)[0],
                                  interpret(GATHER, operand, indices)[0])
    assert "operand_batching_dims = [0, 2]" in _expand(GATHER, "1.1.0")


def test_scatter_with_unsigned_trailing_indices_is_converted_and_reshaped() -> None:
    rng = np.random.default_rng(1)
    operand = rng.integers(-9, 9, (3, 2, 4, 9)).astype(np.int32)
    indices = rng.integers(0, 2, (4, 3, 5)).astype(np.uint8)
    updates = rng.integers(-9, 9, (4, 3, 5, 8)).astype(np.int32)
    expanded = _expand(SCATTER, "1.0.0")
    assert "input_batching_dims" not in expanded
    assert "stablehlo.reshape" in expanded
    np.testing.assert_array_equal(interpret(expanded, operand, indices, updates)[0],
                                  interpret(SCATTER, operand, indices, updates)[0])


def test_tan_expands_before_1_4_with_one_hoisted_constant() -> None:
    x = np.array([0.1, -1.2, 2.0])
    z = np.array([0.5 + 0.25j, -1 + 2j, 3 - 0.5j])
    expanded = _expand(TAN, "1.3.0")
    assert "stablehlo.tan " not in expanded
    body = expanded.splitlines()
    assert "stablehlo.constant dense<1.000000e+00> : tensor<3xf64>" in body[2]
    assert expanded.count("stablehlo.constant") == 1
    for got, want in zip(interpret(expanded, x, z), interpret(TAN, x, z), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert "stablehlo.tan " in _expand(TAN, "1.4.0")


def test_tan_with_non_default_accuracy_is_kept() -> None:
    text = ("func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
            "  %0 = stablehlo.tan %x {result_accuracy = #stablehlo.result_accuracy<"
            "atol = 1.0e-5, rtol = 0.0, ulps = 1, mode = #stablehlo.result_accuracy_mode"
            "<TOLERANCE>>} : tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n")
    assert "stablehlo.tan" in _expand(text, "1.0.0")


@pytest.mark.parametrize("target, words", [("", "No target version specified"),
                                           ("1.0", "Invalid target version argument"),
                                           ("0.1.0", "less than minimum supported")])
def test_bad_target_is_a_diagnostic(target: str, words: str) -> None:
    with pytest.raises(Diagnostic, match=words):
        _expand("func.func @main() { return }", target)


def test_runs_under_the_greedy_driver_even_with_nothing_to_expand() -> None:
    """Upstream's pass always drives its patterns greedily: equal constants are uniqued and
    hoisted, dead pure ops erased, whatever the target."""
    text = ("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.abs %x : tensor<2xf32>\n"
            "  %1 = stablehlo.constant dense<2.0> : tensor<2xf32>\n"
            "  %2 = stablehlo.multiply %x, %1 : tensor<2xf32>\n"
            "  %3 = stablehlo.constant dense<2.0> : tensor<2xf32>\n"
            "  %4 = stablehlo.add %2, %3 : tensor<2xf32>\n"
            "  return %4 : tensor<2xf32>\n}\n")
    lines = _expand(text, "1.20.0").splitlines()
    assert lines[2].strip() == "%cst = stablehlo.constant dense<2.000000e+00> : tensor<2xf32>"
    assert lines[3].strip() == "%0 = stablehlo.multiply %arg0, %cst : tensor<2xf32>"
    assert lines[4].strip() == "%1 = stablehlo.add %0, %cst : tensor<2xf32>"
