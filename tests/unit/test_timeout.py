"""`--timeout SECONDS`: a whole run ends with a located diagnostic, exit 1 and no output
files, whether time runs out in the main thread (SIGALRM) or in another (clock checks)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import shlo_cli
from shlo_cli.commands.interpret import run_interpret
from shlo_cli.ir.diagnostics import Diagnostic

FOREVER = """func.func @main() -> tensor<64x64xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %m = stablehlo.constant dense<0.5> : tensor<64x64xf32>
  %r:2 = stablehlo.while(%i = %c0, %x = %m) : tensor<i64>, tensor<64x64xf32>
   cond {
    %b = stablehlo.compare GE, %i, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %b : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<i64>
    %y = stablehlo.dot %x, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    stablehlo.return %n, %y : tensor<i64>, tensor<64x64xf32>
  }
  return %r#1 : tensor<64x64xf32>
}
"""


def test_timeout_ends_the_run_with_a_located_diagnostic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(FOREVER)
    out = tmp_path / "out.txt"
    started = time.monotonic()
    code = run_interpret(str(path), output=str(out), timeout=0.3)
    elapsed = time.monotonic() - started
    _, err = capsys.readouterr()
    assert code == 1
    assert elapsed < 5
    assert "error: timed out after 0.3 s while evaluating '" in err
    line = int(err.split(":")[1])
    assert 5 <= line <= 11  # the while loop or an op of its regions
    assert "^" in err and "Traceback" not in err
    assert not out.exists()


def test_timeout_leaves_no_result_files(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(FOREVER)
    code = run_interpret(str(path), timeout=0.3, save_results=str(tmp_path / "r.npz"),
                         dump_intermediates=str(tmp_path / "d.npz"))
    assert code == 1
    assert "timed out after 0.3 s" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.mlir"]


def test_a_fast_run_is_not_affected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(FOREVER.replace("GE, %i, %c0", "LT, %i, %one"))
    assert run_interpret(str(path), timeout=30) == 0
    assert "tensor<64x64xf32>" in capsys.readouterr().out


def test_timeout_outside_the_main_thread_checks_the_clock() -> None:
    caught: list[BaseException] = []

    def work() -> None:
        try:
            shlo_cli.interpret(FOREVER, timeout=0.3)
        except BaseException as e:  # noqa: BLE001 - the test inspects it
            caught.append(e)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive()
    assert len(caught) == 1 and isinstance(caught[0], Diagnostic)
    assert "timed out after 0.3 s while evaluating" in str(caught[0])


def test_timeout_stops_parallel_processes(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    program = FOREVER.replace("func.func @main() -> tensor<64x64xf32>",
                              "func.func @spin() -> tensor<64x64xf32>") + """
func.func @main() -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %r:2 = "interpreter.run_parallel"() {programs = [[@spin], [@spin]]}
    : () -> (tensor<64x64xf32>, tensor<64x64xf32>)
  return %r#0, %r#1 : tensor<64x64xf32>, tensor<64x64xf32>
}
"""
    path = tmp_path / "t.mlir"
    path.write_text(program)
    started = time.monotonic()
    code = run_interpret(str(path), timeout=0.5)
    assert code == 1 and time.monotonic() - started < 5
    err = capsys.readouterr().err
    assert "timed out after 0.5 s" in err and "Traceback" not in err
