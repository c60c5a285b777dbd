"""stablehlo-check-shape-assertions: holding assertions go, failing ones are errors."""

from __future__ import annotations

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes
from shlo_cli.passes.check_shape_assertions import format_message


def _program(pred: str, message: str, inputs: str = "", extra: str = "") -> str:
    operands = "%p" + "".join(f", %i{k}" for k in range(len(inputs.split()))) if inputs else "%p"
    consts = "".join(f"  %i{k} = stablehlo.constant dense<{v}> : tensor<i64>\n"
                     for k, v in enumerate(inputs.split()))
    types = ", ".join(["tensor<i1>"] + ["tensor<i64>"] * len(inputs.split()))
    return (f"func.func @main() {{\n  %p = stablehlo.constant dense<{pred}> : tensor<i1>\n"
            f"{consts}  stablehlo.custom_call @shape_assertion({operands}) {{"
            f"error_message = \"{message}\", has_side_effect = true{extra}}} : ({types}) -> ()\n"
            "  return\n}\n")


def _run(text: str, options: str = "") -> str:
    module = parse_source(text)
    run_passes(module, [("stablehlo-check-shape-assertions", options)])
    return print_module(module)


def test_holding_assertion_is_erased() -> None:
    assert "custom_call" not in _run(_program("true", "never"))


def test_failing_assertion_formats_its_inputs() -> None:
    with pytest.raises(Diagnostic, match=r"error: dim 7 must be < 3$"):
        _run(_program("false", "dim {0} must be < {1}", "7 3"))


def test_disabled_assertions_are_erased_unchecked() -> None:
    assert "custom_call" not in _run(_program("false", "x"), "enable-shape-assertions=false")


@pytest.mark.parametrize("message, inputs, extra, words", [
    ("bad {1}", "4", "", "error_message_input index less than 1. Found specifier {1}"),
    ("x", "", ", foo = 1 : i32", "foo is not a supported attribute"),
    ("x", "", ', backend_config = "cfg"', "expects an empty backend_config"),
])
def test_malformed_assertions(message: str, inputs: str, extra: str, words: str) -> None:
    with pytest.raises(Diagnostic, match=words):
        _run(_program("false", message, inputs, extra))


def test_format_message_follows_formatv() -> None:
    assert format_message("a {0,5:x} b {{ {2}", [1, 2]) == "a 1 b { -1"
    assert format_message("keep {0}", []) == "keep {0}"
