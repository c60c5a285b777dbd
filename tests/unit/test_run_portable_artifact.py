"""Running a StableHLO portable artifact (VHLO in bytecode) runs its StableHLO program.

Read as written, an artifact is a module of `vhlo.func_v1`s and no `func.func`: the
interpreter found nothing to run and printed no results with exit 0 (found running the
`mlir_module_serialized` bytes of jax's export back-compat data). The module inside a
jax.export file may also carry Shardy annotations; a bare artifact is read the same way.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import shlo_cli
from shlo_cli.commands.main import cli
from shlo_cli.commands.opt import opt
from shlo_cli.commands.translate import translate
from shlo_cli.formats.jax_export import read_exported

SCALE = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<2.5> : tensor<3xf32>
  %0 = stablehlo.multiply %x, %c : tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""
ARGS = "--args=[dense<[1.0, 2.0, 4.0]> : tensor<3xf32>]"
PRINTED = "tensor<3xf32> {\n  [2.500000e+00, 5.000000e+00, 1.000000e+01]\n}\n"


def artifact(tmp_path: Path) -> Path:
    source = tmp_path / "scale.mlir"
    source.write_text(SCALE)
    target = tmp_path / "scale.mlirbc"
    result = CliRunner().invoke(translate, ["--serialize", "--target=current", str(source),
                                            "-o", str(target)])
    assert result.exit_code == 0, result.output
    return target


@pytest.mark.parametrize("command", [["interpret"], ["translate", "--interpret"]])
def test_artifact_file_runs(tmp_path: Path, command: list[str]) -> None:
    path = artifact(tmp_path)
    if command[0] == "translate":
        result = CliRunner().invoke(translate, [*command[1:], str(path), ARGS])
    else:
        result = CliRunner().invoke(cli, [*command, str(path), ARGS])
    assert result.exit_code == 0, result.output
    assert result.output == PRINTED


def test_artifact_on_stdin_runs(tmp_path: Path) -> None:
    data = artifact(tmp_path).read_bytes()
    result = CliRunner().invoke(cli, ["interpret", "-", ARGS], input=data)
    assert result.exit_code == 0, result.output
    assert result.output == PRINTED


def test_python_api_runs_an_artifact(tmp_path: Path) -> None:
    path = artifact(tmp_path)
    [y] = shlo_cli.interpret(str(path), np.array([1.0, 2.0, 4.0], np.float32))
    np.testing.assert_array_equal(y, np.array([2.5, 5.0, 10.0], np.float32))
    assert shlo_cli.load(path).module.functions()


def test_vhlo_text_is_a_diagnostic_not_an_empty_run(tmp_path: Path) -> None:
    """VHLO given as text is not deserialized (upstream's interpreter cannot parse it)."""
    printed = CliRunner().invoke(opt, [str(artifact(tmp_path))])
    assert printed.exit_code == 0 and "vhlo.func_v1" in printed.output
    result = CliRunner().invoke(cli, ["interpret", "-", ARGS], input=printed.output)
    assert result.exit_code == 1
    assert "'vhlo.func_v1' is VHLO, which is not run" in result.output


def test_vhlo_bytecode_with_another_producer_runs(tmp_path: Path) -> None:
    """VHLO is found by content, not by a `StableHLO_v` producer: jax's early artifacts
    (2023) name MLIR's (`MLIRxxx-trunk`), as `stablehlo-opt -emit-bytecode` does."""
    source = tmp_path / "scale.mlir"
    source.write_text(SCALE)
    written = CliRunner().invoke(opt, ["--stablehlo-legalize-to-vhlo", "-emit-bytecode",
                                       str(source)])
    assert written.exit_code == 0
    assert b"StableHLO_v" not in written.stdout_bytes[:32]
    result = CliRunner().invoke(cli, ["interpret", "-", ARGS], input=written.stdout_bytes)
    assert result.exit_code == 0, result.output
    assert result.output == PRINTED


def test_plain_bytecode_still_runs_as_written(tmp_path: Path) -> None:
    source = tmp_path / "scale.mlir"
    source.write_text(SCALE)
    written = CliRunner().invoke(opt, ["-emit-bytecode", str(source)])
    assert written.exit_code == 0
    result = CliRunner().invoke(cli, ["interpret", "-", ARGS], input=written.stdout_bytes)
    assert result.exit_code == 0, result.output
    assert result.output == PRINTED


ARTIFACTS = Path(os.environ.get("SHLO_JAX_ARTIFACTS", "/work/shared/artifacts"))
WITH_SDY = sorted(p.stem for p in ARTIFACTS.glob("*.mlir")
                  if "sdy.sharding_rule" in p.read_text()) if ARTIFACTS.is_dir() else []


@pytest.mark.skipif(not WITH_SDY, reason="jax.export artifacts not available")
def test_jax_module_bytes_with_shardy_attributes_run(tmp_path: Path) -> None:
    """The portable artifact inside a jax.export file, saved on its own (jax's
    `mlir_module_serialized`), runs as the `.jax` file does: its `sdy` attributes
    (undecodable here, unknown to upstream's tools) are dropped."""
    name = WITH_SDY[0]
    exported = read_exported((ARTIFACTS / f"{name}.jax").read_bytes(), name)
    path = tmp_path / f"{name}.mlirbc"
    path.write_bytes(exported.mlir_module_serialized)
    out = tmp_path / "out.npz"
    result = CliRunner().invoke(cli, [
        "interpret", str(path), "--inputs", str(ARTIFACTS / f"{name}.inputs.npz"),
        "--save-results", str(out),
        f"--expected-output=@{ARTIFACTS / f'{name}.expected.npz'}"])
    assert result.exit_code == 0, result.output
    assert len(np.load(out).files) == len(np.load(ARTIFACTS / f"{name}.expected.npz").files)


def test_run_time_error_in_an_artifact_names_the_ops_location(tmp_path: Path) -> None:
    """No source text to quote: the error is at the file position the op's `loc` records
    (as MLIR reports it), not a bare `error:`."""
    source = tmp_path / "call.mlir"
    source.write_text('func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n'
                      '  %0 = stablehlo.custom_call @no.such.target(%x) : '
                      '(tensor<3xf32>) -> tensor<3xf32> loc("model.py":7:3)\n'
                      '  return %0 : tensor<3xf32>\n}\n')
    target = tmp_path / "call.mlirbc"
    written = CliRunner().invoke(translate, ["--serialize", "--target=current", str(source),
                                             "-o", str(target)])
    assert written.exit_code == 0, written.output
    result = CliRunner().invoke(cli, ["interpret", str(target), ARGS])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "model.py:7:3: error: Unsupported custom call target: @no.such.target"]
