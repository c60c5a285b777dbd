"""chlo-legalize-to-stablehlo and stablehlo-complex-math-expander rewrite without changing
results."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes, take_emitted

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


def test_complex_atan_is_legalized_by_the_pipeline() -> None:
    t = "tensor<2xcomplex<f32>>"
    text = (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %0 = chlo.atan %a : {t} -> {t}\n  return %0 : {t}\n}}\n")
    module = parse_source(text)
    run_passes(module, ["chlo-pre-serialization-pipeline"])
    assert "chlo." not in print_module(module)


def _run_both(text: str, *args: np.ndarray) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    direct_module = parse_source(text)
    direct = Interpreter(direct_module).call(direct_module.functions()[0], list(args))
    module = parse_source(text)
    run_passes(module, ["chlo-legalize-to-stablehlo"])
    printed = print_module(module)
    reparsed = parse_source(printed)
    return printed, direct, Interpreter(reparsed).call(reparsed.functions()[0], list(args))


def test_top_k_becomes_sort_and_slices() -> None:
    t, v, i = "tensor<2x4xf32>", "tensor<2x3xf32>", "tensor<2x3xi32>"
    text = (f"func.func @main(%a: {t}) -> ({v}, {i}) {{\n"
            f"  %v, %i = chlo.top_k(%a, k = 3) : {t} -> ({v}, {i})\n"
            f"  return %v, %i : {v}, {i}\n}}\n")
    a = np.array([[1.0, np.nan, -0.0, 0.0], [2.0, 2.0, -np.inf, 5.0]], np.float32)
    printed, direct, lowered = _run_both(text, a)
    assert "stablehlo.sort" in printed and "TOTALORDER" in printed and "chlo." not in printed
    assert lowered[1].tolist() == direct[1].tolist() == [[1, 0, 3], [3, 0, 1]]
    np.testing.assert_array_equal(lowered[0], direct[0])


def test_complex_square_lowering_matches_direct_evaluation() -> None:
    t = "tensor<3xcomplex<f64>>"
    text = (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %0 = chlo.square %a : {t} -> {t}\n  return %0 : {t}\n}}\n")
    big = np.finfo(np.float64).max
    z = np.array([complex(-big, -big), complex(3, 4), complex(np.inf, np.inf)], np.complex128)
    printed, direct, lowered = _run_both(text, z)
    assert "chlo." not in printed
    np.testing.assert_array_equal(lowered[0], direct[0])


def test_real_inverse_functions_lower_to_formulas_close_to_direct() -> None:
    t = "tensor<6xf32>"
    ops = ["acos", "asin", "atan", "atanh", "acosh", "asinh"]
    body = "".join(f"  %{i} = chlo.{op} %a : {t} -> {t}\n" for i, op in enumerate(ops))
    results = ", ".join(f"%{i}" for i in range(len(ops)))
    text = (f"func.func @main(%a: {t}) -> ({', '.join([t] * len(ops))}) {{\n{body}"
            f"  return {results} : {', '.join([t] * len(ops))}\n}}\n")
    a = np.array([-1.0, -0.5, 1e-20, 0.75, 1.0, 3.0e30], np.float32)
    printed, direct, lowered = _run_both(text, a)
    assert "chlo." not in printed
    assert lowered[0][0] == np.float32(np.pi)  # acos(-1), where 2 atan2(0, 0) would be 0
    for got, want in zip(lowered, direct, strict=True):
        np.testing.assert_allclose(got, want, rtol=4e-7)


def test_f16_sinh_runs_in_f32() -> None:
    """Upstream upcasts sinh (not acosh: its pattern stays in f16)."""
    t = "tensor<2xf16>"
    text = (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %0 = chlo.sinh %a : {t} -> {t}\n  return %0 : {t}\n}}\n")
    printed, direct, lowered = _run_both(text, np.array([1.5, 3.0], np.float16))
    assert "stablehlo.convert %arg0 : (tensor<2xf16>) -> tensor<2xf32>" in printed
    np.testing.assert_array_equal(lowered[0], direct[0])


def test_lanczos_lgamma_and_digamma_lowerings() -> None:
    t = "tensor<8xf64>"
    text = (f"func.func @main(%a: {t}) -> ({t}, {t}) {{\n"
            f"  %0 = chlo.lgamma %a : {t} -> {t}\n  %1 = chlo.digamma %a : {t} -> {t}\n"
            f"  return %0, %1 : {t}, {t}\n}}\n")
    a = np.array([-2.5, 0.25, 1.5, 10.0, 100.0, -3.0, np.inf, 0.0])
    printed, direct, lowered = _run_both(text, a)
    assert "chlo." not in printed
    np.testing.assert_allclose(lowered[0], direct[0], rtol=1e-12)
    np.testing.assert_allclose(lowered[1][:5], direct[1][:5], rtol=1e-10)
    assert np.isnan(lowered[1][5]) and lowered[0][5] == np.inf and lowered[0][6] == np.inf
    assert np.isnan(lowered[1][7]) and np.isnan(direct[1][7])  # 0 is a pole, as upstream


def test_error_function_polynomials_match_direct_evaluation() -> None:
    for element, tolerance in (("f32", 3e-6), ("f64", 1e-13)):
        t = f"tensor<8x{element}>"
        text = (f"func.func @main(%a: {t}, %y: {t}) -> ({t}, {t}, {t}) {{\n"
                f"  %0 = chlo.erf %a : {t} -> {t}\n  %1 = chlo.erfc %a : {t} -> {t}\n"
                f"  %2 = chlo.erf_inv %y : {t} -> {t}\n"
                f"  return %0, %1, %2 : {t}, {t}, {t}\n}}\n")
        dtype = np.float32 if element == "f32" else np.float64
        a = np.array([-9.0, -2.5, -0.5, 0.0, 0.3, 1.5, 3.0, 10.0], dtype)
        y = np.array([-1.0, -0.999, -0.5, 0.0, 1e-8, 0.7, 0.99999, 1.0], dtype)
        printed, direct, lowered = _run_both(text, a, y)
        assert "chlo." not in printed
        for got, want in zip(lowered, direct, strict=True):
            np.testing.assert_allclose(got, want, rtol=tolerance, atol=1e-30)


def test_bessel_i1e_chebyshev_series_match_direct_evaluation() -> None:
    for element, tolerance in (("f32", 2e-6), ("f64", 1e-13)):
        t = f"tensor<6x{element}>"
        text = (f"func.func @main(%a: {t}) -> {t} {{\n"
                f"  %0 = chlo.bessel_i1e %a : {t} -> {t}\n  return %0 : {t}\n}}\n")
        dtype = np.float32 if element == "f32" else np.float64
        a = np.array([-20.0, -1.0, 0.0, 0.5, 8.0, 100.0], dtype)
        printed, direct, lowered = _run_both(text, a)
        assert "chlo." not in printed
        np.testing.assert_allclose(lowered[0], direct[0], rtol=tolerance)


def test_next_after_zeta_polygamma_lowerings() -> None:
    t = "tensor<6xf32>"
    text = (f"func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}, {t}) {{\n"
            f"  %0 = chlo.next_after %a, %b : {t}, {t} -> {t}\n"
            f"  %1 = chlo.zeta %a, %b : {t}, {t} -> {t}\n"
            f"  %2 = chlo.polygamma %a, %b : {t}, {t} -> {t}\n"
            f"  return %0, %1, %2 : {t}, {t}, {t}\n}}\n")
    a = np.array([2.0, 3.0, 0.0, -0.0, 1.0, np.nan], np.float32)
    b = np.array([1.5, 4.0, -1.0, 0.0, 2.0, 1.0], np.float32)
    printed, direct, lowered = _run_both(text, a, b)
    assert "chlo." not in printed
    np.testing.assert_array_equal(lowered[0], direct[0])
    np.testing.assert_allclose(lowered[1][:2], direct[1][:2], rtol=2e-6)
    np.testing.assert_allclose(lowered[2][:2], direct[2][:2], rtol=2e-5)
    assert lowered[1][4] == np.inf and np.isnan(lowered[2][5])


def test_complex_inverse_functions_follow_hull_et_al() -> None:
    t = "tensor<6xcomplex<f64>>"
    ops = ["asin", "acos", "acosh", "asinh"]
    body = "".join(f"  %{i} = chlo.{op} %a : {t} -> {t}\n" for i, op in enumerate(ops))
    text = (f"func.func @main(%a: {t}) -> ({', '.join([t] * 4)}) {{\n{body}"
            f"  return %0, %1, %2, %3 : {', '.join([t] * 4)}\n}}\n")
    big = np.finfo(np.float64).max
    z = np.array([0.5 + 0.5j, -2.0 - 1e-300j, 1e-20 + 3.0j, -big + big * 1j, 1.0 + 0.0j,
                  0.3 - 1e10j])
    printed, direct, lowered = _run_both(text, z)
    assert "chlo." not in printed
    for got, want in zip(lowered, direct, strict=True):
        np.testing.assert_allclose(got.real, want.real, rtol=1e-14, atol=1e-300)
        np.testing.assert_allclose(got.imag, want.imag, rtol=1e-14, atol=1e-300)


def test_scan_becomes_a_while_loop() -> None:
    text = ("func.func @main(%a: tensor<2x3xf32>, %c: tensor<2xf32>)"
            " -> (tensor<2x3xf32>, tensor<2xf32>) {\n"
            "  %0:2 = chlo.scan(%a) inits(%c) dimension=1 attributes {is_reverse = true} {\n"
            "  ^bb0(%x: tensor<2xf32>, %s: tensor<2xf32>):\n"
            "    %1 = stablehlo.multiply %x, %s : tensor<2xf32>\n"
            "    stablehlo.return %1, %1 : tensor<2xf32>, tensor<2xf32>\n"
            "  } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)\n"
            "  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2xf32>\n}\n")
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    c = np.array([1.0, 2.0], np.float32)
    printed, direct, lowered = _run_both(text, a, c)
    assert "stablehlo.while" in printed and "chlo." not in printed
    for got, want in zip(lowered, direct, strict=True):
        np.testing.assert_array_equal(got, want)
    assert lowered[0].tolist() == [[6.0, 6.0, 3.0], [240.0, 60.0, 12.0]]


def test_ragged_dot_modes_lower_to_masked_dot_generals() -> None:
    def text(dn: str, lhs: str, rhs: str, result: str) -> str:
        return (f"func.func @main(%l: {lhs}, %r: {rhs}, %g: tensor<2xi64>) -> {result} {{\n"
                f"  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {{ragged_dot_dimension_numbers ="
                f" #chlo.ragged_dot<{dn}>}} : ({lhs}, {rhs}, tensor<2xi64>) -> {result}\n"
                f"  return %0 : {result}\n}}\n")

    rng = np.random.default_rng(0)
    lhs = rng.standard_normal((4, 3)).astype(np.float32)
    groups = np.array([1, 2], np.int64)
    mode1 = text("lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],"
                 " lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]",
                 "tensor<4x3xf32>", "tensor<2x3x5xf32>", "tensor<4x5xf32>")
    rhs1 = rng.standard_normal((2, 3, 5)).astype(np.float32)
    mode2 = text("lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],"
                 " lhs_ragged_dimensions = [1]",
                 "tensor<4x3xf32>", "tensor<3x5xf32>", "tensor<2x4x5xf32>")
    rhs2 = rng.standard_normal((3, 5)).astype(np.float32)
    for program, rhs in ((mode1, rhs1), (mode2, rhs2)):
        printed, direct, lowered = _run_both(program, lhs, rhs, groups)
        assert "stablehlo.dot_general" in printed and "chlo." not in printed
        np.testing.assert_allclose(lowered[0], direct[0], rtol=1e-5, atol=1e-6)


def test_mulhi_lowering_matches_direct_evaluation() -> None:
    rng = np.random.default_rng(1)
    for name, dtype in (("i8", np.int8), ("ui16", np.uint16), ("i32", np.int32),
                        ("ui64", np.uint64), ("i64", np.int64)):
        t = f"tensor<16x{name}>"
        text = (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
                f"  %0 = chlo.mulhi %a, %b : {t}, {t} -> {t}\n  return %0 : {t}\n}}\n")
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, 16, dtype=dtype, endpoint=True)
        b = rng.integers(info.min, info.max, 16, dtype=dtype, endpoint=True)
        printed, direct, lowered = _run_both(text, a, b)
        assert "chlo." not in printed
        np.testing.assert_array_equal(lowered[0], direct[0])


def _broadcast_add(dims: str) -> str:
    return f"""func.func @main(%a: tensor<1x4xf32>, %b: tensor<4xf32>) -> tensor<1x4xf32> {{
  %0 = chlo.broadcast_add %a, %b {{broadcast_dimensions = array<i64: {dims}>}}
      : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}}
