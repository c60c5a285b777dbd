"""dot_general / dot / convolution: upstream syntax and results against literal loops."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import itertools

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _print(text: str, generic: bool = False) -> str:
    return print_module(parse_source(text), generic=generic)


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


# ---- syntax -------------------------------------------------------------------------------

DOTS = """
func.func @main(%arg0: tensor<2x2x2xi8>, %arg1: tensor<2x2x3xi8>, %arg2: tensor<2x2xi8>, %arg3: tensor<2x3xi8>, %arg4: tensor<3xi64>) -> tensor<2x2x3xi32> {
  %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_batching_dimensions = [0], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGH>]} : (tensor<2x2x2xi8>, tensor<2x2x3xi8>) -> tensor<2x2x3xi32>
  %1 = "stablehlo.dot_general"(%arg2, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<2x2xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>
  %2 = "stablehlo.dot"(%arg4, %arg4) {precision_config = []} : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>
  %3 = "stablehlo.dot"(%arg4, %arg4) : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>
  func.return %0 : tensor<2x2x3xi32>
}
"""


def test_dot_pretty_forms() -> None:
    printed = _print(DOTS)
    assert "%0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGH] : (tensor<2x2x2xi8>, tensor<2x2x3xi8>) -> tensor<2x2x3xi32>" in printed
    assert "%1 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>" in printed
    assert "%2 = stablehlo.dot %arg4, %arg4, precision = [] : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>" in printed
    assert "%3 = stablehlo.dot %arg4, %arg4 : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>" in printed
    assert _print(printed) == printed
    generic = _print(printed, generic=True)
    assert "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>" in generic
    assert _print(generic) == printed


CONV = """
func.func @main(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64> {
  %0 = stablehlo.convolution(%lhs, %rhs)
    dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {stride = [4, 4], pad = [[1, 0], [0, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, true]}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}
    : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  func.return %0 : tensor<1x2x2x1xi64>
}
"""


def test_convolution_pretty_form() -> None:
    printed = _print(CONV)
    assert "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[1, 0], [0, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>" in printed
    assert _print(printed) == printed
    generic = _print(printed, generic=True)
    assert "dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>" in generic
    assert "window_reversal = array<i1: false, true>" in generic
    assert _print(generic) == printed


def test_convolution_empty_window() -> None:
    text = CONV.replace("window = {stride = [4, 4], pad = [[1, 0], [0, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, true]}", "window = {}").replace("1x2x2x1xi64", "1x2x2x1xi64")
    assert "window = {} {batch_group_count" in _print(text)


# ---- dot_general semantics --------------------------------------------------------------------


def test_i8_products_do_not_wrap_in_an_i32_result() -> None:
    text = """
func.func @main(%a: tensor<2x3xi8>, %b: tensor<3x2xi8>) -> tensor<2x2xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
"""
    a = np.array([[100, 127, -128], [1, 2, 3]], np.int8)
    b = np.array([[100, 1], [100, 2], [-128, 3]], np.int8)
    got = _run(text, a, b)[0]
    np.testing.assert_array_equal(got, a.astype(np.int32) @ b.astype(np.int32))
    assert got.dtype == np.int32


def test_batching_and_multiple_contracting_dims() -> None:
    text = """
func.func @main(%a: tensor<2x3x4x5xf64>, %b: tensor<4x2x5x3x6xf64>) -> tensor<2x3x6xf64> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0, 1] x [1, 3], contracting_dims = [3, 2] x [2, 0] : (tensor<2x3x4x5xf64>, tensor<4x2x5x3x6xf64>) -> tensor<2x3x6xf64>
  return %0 : tensor<2x3x6xf64>
}
"""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 4, 5))
    b = rng.standard_normal((4, 2, 5, 3, 6))
    got = _run(text, a, b)[0]
    np.testing.assert_allclose(got, np.einsum("xyij,ixjyf->xyf", a, b), rtol=1e-12)


def test_float_accumulation_is_sequential() -> None:
    text = """
