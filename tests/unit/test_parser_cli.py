"""`shlo parse` and `stablehlo-opt` front ends: flag spellings, output files, split input."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from shlo_cli.commands.main import cli
from shlo_cli.commands.opt import opt

PROGRAM = ('func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n'
           '  %0 = "stablehlo.add"(%arg0, %arg0)'
           ' : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n'
           '  func.return %0 : tensor<2xf32>\n}\n')
PRINTED = ("module {\n  func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
           "    %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>\n"
           "    return %0 : tensor<2xf32>\n  }\n}\n")


def run(command: object, args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(command, args, input=stdin)  # type: ignore[arg-type]
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "in.mlir"
    path.write_text(PROGRAM)
    return path


def test_opt_prints_like_mlir_opt(program: Path) -> None:
    assert run(opt, [str(program)]) == (0, PRINTED + "\n", "")


def test_reads_stdin() -> None:
    code, out, _ = run(opt, ["-"], stdin=PROGRAM)
    assert code == 0 and out == PRINTED + "\n"
    code, out, _ = run(cli, ["parse"], stdin=PROGRAM)
    assert code == 0 and out == PRINTED


@pytest.mark.parametrize("dash", ["-", "--"])
def test_upstream_flag_spellings(program: Path, dash: str) -> None:
    flags = ["mlir-print-op-generic", "mlir-print-debuginfo", "mlir-print-local-scope",
             "allow-unregistered-dialect", "split-input-file"]
    code, out, _ = run(opt, [dash + f for f in flags] + [str(program)])
    assert code == 0
    assert out.startswith('"builtin.module"() ({\n  "func.func"() <{')
    assert f'loc("{program}":2:8)' in out


def test_output_file_is_written_whole(program: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    assert run(opt, [str(program), "-o", str(target)])[0] == 0
    assert target.read_text() == PRINTED + "\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".shlo-")] == []


def test_failed_run_writes_no_output_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    target = tmp_path / "out.mlir"
    for command, args in ((opt, []), (cli, ["parse"])):
        code, _, err = run(command, args + [str(bad), "-o", str(target)])
        assert code == 1 and err.startswith(f"{bad}:1:14: error: ")
        assert not target.exists()


def test_unwritable_output_is_an_error(program: Path) -> None:
    code, _, err = run(opt, [str(program), "-o", "/nonexistent/dir/out.mlir"])
    assert code == 1 and err.startswith("error: cannot open output file")


def test_missing_input_is_an_error(tmp_path: Path) -> None:
    code, _, err = run(opt, [str(tmp_path / "none.mlir")])
    assert code == 1 and "cannot open input file" in err


def test_split_input_file_keeps_going_and_separates_chunks(tmp_path: Path) -> None:
    path = tmp_path / "split.mlir"
    path.write_text(PROGRAM + "// -----\nfunc.func @g( {\n// -----\n" + PROGRAM)
    code, out, err = run(opt, ["-split-input-file", str(path)])
    assert code == 1
    assert out == PRINTED + "\n// -----\n// -----\n" + PRINTED + "\n"
    assert err.startswith(f"{path}:6:14: error: ")
