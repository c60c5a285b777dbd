"""Elementwise evaluators follow the spec / upstream interpreter element by element."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import shlo_cli
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def run(body: str, args: list[np.ndarray], arg_types: list[str], result_type: str) -> np.ndarray:
    """Run `%r = <body>` in a function of `args` (named %a, %b, ...) and return %r."""
    names = "abcdefgh"
    params = ", ".join(f"%{names[i]}: {t}" for i, t in enumerate(arg_types))
    text = (f"func.func @main({params}) -> {result_type} {{\n  %r = {body}\n"
            f"  func.return %r : {result_type}\n}}\n")
    module = parse_source(text)
    return Interpreter(module).call(module.functions()[0], args)[0]


def binary(op: str, lhs: list, rhs: list, mlir_type: str, dtype: object) -> np.ndarray:
    t = f"tensor<{len(lhs)}x{mlir_type}>"
    return run(f"stablehlo.{op} %a, %b : {t}",
               [np.array(lhs, dtype), np.array(rhs, dtype)], [t, t], t)


def unary(op: str, values: list, mlir_type: str, dtype: object,
          result: str | None = None) -> np.ndarray:
    t = f"tensor<{len(values)}x{mlir_type}>"
    types = f"({t}) -> {result}" if result else t
    return run(f"stablehlo.{op} %a : {types}", [np.array(values, dtype)], [t], result or t)


# ---- integers ----------------------------------------------------------------------------


def test_integer_division_truncates_and_handles_edge_cases() -> None:
    q = binary("divide", [7, -7, 7, -7, -128, 5], [2, 2, -2, -2, -1, 0], "i8", np.int8)
    assert q.tolist() == [3, -3, -3, 3, -128, -1]
    r = binary("remainder", [7, -7, 7, -7, -128, 5], [2, 2, -2, -2, -1, 0], "i8", np.int8)
    assert r.tolist() == [1, -1, 1, -1, 0, 5]
    assert binary("divide", [7, 9], [0, 2], "ui8", np.uint8).tolist() == [255, 4]


def test_integer_ops_wrap_at_width() -> None:
    assert binary("add", [7, -8], [1, -1], "i4", ml_dtypes.int4).astype(int).tolist() == [-8, 7]
    assert binary("multiply", [100], [3], "i8", np.int8).tolist() == [44]
    assert unary("negate", [-128, 5], "i8", np.int8).tolist() == [-128, -5]
    assert unary("abs", [-128, -5], "i8", np.int8).tolist() == [-128, 5]


def test_shifts_by_width_or_more() -> None:
    lhs, rhs = [-16, -16, 1, 3], [2, 8, 7, -1]
    assert binary("shift_left", lhs, rhs, "i8", np.int8).tolist() == [-64, 0, -128, 0]
    assert binary("shift_right_logical", lhs, rhs, "i8", np.int8).tolist() == [60, 0, 0, 0]
    assert binary("shift_right_arithmetic", lhs, rhs, "i8", np.int8).tolist() == [-4, -1, 0, 0]


def test_integer_power() -> None:
    got = binary("power", [2, -1, -1, 2, 3, 1], [10, -3, -4, -1, 5, -7], "i32", np.int32)
    assert got.tolist() == [1024, -1, 1, 0, 243, 1]
    assert binary("power", [3], [5], "i4", ml_dtypes.int4).astype(int).tolist() == [3]  # 243 wraps


def test_bit_counting() -> None:
    assert unary("popcnt", [-1, 0, 5], "i8", np.int8).tolist() == [8, 0, 2]
    assert unary("count_leading_zeros", [-1, 0, 1, 64], "i8", np.int8).tolist() == [0, 8, 7, 1]
    clz64 = unary("count_leading_zeros", [1, 2**40], "i64", np.int64)
    assert clz64.tolist() == [63, 23]


def test_boolean_arithmetic() -> None:
    t = np.array([True, True, False, False])
    f = np.array([True, False, True, False])
    args = [t, f]
    types = ["tensor<4xi1>"] * 2
    assert run("stablehlo.add %a, %b : tensor<4xi1>", args, types,
               "tensor<4xi1>").tolist() == [True, True, True, False]
    assert run("stablehlo.multiply %a, %b : tensor<4xi1>", args, types,
               "tensor<4xi1>").tolist() == [True, False, False, False]


# ---- floats --------------------------------------------------------------------------------


def test_maximum_minimum_propagate_nan_and_order_zeros() -> None:
    nan = float("nan")
    mx = binary("maximum", [nan, 1.0, -0.0, 0.0], [1.0, nan, 0.0, -0.0], "f32", np.float32)
    assert np.isnan(mx[:2]).all() and not np.signbit(mx[2:]).any()
    mn = binary("minimum", [-0.0, 0.0], [0.0, -0.0], "f32", np.float32)
    assert np.signbit(mn).all()


def test_remainder_has_sign_of_dividend() -> None:
    got = binary("remainder", [5.5, -5.5, 5.5], [2.0, 2.0, -2.0], "f64", np.float64)
    assert got.tolist() == [math.fmod(5.5, 2.0), math.fmod(-5.5, 2.0), math.fmod(5.5, -2.0)]


def test_rounding_modes() -> None:
    values = [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997]
    afz = unary("round_nearest_afz", values, "f32", np.float32)
    assert afz.tolist() == [1.0, 2.0, 3.0, -1.0, -3.0, 0.0]
    even = unary("round_nearest_even", values, "f32", np.float32)
    assert even.tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 0.0]
    assert np.signbit(even[3])


def test_sign_keeps_zeros_and_nan() -> None:
    got = unary("sign", [-3.0, -0.0, 0.0, 2.0, float("nan")], "f32", np.float32)
    assert got[[0, 3]].tolist() == [-1.0, 1.0]
    assert np.signbit(got[1]) and not np.signbit(got[2]) and np.isnan(got[4])


def test_bf16_arithmetic_rounds_once() -> None:
    one = ml_dtypes.bfloat16(1.0)
    tiny = ml_dtypes.bfloat16(2.0 ** -8)
    got = binary("add", [one], [tiny], "bf16", ml_dtypes.bfloat16)
    assert float(got[0]) == 1.0  # tie rounds to even
    got = binary("add", [one], [ml_dtypes.bfloat16(2.0 ** -8 + 2.0 ** -12)], "bf16",
                 ml_dtypes.bfloat16)
    assert float(got[0]) == 1.0 + 2.0 ** -7


def test_transcendentals_are_computed_in_double() -> None:
    x = np.array([0.1, 1.0, 2.5], np.float32)
    got = unary("exponential", x.tolist(), "f32", np.float32)
    assert got.tolist() == np.exp(x.astype(np.float64)).astype(np.float32).tolist()
    got = unary("logistic", [0.0, 1.0], "f64", np.float64)
    assert got.tolist() == [0.5, 1.0 / (1.0 + math.exp(-1.0))]


def test_compare_float_and_total_order() -> None:
    nan = float("nan")
    t = "tensor<3xf32>"
    args = [np.array([nan, -0.0, 1.0], np.float32), np.array([nan, 0.0, 2.0], np.float32)]
    ieee = run(f"stablehlo.compare EQ, %a, %b, FLOAT : ({t}, {t}) -> tensor<3xi1>",
               args, [t, t], "tensor<3xi1>")
    assert ieee.tolist() == [False, True, False]
    total = run(f"stablehlo.compare LT, %a, %b, TOTALORDER : ({t}, {t}) -> tensor<3xi1>",
                args, [t, t], "tensor<3xi1>")
    assert total.tolist() == [False, True, True]


def test_compare_unsigned_and_complex() -> None:
    t = "tensor<2xui8>"
    got = run(f"stablehlo.compare GT, %a, %b, UNSIGNED : ({t}, {t}) -> tensor<2xi1>",
              [np.array([255, 1], np.uint8), np.array([1, 2], np.uint8)], [t, t], "tensor<2xi1>")
    assert got.tolist() == [True, False]
    c = "tensor<3xcomplex<f32>>"
    got = run(f"stablehlo.compare LT, %a, %b : ({c}, {c}) -> tensor<3xi1>",
              [np.array([1 + 1j, 1 + 1j, 2 + 0j], np.complex64),
               np.array([1 + 2j, 2 + 0j, 1 + 5j], np.complex64)], [c, c], "tensor<3xi1>")
    assert got.tolist() == [True, True, False]


# ---- conversions ---------------------------------------------------------------------------


def test_float_to_int_truncates_and_saturates() -> None:
    values = [1.9, -1.9, 300.0, -300.0, float("nan"), float("inf")]
    got = unary("convert", values, "f32", np.float32, "tensor<6xi8>")
    assert got.tolist() == [1, -1, 127, -128, 0, 127]
    got = unary("convert", [-1.5, 300.0], "f32", np.float32, "tensor<2xui8>")
    assert got.tolist() == [0, 255]


def test_integer_and_complex_conversions() -> None:
    assert unary("convert", [-1], "i8", np.int8, "tensor<1xui16>").tolist() == [65535]
    assert unary("convert", [2, 0], "i32", np.int32, "tensor<2xi1>").tolist() == [True, False]
    got = unary("convert", [1.5 + 2j], "complex<f64>", np.complex128, "tensor<1xf32>")
    assert got.tolist() == [1.5]


def test_f64_to_bf16_rounds_correctly() -> None:
    x = 1.0 + 2.0 ** -8 + 2.0 ** -30  # just above a tie: must round up, not to even
    got = unary("convert", [x], "f64", np.float64, "tensor<1xbf16>")
    assert float(got[0]) == 1.0 + 2.0 ** -7


def test_bitcast_convert_between_widths() -> None:
    got = run("stablehlo.bitcast_convert %a : (tensor<f32>) -> tensor<4xi8>",
              [np.array(1.0, np.float32)], ["tensor<f32>"], "tensor<4xi8>")
    assert got.tolist() == [0, 0, -128, 63]
    back = run("stablehlo.bitcast_convert %a : (tensor<2xi4>) -> tensor<i8>",
               [np.array([1, -1], ml_dtypes.int4)], ["tensor<2xi4>"], "tensor<i8>")
    assert int(back) == -15  # 0xF1: first element in the low bits


def test_reduce_precision_matches_f16_rounding() -> None:
    x = np.array([1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 70000.0, 1e-9, float("nan")],
                 np.float32)
    t = "tensor<5xf32>"
    got = run(f"stablehlo.reduce_precision %a, format = e5m10 : {t}", [x], [t], t)
    with np.errstate(over="ignore"):
        expected = x[:3].astype(np.float16).astype(np.float32)
    assert got[:3].tolist() == expected.tolist()
    assert got[3] == 0.0 and np.isnan(got[4])


# ---- constants, map, tuples ------------------------------------------------------------------


def test_iota_along_a_dimension() -> None:
    got = run("stablehlo.iota dim = 1 : tensor<2x3xf32>", [], [], "tensor<2x3xf32>")
    assert got.tolist() == [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]


@pytest.mark.parametrize("body_op", ["stablehlo.multiply %x, %y : tensor<i32>",
                                     "stablehlo.reshape %x : (tensor<i32>) -> tensor<i32>"])
def test_map_vectorized_and_per_element(body_op: str) -> None:
    t = "tensor<2x2xi32>"
    mul = "multiply" in body_op
    text = (f'"stablehlo.map"(%a, %b) ({{\n  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n'
            f'    %m = {body_op}\n    stablehlo.return %m : tensor<i32>\n'
            f'  }}) {{dimensions = array<i64: 0, 1>}} : ({t}, {t}) -> {t}')
    a = np.array([[0, 1], [2, 3]], np.int32)
    b = np.array([[4, 5], [6, 7]], np.int32)
    try:
        got = run(text, [a, b], [t, t], t)
    except Exception as e:  # reshape may not be registered yet in this build
        if mul or "reshape" not in str(e):
            raise
        pytest.skip("stablehlo.reshape unavailable")
    assert got.tolist() == ((a * b) if mul else a).tolist()


def test_map_operands_of_different_shapes_fail_verification() -> None:
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.parser import parse_source
    from shlo_cli.ir.verifier import verify_module

    text = ("func.func @f(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
            '  %0 = "stablehlo.map"(%a, %b) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
            "    stablehlo.return %x : tensor<f32>\n"
            "  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
            "  return %0 : tensor<4xf32>\n}\n")
    with pytest.raises(Diagnostic) as caught:
        verify_module(parse_source(text))
    assert "requires the same shape for all operands and results" in caught.value.message


def test_tuple_round_trip() -> None:
    text = ("stablehlo.tuple %a, %b : tuple<tensor<i32>, tensor<f32>>\n"
            "  %r2 = stablehlo.get_tuple_element %r[1] : "
            "(tuple<tensor<i32>, tensor<f32>>) -> tensor<f32>")
    module = parse_source(
        "func.func @main(%a: tensor<i32>, %b: tensor<f32>) -> tensor<f32> {\n"
        f"  %r = {text}\n  func.return %r2 : tensor<f32>\n}}\n")
    got = Interpreter(module).call(module.functions()[0],
                                   [np.array(1, np.int32), np.array(2.5, np.float32)])[0]
    assert float(got) == 2.5


@pytest.mark.parametrize(("elem", "count"), [
    ("ui32", 5), ("ui8", 300), ("i8", 200), ("i64", 10), ("f16", 5000), ("f32", 20_000_000),
    ("bf16", 600), ("f8E4M3FN", 40), ("ui64", 7), ("f64", 9), ("complex<f32>", 6)])
def test_iota_is_the_index_converted(elem: str, count: int) -> None:
    """iota in the type itself where every index fits exactly (numpy's arange), else the
    int64 indices converted (wrapping ints, rounding floats): the same values either way."""
    from shlo_cli.dialects.stablehlo.conversions import convert_array

    text = (f"func.func @main() -> tensor<2x{count}x{elem}> {{\n"
            f"  %0 = stablehlo.iota dim = 1 : tensor<2x{count}x{elem}>\n"
            f"  return %0 : tensor<2x{count}x{elem}>\n}}\n")
    [got] = shlo_cli.interpret(text)
    want = convert_array(np.arange(count, dtype=np.int64), got.dtype)
    assert got.shape == (2, count)
    np.testing.assert_array_equal(got[1].view(np.uint8), want.view(np.uint8))
