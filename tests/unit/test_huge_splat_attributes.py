"""A window attribute spelled as a splat of a huge type (`dense<1> : tensor<99999999999x2xi64>`)
is a broadcast view: verifiers must count it, not list its 10^11 elements (that was a hang of
minutes in reduce_window/select_and_scatter/convolution verification)."""
# ruff: noqa: E501  (MLIR test programs)

from __future__ import annotations

import time

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module

HUGE = "99999999999"

REDUCE_WINDOW = """func.func @main(%arg0: tensor<4x4xf32>, %arg1: tensor<f32>) -> tensor<4x4xf32> {{
  %0 = "stablehlo.reduce_window"(%arg0, %arg1) ({{
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }}) {{{attrs}}} : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}}"""

CONVOLUTION = """func.func @main(%a: tensor<1x5x2xf32>, %b: tensor<2x2x3xf32>) -> tensor<1x4x3xf32> {{
  %r = "stablehlo.convolution"(%a, %b) {{batch_group_count = 1 : i64,
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    feature_group_count = 1 : i64, {attrs}}} : (tensor<1x5x2xf32>, tensor<2x2x3xf32>) -> tensor<1x4x3xf32>
  return %r : tensor<1x4x3xf32>
}}"""

# Strides and window sizes are `array<i64: ...>` attributes: a `dense<>` there fails ODS's
# constraint before any verifier counts it.
_NOT_ARRAY = "failed to satisfy constraint: i64 dense array attribute"

CASES = {
    "reduce_window padding": (REDUCE_WINDOW, "window_dimensions = array<i64: 1, 1>, "
                              f"padding = dense<1> : tensor<{HUGE}x2xi64>", "padding-entries"),
    "reduce_window strides": (REDUCE_WINDOW, "window_dimensions = array<i64: 1, 1>, "
                              f"window_strides = dense<1> : tensor<{HUGE}xi64>", _NOT_ARRAY),
    "reduce_window window": (REDUCE_WINDOW, f"window_dimensions = dense<1> : tensor<{HUGE}xi64>",
                             _NOT_ARRAY),
    "convolution padding": (CONVOLUTION, f"padding = dense<0> : tensor<{HUGE}x2xi64>",
                            "padding-entries"),
    "convolution strides": (CONVOLUTION, f"window_strides = dense<1> : tensor<{HUGE}xi64>",
                            _NOT_ARRAY),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_huge_splat_window_attribute_is_refused_fast(name: str) -> None:
    template, attrs, message = CASES[name]
    module = parse_source(template.format(attrs=attrs))
    start = time.monotonic()
    with pytest.raises(Diagnostic, match=message) as info:
        verify_module(module)
    assert HUGE in str(info.value) or "size" in str(info.value) or message == _NOT_ARRAY
    assert time.monotonic() - start < 2
