"""jaxlib's pre-FFI LAPACK calls: scalar operands first, workspaces as extra results."""

# ruff: noqa: E501  (MLIR test programs keep their lines whole)

from __future__ import annotations

import numpy as np

import shlo_cli

GETRF = """
func.func @main(%a: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<i32>) {
  %b = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %0:3 = stablehlo.custom_call @lapack_dgetrf(%b, %n, %n, %a) {api_version = 2 : i32} : (tensor<i64>, tensor<i32>, tensor<i32>, tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<3x3xf64>, tensor<3xi32>, tensor<i32>
}
"""

SYEVD_TUPLE = """
func.func @main(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %0 = stablehlo.custom_call @lapack_ssyevd(%one, %one, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x3xf32>) -> tuple<tensor<3x3xf32>, tensor<3xf32>, tensor<i32>, tensor<10xf32>, tensor<4xi32>>
  %w = stablehlo.get_tuple_element %0[1] : (tuple<tensor<3x3xf32>, tensor<3xf32>, tensor<i32>, tensor<10xf32>, tensor<4xi32>>) -> tensor<3xf32>
  return %w : tensor<3xf32>
}
"""


def test_legacy_getrf_pivots_and_factors() -> None:
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
    lu, piv, info = shlo_cli.interpret(GETRF, a)
    assert int(info) == 0 and piv[0] == 3  # largest |a[:, 0]| is row 3 (1-based)
    lower, upper = np.tril(lu, -1) + np.eye(3), np.triu(lu)
    perm = np.arange(3)
    for i, p in enumerate(piv):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    np.testing.assert_allclose(lower @ upper, a[perm], atol=1e-12)


def test_legacy_tuple_result() -> None:
    a = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 5.0]], np.float32)
    [w] = shlo_cli.interpret(SYEVD_TUPLE, a)
    np.testing.assert_allclose(w, [1.0, 3.0, 5.0], atol=1e-5)