func.func @main(%a: tensor<1x4xf32>, %b: tensor<4x1xf32>) -> tensor<1x1xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x4xf32>, tensor<4x1xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
"""
    a = np.array([[1e8, 1.0, -1e8, 1.0]], np.float32)
    b = np.ones((4, 1), np.float32)
    acc = np.float32(0)
    for x in a[0]:
        acc = np.float32(acc + x)
    assert _run(text, a, b)[0][0, 0] == acc


# ---- convolution semantics ----------------------------------------------------------------------


def _naive_conv(lhs: np.ndarray, rhs: np.ndarray, stride: tuple, pad: list, lhs_dil: tuple,
                rhs_dil: tuple, reverse: tuple, groups: int, batch_groups: int,
                out_spatial: tuple) -> np.ndarray:
    """NHWC x HWIO, straight from the spec's definition with explicit loops."""
    n, h, w, c = lhs.shape
    kh, kw, i_feat, o_feat = rhs.shape
    dil = np.zeros(((h - 1) * lhs_dil[0] + 1, (w - 1) * lhs_dil[1] + 1, n, c), lhs.dtype)
    dil[::lhs_dil[0], ::lhs_dil[1]] = lhs.transpose(1, 2, 0, 3)
    padded = np.pad(dil, [(max(lo, 0), max(hi, 0)) for lo, hi in pad] + [(0, 0), (0, 0)])
    padded = padded[tuple(slice(-min(lo, 0), padded.shape[d] + min(hi, 0))
                          for d, (lo, hi) in enumerate(pad))]
    nb = n // batch_groups
    out = np.zeros((nb, *out_spatial, o_feat), lhs.dtype)
    per_group_out = o_feat // max(groups, batch_groups)
    for b, oy, ox, f in itertools.product(range(nb), range(out_spatial[0]), range(out_spatial[1]), range(o_feat)):
        g = f // per_group_out
        acc = 0
        for ky, kx, ci in itertools.product(range(kh), range(kw), range(i_feat)):
            wy = kh - 1 - ky if reverse[0] else ky
            wx = kw - 1 - kx if reverse[1] else kx
            y, x = oy * stride[0] + wy * rhs_dil[0], ox * stride[1] + wx * rhs_dil[1]
            if batch_groups > 1:
                acc += padded[y, x, g * nb + b, ci] * rhs[ky, kx, ci, f]
            else:
                acc += padded[y, x, b, g * i_feat + ci] * rhs[ky, kx, ci, f]
        out[b, oy, ox, f] = acc
    return out


