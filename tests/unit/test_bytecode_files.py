"""Upstream's own bytecode: every StableHLO portable artifact in the conformance suite
(`vhlo/*.mlir.bc`, bytecode versions 0..6) is read, and written again with its version and
producer it comes out byte for byte; its generic print satisfies the CHECK lines of the
matching `.mlir`. Skipped when the conformance folder is absent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shlo_cli.commands.opt import opt
from shlo_cli.formats import is_bytecode, read_bytecode, write_bytecode
from shlo_cli.formats.bytecode.reader import bytecode_header
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.printer import print_module

ROOT = Path(os.environ.get("SHLO_CONFORMANCE",
                           Path(__file__).resolve().parents[3] / "shared" / "conformance"))
VHLO = ROOT / "vhlo"
FILES = sorted(p.name for p in VHLO.glob("*.mlir.bc")) if VHLO.is_dir() else []
INVALID = "invalid_vhlo_future.mlir.bc"
FILECHECK = Path(sys.executable).parent / "filecheck"

pytestmark = pytest.mark.skipif(not FILES, reason="no conformance vhlo folder")


@pytest.mark.parametrize("name", [n for n in FILES if n != INVALID])
def test_read_then_write_is_byte_identical(name: str) -> None:
    data = (VHLO / name).read_bytes()
    assert is_bytecode(data)
    header = bytecode_header(data)
    assert header is not None
    version, producer = header
    module = read_bytecode(data, name)
    assert write_bytecode(module, version, producer) == data


def test_versions_covered() -> None:
    versions = {bytecode_header((VHLO / n).read_bytes())[0] for n in FILES}  # type: ignore
    assert {0, 1, 3, 4, 6} <= versions


def test_future_op_is_reported_like_upstream() -> None:
    with pytest.raises(Diagnostic) as info:
        read_bytecode((VHLO / INVALID).read_bytes(), INVALID)
    text = info.value.render()
    assert ("error: unregistered operation 'vhlo.constant_v99' found in dialect ('vhlo') "
            "that does not allow unknown operations") in text
    assert "note: in bytecode version 6 produced by: StableHLO_v2.0.0" in text


@pytest.mark.skipif(not FILECHECK.exists(), reason="filecheck is not installed")
@pytest.mark.parametrize("name", [n for n in FILES if n.startswith("stablehlo_legalize")][::4])
def test_generic_print_matches_check_lines(name: str) -> None:
    module = read_bytecode((VHLO / name).read_bytes(), name)
    text = print_module(module, generic=True) + "\n"
    check = VHLO / name[:-len(".bc")]
    result = subprocess.run([str(FILECHECK), str(check)], input=text, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr[:2000]


def test_opt_emit_bytecode_keeps_the_artifact_bytes(tmp_path: Path) -> None:
    """`stablehlo-opt -emit-bytecode X.mlir.bc` reproduces X (same version and producer)."""
    name = next(n for n in FILES if n.endswith("1_20_0.mlir.bc"))
    data = (VHLO / name).read_bytes()
    result = CliRunner().invoke(opt, ["-emit-bytecode", "-"], input=data)
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == data
    target = tmp_path / "out.mlirbc"
    result = CliRunner().invoke(opt, ["-emit-bytecode", str(VHLO / name), "-o", str(target)])
    assert result.exit_code == 0 and target.read_bytes() == data
    result = CliRunner().invoke(opt, ["-emit-bytecode", "-emit-bytecode-version", "5", "-"],
                                input=data)
    assert result.exit_code == 0 and result.stdout_bytes[4] == 5 << 1 | 1
    assert read_bytecode(result.stdout_bytes, "v5") is not None


def test_opt_prints_artifacts_generically() -> None:
    name = next(n for n in FILES if n.endswith("0_9_0.mlir.bc"))
    result = CliRunner().invoke(opt, ["--mlir-print-op-generic", str(VHLO / name)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith('"builtin.module"() ({\n  "vhlo.func_v1"() <{')


def test_vhlo_property_table_matches_the_op_registry() -> None:
    """Our frozen copy of VhloOps.td's attributes agrees with the registered VHLO ops."""
    from shlo_cli.dialects import registry
    from shlo_cli.formats.bytecode.properties import op_spec

    vhlo = {n: d for n, d in registry.all_ops().items() if n.startswith("vhlo.")}
    assert len(vhlo) > 100
    for name, opdef in vhlo.items():
        spec = op_spec(name)
        assert spec is not None and all(not optional for _, optional in spec)
        assert [n for n, _ in spec] == sorted(opdef.properties), name


@pytest.mark.parametrize("version", ["0_9_0", "0_14_0", "1_1_0", "1_20_0"])
def test_legalize_pipeline_writes_upstream_bytes(version: str) -> None:
    """The text source through stablehlo-legalize-to-vhlo and vhlo-to-version, locations
    stripped (upstream's --strip-debuginfo), written with the artifact's version and
    producer: the artifact, byte for byte (bytecode versions 0, 4 and 6)."""
    from shlo_cli.ir.core import UNKNOWN_LOCATION
    from shlo_cli.ir.parser import parse_source
    from shlo_cli.passes import run_passes

    source = VHLO / f"stablehlo_legalize_to_vhlo.{version}.mlir"
    module = parse_source(source.read_text(), str(source))
    target = version.replace("_", ".")
    run_passes(module, ["stablehlo-legalize-to-vhlo", ("vhlo-to-version", f"target={target}")],
               lambda m: None)
    for op in module.op.walk():
        op.location = UNKNOWN_LOCATION
        for region in op.regions:
            for block in region.blocks:
                block.arg_locations = [None] * len(block.arguments)
    data = (VHLO / f"{source.name}.bc").read_bytes()
    header = bytecode_header(data)
    assert header is not None
    assert write_bytecode(module, *header) == data
