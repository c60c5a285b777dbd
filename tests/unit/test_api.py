"""The Python API: shlo_cli.load / parse / interpret / register_custom_call, `--version`,
loader dispatch, and str(Diagnostic)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import shlo_cli
from shlo_cli.commands.main import cli
from shlo_cli.commands.terminal import color_diagnostic, use_color
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.loaders import LoadedProgram, file_kind, load_program, register_loader

PROGRAM = """func.func @main(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32> {
  %0 = call @twice(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""

CUSTOM = """func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @user.stats(%x) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<i32>
}
"""


def test_parse_gives_callable_functions() -> None:
    program = shlo_cli.parse(PROGRAM)
    assert program.functions == ["main", "twice"]
    [y] = program.main(np.array([1, 2], np.float32), np.int32(0))
    assert y.dtype == np.float32 and y.tolist() == [2, 4]
    [y] = program.twice([0.5, 1.5])
    assert y.tolist() == [1, 3]
    [y] = program(np.array([3, 4], np.float32), 1)
    assert y.tolist() == [6, 8]
    assert "@twice(x: tensor<2xf32>)" in repr(program.twice)
    with pytest.raises(AttributeError, match="no function '@nope'"):
        program.nope  # noqa: B018


def test_str_is_a_path_when_the_file_exists_else_text(tmp_path: Path) -> None:
    path = tmp_path / "p.mlir"
    path.write_text(PROGRAM)
    x = np.array([1, 1], np.float32)
    assert shlo_cli.interpret(str(path), x, 0)[0].tolist() == [2, 2]
    assert shlo_cli.interpret(path, x, 0)[0].tolist() == [2, 2]
    assert shlo_cli.interpret(PROGRAM, x, 0)[0].tolist() == [2, 2]
    assert shlo_cli.load(str(path)).functions == ["main", "twice"]
    with pytest.raises(Diagnostic, match="cannot open input file '.*missing.mlir'"):
        shlo_cli.interpret(str(tmp_path / "missing.mlir"), x, 0)


def test_out_of_range_int_names_the_argument() -> None:
    with pytest.raises(Diagnostic) as info:
        shlo_cli.interpret(PROGRAM, np.zeros(2, np.float32), np.int64(2**40))
    text = str(info.value)
    assert text.startswith("<string>:1:1: error: argument #1 'n': value 1099511627776 "
                           "does not fit in int32")
    assert "func.func @main" in text and "\n^" in text  # the source line and caret


def test_wrong_shape_and_count() -> None:
    with pytest.raises(Diagnostic, match=r"argument #0 'x': expected tensor<2xf32>, got an "
                                         r"array of shape \(3,\)"):
        shlo_cli.interpret(PROGRAM, np.zeros(3, np.float32), 0)
    with pytest.raises(Diagnostic, match="incorrect number of arguments"):
        shlo_cli.interpret(PROGRAM, np.zeros(2, np.float32))


def test_str_of_diagnostic_reads_like_the_cli() -> None:
    with pytest.raises(Diagnostic) as info:
        shlo_cli.parse("func.func @main() {\n  %0 = stablehlo.bogus\n}\n", "f.mlir")
    text = str(info.value)
    assert text.startswith("f.mlir:2:")
    assert text == info.value.render()
    assert str(Diagnostic("plain")) == "error: plain"


def test_register_custom_call() -> None:
    def stats(x: np.ndarray) -> tuple[np.ndarray, int]:
        return x * 2, int(x.size)

    shlo_cli.register_custom_call("user.stats", stats)
    y, n = shlo_cli.interpret(CUSTOM, np.array([1, 2, 3], np.float32))
    assert y.tolist() == [2, 4, 6] and n.dtype == np.int32 and int(n) == 3

    shlo_cli.register_custom_call("user.stats", lambda x: x)  # one value for two results
    with pytest.raises(Diagnostic, match=r"custom call @user.stats returned 1 values, the op "
                                         r"has 2 results"):
        shlo_cli.interpret(CUSTOM, np.zeros(3, np.float32))

    def broken(x: np.ndarray) -> None:
        raise ValueError("nope")

    shlo_cli.register_custom_call("user.stats", broken)
    with pytest.raises(Diagnostic, match="custom call @user.stats raised ValueError: nope"):
        shlo_cli.interpret(CUSTOM, np.zeros(3, np.float32))


def test_loader_dispatch(tmp_path: Path) -> None:
    jax = tmp_path / "m.jax"
    jax.write_bytes(b"\x00\x01")
    bytecode = tmp_path / "m.bin"
    bytecode.write_bytes(b"ML\xefR\x00")
    assert file_kind(str(bytecode)) == ".mlirbc"
    assert file_kind(str(tmp_path / "x.mlir")) == ".mlir"
    with pytest.raises(Exception, match=r"m\.jax: not a valid jax.export artifact: 2 bytes"):
        load_program(str(jax))
    result = CliRunner().invoke(cli, ["interpret", str(bytecode)])  # truncated bytecode
    assert result.exit_code == 1 and "m.bin:0:0: error:" in result.output
    assert "Traceback" not in result.output

    @register_loader(".fake")
    def load_fake(path: str) -> LoadedProgram:
        return LoadedProgram(shlo_cli.parse(PROGRAM).module, None)

    fake = tmp_path / "m.fake"
    fake.write_bytes(b"")
    assert shlo_cli.load(fake).functions == ["main", "twice"]
    result = CliRunner().invoke(cli, ["interpret", str(fake), "--input=2xf32=1 2",
                                      "--input=i32=0"])
    assert result.exit_code == 0 and "[2.000000e+00, 4.000000e+00]" in result.output
    from shlo_cli import loaders

    loaders._LOADERS.pop(".fake")


@pytest.mark.parametrize("tool", ["shlo", "stablehlo-translate", "stablehlo-opt"])
def test_version_on_every_tool(tool: str) -> None:
    import importlib

    module, _, name = {"shlo": "shlo_cli.commands.main:cli",
                       "stablehlo-translate": "shlo_cli.commands.translate:translate",
                       "stablehlo-opt": "shlo_cli.commands.opt:opt"}[tool].partition(":")
    command = getattr(importlib.import_module(module), name)
    result = CliRunner().invoke(command, ["--version"])
    assert result.exit_code == 0
    assert "StableHLO 1.20.0" in result.output and "shlo " in result.output


class _Tty:
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_tty_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_color(_Tty())  # type: ignore[arg-type]
    assert "\x1b[" in color_diagnostic("f:1:1: error: x", _Tty())  # type: ignore[arg-type]
    assert not use_color(open(os.devnull, "w"))  # noqa: SIM115
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(_Tty())  # type: ignore[arg-type]
    assert color_diagnostic("f:1:1: error: x", _Tty()) == "f:1:1: error: x"  # type: ignore[arg-type]