@pytest.mark.parametrize("groups, batch_groups", [(1, 1), (2, 1), (1, 2)])
def test_convolution_matches_literal_loops(groups: int, batch_groups: int) -> None:
    rng = np.random.default_rng(4)
    n, c, o = 2 * batch_groups, 2 * groups, 2 * groups * batch_groups
    lhs = rng.integers(-5, 5, (n, 5, 6, c)).astype(np.int64)
    rhs = rng.integers(-5, 5, (3, 2, c // groups, o)).astype(np.int64)
    stride, pad, lhs_dil, rhs_dil, reverse = (2, 1), [[1, 2], [0, -1]], (2, 1), (1, 2), (True, False)
    oh = ((5 - 1) * 2 + 1 + 3 - ((3 - 1) * 1 + 1)) // 2 + 1
    ow = ((6 - 1) * 1 + 1 - 1 - ((2 - 1) * 2 + 1)) // 1 + 1
    text = f"""
func.func @main(%lhs: tensor<{n}x5x6x{c}xi64>, %rhs: tensor<3x2x{c // groups}x{o}xi64>) -> tensor<{n // batch_groups}x{oh}x{ow}x{o}xi64> {{
  %0 = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [2, 1], pad = [[1, 2], [0, -1]], lhs_dilate = [2, 1], rhs_dilate = [1, 2], reverse = [true, false]}} {{batch_group_count = {batch_groups} : i64, feature_group_count = {groups} : i64}} : (tensor<{n}x5x6x{c}xi64>, tensor<3x2x{c // groups}x{o}xi64>) -> tensor<{n // batch_groups}x{oh}x{ow}x{o}xi64>
  return %0 : tensor<{n // batch_groups}x{oh}x{ow}x{o}xi64>
}}
"""
    got = _run(text, lhs, rhs)[0]
    expected = _naive_conv(lhs, rhs, stride, pad, lhs_dil, rhs_dil, reverse, groups, batch_groups, (oh, ow))
    np.testing.assert_array_equal(got, expected)


def test_convolution_other_layouts_and_floats() -> None:
    rng = np.random.default_rng(5)
    lhs = rng.standard_normal((2, 3, 9)).astype(np.float32)  # [b, f, 0]
    rhs = rng.standard_normal((4, 3, 3)).astype(np.float32)  # [o, i, 0]
    text = """
func.func @main(%lhs: tensor<2x3x9xf32>, %rhs: tensor<4x3x3xf32>) -> tensor<2x4x5xf32> {
  %0 = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9xf32>, tensor<4x3x3xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}
"""
    got = _run(text, lhs, rhs)[0]
    expected = np.zeros((2, 4, 5), np.float32)
    for b, f, x in itertools.product(range(2), range(4), range(5)):
        acc = np.float32(0)
        for k, c in itertools.product(range(3), range(3)):  # reference order: spatial, then feature
            acc = np.float32(acc + lhs[b, c, x + 2 * k] * rhs[f, c, k])
        expected[b, f, x] = acc
    # 9 terms: BLAS (gemm.py), whose order may differ from the reference's by a rounding.
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


# ---- verifiers --------------------------------------------------------------------------------


def _verify(text: str) -> None:
    from shlo_cli.ir.verifier import verify_module

    verify_module(parse_source(text))


def test_dot_general_verifier() -> None:
    from shlo_cli.ir.diagnostics import Diagnostic

    text = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
"""
    with pytest.raises(Diagnostic, match="contracting dimension sizes must match for lhs/rhs"):
        _verify(text)
    with pytest.raises(Diagnostic, match=r"lhs_contracting_dimensions value: 2 is out of range: \[0, 2\)"):
        _verify(text.replace("contracting_dims = [1] x [0]", "contracting_dims = [2] x [0]"))
    _verify(text.replace("tensor<4x5xf32>", "tensor<3x5xf32>"))


def test_convolution_verifier() -> None:
    from shlo_cli.ir.diagnostics import Diagnostic

    with pytest.raises(Diagnostic, match=r"inferred shape '\[1, 2, 2, 1\]' is incompatible with return type of operation 'tensor<1x3x3x1xi64>'"):
        _verify(CONV.replace("1x2x2x1xi64", "1x3x3x1xi64"))
    with pytest.raises(Diagnostic, match="expects window-strides to have same dimension-size as size of window dimensions"):
        _verify(CONV.replace("stride = [4, 4]", "stride = [4]"))
    _verify(CONV)


def test_conv_attribute_forms_and_errors() -> None:
    from shlo_cli.ir.diagnostics import Diagnostic

    raw = ('module attributes {c = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, '
           'input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, '
           'kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, '
           'output_spatial_dimensions = [2, 1]>} {\n}\n')
    assert "c = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 1, 0, f]>" in _print(raw)
    with pytest.raises(Diagnostic, match="Unexpected dimension c, expecting b, f"):
        parse_source("module attributes {c = #stablehlo.conv<[c, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>} {\n}\n")
    with pytest.raises(Diagnostic, match="Duplicate entries for spatial dimension 1"):
        parse_source("module attributes {c = #stablehlo.conv<[b, f, 1, 0, 1]x[o, 0, 1, i]->[f, b, 0, 1]>} {\n}\n")


def test_conv_dims_with_negative_axes_print_as_a_list() -> None:
    """A corrupted artifact can carry negative axes: printed (in a diagnostic) as a list of
    axis:role pairs, not laid out."""
    from shlo_cli.dialects.stablehlo.attr_conv import ConvDims

    dims = ConvDims(-5, 1, (2, 3), 2, 3, (0, 1), 0, 3, (1, 2))
    assert dims.text() == "[-5:b, 1:f, 2:0, 3:1]x[0, 1, i, o]->[b, 0, 1, f]"


def test_an_empty_padding_attribute_is_no_padding() -> None:
    """`padding = dense<0> : tensor<0x2xi64>` passes upstream's verifier (an empty window
    attribute means its defaults): the same result as no padding attribute (fuzz: a reshape
    ValueError)."""
    import numpy as np

    from shlo_cli.interpreter.engine import Interpreter
    from shlo_cli.ir.parser import parse_source

    def run(padding: str) -> np.ndarray:
        text = ("func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>) -> "
                "tensor<1x2x2x1xf32> {\n"
                f'  %0 = "stablehlo.convolution"(%x, %k) {{{padding}'
                "dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,"
                " feature_group_count = 1 : i64, batch_group_count = 1 : i64} : "
                "(tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>\n"
                "  func.return %0 : tensor<1x2x2x1xf32>\n}\n")
        interpreter = Interpreter(parse_source(text))
        x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
        k = np.arange(9, dtype=np.float32).reshape(3, 3, 1, 1)
        return np.asarray(interpreter.call(interpreter.lookup_function("main"), [x, k])[0])

    assert np.array_equal(run("padding = dense<0> : tensor<0x2xi64>, "), run(""))