"""


def test_non_prefix_padded_broadcast_dimensions_warn_then_fail() -> None:
    take_emitted()
    module = parse_source(_broadcast_add("0"))
    with pytest.raises(Diagnostic, match="failed to legalize operation 'chlo.broadcast_add'"):
        run_passes(module, ["chlo-legalize-to-stablehlo"])
    warnings = take_emitted()
    assert [w.severity for w in warnings] == ["warning"]
    assert "unsupported non prefix-padded dynamic rank broadcast_dimensions" in \
        warnings[0].message


def test_prefix_padded_broadcast_dimensions_lower() -> None:
    take_emitted()
    module = parse_source(_broadcast_add("1"))
    run_passes(module, ["chlo-legalize-to-stablehlo"])
    assert take_emitted() == []
    assert "chlo." not in print_module(module)


def test_bounded_dynamic_same_shape_needs_no_broadcast() -> None:
    t = "tensor<?xf64, #stablehlo.bounds<10>>"
    module = parse_source(f"""func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %0 = chlo.broadcast_add %a, %b : ({t}, {t}) -> {t}
  return %0 : {t}
}}
""")
    run_passes(module, ["chlo-legalize-to-stablehlo"])
    printed = print_module(module)
    assert "stablehlo.add %arg0, %arg1" in printed
    assert "broadcast" not in printed
