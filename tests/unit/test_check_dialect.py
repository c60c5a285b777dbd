"""The `check` dialect: comparisons, ULP distance, custom_call targets, syntax round trip."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.check_dialect.comparisons import (
    expect_almost_eq_failure,
    expect_close_failure,
    expect_eq_failure,
    ulp_difference,
)
from shlo_cli.check_dialect.custom_call_targets import (
    evaluate_custom_call,
    registered_targets,
)
from shlo_cli.interpreter.engine import EvaluationError
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import ComplexType, FloatType, IntegerType

F16, F32, F64 = FloatType("f16"), FloatType("f32"), FloatType("f64")


def test_expect_eq_reports_first_mismatch_row_major() -> None:
    actual = np.array([[1, 2], [3, 4]], dtype=np.int64)
    expected = np.array([[1, 2], [5, 6]], dtype=np.int64)
    assert expect_eq_failure(actual, actual.copy(), IntegerType(64)) is None
    assert expect_eq_failure(actual, expected, IntegerType(64)) == \
        "Element values don't match: 3 (actual) vs 5 (expected) at index [1, 0]"


def test_expect_eq_float_semantics() -> None:
    zeros = np.array([0.0], dtype=np.float32)
    assert expect_eq_failure(zeros, -zeros, F32) is None  # 0 == -0
    nan = np.array([np.nan], dtype=np.float32)
    assert expect_eq_failure(nan, -nan, F32) is None  # a NaN matches any NaN
    assert expect_eq_failure(nan, zeros, F32) is not None
    assert expect_eq_failure(zeros, nan, F32) is not None
    c_nan = np.array([complex(np.nan, 1.0)], dtype=np.complex64)
    assert expect_eq_failure(c_nan, c_nan, ComplexType(F32)) is None


def test_expect_eq_rank0_index() -> None:
    assert expect_eq_failure(np.array(True), np.array(False), IntegerType(1)) == \
        "Element values don't match: true (actual) vs false (expected) at index []"


def test_almost_eq_tolerance() -> None:
    five = np.array(5.0)
    assert expect_almost_eq_failure(five, np.array(5.0001), F64) is None
    message = expect_almost_eq_failure(five, np.array(5.1), F64)
    assert message == ("Element values don't match with tolerance 0.000100: 5.000000e+00 "
                       "(actual) vs 5.100000e+00 (expected) at index []")
    assert expect_almost_eq_failure(five, np.array(5.1), F64, 0.2) is None


@pytest.mark.parametrize(("a", "b", "equal"), [
    (np.nan, np.nan, True), (np.nan, 1.0, False), (np.inf, np.inf, True),
    (np.inf, 1e300, False), (0.0, -0.0, True), (1e-5, -1e-5, False), (0.0, 1e-5, True),
])
def test_almost_eq_special_values(a: float, b: float, equal: bool) -> None:
    result = expect_almost_eq_failure(np.array([a]), np.array([b]), F64)
    assert (result is None) == equal


def test_almost_eq_complex_checks_both_parts() -> None:
    c64 = ComplexType(F32)
    a = np.array([1 + 2j], dtype=np.complex64)
    assert expect_almost_eq_failure(a, a + 1e-6, c64) is None
    message = expect_almost_eq_failure(a, a + 1j, c64)
    assert message is not None and "[1.000000e+00, 2.000000e+00] (actual)" in message


def test_almost_eq_rejects_integers() -> None:
    with pytest.raises(EvaluationError, match="Unsupported element type: i32"):
        expect_almost_eq_failure(np.array([1], np.int32), np.array([1], np.int32),
                                 IntegerType(32))


def test_ulp_difference() -> None:
    one = np.float32(1.0)
    next_up = np.nextafter(one, np.float32(2.0))
    a = np.array([one, one, 0.0, np.nan, np.inf, np.inf], dtype=np.float32)
    b = np.array([one, next_up, -0.0, np.nan, np.inf, 1.0], dtype=np.float32)
    assert ulp_difference(a, b, F32).tolist() == [0, 1, 0, 0, 0, 2**64 - 1]
    tiny = np.array([np.float32(1e-45)])  # smallest subnormals on both sides of zero
    assert ulp_difference(tiny, -tiny, F32).tolist() == [2]


def test_ulp_difference_narrow_floats() -> None:
    a = np.array([5.0], dtype=np.float16)
    b = np.array([5.01], dtype=np.float16)  # rounds to 5.01171875, 3 ulps away
    assert ulp_difference(a, b, F16).tolist() == [3]
    bf = np.array([1.0], dtype=ml_dtypes.bfloat16)
    assert ulp_difference(bf, -bf, FloatType("bf16")).tolist() == [2 * 0x3F80]


def test_expect_close_message_lists_mismatches_and_histogram() -> None:
    a = np.array([5.0, 1.0], dtype=np.float16)
    b = np.array([5.01, 1.0], dtype=np.float16)
    assert expect_close_failure(a, b, F16, max_ulp=3) is None
    message = expect_close_failure(a, b, F16, max_ulp=2)
    assert message == (
        "Elements values don't match with respect to maximal ULP difference=2 limit:"
        "\n  index=[0], actual=5.000000e+00, expected=5.011720e+00, ULP difference=3"
        "\nULP difference == 0 count is 1\nULP difference == 1 count is 0"
        "\nULP difference == 2 count is 0\nULP difference == 3 count is 1"
        "\nULP difference >= 4 count is 0")
    assert expect_close_failure(a, a, F16, max_ulp=3, min_ulp=1) is not None


def test_expect_close_failure_on_a_scalar_is_reported() -> None:
    """A 0-d mismatch gives the message (index []), not an IndexError from a 1-d bit view."""
    message = expect_close_failure(np.array(5.0, np.float16), np.array(5.01, np.float16), F16,
                                   max_ulp=2)
    assert message is not None and "index=[], actual=5.000000e+00" in message
    assert ulp_difference(np.array(5.0, np.float16), np.array(5.01, np.float16), F16).shape == ()


class _Op:
    """Just enough of an Operation for custom-call targets (operand types, results)."""

    def __init__(self, operand_type: object, num_results: int = 0) -> None:
        from shlo_cli.ir.types import TensorType

        value = type("V", (), {"type": TensorType((2,), operand_type)})()  # type: ignore
        self.operands = [value, value]
        self.results = [None] * num_results


def test_custom_call_targets() -> None:
    assert {"check.eq", "check.expect_eq", "check.expect_close",
            "check.expect_almost_eq"} <= set(registered_targets())
    a = np.array([1.0, 2.0], dtype=np.float32)
    assert evaluate_custom_call("check.expect_almost_eq", [a, a + 5e-4], op=_Op(F32)) == []
    with pytest.raises(EvaluationError, match="with tolerance 0.001000"):
        evaluate_custom_call("check.expect_almost_eq", [a, a + 5e-3], op=_Op(F32))
    with pytest.raises(EvaluationError, match="check.expect_close failed"):
        evaluate_custom_call("check.expect_close", [a, a * 2], op=_Op(F32))
    [ok] = evaluate_custom_call("check.eq", [a, a], op=_Op(F32, 1))
    assert ok.dtype == np.bool_ and bool(ok)
    ints = np.array([1, 2], dtype=np.int32)
    with pytest.raises(EvaluationError, match="at index \\[1\\]"):
        evaluate_custom_call("check.eq", [ints, ints * 2 - 1], op=_Op(IntegerType(32), 1))


def test_unknown_custom_call_target_is_named() -> None:
    with pytest.raises(EvaluationError, match="@my.target"):
        evaluate_custom_call("my.target", [], op=None)


def test_check_ops_round_trip() -> None:
    text = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  check.expect_eq %a, %b : tensor<2xf32>
  check.expect_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq %a, %b, tolerance = 0.1 : tensor<2xf32>
  check.expect_almost_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32> {tolerance = 0.5 : f64}
  check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 1 :
      tensor<2xf32>, tensor<2xf32>
  check.expect_serialized_eq %a, probe_id = "p", iter = 1 : tensor<2xf32>
  interpreter.print %a : tensor<2xf32>
  func.return
}
"""
    printed = print_module(parse_source(text))
    assert "check.expect_almost_eq %arg0, %arg1, tolerance = 1.000000e-01 : tensor<2xf32>" \
        in printed
    assert ("check.expect_almost_eq_const %arg0, dense<[1.000000e+00, 2.000000e+00]> : "
            "tensor<2xf32>, tolerance = 5.000000e-01") in printed
    assert ("check.expect_close %arg0, %arg1, max_ulp_difference = 3, min_ulp_difference = 1 "
            ": tensor<2xf32>, tensor<2xf32>") in printed
    assert print_module(parse_source(printed)) == printed


