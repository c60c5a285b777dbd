"""The issue's pipeline on upstream's conformance programs:
`stablehlo-opt -inline F | hlo-expand --expand_all - | stablehlo-translate --interpret`
for every testdata/interpret program with an op hlo-expand expands (batch_norm_*, rng,
rng_bit_generator): afterwards none of those ops is left and the program's own checks
still pass. Conformance files are read in place ($SHLO_CONFORMANCE, else
../shared/conformance beside the repository); without them the test is skipped."""
# ruff: noqa: E501  (MLIR test programs keep their long lines)

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXPANDED_OPS = re.compile(
    r"stablehlo\.(batch_norm_(inference|training|grad)|rng_bit_generator|rng)\b(?!_)")
ROOT = Path(__file__).resolve().parents[4]
CONFORMANCE = Path(os.environ.get("SHLO_CONFORMANCE", ROOT.parent / "shared" / "conformance"))
BIN = Path(sys.executable).parent


def programs() -> list[Path]:
    found = []
    for folder in ("testdata", "interpret"):
        for path in sorted((CONFORMANCE / folder).glob("**/*.mlir")):
            if EXPANDED_OPS.search(path.read_text(encoding="utf-8", errors="replace")):
                found.append(path)
    return found


def _run(tool: str, args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / tool), *args], input=stdin, capture_output=True,
                          text=True, timeout=600)


def expand_and_interpret(path: Path) -> tuple[str, subprocess.CompletedProcess[str]]:
    """(the expanded program, the interpreter's run of it)."""
    inlined = _run("stablehlo-opt", ["-inline", str(path)], "")
    assert inlined.returncode == 0, inlined.stderr
    expanded = _run("hlo-expand", ["--expand_all", "-"], inlined.stdout)
    assert expanded.returncode == 0, expanded.stderr
    return expanded.stdout, _run("stablehlo-translate", ["--interpret", "-"], expanded.stdout)


FOUND = programs() if CONFORMANCE.is_dir() else []


@pytest.mark.skipif(not FOUND, reason=f"no program in {CONFORMANCE}/{{testdata,interpret}} "
                                      "has batch_norm_*, rng or rng_bit_generator ops")
@pytest.mark.parametrize("path", FOUND, ids=lambda p: p.name)
def test_expanded_program_still_passes(path: Path) -> None:
    expanded, run = expand_and_interpret(path)
    assert not EXPANDED_OPS.search(expanded)
    assert run.returncode == 0, run.stderr


def test_pipeline_on_a_program_with_every_expanded_op(tmp_path: Path) -> None:
    """The same pipeline on a program in the testdata style (calls to @inputs/@expected and
    check ops), with each expanded op, so it runs whatever the conformance snapshot has."""
    program = tmp_path / "every_op.mlir"
    program.write_text(EVERY_OP)
    expanded, run = expand_and_interpret(program)
    assert not EXPANDED_OPS.search(expanded)
    assert "custom_call @check" in expanded  # the checks survive
    assert run.returncode == 0, run.stderr


EVERY_OP = """module {
  func.func public @main() {
    %0:3 = call @inputs() : () -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xui64>)
    %1 = "stablehlo.batch_norm_inference"(%0#0, %0#1, %0#1, %0#1, %0#1) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
    %2:3 = "stablehlo.batch_norm_training"(%0#0, %0#1, %0#1) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
    %3:3 = "stablehlo.batch_norm_grad"(%0#0, %0#1, %2#1, %2#2, %0#0) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
    %s, %bits = stablehlo.rng_bit_generator %0#2, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui32>)
    %lo = stablehlo.constant dense<0.0> : tensor<f32>
    %hi = stablehlo.constant dense<1.0> : tensor<f32>
    %shape = stablehlo.constant dense<[3]> : tensor<1xi64>
    %u = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
    %e:4 = call @expected() : () -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xui32>)
    stablehlo.custom_call @check.expect_almost_eq(%1, %e#0) {has_side_effect = true} : (tensor<4x2xf32>, tensor<4x2xf32>) -> ()
    stablehlo.custom_call @check.expect_almost_eq(%2#1, %e#1) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    stablehlo.custom_call @check.expect_almost_eq(%3#2, %e#2) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    stablehlo.custom_call @check.expect_eq(%bits, %e#3) {has_side_effect = true} : (tensor<3xui32>, tensor<3xui32>) -> ()
    %in = stablehlo.compare LT, %u, %hi_b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    stablehlo.custom_call @check.expect_eq(%in, %true) {has_side_effect = true} : (tensor<3xi1>, tensor<3xi1>) -> ()
    return
  }
  func.func private @inputs() -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xui64>) {
    %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
    %f = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %k = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
    return %x, %f, %k : tensor<4x2xf32>, tensor<2xf32>, tensor<2xui64>
  }
  func.func private @expected() -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xui32>) {
    %y = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.82842731], [5.0, 7.65685415], [7.0, 10.4852819]]> : tensor<4x2xf32>
    %m = stablehlo.constant dense<[4.0, 5.0]> : tensor<2xf32>
    %g = stablehlo.constant dense<[16.0, 20.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[43444564, 2150618427, 3979645651]> : tensor<3xui32>
    return %y, %m, %g, %b : tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xui32>
  }
}
"""
EVERY_OP = EVERY_OP.replace(
    "    %in = stablehlo.compare",
    "    %hi_b = stablehlo.broadcast_in_dim %hi, dims = [] : (tensor<f32>) -> tensor<3xf32>\n"
    "    %true = stablehlo.constant dense<true> : tensor<3xi1>\n    %in = stablehlo.compare")
