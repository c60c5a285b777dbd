"""`-o` onto /dev/null, a FIFO, a symlink and a read-only place: written through, never replaced.

A device or FIFO cannot be renamed over, a symlink must stay a link, and a failed write must
leave no partial file and print a diagnostic, not a traceback (issue #15).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
PROGRAM = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / tool), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "in.mlir"
    path.write_text(PROGRAM)
    return path


@pytest.mark.parametrize("tool", ["stablehlo-opt", "stablehlo-translate"])
def test_dev_null(tool: str, program: Path) -> None:
    args = ["--serialize", "--target=1.0.0"] if tool == "stablehlo-translate" else []
    proc = _run(tool, str(program), *args, "-o", os.devnull)
    assert proc.returncode == 0, proc.stderr
    assert Path(os.devnull).is_char_device()  # not replaced by a regular file
    assert proc.stderr == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo(program: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = _run("stablehlo-opt", str(program), "-o", str(fifo))
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert fifo.is_fifo()
    assert b"stablehlo.add" in got[0]


def test_symlink_written_through(program: Path, tmp_path: Path) -> None:
    target = tmp_path / "real.mlir"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    proc = _run("stablehlo-opt", str(program), "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert "stablehlo.add" in target.read_text()
    assert target.stat().st_mode & 0o777 == 0o640


def test_dangling_symlink_creates_target(program: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.mlir"
    link.symlink_to(tmp_path / "new.mlir")
    proc = _run("stablehlo-opt", str(program), "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and "stablehlo.add" in (tmp_path / "new.mlir").read_text()


def test_unwritable_place_is_a_diagnostic(program: Path, tmp_path: Path) -> None:
    proc = _run("stablehlo-opt", str(program), "-o", str(tmp_path / "missing" / "out.mlir"))
    assert proc.returncode != 0
    assert "cannot open output file" in proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


def test_failed_run_leaves_no_output(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main( {")
    out = tmp_path / "out.mlir"
    proc = _run("stablehlo-opt", str(bad), "-o", str(out))
    assert proc.returncode != 0 and "error:" in proc.stderr
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.mlir"]  # no temp file left behind