def _interpret_error(text: str) -> str:
    """The diagnostic interpreting `text` gives (verifier or evaluation), as printed."""
    from shlo_cli.interpreter.run import evaluate
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    module = parse_source(text, "t.mlir")
    try:
        verify_module(module)
        evaluate(module)
    except Diagnostic as d:
        return d.render()
    raise AssertionError("expected a diagnostic")


_CONSTANTS = """func.func @main() {
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  %b = stablehlo.constant dense<1.0> : tensor<2xf64>
  %c = stablehlo.constant dense<1.0> : tensor<2xf32>
  OP
  func.return
}"""


@pytest.mark.parametrize(("op", "message"), [
    ("check.expect_close %a, %b, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf64>",
     "t.mlir:5:3: error: 'check.expect_close' op failed to verify that all of {actual, expected} "
     "have same type"),
    ('"check.expect_eq"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> ()',
     "t.mlir:5:3: error: 'check.expect_eq' op requires all operands to have the same type"),
    ('"check.expect_almost_eq"(%b, %a) : (tensor<2xf64>, tensor<2xf32>) -> ()',
     "t.mlir:5:3: error: 'check.expect_almost_eq' op requires all operands to have the same type"),
    ('"check.expect_eq_const"(%a) {value = dense<1.0> : tensor<2xf64>} : (tensor<2xf32>) -> ()',
     "t.mlir:5:3: error: 'check.expect_eq_const' op failed to verify that all of {lhs, value} have "
     "same type"),
])
def test_check_ops_reject_mismatched_types(op: str, message: str) -> None:
    assert message in _interpret_error(_CONSTANTS.replace("OP", op))


