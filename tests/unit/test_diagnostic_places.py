"""Where and in which words parse and verifier errors are reported, as MLIR reports them
(found by differential fuzzing against jaxlib's MLIR): an operand's type clash at that
operand's own token, `func.return`'s type mismatch as MLIR's emitError with quoted types,
the pretty `stablehlo.reduce` placed at the token after its name, a too-wide hex float at
its element."""

from __future__ import annotations

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module


def first_error(text: str) -> tuple[int | None, int | None, str]:
    """(line, column, message) of the first error parsing and verifying `text`."""
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text, "t.mlir"))
    d = info.value
    return d.line, d.col, d.message


CLASH = "use of value '{}' expects different type than prior uses: '{}' vs '{}'"


@pytest.mark.parametrize(("statement", "col", "name"), [
    # generic form: the clashing operand, not the op name
    ('  %1 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>',
     28, "%b"),
    # a result of a group is named without its `#N`, at its own token
    ('  %1 = "stablehlo.add"(%p#0, %p#1) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>',
     30, "%p"),
    # custom form with an operand list in parentheses
    ("  stablehlo.custom_call @t(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> ()", 32, "%b"),
    # the same value twice: the second use is the one that clashes
    ("  stablehlo.custom_call @t(%a, %b, %b) : (tensor<2xf32>, tensor<2xf32>, tensor<3xf32>) "
     "-> ()", 36, "%b"),
])
def test_operand_type_clash_is_reported_at_the_operand(statement: str, col: int,
                                                       name: str) -> None:
    text = ("func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) {\n"
            '  %p:2 = "stablehlo.optimization_barrier"(%a, %b) : (tensor<2xf32>, '
            "tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n"
            f"{statement}\n  func.return\n}}\n")
    assert first_error(text) == (3, col, CLASH.format(name, "tensor<3xf32>", "tensor<2xf32>"))


def test_return_type_mismatch_is_mlirs_emit_error() -> None:
    text = ("func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
            "  func.return %a : tensor<2xf32>\n}\n")
    assert first_error(text) == (
        2, 3, "type of return operand 0 ('tensor<2xf32>') doesn't match function result type "
              "('tensor<3xf32>') in function @f")


@pytest.mark.parametrize("dims", ["[0, 0]", "[-1]"])
def test_pretty_reduce_is_placed_after_its_name(dims: str) -> None:
    text = ("func.func @f(%a: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {\n"
            f"  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = "
            f"{dims} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
            "  func.return %0 : tensor<f32>\n}\n")
    line, col, _ = first_error(text)
    assert (line, col) == (2, 24)
    reducer = ("    reducer(%x: tensor<f32>, %y: tensor<f32>) {\n"
               "      %s = stablehlo.add %x, %y : tensor<f32>\n"
               "      stablehlo.return %s : tensor<f32>\n    }\n")
    region_form = text.replace("applies stablehlo.add across", "across").replace(
        "-> tensor<f32>\n  func", "-> tensor<f32>\n" + reducer + "  func", 1)
    line, col, _ = first_error(region_form)
    assert (line, col) == (2, 24)


@pytest.mark.parametrize("etype", ["f16", "bf16", "f32"])
def test_too_wide_hex_float_is_reported_at_its_element(etype: str) -> None:
    text = (f"func.func @f() -> tensor<2x{etype}> {{\n"
            f"  %0 = stablehlo.constant dense<[0x0000, 0x1FFFFFFFFF]> : tensor<2x{etype}>\n"
            f"  func.return %0 : tensor<2x{etype}>\n}}\n")
    assert first_error(text) == (2, 42, "hexadecimal float constant out of range for type")


@pytest.mark.parametrize(("literal", "message"), [
    ("dense<[1.0, 2.0]> : tensor<2xcomplex<f32>>",
     "parsed 2 elements, but type ('tensor<2xcomplex<f32>>') expected 4 elements"),
    ("dense<1.0> : tensor<2xcomplex<f32>>",
     "parsed 1 elements, but type ('complex<f32>') expected 2 elements"),
    ('dense<"0x0000"> : tensor<2xf32>',
     "elements hex data size is invalid for provided type: 'tensor<2xf32>'"),
])
def test_types_in_literal_errors_are_quoted(literal: str, message: str) -> None:
    """MLIR quotes a type streamed into a diagnostic."""
    text = f"func.func @f() {{\n  %0 = stablehlo.constant {literal}\n  func.return\n}}\n"
    assert first_error(text)[2] == message


