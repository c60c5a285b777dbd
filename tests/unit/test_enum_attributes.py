"""Enum attributes (dialects/stablehlo/enums.py): a case outside the enum is a parse error with
upstream's two messages, and an op attribute holding another kind of attribute fails
verification with ODS's constraint text; neither reaches a kernel."""

from __future__ import annotations

import pytest

from shlo_cli.dialects.stablehlo.enums import ENUMS
from shlo_cli.ir.diagnostics import Diagnostic, SourceFile
from shlo_cli.ir.parser import Parser, parse_source
from shlo_cli.ir.verifier import verify_module

KINDS = [(dialect, kind) for dialect, kinds in ENUMS.items() for kind in kinds]


def _parse_attr(text: str) -> object:
    return Parser(SourceFile("t", text)).parse_attribute()


@pytest.mark.parametrize(("dialect", "kind"), KINDS)
def test_every_case_parses_and_prints_back(dialect: str, kind: str) -> None:
    for case in ENUMS[dialect][kind].cases:
        text = f"#{dialect}<{kind} {case}>"
        assert str(_parse_attr(f"#{dialect}<  {kind}   {case} >")) == text


@pytest.mark.parametrize(("dialect", "kind"), KINDS)
def test_an_unknown_case_gives_upstreams_two_errors(dialect: str, kind: str) -> None:
    enum = ENUMS[dialect][kind]
    with pytest.raises(Diagnostic) as caught:
        _parse_attr(f"#{dialect}<{kind} NOT_A_CASE>")
    assert caught.value.message == (f"expected {enum.cpp} to be one of: "
                                    + ", ".join(enum.cases))
    assert caught.value.col == len(f"#{dialect}<{kind} ") + 1
    assert [n.message for n in caught.value.notes] == [
        f"failed to parse {enum.attr_def} parameter 'value' which is to be a `{enum.cpp}`"]


@pytest.mark.parametrize(("body", "message"), [
    ("comparison_direction", "expected valid keyword"),
    ("comparison_direction LT GT", "expected '>'"),
])
def test_a_missing_or_extra_word_is_an_error(body: str, message: str) -> None:
    with pytest.raises(Diagnostic) as caught:
        _parse_attr(f"#stablehlo<{body}>")
    assert caught.value.message == message


def test_an_unknown_kind_is_kept_as_written() -> None:
    assert str(_parse_attr("#stablehlo<something  ELSE>")) == "#stablehlo<something ELSE>"


_COMPARE = ('%0 = "stablehlo.compare"(%a, %a) {{{attrs}}} : (tensor<2xf32>, tensor<2xf32>)'
            ' -> tensor<2xi1>')
_CALL = '%0 = stablehlo.custom_call @foo(%a) {{{attrs}}} : (tensor<2xf32>) -> tensor<2xi1>'
_DOT = ('%0 = "stablehlo.dot_general"(%a, %a) {{dot_dimension_numbers = #stablehlo.dot<>, '
        '{attrs}}} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>')


@pytest.mark.parametrize(("statement", "attrs", "message"), [
    (_COMPARE, "comparison_direction = 3 : i32",
     "attribute 'comparison_direction' failed to satisfy constraint: Which comparison "
     "operation to perform."),
    (_COMPARE, "comparison_direction = #stablehlo<comparison_type FLOAT>",
     "attribute 'comparison_direction' failed to satisfy constraint"),
    (_COMPARE, "comparison_direction = #stablehlo<comparison_direction LT>, "
               "compare_type = #stablehlo<comparison_direction LT>",
     "attribute 'compare_type' failed to satisfy constraint: Which comparison type to use."),
    (_CALL, "api_version = 7 : i32",
     "attribute 'api_version' failed to satisfy constraint: Custom call API version"),
    (_CALL, "api_version = 1 : i64",
     "attribute 'api_version' failed to satisfy constraint: Custom call API version"),
    (_DOT, "precision_config = [#stablehlo<precision HIGH>, 1 : i32]",
     "attribute 'precision_config' failed to satisfy constraint: Precision Config attribute"),
])
def test_an_attribute_of_another_kind_fails_verification(statement: str, attrs: str,
                                                        message: str) -> None:
    text = (f"func.func @f(%a: tensor<2xf32>) {{\n  {statement.format(attrs=attrs)}\n"
            "  return\n}\n")
    with pytest.raises(Diagnostic) as caught:
        verify_module(parse_source(text))
    assert message in caught.value.message


def test_enum_attributes_of_the_right_kind_verify() -> None:
    text = ("func.func @f(%a: tensor<2xf32>) {\n"
            f"  {_COMPARE.format(attrs='comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type TOTALORDER>')}\n"  # noqa: E501
            f"  {_CALL.format(attrs='api_version = 4 : i32').replace('%0', '%1')}\n"
            f"  {_DOT.format(attrs='precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>]').replace('%0', '%2')}\n"  # noqa: E501
            "  return\n}\n")
    verify_module(parse_source(text))
