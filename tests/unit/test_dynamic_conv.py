"""dynamic_conv, dynamic_iota, and `?` result dimensions resolved at run time."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


CONV_ATTRS = "dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64"


def test_dynamic_conv_equals_convolution_with_that_padding() -> None:
    text = f"""func.func @main(%x: tensor<1x5x1xi32>, %k: tensor<3x1x1xi32>, %p: tensor<1x2xi64>) -> (tensor<1x?x1xi32>, tensor<1x6x1xi32>) {{
  %0 = "stablehlo.dynamic_conv"(%x, %k, %p) {{window_strides = array<i64: 1>, {CONV_ATTRS}}} : (tensor<1x5x1xi32>, tensor<3x1x1xi32>, tensor<1x2xi64>) -> tensor<1x?x1xi32>
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {{pad = [[2, 1]]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x5x1xi32>, tensor<3x1x1xi32>) -> tensor<1x6x1xi32>
  return %0, %1 : tensor<1x?x1xi32>, tensor<1x6x1xi32>
}}"""
    x = np.arange(1, 6, dtype=np.int32).reshape(1, 5, 1)
    k = np.array([1, 10, 100], np.int32).reshape(3, 1, 1)
    dynamic, static = _run(text, x, k, np.array([[2, 1]], np.int64))
    assert dynamic.shape == (1, 6, 1)
    np.testing.assert_array_equal(dynamic, static)
    assert dynamic[0, :, 0].tolist() == [100, 210, 321, 432, 543, 54]


def test_dynamic_iota_takes_shape_from_operand() -> None:
    text = """func.func @main(%s: tensor<2xi64>) -> tensor<?x?xi32> {
  %0 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<?x?xi32>
  return %0 : tensor<?x?xi32>
}"""
    (out,) = _run(text, np.array([2, 3], np.int64))
    assert out.tolist() == [[0, 1, 2], [0, 1, 2]]
    printed = print_module(parse_source(text))
    assert "stablehlo.dynamic_iota %arg0, dim = 1 : (tensor<2xi64>) -> tensor<?x?xi32>" in printed


def test_convolution_and_reduce_window_with_dynamic_results() -> None:
    text = """func.func @main(%x: tensor<?x4x1xf32>, %k: tensor<2x1x1xf32>) -> (tensor<?x3x1xf32>, tensor<?x2x1xf32>) {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x4x1xf32>, tensor<2x1x1xf32>) -> tensor<?x3x1xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = "stablehlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2, 1>, window_strides = array<i64: 1, 2, 1>} : (tensor<?x4x1xf32>, tensor<f32>) -> tensor<?x2x1xf32>
  return %0, %1 : tensor<?x3x1xf32>, tensor<?x2x1xf32>
}"""
    x = np.arange(8, dtype=np.float32).reshape(2, 4, 1)
    conv, pooled = _run(text, x, np.ones((2, 1, 1), np.float32))
    assert conv.shape == (2, 3, 1) and conv[1, :, 0].tolist() == [9.0, 11.0, 13.0]
    assert pooled.shape == (2, 2, 1) and pooled[0, :, 0].tolist() == [1.0, 5.0]


def test_dynamic_conv_verifier_checks_padding_shape_and_groups() -> None:
    import pytest

    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    def check(padding: str, groups: str, message: str) -> None:
        text = f"""func.func @main(%x: tensor<1x5x1xi32>, %k: tensor<3x1x1xi32>, %p: tensor<{padding}xi64>) -> tensor<1x?x1xi32> {{
  %0 = "stablehlo.dynamic_conv"(%x, %k, %p) {{dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, {groups}}} : (tensor<1x5x1xi32>, tensor<3x1x1xi32>, tensor<{padding}xi64>) -> tensor<1x?x1xi32>
  return %0 : tensor<1x?x1xi32>
}}"""
        with pytest.raises(Diagnostic) as info:
            verify_module(parse_source(text))
        assert message in info.value.render()

    check("2x2", "feature_group_count = 1 : i64, batch_group_count = 1 : i64",
          "expects padding to be of shape [1, 2], but got [2, 2]")
    check("1x2", "feature_group_count = 2 : i64, batch_group_count = 1 : i64",
          "expects input feature dimension (1) to be a multiple of feature_group_count. Got feature_group_count = 2.")
    check("1x2", "feature_group_count = 0 : i64, batch_group_count = 1 : i64",
          "attribute 'feature_group_count' failed to satisfy constraint")


def test_dynamic_conv_window_attributes_are_checked_only_with_a_constant_padding() -> None:
    """Upstream verifies window sizes only when it can read the padding, so a program whose
    padding is computed verifies even with a stride list of the wrong length."""
    import pytest

    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    def program(padding_source: str) -> str:
        return f"""func.func @main(%x: tensor<1x5x1xi32>, %k: tensor<3x1x1xi32>, %p: tensor<1x2xi64>) -> tensor<1x?x1xi32> {{
  {padding_source}
  %0 = "stablehlo.dynamic_conv"(%x, %k, %q) {{window_strides = array<i64: 2, 2>, {CONV_ATTRS}}} : (tensor<1x5x1xi32>, tensor<3x1x1xi32>, tensor<1x2xi64>) -> tensor<1x?x1xi32>
  return %0 : tensor<1x?x1xi32>
}}"""

    verify_module(parse_source(program("%q = stablehlo.add %p, %p : tensor<1x2xi64>")))
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(program("%q = stablehlo.constant dense<0> : tensor<1x2xi64>")))
    assert "expects window-strides to have same dimension-size as size of window dimensions (1), but got: 2." in info.value.render()
    with pytest.raises(Exception, match="window_strides must have 1 entries, got 2"):
        _run(program("%q = stablehlo.add %p, %p : tensor<1x2xi64>"), np.ones((1, 5, 1), np.int32),
             np.ones((3, 1, 1), np.int32), np.zeros((1, 2), np.int64))


def test_window_attributes_are_checked_when_running_with_a_runtime_padding() -> None:
    """With a padding operand that is no constant, upstream's verifier checks no window
    attribute: a zero lhs_dilation must stop the run with a diagnostic (fuzz: a numpy
    ValueError)."""
    import numpy as np
    import pytest

    from shlo_cli.interpreter.engine import Interpreter
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.parser import parse_source

    text = ("func.func @main(%x: tensor<1x6x6x2xf32>, %k: tensor<3x3x2x4xf32>, "
            "%p: tensor<2x2xi32>) -> tensor<1x?x?x4xf32> {\n"
            '  %0 = "stablehlo.dynamic_conv"(%x, %k, %p) {dimension_numbers = '
            "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, window_strides = "
            "array<i64: 1, 1>, lhs_dilation = array<i64: 0, 1>, rhs_dilation = array<i64: 1, 1>,"
            " feature_group_count = 1 : i64, batch_group_count = 1 : i64} : "
            "(tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>, tensor<2x2xi32>) -> tensor<1x?x?x4xf32>\n"
            "  func.return %0 : tensor<1x?x?x4xf32>\n}\n")
    interpreter = Interpreter(parse_source(text))
    args = [np.ones((1, 6, 6, 2), np.float32), np.ones((3, 3, 2, 4), np.float32),
            np.zeros((2, 2), np.int32)]
    with pytest.raises(Diagnostic, match=r"lhs_dilation must be 2 positive values, got \[0, 1\]"):
        interpreter.call(interpreter.lookup_function("main"), args)


HUGE = 4611686018427387904  # 2**62: one window; the stride is never stepped


def test_a_huge_stride_with_one_window_computes() -> None:
    """A window stride of 2**62 (valid: one window) overflowed numpy's C long in the
    strided view of convolution and reduce_window ('internal error: OverflowError')."""
    conv = f"""func.func @main(%x: tensor<1x4x1xf32>, %k: tensor<2x1x1xf32>) -> tensor<1x1x1xf32> {{
  %r = "stablehlo.convolution"(%x, %k) {{window_strides = array<i64: {HUGE}>, {CONV_ATTRS}}} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x1x1xf32>
  return %r : tensor<1x1x1xf32>
}}"""
    x = np.arange(4, dtype=np.float32).reshape(1, 4, 1)
    (r,) = _run(conv, x, np.ones((2, 1, 1), np.float32))
    assert r.tolist() == [[[1.0]]]
    window = f"""func.func @main(%x: tensor<4xf32>, %z: tensor<f32>) -> tensor<1xf32> {{
  %r = "stablehlo.reduce_window"(%x, %z) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }}) {{window_dimensions = array<i64: 2>, window_strides = array<i64: {HUGE}>}} : (tensor<4xf32>, tensor<f32>) -> tensor<1xf32>
  return %r : tensor<1xf32>
}}"""
    (r,) = _run(window, x.reshape(4), np.float32(0))
    assert r.tolist() == [1.0]


def test_dynamic_conv_result_type_the_padding_contradicts_is_refused() -> None:
    """The padding operand gives the shape at run time: a declared static shape it
    contradicts is an error, never a value of another shape under that type."""
    text = f"""func.func @main(%x: tensor<1x4x1xf32>, %k: tensor<2x1x1xf32>, %p: tensor<1x2xi64>) -> tensor<1x5x1xf32> {{
  %r = "stablehlo.dynamic_conv"(%x, %k, %p) {{{CONV_ATTRS}}} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>, tensor<1x2xi64>) -> tensor<1x5x1xf32>
  return %r : tensor<1x5x1xf32>
}}"""
    with pytest.raises(Diagnostic, match=r"inferred shape '\[1, 3, 1\]' is incompatible"):
        _run(text, np.zeros((1, 4, 1), np.float32), np.ones((2, 1, 1), np.float32),
             np.zeros((1, 2), np.int64))
