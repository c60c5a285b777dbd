"""The upstream-ordered CHLO decompositions (complex asin family through the asin/acos
kernel, complex atanh/atan, mulhi, next_after, constant_like on dynamic and bounded
shapes) compute what direct CHLO evaluation computes, on random inputs; and the printed
form has upstream's shape (op order checked on small cases)."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes

RNG = np.random.default_rng(20261125)


def _legalized(text: str) -> str:
    module = parse_source(text, "<test>")
    run_passes(module, ["chlo-legalize-to-stablehlo"])
    verify_module(module)
    return print_module(module)


def _unary(op: str, t: str) -> str:
    return f"func.func @main(%a: {t}) -> {t} {{\n  %r = chlo.{op} %a : {t} -> {t}\n" \
           f"  return %r : {t}\n}}\n"


@pytest.mark.parametrize("element,dtype,rtol", [("f32", np.complex64, 2e-5),
                                                ("f64", np.complex128, 1e-12)])
@pytest.mark.parametrize("op", ["asin", "acos", "acosh", "asinh", "atanh", "atan", "square"])
def test_complex_decompositions_match_direct(op: str, element: str, dtype: type,
                                             rtol: float) -> None:
    n = 64
    # Magnitudes from tiny to huge, both signs, to cross every region of the formulas.
    scale = 10.0 ** RNG.uniform(-6, 6, (2, n))
    z = (scale[0] * RNG.choice([-1, 1], n) + 1j * scale[1] * RNG.choice([-1, 1], n)).astype(dtype)
    text = _unary(op, f"tensor<{n}xcomplex<{element}>>")
    printed = _legalized(text)
    assert "chlo." not in printed
    (direct,) = shlo_cli.interpret(text, z)
    (lowered,) = shlo_cli.interpret(printed, z)
    np.testing.assert_allclose(lowered, direct, rtol=rtol)


def test_asin_real_doubles_by_adding_and_keeps_its_type() -> None:
    printed = _legalized(_unary("asin", "tensor<bf16>"))
    assert "convert" not in printed  # upstream computes real asin in the operand's type
    lines = [line.split("=", 1)[1].split()[0] for line in printed.splitlines() if " = " in line]
    assert lines == ["stablehlo.constant", "stablehlo.subtract", "stablehlo.add",
                     "stablehlo.multiply", "stablehlo.sqrt", "stablehlo.add", "stablehlo.atan2",
                     "stablehlo.add"]


@pytest.mark.parametrize("element,dtype", [("i64", np.int64), ("ui64", np.uint64),
                                           ("i32", np.int32), ("ui16", np.uint16)])
def test_mulhi_matches_direct(element: str, dtype: type) -> None:
    info = np.iinfo(dtype)
    a, b = (RNG.integers(info.min, info.max, 32, dtype=dtype, endpoint=True) for _ in range(2))
    t = f"tensor<32x{element}>"
    text = (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n  %r = chlo.mulhi %a, %b : {t}, {t}"
            f" -> {t}\n  return %r : {t}\n}}\n")
    printed = _legalized(text)
    assert "chlo." not in printed
    np.testing.assert_array_equal(shlo_cli.interpret(printed, a, b)[0],
                                  shlo_cli.interpret(text, a, b)[0])


def test_dynamic_constants_use_shape_of() -> None:
    printed = _legalized(_unary("atanh", "tensor<?x3xf32>"))
    assert "shape.shape_of %arg0 : tensor<?x3xf32> -> tensor<2xindex>" in printed
    x = RNG.uniform(-1.5, 1.5, (4, 3)).astype(np.float32)
    got = shlo_cli.interpret(printed, x)[0]
    want = shlo_cli.interpret(_unary("atanh", "tensor<4x3xf32>"), x)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_bounded_constants_broadcast_to_the_bound_and_set_the_size() -> None:
    t = "tensor<?x4xf32, #stablehlo.bounds<8, ?>>"
    printed = _legalized(_unary("atanh", t))
    assert "stablehlo.set_dimension_size" in printed
    assert "-> tensor<8x4xf32>" in printed
    assert "tensor<?x4xi1, #stablehlo.bounds<8, ?>>" in printed


def test_complex_math_expander_keeps_ops_with_a_requested_accuracy() -> None:
    t = "tensor<complex<f32>>"
    accuracy = ("#stablehlo.result_accuracy<atol = 1.000000e-05, rtol = 0.000000e+00, "
                "ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>")
    text = (f'func.func @main(%a: {t}) -> {t} {{\n  %r = "stablehlo.log_plus_one"(%a) '
            f"{{result_accuracy = {accuracy}}} : ({t}) -> {t}\n  return %r : {t}\n}}\n")
    module = parse_source(text, "<test>")
    run_passes(module, ["stablehlo-complex-math-expander"])
    printed = print_module(module)
    assert "stablehlo.log_plus_one %arg0 {result_accuracy" in printed
    assert "stablehlo.real" not in printed
    plain = parse_source(text.replace(f" {{result_accuracy = {accuracy}}}", ""), "<test>")
    run_passes(plain, ["stablehlo-complex-math-expander"])
    assert "stablehlo.log_plus_one %arg0" not in print_module(plain)
