"""The `dynamic` and `disabled` conformance suites: inputs from a signature, in-process runs,
RUN-DISABLED lines, and xfail reasons that survive a rewrite."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import conformance
import conformance_dynamic
import numpy as np
import pytest

from shlo_cli.ir.types import DYNAMIC, FloatType, IntegerType, TensorType

# %arg0 is a dimension variable: it must be given the size the `?` dimensions got.
DYNAMIC_OK = """// RUN: stablehlo-opt %s > %t.1
func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %c = stablehlo.constant dense<3> : tensor<i64>
  stablehlo.custom_call @check.expect_eq(%arg0, %c) {has_side_effect = true}
      : (tensor<i64>, tensor<i64>) -> ()
  %0 = stablehlo.add %arg1, %arg1 : tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
"""
DYNAMIC_BAD = DYNAMIC_OK.replace("dense<3>", "dense<5>")
DISABLED_OK = """\
// RUN-DISABLED(no interpreter support): stablehlo-opt %s | stablehlo-translate --interpret
// RUN: false
func.func @main() {
  func.return
}
"""
DISABLED_BAD = """// RUN-DISABLED(inaccurate) stablehlo-translate --interpret %s
func.func @main(%x: tensor<2xi32>) {
  func.return
}
"""
NOT_DISABLED = """// RUN: stablehlo-translate --interpret %s
func.func @main() {
  func.return
}
"""


def test_input_values_specialise_dynamic_dimensions() -> None:
    f32, i64, i32 = FloatType("f32"), IntegerType(64), IntegerType(32)
    assert conformance_dynamic.input_value(TensorType((), i64)).item() == 3  # dimension var
    floats = conformance_dynamic.input_value(TensorType((DYNAMIC, 2), f32), size=4)
    assert floats.shape == (4, 2) and floats.dtype == np.float32 and (floats == 1).all()
    ints = conformance_dynamic.input_value(TensorType((DYNAMIC,), i32))
    assert ints.shape == (3,) and ints.dtype == np.int32 and (ints == 0).all()
    assert conformance_dynamic.input_value(TensorType((2,), IntegerType(1))).all()


def test_result_problems_compare_with_declared_types() -> None:
    declared = TensorType((DYNAMIC, 2), FloatType("f32"))
    assert conformance_dynamic.result_problems([(np.ones((5, 2), np.float32), declared)]) == []
    wrong_shape = conformance_dynamic.result_problems([(np.ones((5, 3), np.float32), declared)])
    assert wrong_shape and "shape (5, 3)" in wrong_shape[0]
    wrong_type = conformance_dynamic.result_problems([(np.ones((5, 2), np.int32), declared)])
    assert wrong_type and "dtype int32" in wrong_type[0]


def test_run_program_reports_diagnostics(tmp_path: Path) -> None:
    ok, bad, broken = tmp_path / "ok.mlir", tmp_path / "bad.mlir", tmp_path / "broken.mlir"
    ok.write_text(DYNAMIC_OK)
    bad.write_text(DYNAMIC_BAD)
    broken.write_text("func.func @main(")
    assert conformance_dynamic.run_program(str(ok)) is None
    assert "check.expect_eq" in (conformance_dynamic.run_program(str(bad)) or "")
    assert "error" in (conformance_dynamic.run_program(str(broken)) or "")
    # A different size reaches the dimension variable too, so the check now fails.
    assert conformance_dynamic.run_program(str(ok), size=4) is not None


def test_time_limit_interrupts() -> None:
    start = time.monotonic()
    with pytest.raises(conformance_dynamic.ProgramTimeout):
        with conformance_dynamic.time_limit(0.05):
            while time.monotonic() - start < 5:
                pass
    assert time.monotonic() - start < 2


def test_disabled_run_line_forms() -> None:
    matches = [conformance.DISABLED_RUN.search(line) for line in DISABLED_OK.splitlines()[:1]
               + DISABLED_BAD.splitlines()[:1]]
    assert [(m.group(1), m.group(2)) for m in matches if m] == [
        ("no interpreter support", "stablehlo-opt %s | stablehlo-translate --interpret"),
        ("inaccurate", "stablehlo-translate --interpret %s")]


def test_xfail_reasons_survive_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "xfail.txt"
    path.write_text("# header\ndisabled/a.mlir  # too inaccurate\nverify/b.mlir\n")
    assert conformance.read_xfails(path) == ["disabled/a.mlir", "verify/b.mlir"]
    conformance.write_xfails(["disabled/a.mlir", "testdata/c.mlir"], path)
    assert "disabled/a.mlir  # too inaccurate\n" in path.read_text()
    assert conformance.read_xfails(path) == ["disabled/a.mlir", "testdata/c.mlir"]


@pytest.fixture
def tiny_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "conformance"
    (root / "testdata" / "dynamic").mkdir(parents=True)
    (root / "testdata" / "dynamic" / "ok.mlir").write_text(DYNAMIC_OK)
    (root / "testdata" / "dynamic" / "bad.mlir").write_text(DYNAMIC_BAD)
    (root / "testdata" / "disabled_ok.mlir").write_text(DISABLED_OK)
    (root / "testdata" / "disabled_bad.mlir").write_text(DISABLED_BAD)
    (root / "testdata" / "enabled.mlir").write_text(NOT_DISABLED)
    monkeypatch.setattr(conformance, "BUILD", tmp_path / "build")
    return root


def _run_lit(exec_roots: list[Path], xfail_file: Path, **env: str) -> dict[str, str]:
    out = exec_roots[0] / "results.json"
    lit = Path(sys.executable).with_name("lit")
    subprocess.run([str(lit), "-q", "-o", str(out), *map(str, exec_roots)], check=False,
                   capture_output=True, env={"PATH": f"{lit.parent}:/usr/bin:/bin",
                                        "SHLO_XFAIL_FILE": str(xfail_file), **env})
    return {t["name"]: t["code"] for t in json.loads(out.read_text())["tests"]}


def test_lit_runs_dynamic_and_disabled_suites(tiny_root: Path, tmp_path: Path) -> None:
    suites = [s for s in conformance.SUITES if s.name in ("dynamic", "disabled")]
    exec_roots = [conformance.write_site_config(s, tiny_root) for s in suites]
    xfail_file = tmp_path / "xfail.txt"
    conformance.write_xfails(["dynamic/bad.mlir", "disabled/disabled_bad.mlir"], xfail_file)
    assert _run_lit(exec_roots, xfail_file) == {
        "dynamic :: ok.mlir": "PASS",
        "dynamic :: bad.mlir": "XFAIL",
        "disabled :: disabled_ok.mlir": "PASS",  # only the disabled line ran, not `false`
        "disabled :: disabled_bad.mlir": "XFAIL",
    }  # testdata/dynamic and enabled.mlir have no RUN-DISABLED line: not in `disabled`
    conformance.write_xfails(["dynamic/ok.mlir"], xfail_file)
    codes = _run_lit(exec_roots, xfail_file)
    assert codes["dynamic :: ok.mlir"] == "XPASS"
    assert codes["dynamic :: bad.mlir"] == "FAIL"
    assert codes["disabled :: disabled_bad.mlir"] == "FAIL"
    # --dynamic-size reaches the lit workers: ok.mlir's dimension variable is now 4.
    codes = _run_lit(exec_roots, xfail_file, **{conformance.DYNAMIC_SIZE_ENV: "4"})
    assert codes["dynamic :: ok.mlir"] == "XFAIL"  # listed, and now failing
