"""Elementwise ops print exactly as upstream stablehlo-opt does and re-parse to the same text."""

from __future__ import annotations

import pytest

from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def roundtrip(body: str, args: str = "") -> list[str]:
    """Print `body` (inside a function) and return the printed body lines; also checks that
    printing the re-parsed output gives the same text."""
    text = f"func.func @f({args}) {{\n{body}\n  func.return\n}}\n"
    printed = print_module(parse_source(text))
    assert print_module(parse_source(printed)) == printed
    lines = printed.splitlines()
    start = next(i for i, line in enumerate(lines) if "func.func" in line)
    return [line.strip() for line in lines[start + 1:] if line.strip() not in ("}", "return")]


GENERIC_TO_CUSTOM = [
    ('%0 = "stablehlo.abs"(%a) : (tensor<2xi32>) -> tensor<2xi32>',
     "%0 = stablehlo.abs %arg0 : tensor<2xi32>"),
    ('%0 = "stablehlo.add"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>',
     "%0 = stablehlo.add %arg0, %arg0 : tensor<2xi32>"),
    ('%0 = "stablehlo.convert"(%a) : (tensor<2xi32>) -> tensor<2xf32>',
     "%0 = stablehlo.convert %arg0 : (tensor<2xi32>) -> tensor<2xf32>"),
    ('%0 = "stablehlo.is_finite"(%f) : (tensor<2xf32>) -> tensor<2xi1>',
     "%0 = stablehlo.is_finite %arg1 : (tensor<2xf32>) -> tensor<2xi1>"),
    ('%0 = "stablehlo.bitcast_convert"(%f) : (tensor<2xf32>) -> tensor<2xi32>',
     "%0 = stablehlo.bitcast_convert %arg1 : (tensor<2xf32>) -> tensor<2xi32>"),
    ('%0 = "stablehlo.compare"(%a, %a) {comparison_direction = '
     '#stablehlo<comparison_direction LT>} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>',
     "%0 = stablehlo.compare LT, %arg0, %arg0 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>"),
    ('%0 = "stablehlo.compare"(%a, %a) {compare_type = #stablehlo<comparison_type TOTALORDER>,'
     ' comparison_direction = #stablehlo<comparison_direction GE>} : '
     '(tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>',
     "%0 = stablehlo.compare GE, %arg0, %arg0, TOTALORDER : "
     "(tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>"),
    ('%0 = "stablehlo.reduce_precision"(%f) {exponent_bits = 8 : i32, mantissa_bits = 10 : i32}'
     ' : (tensor<2xf32>) -> tensor<2xf32>',
     "%0 = stablehlo.reduce_precision %arg1, format = e8m10 : tensor<2xf32>"),
    ('%0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<1x10xf32>',
     "%0 = stablehlo.iota dim = 1 : tensor<1x10xf32>"),
    ('%0 = "stablehlo.complex"(%f, %f) : (tensor<2xf32>, tensor<2xf32>) -> '
     'tensor<2xcomplex<f32>>',
     "%0 = stablehlo.complex %arg1, %arg1 : tensor<2xcomplex<f32>>"),
    ('%0 = "stablehlo.real"(%c) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>',
     "%0 = stablehlo.real %arg2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>"),
    ('%0 = "stablehlo.select"(%p, %a, %a) : (tensor<2xi1>, tensor<2xi32>, tensor<2xi32>) -> '
     'tensor<2xi32>',
     "%0 = stablehlo.select %arg3, %arg0, %arg0 : tensor<2xi1>, tensor<2xi32>"),
    ('%0 = "stablehlo.clamp"(%s, %a, %s) : (tensor<i32>, tensor<2xi32>, tensor<i32>) -> '
     'tensor<2xi32>',
     "%0 = stablehlo.clamp %arg4, %arg0, %arg4 : "
     "(tensor<i32>, tensor<2xi32>, tensor<i32>) -> tensor<2xi32>"),
    ('%0 = "stablehlo.tuple"(%s, %s) : (tensor<i32>, tensor<i32>) -> '
     'tuple<tensor<i32>, tensor<i32>>',
     "%0 = stablehlo.tuple %arg4, %arg4 : tuple<tensor<i32>, tensor<i32>>"),
    ('%0 = "stablehlo.tuple"() : () -> tuple<>', "%0 = stablehlo.tuple  : tuple<>"),
    ('%0 = "stablehlo.create_token"() : () -> !stablehlo.token',
     "%0 = stablehlo.create_token : !stablehlo.token"),
    ('%0 = "stablehlo.after_all"() : () -> !stablehlo.token',
     "%0 = stablehlo.after_all  : !stablehlo.token"),
    ('"stablehlo.optimization_barrier"() : () -> ()', "stablehlo.optimization_barrier()"),
    ('%0:2 = "stablehlo.optimization_barrier"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> '
     '(tensor<2xi32>, tensor<2xi32>)',
     "%0:2 = stablehlo.optimization_barrier %arg0, %arg0 : tensor<2xi32>, tensor<2xi32>"),
]

