"""cholesky and triangular_solve: syntax round trip and results checked against numpy."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def _spd(n: int, batch: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def test_cholesky_syntax_round_trip() -> None:
    text = """func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
  %1 = stablehlo.cholesky %0 : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}"""
    printed = print_module(parse_source(text))
    assert "stablehlo.cholesky %arg0, lower = true : tensor<2x2xf32>" in printed
    assert "stablehlo.cholesky %0 : tensor<2x2xf32>" in printed
    assert print_module(parse_source(printed)) == printed


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_batched_factors(lower: bool) -> None:
    a = _spd(4, 3, seed=1)
    text = f"""func.func @main(%a: tensor<3x4x4xf64>) -> tensor<3x4x4xf64> {{
  %0 = stablehlo.cholesky %a, lower = {str(lower).lower()} : tensor<3x4x4xf64>
  return %0 : tensor<3x4x4xf64>
}}"""
    (result,) = _run(text, a)
    expected = np.linalg.cholesky(a)
    if not lower:
        expected = np.swapaxes(expected, -1, -2)
    np.testing.assert_allclose(result, expected, rtol=1e-12)


def test_cholesky_not_positive_definite_is_nan() -> None:
    text = """func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}"""
    (result,) = _run(text, np.array([[1.0, 2.0], [2.0, 1.0]], np.float32))
    assert np.isnan(result).all()


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose", ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])
@pytest.mark.parametrize("unit", [True, False])
def test_triangular_solve_matches_numpy(left_side: bool, lower: bool, transpose: str,
                                        unit: bool) -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3)) + 4 * np.eye(3)
    b_shape = (2, 3, 2) if left_side else (2, 2, 3)
    b = rng.standard_normal(b_shape) + 1j * rng.standard_normal(b_shape)
    tri = np.tril(a) if lower else np.triu(a)
    if unit:
        tri = tri - np.eye(3) * np.diagonal(tri, axis1=-2, axis2=-1)[..., None, :] + np.eye(3)
    op_a = {"NO_TRANSPOSE": tri, "TRANSPOSE": np.swapaxes(tri, -1, -2),
            "ADJOINT": np.conj(np.swapaxes(tri, -1, -2))}[transpose]
    expected = (np.linalg.solve(op_a, b) if left_side
                else np.swapaxes(np.linalg.solve(np.swapaxes(op_a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2))
    bt = "x".join(map(str, b_shape))
    text = f"""func.func @main(%a: tensor<2x3x3xcomplex<f64>>, %b: tensor<{bt}xcomplex<f64>>) -> tensor<{bt}xcomplex<f64>> {{
  %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = {str(left_side).lower()}, lower = {str(lower).lower()}, unit_diagonal = {str(unit).lower()}, transpose_a = #stablehlo<transpose {transpose}>}} : (tensor<2x3x3xcomplex<f64>>, tensor<{bt}xcomplex<f64>>) -> tensor<{bt}xcomplex<f64>>
  return %0 : tensor<{bt}xcomplex<f64>>
}}"""
    (result,) = _run(text, a, b)
    np.testing.assert_allclose(result, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("body", "message"), [
    ('%0 = stablehlo.cholesky %a : tensor<2x3xf32>',
     "minor dimensions of 'a' must have equal size, got shape 2, 3."),
    ('%0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>',
     "two minor dimensions of operand 'a' must be compatible, but got 'tensor<2x3xf32>'"),
    ('%0 = "stablehlo.triangular_solve"(%b, %a) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE_INVALID>} : (tensor<3x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
     "shared dimension of operands 'a' and 'b' must be compatible"),
])
def test_linalg_verifier_messages(body: str, message: str) -> None:
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    text = f"""func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {{
  {body}
  return
}}"""
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text))
    rendered = info.value.render()
    assert message in rendered
    assert "failed to infer returned types" in rendered