def test_ragged_dot_shape_error_quotes_the_result_type() -> None:
    text = """func.func @f(%lhs: tensor<3x11x5xf32>, %rhs: tensor<3x5x7xf32>, %g: tensor<3xi64>) {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0],
      rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2],
      rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0],
      rhs_group_dimensions = []>
  } : (tensor<3x11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<3x11x8xf32>
  func.return
}
"""
    assert first_error(text) == (2, 8, "inferred shape '[3, 11, 7]' is incompatible with return "
                                       "type of operation 'tensor<3x11x8xf32>'")


@pytest.mark.parametrize(("text", "place", "message"), [
    # MLIR's emitWrongTokenError: right after the previous code, one back at end of input
    ("func.func @f() {\n  %0 = stablehlo.constant dense\n", (2, 32),
     "expected '<' after 'dense'"),
    ("func.func @f() {\n  %0 = stablehlo.constant dense<[1, 2]> \n", (2, 40), "expected ':'"),
    ('func.func @f(%a: tensor<2xf32>) {\n  %0 = "stablehlo.abs"(%a) {x = 1,  = 2} : '
     "(tensor<2xf32>) -> tensor<2xf32>\n  func.return\n}\n", (2, 35), "expected attribute name"),
])
def test_wrong_token_errors_in_attributes(text: str, place: tuple[int, int],
                                          message: str) -> None:
    assert first_error(text) == (*place, message)


@pytest.mark.parametrize(("attrs", "place", "message"), [
    # MLIR's lexer has no `::` token: the first `:` is the type's, the second no type
    (None, (2, 30), "expected non-function type"),
    # `@x::@y` nests a reference; after `::` another `@` name must follow
    ("a = @x::3", (2, 38), "expected nested symbol reference identifier"),
])
def test_double_colon_is_two_colons(attrs: str | None, place: tuple[int, int],
                                    message: str) -> None:
    if attrs is None:
        text = ("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
                "  %0 = stablehlo.add %a, %a :: tensor<f32>\n  func.return %0 : tensor<f32>\n}\n")
    else:
        text = f"module {{\n  func.func @f() attributes {{{attrs}}} {{\n    func.return\n  }}\n}}\n"
    assert first_error(text) == (*place, message)


def test_nested_symbol_references_parse() -> None:
    text = ("module {\n  func.func @f() attributes {a = @x::@y::@w, b = @x: :@z} {\n"
            "    func.return\n  }\n}\n")
    func = parse_source(text, "t.mlir").body.operations[0]
    assert str(func.attributes["a"]) == "@x::@y::@w"
    assert str(func.attributes["b"]) == "@x::@z"


@pytest.mark.parametrize(("text", "place", "message"), [
    # a block's argument list, then its `:`
    ("func.func @f(%a: tensor<2xf32>) {\n  %0 = \"stablehlo.reduce\"(%a, %a) ({\n"
     "  ^bb0(%x: tensor<f32>, %y: tensor<f32>)\n    stablehlo.return %x : tensor<f32>\n"
     "  }) {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n"
     "  func.return\n}\n", (3, 41), "expected ':' after block name"),
    ("func.func @f(%a: tensor<2xf32>) {\n  %0 = \"stablehlo.reduce\"(%a, %a) ({\n"
     "  ^bb0(%x%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return %x : tensor<f32>\n"
     "  }) {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n"
     "  func.return\n}\n", (3, 10), "expected ':' and type for SSA operand"),
    # a result group's count, right after the `:`
    ("func.func @f(%a: tensor<2xf32>) {\n  %0, %1 : tensor<2xf32>\n  func.return\n}\n",
     (2, 11), "expected integer number of results"),
    # `attributes` wants a dictionary
    ("module attributes x {\n}\n", (1, 18), "expected '{' in attribute dictionary"),
])
def test_parse_token_errors_worded_as_mlir(text: str, place: tuple[int, int],
                                           message: str) -> None:
    assert first_error(text) == (*place, message)


def _func_attribute(value: str) -> str:
    return f"module {{\n  func.func @f() attributes {{x = {value}}} {{\n    func.return\n  }}\n}}\n"


