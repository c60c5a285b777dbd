"""jax.export's entry convention: platform index and effect tokens filled in by the API."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic

MODULE = """
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"},
                         %arg1: !stablehlo.token {jax.token = true}, %arg2: tensor<3xf32>)
      -> (!stablehlo.token {jax.token = true}, tensor<3xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<2.0> : tensor<3xf32>
    %m = stablehlo.multiply %arg2, %c : tensor<3xf32>
    %r = "stablehlo.case"(%arg0) ({
      %x = stablehlo.add %m, %c : tensor<3xf32>
      stablehlo.return %x : tensor<3xf32>
    }, {
      stablehlo.return %m : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    return %arg1, %r : !stablehlo.token, tensor<3xf32>
  }
}
"""


def test_platform_index_and_tokens_are_filled_in() -> None:
    x = np.ones(3, np.float32)
    [first] = shlo_cli.interpret(MODULE, x)  # platform 0; the token result is dropped
    np.testing.assert_array_equal(first, [4, 4, 4])
    [cpu_second] = shlo_cli.interpret(MODULE, x, platforms=["cuda", "cpu"])
    np.testing.assert_array_equal(cpu_second, [2, 2, 2])


def test_platform_not_exported() -> None:
    with pytest.raises(Diagnostic, match=r"exported for \['tpu'\], not for 'cpu'"):
        shlo_cli.interpret(MODULE, np.ones(3, np.float32), platforms=["tpu"])


def test_explicit_inputs_are_kept() -> None:
    from shlo_cli.dialects.stablehlo.elementwise_misc import TOKEN

    results = shlo_cli.interpret(MODULE, np.array(1, np.int32), TOKEN, np.ones(3, np.float32))
    assert len(results) == 2  # nothing was filled in, so nothing is dropped
    np.testing.assert_array_equal(results[1], [2, 2, 2])


def test_the_command_line_takes_just_the_arrays_of_an_exports_text(tmp_path: Path) -> None:
    """`Exported.mlir_module()` text on the command line: --inputs/--input/--random-inputs
    give jax's arrays (`arg0` is the first array), the platform index (0) and tokens are
    filled in and saved results leave the tokens out; the module's own inputs still work."""
    from click.testing import CliRunner

    from shlo_cli.commands.main import cli
    from shlo_cli.interpreter.io import read_array_file

    program = tmp_path / "f.mlir"
    program.write_text(MODULE)
    np.savez(tmp_path / "x.npz", arg0=np.ones(3, np.float32))
    out = str(tmp_path / "out.npz")
    runner = CliRunner()
    for given in (["--inputs", str(tmp_path / "x.npz")], ["--input", "3xf32=1"]):
        result = runner.invoke(cli, ["interpret", str(program), *given, "--save-results", out])
        assert result.exit_code == 0, result.output
        saved = read_array_file(out)
        assert list(saved) == ["result0"]
        np.testing.assert_array_equal(saved["result0"], [4, 4, 4])  # platform 0
        assert "note: platform index 0 (the export's first platform)" in result.stderr
    result = runner.invoke(cli, ["interpret", str(program), "--random-inputs"])
    assert result.exit_code == 0, result.output
    no_token = MODULE.replace("%arg1: !stablehlo.token {jax.token = true}, ", "").replace(
        "!stablehlo.token {jax.token = true}, ", "").replace("%arg1, %r", "%r").replace(
        "!stablehlo.token, tensor<3xf32>", "tensor<3xf32>")
    program.write_text(no_token)
    result = runner.invoke(cli, ["interpret", str(program), "--input", "i32=1",
                                 "--input", "3xf32=1", "--save-results", out])
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(read_array_file(out)["result0"], [2, 2, 2])  # as given
