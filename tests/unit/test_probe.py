"""interpreter.probe: upstream's `.npy` layout and `index.csv`, atomic writes inside the probe
directory only, and check.expect_serialized_eq reading the files back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shlo_cli.commands.interpret import run_interpret
from shlo_cli.dialects.interpreter_parallel import numpy_file_bytes
from shlo_cli.ir.types import ComplexType, FloatType, IntegerType, TensorType


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
        **options: object) -> tuple[int, str, str]:
    path = tmp_path / "t.mlir"
    path.write_text(text)
    code = run_interpret(str(path), **options)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    return code, out, err


def probe_program(value: str, type: str, probe_id: str = "p") -> str:
    return f"""
func.func @main() -> {type} {{
  %0 = stablehlo.constant dense<{value}> : {type}
  %1 = interpreter.probe %0, probe_id = "{probe_id}" : {type}
  check.expect_serialized_eq %1, probe_id = "{probe_id}" : {type}
  return %1 : {type}
}}
"""


def header_of(path: Path) -> str:
    data = path.read_bytes()
    assert data[:8] == b"\x93NUMPY\x01\x00"
    length = int.from_bytes(data[8:10], "little")
    return data[10:10 + length].decode("latin-1")


@pytest.mark.parametrize(("value", "type", "descr", "dtype"), [
    ("[[1, -2], [3, 4]]", "tensor<2x2xi64>", "<u8", np.uint64),  # upstream's mapping
    ("[1, 2]", "tensor<2xui64>", "<i8", np.int64),
    ("[1, -2, 3]", "tensor<3xi32>", "<i4", np.int32),
    ("[1, 2]", "tensor<2xui8>", "<u1", np.uint8),
    ("[true, false]", "tensor<2xi1>", "<i1", np.int8),
    ("[1.5, -2.0]", "tensor<2xf32>", "<f4", np.float32),
    ("[1.5, -2.0]", "tensor<2xbf16>", "<u2", np.uint16),
    ("[(1.0, 2.0)]", "tensor<1xcomplex<f32>>", "<f8", np.float64),
])
def test_probe_files_use_upstream_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         value: str, type: str, descr: str,
                                         dtype: type) -> None:
    out_dir = tmp_path / "probes"
    out_dir.mkdir()
    code, _, err = run(tmp_path, capsys, probe_program(value, type),
                       probe_output_dir=str(out_dir))
    assert (code, err) == (0, "")
    npy = out_dir / "probe1.npy"
    header = header_of(npy)
    assert header.startswith(f"{{'descr': '{descr}', 'fortran_order': False, 'shape' : (")
    assert header.endswith(", }      \n")
    loaded = np.load(npy)
    assert loaded.dtype == np.dtype(dtype)
    assert (out_dir / "index.csv").read_text() == f"p,{type},{out_dir}/probe1.npy\n"
    assert sorted(p.name for p in out_dir.iterdir()) == ["index.csv", "probe1.npy"]


def test_header_shape_is_written_like_upstream() -> None:
    data = numpy_file_bytes(np.zeros((3, 1), np.int64), TensorType((3, 1), IntegerType(64)))
    length = int.from_bytes(data[8:10], "little")
    assert data[10:10 + length].decode() == (
        "{'descr': '<u8', 'fortran_order': False, 'shape' : (3,1,), }      \n")
    scalar = numpy_file_bytes(np.zeros((), np.float64), TensorType((), FloatType("f64")))
    assert b"'shape' : (), }" in scalar
    assert np.load(__import__("io").BytesIO(scalar)).shape == ()
    c64 = numpy_file_bytes(np.array([1 + 2j], np.complex64),
                           TensorType((1,), ComplexType(FloatType("f32"))))
    assert c64.endswith(np.array([1 + 2j], np.complex64).tobytes())


ITERATIONS = """
func.func @main() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %i, %s = stablehlo.while(%a = %zero, %b = %zero) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %a, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %b, %one : tensor<i64>
    %p = interpreter.probe %n, probe_id = "loop" : tensor<i64>
    %m = stablehlo.add %a, %one : tensor<i64>
    stablehlo.return %m, %p : tensor<i64>, tensor<i64>
  }
  check.expect_serialized_eq %three, probe_id = "loop", iter = 2 : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "loop", iter = 1 : tensor<i64>
  func.return
}
"""


def test_iterations_get_numbered_files_and_index_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(tmp_path, capsys, ITERATIONS, probe_output_dir=str(tmp_path))
    assert code == 1  # iteration 1 stored 2, not 1
    assert "Element values don't match: 1 (actual) vs 2 (expected)" in err
    lines = (tmp_path / "index.csv").read_text().splitlines()
    assert lines == [f"loop,tensor<i64>,{tmp_path}/probe{n}.npy" for n in (1, 2, 3)]
    assert [int(np.load(tmp_path / f"probe{n}.npy").view(np.int64)) for n in (1, 2, 3)] \
        == [1, 2, 3]


def test_each_run_starts_a_fresh_index(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    program = probe_program("[1, 2]", "tensor<2xi32>")
    for _ in range(2):
        code, _, _ = run(tmp_path, capsys, program, probe_output_dir=str(tmp_path))
        assert code == 0
    assert (tmp_path / "index.csv").read_text().count("\n") == 1


def test_probe_ids_with_a_slash_stay_metadata(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(tmp_path, capsys, probe_program("[1]", "tensor<1xi32>", "probe/0"),
                       probe_output_dir=str(tmp_path))
    assert (code, err) == (0, "")
    assert (tmp_path / "probe1.npy").exists()
    assert (tmp_path / "index.csv").read_text().startswith("probe/0,tensor<1xi32>,")


@pytest.mark.parametrize("probe_id", ["../x", "a/../../x", "/tmp/abs", "..\\\\x"])
def test_unsafe_probe_ids_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      probe_id: str) -> None:
    work = tmp_path / "work"
    out_dir = work / "probes"
    out_dir.mkdir(parents=True)
    code, _, err = run(tmp_path, capsys, probe_program("[1]", "tensor<1xi32>", probe_id),
                       probe_output_dir=str(out_dir))
    assert code == 1
    assert "error: interpreter.probe failed: invalid probe_id" in err
    assert "Traceback" not in err
    assert list(out_dir.iterdir()) == []
    assert [p.name for p in work.iterdir()] == ["probes"]


def test_probe_needs_an_output_directory(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(tmp_path, capsys, probe_program("[1]", "tensor<1xi32>"))
    assert code == 1
    assert "interpreter.probe failed: Probe serialization directory cannot be empty." in err


def test_probes_in_parallel_processes_share_one_numbering(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = """
func.func @p(%x: tensor<i32>) -> tensor<i32> {
  %r = interpreter.probe %x, probe_id = "par" : tensor<i32>
  return %r : tensor<i32>
}
func.func @main() {
  %a = stablehlo.constant dense<1> : tensor<i32>
  %r:4 = "interpreter.run_parallel"(%a, %a, %a, %a) {programs = [[@p, @p], [@p, @p]]}
    : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
    -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
  func.return
}
"""
    code, _, err = run(tmp_path, capsys, program, probe_output_dir=str(tmp_path))
    assert (code, err) == (0, "")
    names = sorted(line.rsplit("/", 1)[1]
                   for line in (tmp_path / "index.csv").read_text().splitlines())
    assert names == ["probe1.npy", "probe2.npy", "probe3.npy", "probe4.npy"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left


def test_probe_round_trips_through_the_printer(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from shlo_cli.commands.opt import opt as opt_command

    path = tmp_path / "p.mlir"
    path.write_text(probe_program("[1]", "tensor<1xi32>", "a b"))
    first = CliRunner().invoke(opt_command, [str(path)])
    assert first.exit_code == 0, first.output
    assert 'interpreter.probe %c, probe_id = "a b" : tensor<1xi32>' in first.output
    path.write_text(first.output)
    second = CliRunner().invoke(opt_command, [str(path)])
    assert second.output == first.output


def test_missing_probe_directory_is_created(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "new" / "probes"  # neither folder exists yet (mkdir -p)
    code, _, err = run(tmp_path, capsys, probe_program("[1, 2]", "tensor<2xi32>"),
                       probe_output_dir=str(out_dir))
    assert (code, err) == (0, "")
    assert sorted(p.name for p in out_dir.iterdir()) == ["index.csv", "probe1.npy"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "t.mlir"]


def test_probe_directory_that_cannot_be_made_is_a_diagnostic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run(tmp_path, capsys, probe_program("[1]", "tensor<1xi32>"),
                       probe_output_dir=str(blocker / "probes"))
    assert code == 1
    assert "t.mlir:4:" in err and "cannot create probe directory" in err
    assert "Traceback" not in err


def test_probe_files_get_a_plain_files_mode(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """0666 less the umask, as a plain create (upstream's openFileForWrite) gives them, not
    the owner-only 0600 of a private temporary file; and no temporary file stays behind."""
    import os

    out_dir = tmp_path / "probes"
    out_dir.mkdir()
    old = os.umask(0o022)
    try:
        code, _, err = run(tmp_path, capsys, probe_program("[1, 2]", "tensor<2xi32>"),
                           probe_output_dir=str(out_dir))
    finally:
        os.umask(old)
    assert (code, err) == (0, "")
    modes = {p.name: p.stat().st_mode & 0o777 for p in out_dir.iterdir()}
    assert modes == {"probe1.npy": 0o644, "index.csv": 0o644}