UNBALANCED = "unbalanced '{}' character in pretty dialect name"


@pytest.mark.parametrize(("text", "place", "message"), [
    # every kind of bracket nests in a dialect body; a closer that does not match names the
    # innermost open bracket, at the body's `<`
    (_func_attribute("#stablehlo.scatter<update_window_dims = 0, 1], inserted_window_dims = "
                     "[0]>"), (2, 52), UNBALANCED.format("<")),
    (_func_attribute("#stablehlo.scatter<update_window_dims = [0]], inserted_window_dims = "
                     "[0]>"), (2, 52), UNBALANCED.format("<")),
    # cut short: the innermost bracket left open
    ("module {\n  func.func @f() attributes {x = #stablehlo.scatter<update_window_dims = [0, 1",
     (2, 52), UNBALANCED.format("[")),
    ("func.func @f(%a: tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>\n", (1, 53),
     UNBALANCED.format("<")),
    # strings are lexed while scanning: one left open is the lexer's error
    (_func_attribute('#stablehlo.scatter<update_window_dims = [0], x = "a>'), (2, 89),
     "expected '\"' in string literal"),
])
def test_dialect_bodies_are_scanned_as_mlir_scans_them(text: str, place: tuple[int, int],
                                                       message: str) -> None:
    assert first_error(text) == (*place, message)


RESOLVE = "number of operands and types do not match: got {} operands and {} types"
PRESENT = "{} operands present, but expected {}"


@pytest.mark.parametrize(("statement", "col", "op", "message"), [
    # StableHLO's assignFromFunctionType: its own words, at the type
    ("%0 = stablehlo.add %a, %a : (tensor<f32>) -> tensor<f32>", 31, "add", PRESENT.format(2, 1)),
    ("%0 = stablehlo.complex %a, %a : (tensor<f32>) -> tensor<complex<f32>>", 35, "complex",
     PRESENT.format(2, 1)),
    # ODS's functional-type(operands, results): at the op's name ...
    ("%0 = stablehlo.dot_general %a, %a, contracting_dims = [] x [] : (tensor<f32>) -> "
     "tensor<f32>", 8, "dot_general", RESOLVE.format(2, 1)),
    ("%0 = stablehlo.custom_call @x(%a, %a) : (tensor<f32>) -> tensor<f32>", 8, "custom_call",
     RESOLVE.format(2, 1)),
    # ... or where the format's `operands` directive starts
    ("%0 = stablehlo.reshape %a : (tensor<f32>, tensor<f32>) -> tensor<f32>", 26, "reshape",
     RESOLVE.format(1, 2)),
    ('%0 = stablehlo.composite "x" %a, %a {decomposition = @f} : (tensor<f32>) -> tensor<f32>',
     32, "composite", RESOLVE.format(2, 1)),
    ("%0 = stablehlo.convolution(%a, %a) dim_numbers = [b, f]x[i, o]->[b, f], window = {} "
     "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<f32>) -> "
     "tensor<f32>", 30, "convolution", RESOLVE.format(2, 1)),
    # `type($operands)`: at the operands
    ("func.return %a, %a : tensor<f32>", 15, None, RESOLVE.format(2, 1)),
])
def test_operand_counts_worded_and_placed_as_mlir(statement: str, col: int, op: str | None,
                                                  message: str) -> None:
    text = f"func.func @f(%a: tensor<f32>) {{\n  {statement}\n  func.return\n}}\n"
    name = f"stablehlo.{op}" if op else "func.return"
    assert first_error(text) == (2, col, f"custom op '{name}' {message}")


@pytest.mark.parametrize(("returned", "message"), [
    ("%x", RESOLVE.format(1, 0)),  # stablehlo.return's `: types` is optional
    (": tensor<f32>", RESOLVE.format(0, 1)),
])
def test_stablehlo_return_types_are_optional(returned: str, message: str) -> None:
    text = ("func.func @f(%a: tensor<2xf32>) {\n  %0 = \"stablehlo.reduce\"(%a, %a) ({\n"
            f"  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return {returned}\n"
            "  }) {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n"
            "  func.return\n}\n")
    assert first_error(text) == (4, 22, f"custom op 'stablehlo.return' {message}")


