"""Scalar attributes of StableHLO ops are checked against their declared kind
(dialects/stablehlo/attr_kinds.py) before the op's verifier reads them: a value of another
kind is ODS's `failed to satisfy constraint` error, never an internal error."""

from __future__ import annotations

import pytest

from shlo_cli.dialects.stablehlo.attr_kinds import ATTRIBUTE_KINDS
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module

_CONCAT = ('%0 = "stablehlo.concatenate"(%a, %a) {{dimension = {value}}} : '
           '(tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>')
_SORT = ('%0 = "stablehlo.sort"(%a) ({{\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
         '    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n'
         '    stablehlo.return %c : tensor<i1>\n  }}) {{is_stable = {value}}} : '
         '(tensor<2xf32>) -> tensor<2xf32>')
_CALL = ('%0 = stablehlo.custom_call @foo(%a) {{backend_config = {value}}} : '
         '(tensor<2xf32>) -> tensor<2xf32>')
_PRECISION = ('%0 = "stablehlo.reduce_precision"(%a) {{exponent_bits = {value}, '
              'mantissa_bits = 2 : i32}} : (tensor<2xf32>) -> tensor<2xf32>')
_BATCH_NORM = ('%0 = "stablehlo.batch_norm_inference"(%m, %s, %s, %s, %s) {{epsilon = {value}, '
               'feature_index = 1 : i64}} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, '
               'tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>')


def _verify(statement: str, value: str) -> None:
    text = ("func.func @f(%a: tensor<2xf32>, %m: tensor<2x2xf32>, %s: tensor<2xf32>) {\n"
            f"  {statement.format(value=value)}\n  return\n}}\n")
    verify_module(parse_source(text))


_TOP_K = ('%0:2 = "chlo.top_k"(%a) {{k = {value}}} : (tensor<2xf32>) -> '
          '(tensor<1xf32>, tensor<1xi32>)')


@pytest.mark.parametrize(("statement", "value", "summary"), [
    (_TOP_K, '"x"', "64-bit signless integer attribute"),
    (_TOP_K, "1 : i32", "64-bit signless integer attribute"),
    (_CONCAT, '"x"', "64-bit signless integer attribute whose value is non-negative"),
    (_CONCAT, "0 : i32", "64-bit signless integer attribute whose value is non-negative"),
    (_CONCAT, "-1 : i64", "64-bit signless integer attribute whose value is non-negative"),
    (_SORT, "1 : i32", "bool attribute"),
    (_CALL, "3 : i64", "string attribute or dictionary of named attribute values"),
    (_PRECISION, "0 : i32", "32-bit signless integer attribute whose value is positive"),
    (_PRECISION, "2 : i64", "32-bit signless integer attribute whose value is positive"),
    (_BATCH_NORM, "1.0 : f64", "32-bit float attribute"),
])
def test_a_value_of_another_kind_fails_the_constraint(statement: str, value: str,
                                                      summary: str) -> None:
    with pytest.raises(Diagnostic) as caught:
        _verify(statement, value)
    assert f"failed to satisfy constraint: {summary}" in caught.value.message


@pytest.mark.parametrize(("statement", "value"), [
    (_CONCAT, "0 : i64"), (_CONCAT, "0"), (_SORT, "true"), (_SORT, "0 : i1"), (_TOP_K, "1"),
    (_CALL, '"config"'), (_CALL, "{a = 1 : i32}, api_version = 4 : i32"), (_PRECISION, "5 : i32"),
    (_BATCH_NORM, "1.0e-3 : f32"),
])
def test_values_of_the_declared_kind_verify(statement: str, value: str) -> None:
    _verify(statement, value)


def test_every_kind_named_in_the_table_exists() -> None:
    from shlo_cli.dialects.stablehlo.attr_kinds import _KINDS

    named = {kind for kinds in ATTRIBUTE_KINDS.values() for kind in kinds.values()}
    assert named <= set(_KINDS)


_DENSE_ARRAY_CASES = [
    ('%0 = "stablehlo.transpose"(%m) {{permutation = {value}}} : '
     '(tensor<2x2xf32>) -> tensor<2x2xf32>', "permutation", "i64"),
    ('%0 = "stablehlo.broadcast_in_dim"(%a) {{broadcast_dimensions = {value}}} : '
     '(tensor<2xf32>) -> tensor<2x2xf32>', "broadcast_dimensions", "i64"),
    ('%0 = "stablehlo.reverse"(%m) {{dimensions = {value}}} : '
     '(tensor<2x2xf32>) -> tensor<2x2xf32>', "dimensions", "i64"),
    ('%0 = "stablehlo.slice"(%m) {{start_indices = {value}, limit_indices = array<i64: 2, 2>,'
     ' strides = array<i64: 1, 1>}} : (tensor<2x2xf32>) -> tensor<2x2xf32>',
     "start_indices", "i64"),
    ('%0 = "chlo.broadcast_add"(%a, %m) {{broadcast_dimensions = {value}}} : '
     '(tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>', "broadcast_dimensions", "i64"),
]