@pytest.mark.parametrize("target", ["check.expect_eq", "check.expect_almost_eq",
                                    "check.expect_close"])
def test_custom_call_checks_fail_on_mismatched_element_types(target: str) -> None:
    op = (f"stablehlo.custom_call @{target}(%a, %b) {{has_side_effect = true}} : "
          "(tensor<2xf32>, tensor<2xf64>) -> ()")
    error = _interpret_error(_CONSTANTS.replace("OP", op))
    assert (f"t.mlir:5:3: error: {target} failed: Element types don't match: f32 (actual) vs f64 "
            "(expected)") in error
    same = op.replace("%b", "%c").replace("tensor<2xf64>", "tensor<2xf32>")
    from shlo_cli.interpreter.run import evaluate

    evaluate(parse_source(_CONSTANTS.replace("OP", same), "t.mlir"))  # equal values pass


def test_ulp_bounds_beyond_ui64_are_a_parse_error() -> None:
    """max/min_ulp_difference are ui64 attributes: 2^64 is `integer value too large` at its
    token (fuzz: an OverflowError when the check ran); 2^64 - 1 still parses."""
    from shlo_cli.ir.diagnostics import Diagnostic

    text = ("func.func @f() {{\n  %a = stablehlo.constant dense<5.0> : tensor<f16>\n"
            "  check.expect_close %a, %a, max_ulp_difference = {} : tensor<f16>, tensor<f16>\n"
            "  func.return\n}}\n")
    with pytest.raises(Diagnostic, match="integer value too large") as caught:
        parse_source(text.format(1 << 64))
    assert ":3:" in str(caught.value)
    parse_source(text.format((1 << 64) - 1))
