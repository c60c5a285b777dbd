"""Portable artifacts: `serialize`/`deserialize` round trips, upstream's bytes, the version in
the producer string, and every bad-input class ending in a diagnostic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shlo_cli.dialects.vhlo.version import CURRENT, MINIMUM, Version
from shlo_cli.formats.portable import artifact_version, deserialize, serialize
from shlo_cli.ir.diagnostics import Diagnostic, ShloError
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance"
BIN = Path(sys.executable).parent

PROGRAM = """func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  %1 = stablehlo.compare  LT, %0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %2 = stablehlo.select %1, %0, %arg0 : tensor<2xi1>, tensor<2xf32>
  return %2 : tensor<2xf32>
}
"""


def _round_trip(text: str, target: str) -> str:
    data = serialize(parse_source(text, "in.mlir"), target)
    return print_module(deserialize(data, "in.mlir.bc"))


@pytest.mark.parametrize("target", ["current", "minimum", "1.0.0", "0.14.0"])
def test_round_trip_is_lossless(target: str) -> None:
    assert _round_trip(PROGRAM, target) == print_module(parse_source(PROGRAM, "in.mlir"))


def test_producer_names_the_target_version() -> None:
    data = serialize(parse_source(PROGRAM, "in.mlir"), "1.2.0")
    assert data.startswith(b"ML\xefR")
    assert artifact_version(data) == Version(1, 2, 0)
    assert artifact_version(serialize(parse_source(PROGRAM, "x"), "current")) == CURRENT
    assert artifact_version(PROGRAM.encode()) is None


VERSIONED = sorted(p.name.split(".")[1] for p in
                   (CONFORMANCE / "vhlo").glob("stablehlo_legalize_to_vhlo.*_*_*.mlir"))


@pytest.mark.parametrize("name", VERSIONED or ["none"])
def test_writes_upstreams_bytes(name: str) -> None:
    """Text -> VHLO of the file's version -> bytecode gives upstream's artifact byte for byte
    (1.2.0-1.16.0 need the use-list order that upstream's downgrade of custom_call leaves)."""
    source = CONFORMANCE / "vhlo" / f"stablehlo_legalize_to_vhlo.{name}.mlir"
    if not source.exists():
        pytest.skip("no upstream conformance files")
    from shlo_cli.passes.strip_debuginfo import strip_debuginfo

    module = parse_source(source.read_text(), str(source))
    strip_debuginfo(module)
    data = serialize(module, name.replace("_", "."))
    assert data == source.with_suffix(".mlir.bc").read_bytes()


@pytest.mark.parametrize("target, message", [
    ("", "No target version specified"),
    ("1.x", "Invalid target version argument '1.x'"),
    ("0.8.0", f"less than minimum supported {MINIMUM}"),
    ("99.0.0", f"greater than current version {CURRENT}"),
])
def test_bad_targets(target: str, message: str) -> None:
    with pytest.raises(ShloError, match=message.replace(".", r"\.")):
        serialize(parse_source(PROGRAM, "in.mlir"), target)


def test_op_missing_from_target_version() -> None:
    # stablehlo.tan exists since 1.4.0 (vhlo.tan_v1).
    text = PROGRAM.replace("stablehlo.add %arg0, %arg0 : tensor<2xf32>",
                           "stablehlo.tan %arg0 : tensor<2xf32>")
    serialize(parse_source(text, "in.mlir"), "1.4.0")
    with pytest.raises(Diagnostic, match="failed to legalize operation 'vhlo.tan_v"):
        serialize(parse_source(text, "in.mlir"), "1.3.0")


@pytest.mark.parametrize("cut", [4, 5, 20, 60, -40, -1])
def test_truncated_artifact_is_a_diagnostic(cut: int) -> None:
    data = serialize(parse_source(PROGRAM, "in.mlir"), "current")
    with pytest.raises(Diagnostic) as info:
        deserialize(data[:cut], "cut.bc")
    assert any("failed to deserialize portable artifact" in note.message
               for note in info.value.notes)


def _run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(BIN / "stablehlo-translate"), *args], input=stdin,
                          capture_output=True, check=False)


def test_cli_pipeline_and_version(tmp_path: Path) -> None:
    source = tmp_path / "p.mlir"
    source.write_text(PROGRAM)
    data = _run("--serialize", "--target=1.1.0", str(source)).stdout
    assert artifact_version(data) == Version(1, 1, 0)
    out = _run("--deserialize", "--print-stablehlo-version", "-", stdin=data)
    assert out.returncode == 0
    text = out.stdout.decode()
    assert text.startswith("// Reading portable artifact with StableHLO version: 1.1.0\n")
    assert "stablehlo.select" in text


def test_cli_failure_leaves_no_output_file(tmp_path: Path) -> None:
    source = tmp_path / "p.mlir"
    source.write_text(PROGRAM.replace("stablehlo.add", "stablehlo.bogus_op"))
    target = tmp_path / "out.bc"
    result = _run("--serialize", "--target=current", str(source), "-o", str(target))
    assert result.returncode == 1
    assert b"p.mlir:2:" in result.stderr and b"Traceback" not in result.stderr
    assert not target.exists() and list(tmp_path.iterdir()) == [source]


def test_cli_corrupt_artifact(tmp_path: Path) -> None:
    data = bytearray(serialize(parse_source(PROGRAM, "in.mlir"), "current"))
    data[len(data) // 2] ^= 0xFF
    data[len(data) // 3] ^= 0x55
    result = _run("--deserialize", "-", stdin=bytes(data))
    assert result.returncode != 0
    assert b"Traceback" not in result.stderr and b"error" in result.stderr
