"""`make conformance` plumbing: xfail list, summaries, and the lit format on a tiny suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import conformance
import pytest

PASSING = """// RUN: stablehlo-translate --interpret %s
// RUN: stablehlo-opt %s > %t.1
// RUN: stablehlo-opt %t.1 > %t.2
// RUN: diff %t.1 %t.2
func.func @main() {
  func.return
}
"""
FAILING = """// RUN: stablehlo-opt %s | stablehlo-translate --interpret
func.func @main(%x: tensor<2xi32>) {
  func.return
}
"""
LATER_LINE_FAILS = """// RUN: stablehlo-translate --interpret %s
// RUN: false
func.func @main() {
  func.return
}
"""
NO_RUN_FAILS = """// RUN: stablehlo-opt %s
func.func @main() {
  func.return
}
"""


def test_xfail_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "xfail.txt"
    conformance.write_xfails(["testdata/b.mlir", "interpret/a.mlir", "testdata/b.mlir"], path)
    text = path.read_text()
    assert text.startswith("#")
    assert conformance.read_xfails(path) == ["interpret/a.mlir", "testdata/b.mlir"]
    assert conformance.read_xfails(tmp_path / "missing.txt") == []


def test_summary_and_failing_paths() -> None:
    results = [
        {"name": "interpret :: a.mlir", "code": "PASS"},
        {"name": "interpret :: b.mlir", "code": "XFAIL"},
        {"name": "testdata :: sub/c.mlir", "code": "FAIL"},
        {"name": "testdata :: d.mlir", "code": "UNSUPPORTED"},
    ]
    suites = [s for s in conformance.SUITES if s.name in ("interpret", "testdata")]
    summary = conformance.summarize(results, suites)
    assert "interpret  passed     1 /     2" in summary
    assert "testdata   passed     0 /     2" in summary
    assert conformance.failing_paths(results) == ["interpret/b.mlir", "testdata/sub/c.mlir"]


def test_update_keeps_entries_of_tests_not_run() -> None:
    results = [
        {"name": "interpret :: fixed.mlir", "code": "XPASS"},
        {"name": "interpret :: broken.mlir", "code": "FAIL"},
        {"name": "interpret :: still.mlir", "code": "XFAIL"},
    ]
    old = ["interpret/fixed.mlir", "interpret/still.mlir", "testdata/other.mlir"]
    assert conformance.updated_xfails(old, results) == [
        "interpret/broken.mlir", "interpret/still.mlir", "testdata/other.mlir"]



def test_update_keeps_entries_expected_to_fail_only_under_another_feature() -> None:
    results = [{"name": "passes :: clone_only.mlir", "code": "PASS"},
               {"name": "passes :: fixed.mlir", "code": "PASS"}]
    old = ["passes/clone_only.mlir", "passes/fixed.mlir"]
    conditions = {"passes/clone_only.mlir": "python-filecheck",
                  "passes/fixed.mlir": "llvm-filecheck"}
    # a run with LLVM's FileCheck cannot judge the clone-only entry; it judged the other
    assert conformance.updated_xfails(old, results, conditions, ["llvm-filecheck"]) == [
        "passes/clone_only.mlir"]
    assert conformance.updated_xfails(old, results, conditions, ["python-filecheck"]) == [
        "passes/fixed.mlir"]

@pytest.fixture
def tiny_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A conformance root with one testdata suite, built under tmp_path."""
    root = tmp_path / "conformance"
    (root / "testdata").mkdir(parents=True)
    (root / "testdata" / "passing.mlir").write_text(PASSING)
    (root / "testdata" / "failing.mlir").write_text(FAILING)
    (root / "testdata" / "later_line_fails.mlir").write_text(LATER_LINE_FAILS)
    monkeypatch.setattr(conformance, "BUILD", tmp_path / "build")
    return root


def _run_lit(exec_root: Path, xfail_file: Path) -> dict[str, str]:
    out = exec_root / "results.json"
    lit = Path(sys.executable).with_name("lit")
    subprocess.run([str(lit), "-q", "-o", str(out), str(exec_root)], check=False,
                   capture_output=True, env={"PATH": f"{lit.parent}:/usr/bin:/bin",
                                        "SHLO_XFAIL_FILE": str(xfail_file)})
    return {t["name"]: t["code"] for t in json.loads(out.read_text())["tests"]}


def test_lit_format_runs_every_run_line_and_applies_xfail(tiny_root: Path,
                                                                tmp_path: Path) -> None:
    suite = next(s for s in conformance.SUITES if s.name == "testdata")
    xfail_file = tmp_path / "xfail.txt"
    conformance.write_xfails(["testdata/failing.mlir"], xfail_file)
    exec_root = conformance.write_site_config(suite, tiny_root)
    codes = _run_lit(exec_root, xfail_file)
    assert codes == {
        "testdata :: passing.mlir": "PASS",
        "testdata :: failing.mlir": "XFAIL",
        "testdata :: later_line_fails.mlir": "FAIL",  # every RUN line runs, not only the first
    }
    conformance.write_xfails(["testdata/passing.mlir"], xfail_file)
    codes = _run_lit(exec_root, xfail_file)
    assert codes["testdata :: passing.mlir"] == "XPASS"
    assert codes["testdata :: failing.mlir"] == "FAIL"


def test_upstream_layout_takes_the_suites_own_files(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`--stablehlo CHECKOUT`: verify reads stablehlo/tests' top-level ops_*/verify_*/print_*
    files only, not the other suites' folders beside them."""
    tests = tmp_path / "checkout" / "stablehlo" / "tests"
    (tests / "interpret").mkdir(parents=True)
    (tests / "ops_a.mlir").write_text(NO_RUN_FAILS)
    (tests / "canonicalize.mlir").write_text(NO_RUN_FAILS)
    (tests / "interpret" / "ops_b.mlir").write_text(NO_RUN_FAILS)
    monkeypatch.setattr(conformance, "BUILD", tmp_path / "build")
    suite = next(s for s in conformance.SUITES if s.name == "verify")
    exec_root = conformance.write_site_config(suite, tmp_path / "checkout", upstream_layout=True)
    assert list(_run_lit(exec_root, tmp_path / "none.txt")) == ["verify :: ops_a.mlir"]


def test_passes_resting_on_a_deviation_are_counted_apart(tmp_path: Path) -> None:
    listing = tmp_path / "deviations.txt"
    listing.write_text("# header\nD1: ours | theirs\ndisabled/a.mlir  D1  # why\n")
    described, tests = conformance.read_deviations(listing)
    assert described == {"D1": "ours | theirs"} and tests == {"disabled/a.mlir": "D1"}
    results = [{"name": "disabled :: a.mlir", "code": "PASS"},
               {"name": "disabled :: b.mlir", "code": "PASS"}]
    suites = [s for s in conformance.SUITES if s.name == "disabled"]
    line = conformance.summarize(results, suites, tests)
    assert "2 /     2" in line and "with deviation D1 1" in line