@pytest.mark.parametrize("kind", ["dense", "list"])
@pytest.mark.parametrize(("statement", "name", "element"), _DENSE_ARRAY_CASES)
def test_dense_array_attributes_refuse_other_kinds(statement: str, name: str, element: str,
                                                   kind: str) -> None:
    """ODS declares these DenseI64ArrayAttr: MLIR's verifyInherentAttrs refuses a `dense<>`
    tensor or an array attribute there (they were read as the dimensions)."""
    dims = [1] if "broadcast_in_dim" in statement else [1, 0]
    text = ", ".join(map(str, dims))
    value = f"dense<[{text}]> : tensor<{len(dims)}xi64>" if kind == "dense" else f"[{text}]"
    with pytest.raises(Diagnostic) as info:
        _verify(statement, value)
    assert info.value.message == (f"'{statement.split(chr(34))[1]}' op attribute '{name}' "
                                  f"failed to satisfy constraint: {element} dense array "
                                  "attribute")


def test_optional_dense_array_attribute_of_convolution() -> None:
    text = ('func.func @f(%x: tensor<1x4x4x1xf32>, %k: tensor<2x2x1x1xf32>) {\n'
            '  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->'
            '[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, '
            'feature_group_count = 1 : i64, window_reversal = array<i64: 0, 0>} : '
            '(tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>\n'
            '  return\n}\n')
    with pytest.raises(Diagnostic, match="attribute 'window_reversal' failed to satisfy "
                                         "constraint: i1 dense array attribute"):
        verify_module(parse_source(text))


def test_broadcast_select_takes_any_discardable_broadcast_dimensions() -> None:
    """chlo.broadcast_select declares no broadcast_dimensions: one there is discardable."""
    _verify('%p = stablehlo.compare EQ, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n'
            '  %0 = chlo.broadcast_select %p, %a, %a {{broadcast_dimensions = {value}}} : '
            '(tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>',
            "dense<0> : tensor<1xi64>")


_GATHER = ('%0 = "stablehlo.gather"(%a, %i) {{dimension_numbers = {value}, '
           'slice_sizes = array<i64: 1>}} : (tensor<2xf32>, tensor<1x1xi32>) -> tensor<1xf32>')
_DOT = ('%0 = "stablehlo.dot_general"(%m, %m) {{dot_dimension_numbers = {value}}} : '
        '(tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>')
_CALL_ALIASES = ('%0 = "stablehlo.custom_call"(%a) {{call_target_name = "foo", '
                 'output_operand_aliases = {value}}} : (tensor<2xf32>) -> tensor<2xf32>')
_CALL_LAYOUTS = ('%0 = "stablehlo.custom_call"(%a) {{call_target_name = "foo", '
                 'operand_layouts = {value}, result_layouts = [dense<0> : tensor<1xindex>]}} : '
                 '(tensor<2xf32>) -> tensor<2xf32>')
_CONSTANT = '%0 = "stablehlo.constant"() {{value = {value}}} : () -> tensor<2xf32>'
_EXP = ('%0 = "stablehlo.exponential"(%a) {{result_accuracy = {value}}} : '
        '(tensor<2xf32>) -> tensor<2xf32>')


@pytest.mark.parametrize(("statement", "name", "summary"), [
    (_GATHER, "dimension_numbers", "Attribute that models the dimension information for gather"),
    (_DOT, "dot_dimension_numbers", "Attribute that models the dimension information for dot."),
    (_CALL_ALIASES, "output_operand_aliases",
     "Aliasing attribute for outputs and operands of CustomCall"),
    (_CALL_LAYOUTS, "operand_layouts", "Array of layout (1D tensor of index type) attributes"),
    (_CONSTANT, "value", "constant vector/tensor attribute"),
    (_EXP, "result_accuracy", "The requested accuracy for transcendental unary ops."),
])
def test_struct_and_array_attributes_refuse_other_kinds(statement: str, name: str,
                                                        summary: str) -> None:
    """A struct or typed-array attribute of another kind is ODS's constraint error (the
    verifiers read struct fields: they raised AttributeError, 'a bug in shlo')."""
    text = ("func.func @f(%a: tensor<2xf32>, %m: tensor<2x2xf32>, %i: tensor<1x1xi32>) {\n"
            f"  {statement.format(value='[1]')}\n  return\n}}\n")
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text))
    assert info.value.message.endswith(f"attribute '{name}' failed to satisfy constraint: "
                                       f"{summary}")


_ALL_REDUCE = ('%0 = "stablehlo.all_reduce"(%a) ({{\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
               '    %s2 = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s2 : '
               'tensor<f32>\n  }}) {{replica_groups = {value}}} : (tensor<2xf32>) -> tensor<2xf32>')
_SET_SIZE = ('%n = stablehlo.constant dense<1> : tensor<i32>\n  %0 = "stablehlo.set_dimension_size"'
             '(%a, %n) {{dimension = {value}}} : (tensor<2xf32>, tensor<i32>) -> tensor<?xf32>')


@pytest.mark.parametrize(("statement", "name", "summary"), [
    (_ALL_REDUCE, "replica_groups", "64-bit signless integer elements attribute or mesh and "
     "axes based replica groups representation."),
    (_SET_SIZE, "dimension", "64-bit signless integer attribute whose value is non-negative"),
])
def test_more_attribute_kinds(statement: str, name: str, summary: str) -> None:
    """Found by replacing the conformance programs' attributes with other kinds: these
    reached the verifiers (set_dimension_size's raised ValueError)."""
    with pytest.raises(Diagnostic) as info:
        _verify(statement, '"bogus"')
    assert info.value.message.endswith(f"attribute '{name}' failed to satisfy constraint: "
                                       f"{summary}")