@pytest.mark.parametrize(("statement", "col", "op", "message"), [
    # an unknown case (fft's was accepted), named with the cases it may be, at the word
    ("%0 = stablehlo.fft %c, type = XX, length = [2] : (tensor<2xcomplex<f32>>) -> "
     "tensor<2xcomplex<f32>>", 33, "fft",
     "expected ::mlir::stablehlo::FftType to be one of: FFT, IFFT, RFFT, IRFFT"),
    ("%0 = stablehlo.compare XX, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>", 26,
     "compare", "expected ::mlir::stablehlo::ComparisonDirection to be one of: EQ, NE, GE, GT, "
                "LE, LT"),
    # parseKeywordOrString's words when neither comes
    ("%0 = stablehlo.compare , %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>", 26,
     "compare", "expected valid keyword or string"),
    ("%0 = stablehlo.dot_general %a, %a, contracting_dims = [] x [], precision = [,] : "
     "(tensor<f32>, tensor<f32>) -> tensor<f32>", 79, "dot_general",
     "expected valid keyword or string"),
])
def test_enum_cases_read_as_mlir_reads_them(statement: str, col: int, op: str,
                                            message: str) -> None:
    text = (f"func.func @f(%a: tensor<f32>, %c: tensor<2xcomplex<f32>>) {{\n  {statement}\n"
            "  func.return\n}\n")
    assert first_error(text) == (2, col, f"custom op 'stablehlo.{op}' {message}")


@pytest.mark.parametrize("statement", [
    '%0 = stablehlo.compare "EQ", %a, %a, "FLOAT" : (tensor<f32>, tensor<f32>) -> tensor<i1>',
    '%0 = stablehlo.fft %c, type = "FFT", length = [2] : (tensor<2xcomplex<f32>>) -> '
    "tensor<2xcomplex<f32>>",
    '%0 = stablehlo.dot %b, %b, precision = [DEFAULT, "HIGH"] : (tensor<2xf32>, tensor<2xf32>) '
    "-> tensor<f32>",
])
def test_enum_cases_may_be_strings(statement: str) -> None:
    text = (f"func.func @f(%a: tensor<f32>, %b: tensor<2xf32>, %c: tensor<2xcomplex<f32>>) {{\n"
            f"  {statement}\n  func.return\n}}\n")
    verify_module(parse_source(text, "t.mlir"))


@pytest.mark.parametrize(("call", "place", "message"), [
    # a callee that is no `@` name: MLIR reads an attribute there (`()` starts a function
    # type), then refuses its kind
    ("call () : () -> tensor<f32>", (3, 15), "expected '->' in function type"),
    ('call "x"() : () -> tensor<f32>', (3, 13),
     "custom op 'func.call' invalid kind of attribute specified"),
])
def test_call_without_a_symbol(call: str, place: tuple[int, int], message: str) -> None:
    text = (f"func.func @f() -> tensor<f32>\nfunc.func @g() {{\n  %0 = {call}\n"
            "  func.return\n}\n")
    assert first_error(text) == (*place, message)


@pytest.mark.parametrize(("text", "place", "message"), [
    # an I64Attr in a declarative format: MLIR reads an attribute value there
    ("func.func @f() {\n  %0 = stablehlo.iota dim =  : tensor<3x4xi8>\n  func.return\n}\n",
     (2, 28), "expected attribute value"),
    # a keyword of the format: ODS's parseKeyword, with the op's prefix, at the token
    ("func.func @f() {\n  %0 = stablehlo.iota\n  func.return\n}\n", (3, 3),
     "custom op 'stablehlo.iota' expected 'dim'"),
    # a generic op's properties: any attribute after `<`, closed by `>`
    ('func.func @f() {\n  %0 = "stablehlo.iota"() <{iota_dimension = 0 : i64} : () -> '
     "tensor<4xi8>\n  func.return\n}\n", (2, 54), "expected '>' to close properties"),
    ('func.func @f() {\n  %0 = "stablehlo.iota"() <<{iota_dimension = 0 : i64}> : () -> '
     "tensor<4xi8>\n  func.return\n}\n", (2, 28), "expected attribute value"),
    # a StableHLO struct attribute without its body: the dialect's parser wants `<`
    (_func_attribute("#stablehlo.scatter"), (2, 52), "expected '<'"),
])
def test_format_and_property_errors_as_mlir(text: str, place: tuple[int, int],
                                            message: str) -> None:
    assert first_error(text) == (*place, message)
