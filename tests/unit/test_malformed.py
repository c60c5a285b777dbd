"""Malformed inputs give a located MLIR-style diagnostic, never a traceback.

Each row: a case name, the source text, and the expected `line:col` and message. Every case
is checked three ways: in-process through the parser and verifier, and through the `shlo parse` and
`stablehlo-opt` front ends (exit status 1, `file:line:col: error: msg`, source line and caret).
"""
# ruff: noqa: E501

from __future__ import annotations

import pytest
from click.testing import CliRunner

from shlo_cli.commands.main import cli
from shlo_cli.commands.opt import opt
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module

F = ('func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n'
     '  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n'
     '  func.return %0 : tensor<2xf32>\n}\n')


def op(line: str) -> str:
    """A function whose body holds `line` (line 2 of the file) before the return."""
    return ('func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n  ' + line
            + '\n  func.return %arg0 : tensor<2xf32>\n}\n')


def attr(a: str) -> str:
    """An op with the discardable attribute `x = <a>` (the value starts at 2:38)."""
    return op('"stablehlo.add"(%arg0, %arg0) {x = ' + a
              + '} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>')


def ty(t: str) -> str:
    """An op whose result type is `t` (the type starts at 2:74)."""
    return op('%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ' + t)


CASES: list[tuple[str, str, int, int, str]] = [
    ('quant_storage_min', ty('tensor<2x!quant.uniform<i8<-200:127>:f32, 1.0>>'),
     2, 83, 'illegal storage type minimum: -200'),
    ('quant_empty_storage_range', ty('tensor<2x!quant.uniform<i8<1:0>:f32, 1.0>>'),
     2, 83, 'illegal storage min and storage max: (1:0)'),
    ('quant_zero_scale', ty('tensor<2x!quant.uniform<i8:f32, 0.0:1>>'),
     2, 109, 'scale 0.000000e+00 out of expressed type range [1.401298e-45, 3.402823e+38]'),
    ('quant_axis_scale_range', ty('tensor<2x!quant.uniform<i8:f16:0, {0.1, 7.0e+04:2}>>'),
     2, 121, 'scale 7.000000e+04 out of expressed type range [5.960464e-08, 6.550400e+04]'),
    ('quant_negative_axis', ty('tensor<2x!quant.uniform<i8:f32:-1, {0.1:-30}>>'),
     2, 83, 'illegal quantized dimension: -1'),
    ('bounds_length', ty('tensor<?x?xf32, #stablehlo.bounds<3>>'),
     2, 110, "Bounds length is 1, expected to be equal to rank(2) of the tensor 'tensor<?x?xf32>'"),
    ('bounds_on_static_dim', ty('tensor<2xf32, #stablehlo.type_extensions<bounds = [3]>>'),
     2, 128, "Static dimension 0 cannot have a bound, use ShapedType::kDynamic to indicate a missing bound in tensor 'tensor<2xf32>'"),
    ('dense_two_top_level', attr('dense<6[1, 2]> : tensor<2xi64>'),
     2, 45, "expected '>'"),
    ('dense_hex_float_too_wide', attr('dense<[0x1FFFF, 1.0]> : tensor<2xf16>'),
     2, 45, 'hexadecimal float constant out of range for type'),
    ('truncated_region', F[:60],
     2, 5, 'expected operation name in quotes'),
    ('truncated_after_name', 'func.func',
     1, 10, "custom op 'func.func' expected valid '@'-identifier for symbol name"),
    ('truncated_op', F[:100],
     2, 46, "expected '<' in tensor type"),
    ('truncated_type', 'func.func @f(%arg0: tensor<2x',
     1, 29, 'expected non-function type'),
    ('empty_func_args_unclosed', 'func.func @f(%arg0: tensor<2xf32>',
     1, 33, "expected ')'"),
    ('unknown_custom_op', op('%0 = stablehlo.frobnicate %arg0 : tensor<2xf32>'),
     2, 8, "custom op 'stablehlo.frobnicate' is unknown"),
    # An unprefixed name was also tried in the default dialect (builtin at the top level,
    # func in a function: MLIR's parseCustomOperationName)
    ('unknown_bare_op_in_func', op('frobnicate'),
     2, 3, "custom op 'frobnicate' is unknown (tried 'func.frobnicate' as well)"),
    ('unknown_bare_op_at_top', 'frobnicate\n',
     1, 1, "custom op 'frobnicate' is unknown (tried 'builtin.frobnicate' as well)"),
    ('unregistered_generic_op', op('"stablehlo.frobnicate"(%arg0) : (tensor<2xf32>) -> ()'),
     2, 3, "unregistered operation 'stablehlo.frobnicate' found in dialect ('stablehlo') that does not allow unknown operations"),
    ('unknown_dialect_op', op('"foo.bar"() : () -> ()'),
     2, 3, 'operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used'),
    ('bad_element_type', ty('tensor<2xfoo>'),
     2, 83, 'expected non-function type'),
    ('bad_dim', ty('tensor<2x-3xf32>'),
     2, 83, 'expected non-function type'),
    ('unclosed_tensor', ty('tensor<2xf32'),
     2, 86, "expected '>' in tensor type"),
    ('tensor_of_tensor', ty('tensor<2xtensor<f32>>'),
     2, 83, 'invalid tensor element type'),
    ('int_width_huge', ty('tensor<2xi99999999>'),  # Parser: the IntegerType limit
     2, 83, 'integer bitwidth is limited to 16777215 bits'),
    ('int_width_not_unsigned', ty('tensor<2xi4294967296>'),  # Token::getIntTypeBitwidth
     2, 83, 'invalid integer width'),
    ('complex_of_tensor', ty('tensor<2xcomplex<tensor<f32>>>'),
     2, 91, 'invalid element type for complex'),
    ('unclosed_tuple', ty('tuple<tensor<f32>'),
     2, 91, "expected '>' in tuple type"),
    # MLIR reports a missing token that would start a line at the end of the previous line.
    ('function_type_no_arrow', op('%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>)'),
     2, 70, "expected '->' in function type"),
    ('generic_result_not_function', op('%0 = "stablehlo.add"(%arg0, %arg0) : tensor<2xf32>'),
     2, 38, 'expected function type'),
    ('generic_missing_colon', op('%0 = "stablehlo.add"(%arg0, %arg0)'),
     2, 37, "expected ':' followed by operation type"),
    ('generic_operand_count', op('%0 = "stablehlo.add"(%arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     2, 31, 'expected 1 operand type but had 2'),
    ('dense_shape_mismatch', attr('dense<[1, 2]> : tensor<3xi32>'),
     2, 38, 'inferred shape of elements literal ([2]) does not match type ([3])'),
    ('dense_float_in_int', attr('dense<1.5> : tensor<2xi32>'),
     2, 44, 'expected integer elements, but parsed floating-point'),
    ('dense_ragged', attr('dense<[[1, 2], [3]]> : tensor<2x2xi32>'),
     2, 56, 'tensor literal is invalid; ranks are not consistent between elements'),
    ('dense_rank_mix', attr('dense<[1, [2]]> : tensor<2xi32>'),
     2, 51, 'tensor literal is invalid; ranks are not consistent between elements'),
    ('dense_unclosed_bracket', attr('dense<[1, 2> : tensor<2xi32>'),
     2, 49, "expected ']'"),
    ('dense_bad_token', attr('dense<[1, foo]> : tensor<2xi32>'),
     2, 48, 'expected element literal of primitive type'),
    ('dense_not_shaped', attr('dense<1> : i32'),
     2, 38, 'elements literal must be a shaped type'),
    ('dense_dynamic', attr('dense<1> : tensor<?xi32>'),
     2, 38, 'elements literal type must have static shape'),
    ('dense_empty_nonzero', attr('dense<> : tensor<2xi32>'),
     2, 38, "parsed zero elements, but type ('tensor<2xi32>') expected at least 1"),
    ('dense_int_out_of_range', attr('dense<300> : tensor<2xi8>'),
     2, 44, 'integer constant out of range for type'),
    ('dense_uint_negative', attr('dense<-1> : tensor<2xui8>'),  # at the number, as MLIR
     2, 45, 'expected unsigned integer elements, but parsed negative value'),
    # element errors point at the element, not the literal's start
    ('dense_int_out_of_range_later', attr('dense<[1, 300]> : tensor<2xi8>'),
     2, 48, 'integer constant out of range for type'),
    ('dense_decimal_int_for_float', attr('dense<[1.5, 2]> : tensor<2xf32>'),
     2, 50, 'unexpected decimal integer literal for a floating point value'),
    ('dense_decimal_int_for_complex', attr('dense<(1.5, 2)> : tensor<complex<f32>>'),
     2, 50, 'unexpected decimal integer literal for a floating point value'),
    ('dense_negative_hex_float', attr('dense<-0x7F> : tensor<f32>'),
     2, 45, 'hexadecimal float literal should not have a leading minus'),
    ('dense_bool_bad', attr('dense<2> : tensor<2xi1>'),
     2, 44, 'integer constant out of range for type'),
    ('dense_hex_bad_digit', attr('dense<"0xZZ"> : tensor<1xi8>'),
     2, 44, 'expected string containing hex digits starting with `0x`'),
    ('dense_hex_bad_size', attr('dense<"0x0102"> : tensor<3xi8>'),
     2, 38, "elements hex data size is invalid for provided type: 'tensor<3xi8>'"),
    ('dense_hex_no_prefix', attr('dense<"1234"> : tensor<2xi8>'),
     2, 44, 'expected string containing hex digits starting with `0x`'),
    ('dense_complex_bad', attr('dense<(1.0)> : tensor<2xcomplex<f32>>'),
     2, 48, "expected ',' between complex elements"),
    ('dense_missing_type', attr('dense<1>'),
     2, 46, "expected ':'"),
    ('float_attr_decimal_integer', attr('42 : f32'),
     2, 38, 'unexpected decimal integer literal for a floating point value'),
    ('float_attr_negative_hex', attr('-0x1 : f32'),
     2, 39, 'hexadecimal float literal should not have a leading minus'),
    ('float_array_decimal_integer', attr('array<f32: 1.0, 2>'),
     2, 54, 'unexpected decimal integer literal for a floating point value'),
    ('dense_stray_exponent', attr('dense<[1.5, 2e5]> : tensor<2xf32>'),
     2, 51, "expected ']'"),
    ('int_attr_out_of_range', attr('300 : i8'),
     2, 38, 'integer constant out of range for attribute'),
    ('int_attr_huge', attr('99999999999999999999 : i64'),
     2, 38, 'integer constant out of range for attribute'),
    ('uint_attr_negative', attr('-1 : ui8'),
     2, 39, 'negative integer literal not valid for unsigned integer type'),
    ('float_attr_int_type', attr('1.5 : i32'),
     2, 38, 'floating point value not valid for specified type'),
    ('hex_float_too_wide', attr('0x12345 : f16'),
     2, 38, 'hexadecimal float constant out of range for type'),
    ('array_bad_element', attr('array<i64: 1, x>'),
     2, 52, 'expected integer literal'),
    ('array_unclosed', attr('array<i64: 1, 2'),
     2, 53, "expected '>' to close an array attribute"),
    # MLIR's lexer has no `inf`/`nan` words and no `+` sign (MLIR's TensorLiteralParser,
    # parseAttribute, DenseArrayElementParser).
    ('dense_nan_word', attr('dense<nan> : tensor<f32>'),
     2, 44, 'expected element literal of primitive type'),
    ('dense_inf_in_list', attr('dense<[1.0, inf]> : tensor<2xf32>'),
     2, 50, 'expected element literal of primitive type'),
    ('dense_minus_inf', attr('dense<-inf> : tensor<f32>'),
     2, 45, 'expected integer or floating point literal'),
    ('dense_plus_sign', attr('dense<+1.0> : tensor<f32>'),
     2, 44, 'expected element literal of primitive type'),
    ('float_attr_nan_word', attr('nan : f32'),
     2, 37, 'expected attribute value'),
    ('float_attr_minus_inf', attr('-inf : f32'),
     2, 39, 'expected constant integer or floating point value'),
    ('float_array_nan_word', attr('array<f32: nan>'),
     2, 49, 'expected floating point literal'),
    # Elements are comma separated, each list item the same shape.
    ('dense_missing_comma', attr('dense<[1 2]> : tensor<2xi32>'),
     2, 46, "expected ']'"),  # MLIR's parseToken: right after the `1`
    ('dense_double_comma', attr('dense<[1,,2]> : tensor<2xi32>'),
     2, 47, 'expected element literal of primitive type'),
    ('dense_trailing_comma', attr('dense<[1, 2,]> : tensor<2xi32>'),
     2, 50, 'expected element literal of primitive type'),
    ('dense_list_for_scalar', attr('dense<[1]> : tensor<i32>'),
     2, 38, 'inferred shape of elements literal ([1]) does not match type ([])'),
    ('dense_bool_in_int', attr('dense<[1, true]> : tensor<2xi32>'),
     2, 48, "expected i1 type for 'true' or 'false' values"),
    ('dense_bool_in_float', attr('dense<[1.0, true]> : tensor<2xf32>'),
     2, 50, 'expected floating point literal'),
    ('dense_complex_count', attr('dense<[(1.0, 2.0), 3.0]> : tensor<2xcomplex<f32>>'),
     2, 38, "parsed 3 elements, but type ('tensor<2xcomplex<f32>>') expected 4 elements"),
    ('array_bool_in_int', attr('array<i8: true>'),
     2, 48, "expected i1 type for 'true' or 'false' values"),
    ('array_int_in_bool', attr('array<i1: 1>'),  # MLIR reports it after the number
     2, 49, "expected 'true' or 'false' values for i1 type"),
    ('array_int_out_of_range', attr('array<i8: 300>'),
     2, 51, 'integer constant out of range'),
    # MLIR's buildAttributeAPInt: a negated zero has no sign bit (out of range), si and
    # index values may not set the sign bit, only signless ones take the unsigned spelling.
    ('dense_minus_zero_int', attr('dense<[1, -0]> : tensor<2xi32>'),
     2, 49, 'integer constant out of range for type'),
    ('int_attr_minus_zero', attr('-0 : i32'),
     2, 39, 'integer constant out of range for attribute'),
    ('array_minus_zero', attr('array<i64: -0>'),
     2, 51, 'integer constant out of range'),
    ('dense_si8_bit_pattern', attr('dense<200> : tensor<si8>'),
     2, 44, 'integer constant out of range for type'),
    ('index_attr_sign_bit', attr('18446744073709551615 : index'),
     2, 38, 'integer constant out of range for attribute'),
    ('int_literal_for_tensor_type', attr('5 : tensor<i32>'),
     2, 38, 'integer literal not valid for specified type'),
    ('attr_missing_value', attr('}'),
     2, 37, 'expected attribute value'),
    ('attr_duplicate_key', op('"stablehlo.add"(%arg0, %arg0) {x = 1, x = 2} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     2, 41, "duplicate key 'x' in dictionary attribute"),
    ('attr_unknown_alias', attr('#foo'),
     2, 38, "undefined symbol alias id 'foo'"),
    ('type_unknown_alias', ty('!foo'),
     2, 74, "undefined symbol alias id 'foo'"),
    ('unterminated_string', attr('"abc'),  # at the line's end, where MLIR's lexer stops
     2, 93, 'expected \'"\' in string literal'),
    ('unexpected_character', op('%0 = "stablehlo.add"(%arg0, %arg0) $ : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     2, 38, 'unexpected character'),
    ('undefined_value', op('%0 = "stablehlo.add"(%arg0, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     2, 31, 'use of undeclared SSA value name'),
    ('type_mismatch', op('%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>'),
     2, 31, "use of value '%arg0' expects different type than prior uses: 'tensor<3xf32>' vs 'tensor<2xf32>'"),
    ('redefinition', op('%arg0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     2, 3, "redefinition of SSA value '%arg0'"),
    ('result_count', op('%0:2 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     2, 3, 'operation defines 1 results but was provided 2 to bind'),
    ('result_index_out_of_range', op('%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n  %1 = "stablehlo.add"(%0#3, %0#3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     3, 24, 'reference to invalid result number'),
    ('missing_equals', op('%0 "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     2, 5, "expected '=' after SSA name"),
    ('undefined_block', op('"func.return"(%arg0)[^bb9] : (tensor<2xf32>) -> ()'),
     2, 24, "reference to an undefined block '^bb9'"),
    ('region_unclosed', op('%0 = "stablehlo.reduce"(%arg0, %arg0) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    "stablehlo.return"(%a) : (tensor<f32>) -> ()\n  : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>'),
     4, 49, 'expected operation name in quotes'),
    ('block_arg_missing_type', op('"stablehlo.reduce"(%arg0, %arg0) ({\n  ^bb0(%a, %b: tensor<f32>):\n    "stablehlo.return"(%a) : (tensor<f32>) -> ()\n  }) : (tensor<2xf32>, tensor<2xf32>) -> ()'),
     3, 10, "expected ':' and type for SSA operand"),  # MLIR's words (jaxlib)
    ('block_redefinition', op('"stablehlo.reduce"(%arg0, %arg0) ({\n  ^bb0:\n    "stablehlo.return"() : () -> ()\n  ^bb0:\n    "stablehlo.return"() : () -> ()\n  }) : (tensor<2xf32>, tensor<2xf32>) -> ()'),
     5, 3, "redefinition of block '^bb0'"),
    ('bad_symbol_name', 'func.func f() {\n}\n',
     1, 11, "custom op 'func.func' expected valid '@'-identifier for symbol name"),
    ('stray_close_brace', F + '}\n',
     4, 2, 'expected operation name in quotes'),
    ('location_unclosed', op('%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("x":1:2'),
     2, 99, "expected ')' in location"),
    ('quant_bad', ty('tensor<2x!quant.uniform<i8>>'),
     2, 97, 'invalid quantized type'),
    ('quant_bad_expressed', ty('tensor<2x!quant.uniform<i8:foo, 1.0>>'),
     2, 97, "invalid expressed type 'foo'"),
    ('quant_scale_dot', ty('tensor<2x!quant.uniform<i8:f32, .:17>>'),
     2, 97, 'invalid quantization parameters'),
    ('quant_scale_two_dots', ty('tensor<2x!quant.uniform<i8:f32:0, {1.2.3:1}>>'),
     2, 97, 'invalid quantization parameters'),
    ('custom_op_type_mismatch', op('%0 = stablehlo.add %arg0, %arg0 : tensor<3xf32>'),
     2, 22, "use of value '%arg0' expects different type than prior uses: 'tensor<3xf32>' vs 'tensor<2xf32>'"),
    ('custom_op_missing_type', op('%0 = stablehlo.add %arg0, %arg0'),
     2, 34, "expected ':'"),
    ('custom_op_missing_operand', op('%0 = stablehlo.add %arg0, : tensor<2xf32>'),
     2, 28, 'expected SSA operand'),
    ('unbalanced_paren_type', ty('(tensor<2xf32> -> tensor<2xf32>'),
     2, 88, "expected ')'"),
    ('unbalanced_dialect_attr', attr('#stablehlo<comparison_direction EQ'),
     2, 48, "unbalanced '<' character in pretty dialect name"),
    ('return_missing_type', 'func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %arg0\n}\n',
     2, 20, "expected ':'"),
    # MLIR hands each entry to its dialect as it is read: the value is refused first
    ('bad_resource_section', F + '{-#\n  dialect_resources: {\n    builtin: {\n      blob: 12\n#-}\n',
     8, 13, "expected hex string blob for key 'blob'"),
    ('value_as_op_name', op('%0 = %arg0'),
     2, 7, 'expected operation name in quotes'),
    ('unranked_missing_x', 'func.func @f(%a: tensor<*f32>) {\n}\n',
     1, 26, "expected 'x' in unranked tensor type"),
    ('dim_without_element', 'func.func @f(%a: tensor<2x?x>) {\n}\n',
     1, 29, 'expected non-function type'),
    ('redefinition_in_body', op('%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     3, 3, "redefinition of SSA value '%0'"),
    ('location_bad_instance', op('"stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(42)'),
     2, 87, 'expected location instance'),
    ('location_undefined_alias', op('"stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(#loc9)'),
     2, 87, "undefined symbol alias id 'loc9'"),
    ('empty_file_garbage', '42\n',
     1, 1, 'expected operation name in quotes'),
    ('bad_properties', op('%0 = "stablehlo.add"(%arg0, %arg0) <{x = }> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>'),
     2, 43, 'expected attribute value'),
]


def test_there_are_many_cases() -> None:
    assert len(CASES) >= 50
    assert len({name for name, *_ in CASES}) == len(CASES)


@pytest.mark.parametrize(("name", "text", "line", "col", "message"), CASES,
                         ids=[c[0] for c in CASES])
def test_parser_reports_located_error(name: str, text: str, line: int, col: int,
                                      message: str) -> None:
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text, "bad.mlir"))  # what every front end runs
    diag = info.value
    assert (diag.line, diag.col, diag.message) == (line, col, message)
    rendered = diag.render().split("\n")
    assert rendered[0] == f"bad.mlir:{line}:{col}: error: {message}"
    assert rendered[1] == text.split("\n")[line - 1]
    assert rendered[2] == " " * (col - 1) + "^"


def _run(command: object, args: list[str], path: str) -> tuple[int, str]:
    result = CliRunner().invoke(command, args + [path])  # type: ignore[arg-type]
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), \
        result.exception
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("name", "text", "line", "col", "message"), CASES,
                         ids=[c[0] for c in CASES])
def test_front_ends_exit_1_with_diagnostic(tmp_path, name: str, text: str, line: int, col: int,
                                           message: str) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    for command, args in ((cli, ["parse"]), (opt, [])):
        code, stderr = _run(command, args, str(path))
        assert code == 1
        assert "Traceback" not in stderr
        assert stderr.startswith(f"{path}:{line}:{col}: error: {message}\n"), stderr


def test_deep_nesting_is_a_diagnostic() -> None:
    text = "func.func @f(%a: " + "tuple<" * 5000 + "i32" + ">" * 5000 + ") {\n}\n"
    with pytest.raises(Diagnostic) as info:
        parse_source(text, "deep.mlir")
    assert info.value.message == "nesting is too deep to parse"
    assert info.value.render().startswith("deep.mlir:1:")
