"""The pretty `stablehlo.convolution` read as upstream's generated parser reads it: its
dimension numbers and window checked while parsing (parseConvolutionDimensions,
parseWindowAttributes), each error at the token MLIR reports it at and with the custom
op's prefix; the inherent attributes of its attribute dictionary checked as the dictionary
is read (verifyInherentAttrs, in name order). Every expectation checked with jaxlib's MLIR;
the verifier used to report these at the op, at the dimension numbers' first `[`, or without
the prefix. Found fuzzing against jaxlib's MLIR."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module

OPT = str(Path(sys.executable).with_name("stablehlo-opt"))

P = "custom op 'stablehlo.convolution' "
G = "batch_group_count = 1 : i64, feature_group_count = 1 : i64"
A = P + "'stablehlo.convolution' op attribute "
POSITIVE = ("failed to satisfy constraint: 64-bit signless integer attribute whose value "
            "is positive")


def convolution(dims: str, window: str, attrs: str) -> str:
    return ("func.func @f(%a: tensor<1x28x1xf32>, %b: tensor<3x1x16xf32>) {\n"
            f"  %0 = stablehlo.convolution(%a, %b) dim_numbers = {dims}, window = {{{window}}} "
            f"{attrs} : (tensor<1x28x1xf32>, tensor<3x1x16xf32>) -> tensor<1x28x16xf32>\n"
            "  func.return\n}\n")


@pytest.mark.parametrize(("dims", "window", "attrs", "col", "message"), [
    ('[b, 0, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{batch_group_count = 1 : i64, '
     'feature_group_count = -1 : i64}',
     110, A + "'feature_group_count' " + POSITIVE),
    ('[b, 0, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{batch_group_count = 0 : i64, '
     'feature_group_count = -1 : i64}',
     110, A + "'batch_group_count' " + POSITIVE),
    ('[b, 0, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{{G}, window_strides = array<i32: 1>}',
     110, A + "'window_strides' "
     "failed to satisfy constraint: i64 dense array attribute"),
    ('[b, 0, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{{G}, precision_config = [1]}',
     110, A + "'precision_config' "
     "failed to satisfy constraint: Precision Config attribute"),
    ('[b, 0, f]x[0, i, 0]->[b, 0, f]', 'pad = [[1, 1]]', '{{G}}',
     69, '{P}Duplicate entries for spatial dimension 0'),
    ('[b, 0, f]x[i, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{{G}}',
     66, '{P}Unexpected dimension i, expecting o'),
    ('[o, 0, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{{G}}',
     53, '{P}Unexpected dimension o, expecting b, f'),
    ('[b, f, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{{G}}',
     59, '{P}Unexpected keyword f'),
    ('[b, 0]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{{G}}',
     57, '{P}Expected dimensions f not specified'),
    ('[b, 0, f]x[0, i, o]->[b, 3, 2, f]', 'pad = [[1, 1]]', '{{G}}',
     85, '{P}Expected spatial dimensions 0, 1 not specified'),
    ('[b, -1, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]]', '{{G}}',
     56, '{P}Unexpected dimension -1'),
    ('[b, 0, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1, 0]]', '{{G}}',
     110, '{P}Expected array with 2 elements, got 3 elements instead'),
    ('[b, 0, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, 1]], pad = [[1, 1]]', '{{G}}',
     114, '{P}Unexpected keyword pad'),
    ('[b, 0, f]x[0, i, o]->[b, 0, f]', ',', '{{G}}',
     94, "expected '}'"),
    ('[b, 0, f]x[0, i, o]->[b, 0, f]', 'pad = [[1, -]]', '{{G}}',
     106, 'expected integer value'),
    ('[b, 0, f]x[0, i, o]->[b, 0, 99999999999999999999, f]', 'pad = [[1, 1]]', '{{G}}',
     80, '{P}integer value too large'),
])
def test_convolution_errors_as_mlir_reports_them(dims: str, window: str, attrs: str, col: int,
                                                 message: str) -> None:
    text = convolution(dims, window, attrs.replace("{G}", G))
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text, "t.mlir"))
    assert (info.value.line, info.value.col, info.value.message) == (
        2, col, message.replace("{P}", P))


@pytest.mark.parametrize("window", ["pad = [[1, 1]],", "pad = [[1, 1]], reverse = [1]"])
def test_window_forms_mlir_accepts(window: str) -> None:
    # a trailing comma ends the entries; `reverse` takes integers (nonzero is true)
    verify_module(parse_source(convolution("[b, 0, f]x[0, i, o]->[b, 0, f]", window,
                                           "{" + G + "}"), "t.mlir"))


@pytest.mark.parametrize(("lhs", "rhs", "dims", "groups", "result", "message"), [
    # verifyConvolutionAttributes: the input's batch and feature checks before the kernel's
    ("tensor<3x2xf16>", "tensor<2x2xf16>", "[b, f]x[i, o]->[b, f]", (1, 8), "tensor<3x2xf16>",
     "expects input feature dimension (2) to be a multiple of feature_group_count. Got "
     "feature_group_count = 8."),
    ("tensor<3x2xf16>", "tensor<2x2xf16>", "[b, f]x[i, o]->[b, f]", (8, 1), "tensor<3x2xf16>",
     "expects input batch dimension (3) to be divisible by batch_group_count. Got "
     "batch_group_count = 8."),
    # the dimension numbers before the operands' rank
    ("tensor<2x3x9xf32>", "tensor<12x1x3xf32>", "[b, f]x[o, i, 0]->[b, f, 0]", (1, 3),
     "tensor<2x12x5xf32>", "expects the same size for input, kernel and output "
     "spatial-dimensions, but got 0, 1, and 1 resp."),
    # inferConvolutionOp: rank at least 2, then equal ranks, then element types
    ("tensor<3xf16>", "tensor<2x2xf16>", "[b, f]x[i, o]->[b, f]", (1, 1), "tensor<3x2xf16>",
     "expects convolution arguments to have >= 2 dimensions. Got: 'tensor<3xf16>' and "
     "'tensor<2x2xf16>'."),
    ("tensor<3x2xf32>", "tensor<2x2xf16>", "[b, f, 0]x[i, o]->[b, f]", (1, 1), "tensor<3x2xf16>",
     "expects lhs and rhs to have compatible element type. Got: 'f32' and 'f16'"),
])
def test_verifier_checks_in_upstreams_order(lhs: str, rhs: str, dims: str,
                                            groups: tuple[int, int], result: str,
                                            message: str) -> None:
    text = (f"func.func @f(%a: {lhs}, %b: {rhs}) {{\n"
            f"  %0 = stablehlo.convolution(%a, %b) dim_numbers = {dims}, window = {{}} "
            f"{{batch_group_count = {groups[0]} : i64, feature_group_count = {groups[1]} : i64}}"
            f" : ({lhs}, {rhs}) -> {result}\n  func.return\n}}\n")
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text, "t.mlir"))
    assert (info.value.line, info.value.col, info.value.message) == (2, 8, message)


RAW = ("input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], "
       "kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, "
       "kernel_spatial_dimensions = [0], output_batch_dimension = 0, output_feature_dimension = 2, "
       "output_spatial_dimensions = [1]")


def generic(dims: str) -> str:
    return ("func.func @f(%a: tensor<1x28x1xf32>, %b: tensor<3x1x16xf32>) {\n"
            '  %0 = "stablehlo.convolution"(%a, %b) {batch_group_count = 1 : i64, '
            f"dimension_numbers = #stablehlo.conv<{dims}>, feature_group_count = 1 : i64}} : "
            "(tensor<1x28x1xf32>, tensor<3x1x16xf32>) -> tensor<1x26x16xf32>\n"
            "  func.return\n}\n")


@pytest.mark.parametrize(("dims", "col", "message"), [
    # `raw` is upstream's struct grammar (parseStruct): a missing `=` or integer was accepted
    ("raw " + RAW.replace("dimension = 2, kernel_spatial", "dimension 2, kernel_spatial"), 265,
     "expected '='"),
    ("raw " + RAW.replace("kernel_spatial_dimensions = [0]", "kernel_spatial_dimensions = [0, ]"),
     303, "expected integer value"),
    # the compressed form: checked where each item stands (no custom op prefix here)
    ("[b, 0, f]x[i, i, o]->[b, 0, f]", 120, "Unexpected dimension i, expecting o"),
    ("[b, 0, f]x[0, i, o]->[b, 0, f] x", 136, "expected '>'"),
])
def test_conv_attribute_read_as_upstream_reads_it(dims: str, col: int, message: str) -> None:
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(generic(dims), "t.mlir"))
    assert (info.value.line, info.value.col, info.value.message) == (2, col, message)


@pytest.mark.parametrize("dims", ["raw " + RAW, "[b, 0, f]x[0, i, o]->[b, 0, f]"])
def test_conv_attribute_forms_verify(dims: str) -> None:
    verify_module(parse_source(generic(dims), "t.mlir"))


@pytest.mark.parametrize("dims", ["[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 9223372036854775807, f]",
                                  "[b, 0x7FC00000, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"])
@pytest.mark.parametrize("form", ["pretty", "attribute"])
def test_huge_spatial_dimension_is_reported_without_counting_up_to_it(
        dims: str, form: str, tmp_path: Path) -> None:
    """The missing spatial dimensions are named up to ten, found without walking every
    number below the largest one given (found by mutation fuzzing: 2^31 steps and a
    list of that many names, minutes and gigabytes, before the diagnostic). Run under a
    CPU-time limit, so walking up to the number fails the test rather than stalling it."""
    if form == "pretty":
        text = ("func.func @f(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {\n"
                f"  %0 = stablehlo.convolution(%a, %b) dim_numbers = {dims}, window = {{}}"
                " {batch_group_count = 1 : i64, feature_group_count = 1 : i64}"
                " : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>\n"
                "  func.return\n}\n")
    else:
        text = generic(dims)
    path = tmp_path / "conv.mlir"
    path.write_text(text)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (10, 10))

    proc = subprocess.run([OPT, str(path)], capture_output=True, text=True,
                          preexec_fn=limit, timeout=60)
    assert proc.returncode == 1
    assert "Expected spatial dimensions" in proc.stderr
    assert "not specified" in proc.stderr and "Traceback" not in proc.stderr
    named = proc.stderr.split("Expected spatial dimensions ", 1)[1].split(" not", 1)[0]
    assert len(named.split(", ")) == 10