ARGS = ("%a: tensor<2xi32>, %f: tensor<2xf32>, %c: tensor<2xcomplex<f32>>, %p: tensor<2xi1>, "
        "%s: tensor<i32>")


@pytest.mark.parametrize(("generic", "custom"), GENERIC_TO_CUSTOM)
def test_generic_form_prints_in_custom_syntax(generic: str, custom: str) -> None:
    assert roundtrip("  " + generic, ARGS)[0] == custom


def test_constant_names_and_forms() -> None:
    lines = roundtrip(
        '  %0 = "stablehlo.constant"() <{value = dense<[-1]> : tensor<1xi64>}> : '
        '() -> tensor<1xi64>\n'
        '  %1 = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>\n'
        '  %2 = stablehlo.constant {attr = 1 : i32} dense<1.5> : tensor<2xf32>\n'
        '  %3 = stablehlo.constant() {value = dense<[3]> : tensor<1xi8>} : '
        '() -> tensor<1x!quant.uniform<i8:f32, 2.000000e+00:15>>')
    assert lines == [
        "%c = stablehlo.constant dense<-1> : tensor<1xi64>",
        "%c_0 = stablehlo.constant dense<true> : tensor<i1>",
        "%cst = stablehlo.constant {attr = 1 : i32} dense<1.500000e+00> : tensor<2xf32>",
        "%cst_1 = stablehlo.constant() <{value = dense<3> : tensor<1xi8>}> : "
        "() -> tensor<1x!quant.uniform<i8:f32, 2.000000e+00:15>>",
    ]


def test_get_tuple_element_syntax() -> None:
    lines = roundtrip(
        '  %0 = "stablehlo.get_tuple_element"(%t) {index = 1 : i32} : '
        '(tuple<tensor<i32>, tensor<f32>>) -> tensor<f32>',
        "%t: tuple<tensor<i32>, tensor<f32>>")
    assert lines[0] == ("%0 = stablehlo.get_tuple_element %arg0[1] : "
                        "(tuple<tensor<i32>, tensor<f32>>) -> tensor<f32>")


def test_default_result_accuracy_is_elided() -> None:
    lines = roundtrip(
        '  %0 = "stablehlo.exponential"(%f) {result_accuracy = #stablehlo.result_accuracy<'
        'atol = 0.0, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : '
        '(tensor<2xf32>) -> tensor<2xf32>', "%f: tensor<2xf32>")
    assert lines[0] == "%0 = stablehlo.exponential %arg0 : tensor<2xf32>"


def test_map_prints_generic() -> None:
    lines = roundtrip(
        '  %0 = "stablehlo.map"(%a, %a) ({\n'
        '  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n'
        '    %1 = stablehlo.add %x, %y : tensor<i32>\n'
        '    stablehlo.return %1 : tensor<i32>\n'
        '  }) {dimensions = array<i64: 0>} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>',
        "%a: tensor<2xi32>")
    assert lines[0] == '%0 = "stablehlo.map"(%arg0, %arg0) <{dimensions = array<i64: 0>}> ({'


# ---- verifiers ---------------------------------------------------------------------------

from shlo_cli.ir.diagnostics import Diagnostic  # noqa: E402


def verify_first(body: str, args: str = "") -> str | None:
    """Run the verifier of every op of `body`; the first error message, or None."""
    module = parse_source(f"func.func @f({args}) {{\n{body}\n  func.return\n}}\n")
    try:
        for op in module.op.walk():
            if op.opdef is not None and op.opdef.verify is not None:
                op.opdef.verify(op)
    except Diagnostic as d:
        return d.message
    return None


