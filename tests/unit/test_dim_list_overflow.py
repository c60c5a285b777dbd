"""A bracketed integer list in custom assembly (convolution's window, dynamic_slice sizes)
holds int64s: 2^64 is `integer value too large` at its token (it was an OverflowError
traceback when the list became an int64 array)."""

from __future__ import annotations

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

CONV = """func.func @main(%a: tensor<1x4x4x1xi64>, %b: tensor<3x3x1x1xi64>)
    -> tensor<1x2x2x1xi64> {{
  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {{stride = [4, 4], pad = [[1, 1], [1, {value}]], lhs_dilate = [2, 2]}}
    {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}
    : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  return %r : tensor<1x2x2x1xi64>
}}"""


@pytest.mark.parametrize("value", ["18446744073709551616", "9223372036854775808",
                                   "-9223372036854775809"])
def test_out_of_int64_is_a_located_diagnostic(value: str) -> None:
    with pytest.raises(Diagnostic, match="integer value too large") as info:
        parse_source(CONV.format(value=value))
    assert ":4:" in str(info.value)  # at the value's line


def test_int64_bounds_still_parse() -> None:
    parse_source(CONV.format(value="9223372036854775807"))
    parse_source(CONV.format(value="1"))


@pytest.mark.parametrize("value", ["18446744073709551616", "-9223372036854775809"])
def test_const_shape_extent_out_of_int64(value: str) -> None:
    """shape.const_shape's extents are index values (int64): fuzz found an OverflowError."""
    text = (f"func.func @f() -> tensor<2xindex> {{\n"
            f"  %0 = shape.const_shape [6, {value}] : tensor<2xindex>\n"
            f"  return %0 : tensor<2xindex>\n}}\n")
    with pytest.raises(Diagnostic, match="integer value too large") as info:
        parse_source(text)
    assert ":2:30:" in str(info.value)
