"""`-verify-diagnostics`: produced diagnostics against `expected-*` annotations."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from shlo_cli.commands.main import cli
from shlo_cli.commands.opt import opt
from shlo_cli.commands.translate import translate
from shlo_cli.ir.diagnostics import Diagnostic, SourceFile
from shlo_cli.ir.expected_diagnostics import DiagnosticVerifier, collect_expected

BAD_RETURN = "  func.return %a : tensor<2xf32>\n"
HEAD = "func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"


def run_opt(tmp_path: Path, text: str, *flags: str) -> tuple[int, str]:
    path = tmp_path / "t.mlir"
    path.write_text(text)
    result = CliRunner().invoke(opt, [str(path), "-verify-diagnostics", *flags])
    return result.exit_code, result.output


def test_designators_name_lines() -> None:
    text = ("a\n"
            "// expected-error@above {{one}}\n"
            "// expected-error@below {{two}}\n"
            "// expected-note@+2 {{three}}\n"
            "b\n"
            "c  // expected-warning {{four}}\n"
            "// expected-remark@-5 {{five}}\n"
            "// expected-error-re@unknown {{s{{[0-9]+}}x}}\n")
    expected = collect_expected(SourceFile("t", text, 10))
    assert [(e.severity, e.line, e.text) for e in expected] == [
        ("error", 11, "one"), ("error", 15, "two"), ("note", 16, "three"),
        ("warning", 16, "four"), ("remark", 12, "five"), ("error", 0, "s{{[0-9]+}}x")]
    assert expected[-1].matches("s42x") and not expected[-1].matches("sx")


@pytest.mark.parametrize("annotation", [
    "  // expected-error@+1 {{has 1 operands, but enclosing function (@f) returns 2}}\n",
    "  // expected-error@below {{has 1 operands}}\n",
    "  // expected-error-re@+1 {{has {{[0-9]}} operands}}\n",
])
def test_expected_error_passes(tmp_path: Path, annotation: str) -> None:
    code, output = run_opt(tmp_path, HEAD + annotation + BAD_RETURN + "}\n")
    assert (code, output) == (0, "")  # a failed chunk prints nothing


def test_annotation_on_the_same_line(tmp_path: Path) -> None:
    text = HEAD + BAD_RETURN.rstrip("\n") + "  // expected-error {{returns 2}}\n}\n"
    assert run_opt(tmp_path, text)[0] == 0


def test_unexpected_and_missing_errors_fail(tmp_path: Path) -> None:
    text = HEAD + "  // expected-error@+2 {{has 1 operands}}\n" + BAD_RETURN + "}\n"
    code, output = run_opt(tmp_path, text)
    assert code == 1
    assert ("t.mlir:3:3: error: unexpected error: 'func.return' op has 1 operands, but "
            "enclosing function (@f) returns 2") in output
    assert 't.mlir:2:6: error: expected error "has 1 operands" was not produced' in output


def test_wrong_severity_is_a_near_miss(tmp_path: Path) -> None:
    text = HEAD + "  // expected-warning@+1 {{has 1 operands}}\n" + BAD_RETURN + "}\n"
    code, output = run_opt(tmp_path, text)
    assert code == 1
    assert "'error' diagnostic emitted when expecting a 'warning'" in output


def test_parse_errors_are_diagnostics_too(tmp_path: Path) -> None:
    text = ("func.func @f() {\n"
            "  // expected-error@+1 {{expected SSA operand}}\n"
            "  %0 = stablehlo.add , : tensor<f32>\n"
            "}\n")
    assert run_opt(tmp_path, text)[0] == 0


def test_each_split_chunk_is_checked_on_its_own(tmp_path: Path) -> None:
    good = "func.func @g() {\n  func.return\n}\n"
    bad = HEAD + "  // expected-error@+1 {{returns 2}}\n" + BAD_RETURN + "}\n"
    code, output = run_opt(tmp_path, good + "// -----\n" + bad + "// -----\n" + good,
                           "-split-input-file")
    assert code == 0
    assert output.count("func.func @g()") == 2


def test_an_expected_error_in_a_valid_chunk_fails(tmp_path: Path) -> None:
    text = "func.func @g() {\n  // expected-error@+1 {{nothing}}\n  func.return\n}\n"
    code, output = run_opt(tmp_path, text)
    assert code == 1
    assert 'expected error "nothing" was not produced' in output


def test_notes_are_matched_as_diagnostics() -> None:
    source = SourceFile("t", "x  // expected-error {{bad}}\ny  // expected-note {{here}}\n")
    checker = DiagnosticVerifier(source)
    checker.process(Diagnostic("bad thing", source, line=1, col=1,
                               notes=[Diagnostic("see here", source, severity="note", line=2,
                                                 col=1)]))
    assert checker.finish() == []


def test_translate_and_shlo_verify_accept_the_flag(tmp_path: Path) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(HEAD + "  // expected-error@+1 {{returns 2}}\n" + BAD_RETURN + "}\n")
    result = CliRunner().invoke(translate, ["--interpret", "-verify-diagnostics", str(path)])
    assert result.exit_code == 0
    result = CliRunner().invoke(cli, ["verify", "--verify-diagnostics", str(path)])
    assert (result.exit_code, result.output) == (0, "")