@pytest.mark.parametrize(("body", "args", "message"), [
    ('%0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4xi32>', "",
     "iota dimension cannot go beyond the output rank."),
    ('%0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<i32>', "",
     "does not support scalars."),
    ('%t = stablehlo.create_token : !stablehlo.token\n'
     '%0:2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> '
     '(tensor<?xf32>, !stablehlo.token)', "",
     "'stablehlo.infeed' op result #0 must be variadic of statically shaped tensor of "
     "4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with "
     "32/64-bit float elements or per-tensor integer quantized values or statically shaped "
     "tensor or token, but got 'tensor<?xf32>'"),
    ('%0:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> '
     '(tensor<2xui64>, tensor<?xui32>)', "%s: tensor<2xui64>",
     "'stablehlo.rng_bit_generator' op result #1 must be statically shaped tensor of "
     "2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float values, but got "
     "'tensor<?xui32>'"),
    ("%0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<?xi64>) -> tensor<?xf32>",
     "%s: tensor<?xi64>",
     "'stablehlo.dynamic_iota' op operand #0 must be statically shaped 1-dimensional tensor "
     "of index or 4/8/16/32/64-bit signless integer or 4/8/16/32/64-bit unsigned integer "
     "values, but got 'tensor<?xi64>'"),
    ("%0 = stablehlo.dynamic_pad %a, %v, %l, %l, %l : (tensor<4xf32>, tensor<f32>, "
     "tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>",
     "%a: tensor<4xf32>, %v: tensor<f32>, %l: tensor<?xi64>",
     "'stablehlo.dynamic_pad' op operand #2 must be statically shaped 1-dimensional tensor "
     "of index or 4/8/16/32/64-bit signless integer or 4/8/16/32/64-bit unsigned integer "
     "values, but got 'tensor<?xi64>'"),
    ('%0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<'
     "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
     "index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<?xi64>) -> "
     "tensor<2x3xf32>", "%a: tensor<4x3xf32>, %i: tensor<2x1xi64>, %s: tensor<?xi64>",
     "'stablehlo.dynamic_gather' op operand #2 must be statically shaped 1-dimensional "
     "integer tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<?xi64>'"),
    ('%0 = "stablehlo.dynamic_conv"(%a, %b, %p) {dimension_numbers = #stablehlo.conv<[b, 0, '
     "f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64}"
     " : (tensor<1x8x2xf32>, tensor<3x2x4xf32>, tensor<1x2xf32>) -> tensor<1x?x4xf32>",
     "%a: tensor<1x8x2xf32>, %b: tensor<3x2x4xf32>, %p: tensor<1x2xf32>",
     "'stablehlo.dynamic_conv' op operand #2 must be statically shaped 2-dimensional integer "
     "tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<1x2xf32>'"),
    ('%0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<2x?xi32>', "",
     "'stablehlo.iota' op result #0 must be statically shaped tensor of 2/4/8/16/32/64-bit "
     "integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or "
     "per-tensor integer quantized values, but got 'tensor<2x?xi32>'"),
    ('%0 = "stablehlo.clamp"(%b, %a, %a) : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>) -> '
     'tensor<1xi32>', "%a: tensor<1xi32>, %b: tensor<2xi32>",
     "min shape [2] is not scalar and is not compatible to operand shape [1]"),
    ('%0 = "stablehlo.real"(%c) : (tensor<2xcomplex<f32>>) -> tensor<2xf16>',
     "%c: tensor<2xcomplex<f32>>",
     "'stablehlo.real' op inferred type(s) 'tensor<2xf32>' are incompatible with return "
     "type(s) of operation 'tensor<2xf16>'"),
    ('%0 = "stablehlo.bitcast_convert"(%d) : (tensor<2xf64>) -> tensor<2x4xf32>',
     "%d: tensor<2xf64>",
     "requires compatible bit widths. Got: 'tensor<2xf64>' and 'tensor<2x4xf32>', "
     "but 32 * 4 != 64."),
    ('%0 = "stablehlo.get_tuple_element"(%t) {index = 2 : i32} : '
     '(tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>', "%t: tuple<tensor<f32>, tensor<i32>>",
     "index 2 is out of bounds of operand with size 2"),
    ('%0 = stablehlo.add %d, %f : (tensor<2xf64>, tensor<2xf32>) -> tensor<2xf64>',
     "%d: tensor<2xf64>, %f: tensor<2xf32>",
     "'stablehlo.add' op requires the same element type for all operands and results"),
    ('%0 = "stablehlo.floor"(%a) : (tensor<1xi32>) -> tensor<1xi32>', "%a: tensor<1xi32>",
     "'stablehlo.floor' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or "
     "per-tensor integer quantized values, but got 'tensor<1xi32>'"),
    ('%0 = "stablehlo.select"(%p, %a, %b) : (tensor<1xi1>, tensor<1xi32>, tensor<2xi32>) -> '
     'tensor<1xi32>', "%p: tensor<1xi1>, %a: tensor<1xi32>, %b: tensor<2xi32>",
     "requires compatible types for non-predicate operands"),
])
def test_verifier_reports_upstream_message(body: str, args: str, message: str) -> None:
    assert verify_first("  " + body, args) == message


@pytest.mark.parametrize("generic", [g for g, _ in GENERIC_TO_CUSTOM])
def test_verifiers_accept_valid_ops(generic: str) -> None:
    assert verify_first("  " + generic, ARGS) is None


@pytest.mark.parametrize("fields, name", [
    ("atol = 0.0, rtol = 0.0, ulps = DEFAULT, mode = #stablehlo.result_accuracy_mode<DEFAULT>",
     "ulps"),
    ("atol = vhlo.cosine_v1, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>",
     "atol"),
    ("atol = 0.0, rtol = 0.0, ulps = 1.5, mode = #stablehlo.result_accuracy_mode<DEFAULT>", "ulps"),
    ("atol = 0.0, rtol = 0.0, ulps = 0, mode = 3", "mode"),
])
def test_result_accuracy_fields_have_their_types(fields: str, name: str) -> None:
    """A field of the wrong kind is a parse error naming it (it reached the VHLO conversion,
    an internal error there, found by the mutation fuzzer)."""
    text = ("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
            '  %0 = "stablehlo.cosine"(%a) {result_accuracy = '
            f"#stablehlo.result_accuracy<{fields}>}} : (tensor<f32>) -> tensor<f32>\n"
            "  return %0 : tensor<f32>\n}")
    with pytest.raises(Diagnostic, match=f"ResultAccuracyAttr parameter '{name}'"):
        parse_source(text, "t.mlir")
