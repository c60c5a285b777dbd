"""`-o` onto /dev/null, a FIFO, a symlink and a read-only place: written through, never replaced.

A device or FIFO cannot be renamed over, a symlink must stay a link, and a failed write must
leave no partial file and print a diagnostic, not a traceback (issue #15). A failed run
removes `-o` as upstream's ToolOutputFile does (a regular file, or a symlink itself).
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


FAILING = """func.func @main() -> tensor<i32> {
  %0 = stablehlo.constant dense<1> : tensor<i32>
  %1 = stablehlo.constant dense<2> : tensor<i32>
  check.expect_eq %0, %1 : tensor<i32>
  return %0 : tensor<i32>
}
"""


@pytest.mark.parametrize(("tool", "args", "text"), [
    ("stablehlo-translate", ["--interpret"], FAILING),
    ("stablehlo-translate", ["--serialize", "--target=current"], "func.func @main( {"),
    ("stablehlo-translate", ["--deserialize"], "not an artifact"),
    ("stablehlo-opt", [], "func.func @main( {"),
])
def test_failed_run_removes_previous_output(tool: str, args: list[str], text: str,
                                            tmp_path: Path) -> None:
    """Upstream's ToolOutputFile truncates `-o` when it opens it, before the run, and
    deletes it when the run fails: an old result must not pass for this run's."""
    bad = tmp_path / "bad.mlir"
    bad.write_text(text)
    out = tmp_path / "out.txt"
    out.write_text("an earlier run's result\n")
    proc = _run(tool, *args, str(bad), "-o", str(out))
    assert proc.returncode != 0 and "error:" in proc.stderr
    assert not out.exists()


def test_missing_input_keeps_output(tmp_path: Path) -> None:
    """Upstream reads the input before it opens `-o`: a missing input leaves it as it was."""
    out = tmp_path / "out.txt"
    out.write_text("kept\n")
    proc = _run("stablehlo-translate", "--interpret", str(tmp_path / "missing.mlir"),
                "-o", str(out))
    assert proc.returncode != 0 and "cannot open input file" in proc.stderr
    assert out.read_text() == "kept\n"


def test_failed_run_leaves_a_symlink_and_its_target(tmp_path: Path) -> None:
    """Deliberately not upstream (which truncates the target through the link, then removes
    the link): a symlink given as -o is written through, never replaced nor removed."""
    bad = tmp_path / "bad.mlir"
    bad.write_text(FAILING)
    target = tmp_path / "target.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    proc = _run("stablehlo-translate", "--interpret", str(bad), "-o", str(link))
    assert proc.returncode != 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "old\n"


def test_failed_run_leaves_devices(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text(FAILING)
    proc = _run("stablehlo-translate", "--interpret", str(bad), "-o", os.devnull)
    assert proc.returncode != 0
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


def test_split_bytecode_reads_back_as_upstream(tmp_path: Path) -> None:
    """mlir-opt writes `// -----` and a newline between the bytecode of split chunks and
    splits any input, bytecode too, at that marker: the first chunk reads back as
    bytecode; a later one starts with the newline, so it is no bytecode and is read (and
    refused) as text, as upstream refuses it (its bytes were once one chunk: 'invalid
    section ID')."""
    text = tmp_path / "two.mlir"
    text.write_text(PROGRAM + "// -----\n" + PROGRAM)
    bc = tmp_path / "two.mlirbc"
    assert _run("stablehlo-opt", "-split-input-file", "-emit-bytecode", str(text),
                "-o", str(bc)).returncode == 0
    assert bc.read_bytes().count(b"// -----\nML\xefR") == 1
    proc = subprocess.run([str(BIN / "stablehlo-opt"), "-split-input-file", str(bc)],
                          capture_output=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout.startswith(b"module {\n  func.func @main(")
    assert proc.stdout.endswith(b"}\n\n// -----\n")
    assert b"custom op 'ML' is unknown (tried 'builtin.ML' as well)" in proc.stderr
    # Unsplit, the reader meets the marker's '/' (47) where the next section would start.
    whole = subprocess.run([str(BIN / "stablehlo-opt"), str(bc)], capture_output=True,
                           timeout=60)
    assert whole.returncode == 1 and b"invalid section ID: 47" in whole.stderr
