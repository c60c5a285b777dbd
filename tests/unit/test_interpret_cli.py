"""`stablehlo-translate --interpret` / `shlo interpret`: args, entry choice, chunks, checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import shlo_cli
from shlo_cli.commands.interpret import run_interpret
from shlo_cli.commands.main import cli
from shlo_cli.commands.translate import translate

ADD = """
func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2xi32>
  return %0 : tensor<2xi32>
}
"""
ARGS = "[dense<1> : tensor<2xi32>, dense<[2, 5]> : tensor<2xi32>]"


def write(tmp_path: Path, text: str, name: str = "t.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(capsys: pytest.CaptureFixture[str], path: str, **options: object) -> tuple[int, str, str]:
    code = run_interpret(path, **options)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    return code, out, err


def test_args_feed_main(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, write(tmp_path, ADD), args=ARGS)
    assert (code, err) == (0, "")
    assert out == "tensor<2xi32> {\n  [3, 6]\n}\n"


def test_print_dense(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, write(tmp_path, ADD), args=ARGS, interpreter_print_dense=True)
    assert (code, out) == (0, "dense<[3, 6]> : tensor<2xi32>\n")


@pytest.mark.parametrize(("args", "message"), [
    ("not_array", "expectected array attribute string for args, i.e. "
                  "--args=[dense<1> : tensor<2xi32>, ...]"),
    ("[4.0 : f32]", "expected dense elements attribute for args elements, i.e. "
                    "--args=[dense<1> : tensor<2xi32>, ...]"),
    ("[dense<1> : tensor<2xi32>]",
     "incorrect number of arguments specified, provided 1 inputs but function expected 2"),
    ("[dense<1> : tensor<2xi32>, dense<1> : tensor<2xi64>]",
     "invalid input argument type at index 1, input type was tensor<2xi64> but entry "
     "function expected tensor<2xi32>"),
])
def test_args_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: str,
                     message: str) -> None:
    code, out, err = run(capsys, write(tmp_path, ADD), args=args)
    assert code == 1
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_entry_is_the_only_function_or_main(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    only = ADD.replace("@main", "@whatever")
    code, out, _ = run(capsys, write(tmp_path, only), args=ARGS)
    assert code == 0 and "[3, 6]" in out
    two = only + only.replace("@whatever", "@other")
    code, out, err = run(capsys, write(tmp_path, two), args=ARGS)
    assert code == 1
    # located at the first function of the implicit module, with its line and a caret
    assert "t.mlir:2:1: error: module must have entry func with name main\n" \
           "func.func @whatever" in err
    assert "\n^" in err


def test_no_entry_is_located_at_an_explicit_module(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    body = ADD.replace("@main", "@a") + ADD.replace("@main", "@b")
    code, _, err = run(capsys, write(tmp_path, "// header\n  module @m {\n" + body + "}\n"),
                       args=ARGS)
    assert code == 1
    assert "t.mlir:2:3: error: module must have entry func with name main" in err


def test_empty_module_runs_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, write(tmp_path, "module {\n}\n"), args=None) == (0, "", "")


SPLIT = """
func.func @a(%x: tensor<2xi32>) -> tensor<2xi32> {
  check.expect_eq_const %x, dense<[1, 9]> : tensor<2xi32>
  return %x : tensor<2xi32>
}
// -----
func.func @b(%x: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
// -----
func.func @c(%x: tensor<2xi32>) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
"""


def test_split_input_file_continues_after_a_failing_chunk(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, SPLIT)
    code, out, err = run(capsys, path, split_input_file=True,
                         args="[dense<[1, 2]> : tensor<2xi32>]")
    assert code == 1
    # The first chunk failed; chunks two and three still printed, separated by blank lines.
    assert out == "\ntensor<2xi32> {\n  [1, 2]\n}\n\ntensor<2xi32> {\n  [1, 2]\n}\n"
    assert "t.mlir:3:3: error:" in err
    assert "Element values don't match: 2 (actual) vs 9 (expected) at index [1]" in err


def test_failed_check_names_the_element(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    program = """
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) {
  check.expect_eq %a, %b : tensor<2x2xf32>
  func.return
}
"""
    path = write(tmp_path, program)
    code, _, err = run(capsys, path, args="[dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, "
                                            "dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>]")
    assert (code, err) == (0, "")
    flipped = "[dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, " \
              "dense<[[1.0, 2.0], [3.5, 4.0]]> : tensor<2x2xf32>]"
    code, _, err = run(capsys, path, args=flipped)
    assert code == 1
    assert ("check.expect_eq failed: Element values don't match: 3.000000e+00 (actual) vs "
            "3.500000e+00 (expected) at index [1, 0]") in err


def test_interpreter_print_names_the_value(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    program = """
func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %sum = stablehlo.add %a, %b : tensor<2xi32>
  interpreter.print %sum : tensor<2xi32>
  interpreter.print %a : tensor<2xi32>
  return %sum : tensor<2xi32>
}
"""
    code, out, _ = run(capsys, write(tmp_path, program), args=ARGS)
    assert code == 0
    assert out == ("%0 = tensor<2xi32> {\n  [3, 6]\n}\n"
                   "<tensor<2xi32> {\n  [1, 1]\n}\n"
                   "tensor<2xi32> {\n  [3, 6]\n}\n")


def test_output_file_and_stdin(tmp_path: Path) -> None:
    out_file = tmp_path / "out.txt"
    runner = CliRunner()
    result = runner.invoke(translate, ["--interpret", f"--args={ARGS}", "-o", str(out_file),
                                       "-"], input=ADD)
    assert result.exit_code == 0, result.output
    assert out_file.read_text() == "tensor<2xi32> {\n  [3, 6]\n}\n"


def test_shlo_interpret_shares_the_implementation(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["interpret", write(tmp_path, ADD), "--args", ARGS])
    assert result.exit_code == 0
    assert result.output == "tensor<2xi32> {\n  [3, 6]\n}\n"


def test_serialize_then_deserialize_through_the_translate_command(tmp_path: Path) -> None:
    artifact = tmp_path / "add.mlir.bc"
    result = CliRunner().invoke(translate, ["--serialize", "--target=current",
                                            write(tmp_path, ADD), "-o", str(artifact)])
    assert result.exit_code == 0, result.output
    assert artifact.read_bytes().startswith(b"ML\xefR")
    result = CliRunner().invoke(translate, ["--deserialize", str(artifact)])
    assert result.exit_code == 0, result.output
    assert "stablehlo.add" in result.output


def test_serialize_without_target_is_a_diagnostic(tmp_path: Path) -> None:
    result = CliRunner().invoke(translate, ["--serialize", write(tmp_path, ADD)])
    assert result.exit_code == 1
    assert "No target version specified" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_single_dash_flags(tmp_path: Path) -> None:
    result = CliRunner().invoke(translate, ["-interpret", "-split-input-file", f"-args={ARGS}",
                                            write(tmp_path, ADD)])
    assert result.exit_code == 0, result.output
    assert "[3, 6]" in result.output


def test_python_api() -> None:
    results = shlo_cli.interpret(ADD, np.array([1, 2], dtype=np.int32), [10, 20])
    assert len(results) == 1
    assert results[0].dtype == np.int32
    assert results[0].tolist() == [11, 22]
    with pytest.raises(Exception, match="incorrect number of arguments"):
        shlo_cli.interpret(ADD, np.array([1, 2], dtype=np.int32))
    with pytest.raises(Exception, match=r"argument #0: expected tensor<2xi32>, got .*float64"):
        shlo_cli.interpret(ADD, np.array([1.5, 2.0]), np.array([1, 2], dtype=np.int32))


def test_failed_run_writes_no_output_file(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "out.txt"
    code, _, err = run(capsys, write(tmp_path, ADD), args="[dense<1> : tensor<2xi32>]",
                       output=str(out_file))
    assert code == 1 and "incorrect number of arguments" in err
    assert not out_file.exists()


def test_runtime_error_in_later_chunk_quotes_its_line(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    text = SPLIT.replace("dense<[1, 9]>", "dense<[1, 2]>").replace(
        "func.func @c(%x: tensor<2xi32>) -> tensor<2xi32> {\n",
        "func.func @c(%x: tensor<2xi32>) -> tensor<2xi32> {\n"
        "  check.expect_eq_const %x, dense<[7, 2]> : tensor<2xi32>\n")
    code, _, err = run(capsys, write(tmp_path, text), split_input_file=True,
                       args="[dense<[1, 2]> : tensor<2xi32>]")
    assert code == 1
    assert err.splitlines()[:2] == [
        f"{tmp_path / 't.mlir'}:12:3: error: check.expect_eq_const failed: Element values "
        "don't match: 1 (actual) vs 7 (expected) at index [0]",
        "  check.expect_eq_const %x, dense<[7, 2]> : tensor<2xi32>"]


def test_python_api_accepts_paths_and_modules(tmp_path: Path) -> None:
    from shlo_cli.ir.parser import parse_source

    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    inputs = (np.array([1, 2], np.int32), np.array([3, 4], np.int32))
    [from_path] = shlo_cli.interpret(path, *inputs)
    [from_module] = shlo_cli.interpret(parse_source(ADD), *inputs)
    assert from_path.tolist() == from_module.tolist() == [4, 6]
    assert shlo_cli.interpret("// nothing to run\n") == []
