"""chlo-legalize-to-stablehlo and stablehlo-complex-math-expander rewrite without changing
results."""

from __future__ import annotations

import numpy as np

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes

PROGRAM = """func.func @main(%a: tensor<2xf32>, %b: tensor<3x2xf32>, %z: tensor<2xcomplex<f32>>)
    -> (tensor<3x2xf32>, tensor<3x2xi1>, tensor<2xf32>, tensor<2xf32>, tensor<2xcomplex<f32>>,
        tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) {
  %0 = chlo.broadcast_multiply %a, %b : (tensor<2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %1 = chlo.is_inf %0 : tensor<3x2xf32> -> tensor<3x2xi1>
  %2 = chlo.cosh %a : tensor<2xf32> -> tensor<2xf32>
  %3 = chlo.sinh %a : tensor<2xf32> -> tensor<2xf32>
  %4 = chlo.conj %z : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  %5 = stablehlo.log_plus_one %z : tensor<2xcomplex<f32>>
  %6 = stablehlo.exponential %z : tensor<2xcomplex<f32>>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x2xf32>, tensor<3x2xi1>, tensor<2xf32>,
    tensor<2xf32>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
}
"""


def _run(module_text: str, passes: list[str]) -> tuple[str, list[np.ndarray]]:
    module = parse_source(module_text)
    run_passes(module, passes)
    printed = print_module(module)
    reparsed = parse_source(printed)
    a = np.array([np.inf, 0.5], np.float32)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    z = np.array([1e-20 + 1e-20j, -0.5 + 2j], np.complex64)
    return printed, Interpreter(reparsed).call(reparsed.functions()[0], [a, b, z])


def test_rewrites_keep_results() -> None:
    _, direct = _run(PROGRAM, [])
    printed, lowered = _run(PROGRAM, ["chlo-legalize-to-stablehlo",
                                      "stablehlo-complex-math-expander"])
    assert "chlo." not in printed
    assert "stablehlo.broadcast_in_dim %arg0, dims = [1]" in printed
    # Index 5 (complex log1p) is more accurate after the expansion; compared separately.
    for index, (got, want) in enumerate(zip(lowered, direct, strict=True)):
        if index != 5:
            np.testing.assert_allclose(got, want, rtol=3e-7)


def test_complex_log_plus_one_is_accurate_near_zero() -> None:
    _, lowered = _run(PROGRAM, ["stablehlo-complex-math-expander"])
    log1p = lowered[5]
    assert log1p[0].real == np.float32(1e-20) and log1p[0].imag == np.float32(1e-20)


def test_math_functions_stay_chlo() -> None:
    text = ("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = chlo.lgamma %a : tensor<2xf32> -> tensor<2xf32>\n"
            "  return %0 : tensor<2xf32>\n}\n")
    module = parse_source(text)
    run_passes(module, ["chlo-pre-serialization-pipeline"])
    assert "chlo.lgamma %arg0 : tensor<2xf32> -> tensor<2xf32>" in print_module(module)
