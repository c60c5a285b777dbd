"""`make bench` plumbing: which testdata programs count, how their RUN lines are followed,
and that the kernel benchmark programs compute what numpy computes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import fft_accuracy  # noqa: E402
import kernels  # noqa: E402
import parse_print  # noqa: E402
import testdata_suite  # noqa: E402

import shlo_cli  # noqa: E402
from shlo_cli.ir.parser import parse_source  # noqa: E402

PROGRAM = """// RUN-DISABLED: stablehlo-translate --interpret %s
// RUN: stablehlo-opt -inline %s | stablehlo-translate --interpret
// RUN: stablehlo-opt %s > %t.1
func.func @main() {
  %0 = call @value() : () -> tensor<2xi32>
  %1 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq %0, %1 : tensor<2xi32>
  func.return
}
func.func private @value() -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, VALUE]> : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
"""
SPLIT = """// RUN: stablehlo-translate --interpret -split-input-file %s
func.func @main() {
  func.return
}
// -----
func.func @main() {
  %0 = stablehlo.constant dense<1> : tensor<i32>
  check.expect_eq_const %0, dense<2> : tensor<i32>
  func.return
}
"""


def test_only_enabled_interpret_lines_count(tmp_path: Path) -> None:
    (tmp_path / "a.mlir").write_text(PROGRAM.replace("VALUE", "2"))
    (tmp_path / "b.mlir").write_text("// RUN: stablehlo-opt %s\nmodule {}\n")
    (tmp_path / "c.mlir").write_text(SPLIT)
    programs = testdata_suite.load_programs(str(tmp_path))
    assert [(Path(p.path).name, p.passes, p.split) for p in programs] == [
        ("a.mlir", ["inline"], False), ("c.mlir", [], True)]


def test_pass_and_failure_are_told_apart(tmp_path: Path) -> None:
    (tmp_path / "good.mlir").write_text(PROGRAM.replace("VALUE", "2"))
    (tmp_path / "bad.mlir").write_text(PROGRAM.replace("VALUE", "3"))
    (tmp_path / "split.mlir").write_text(SPLIT)
    outcomes = testdata_suite.run_all(testdata_suite.load_programs(str(tmp_path)), rounds=1)
    errors = {Path(o.path).name: o.error for o in outcomes}
    assert errors["good.mlir"] is None
    assert "expect_eq" in (errors["bad.mlir"] or "")
    assert "expect_eq" in (errors["split.mlir"] or "")  # the second chunk runs too
    assert all(0 <= o.front_seconds <= o.seconds for o in outcomes)


def test_kernel_programs_match_numpy(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(kernels, "N", 8)
    rng = np.random.default_rng(1)
    for label, op_text, arity, element, result, baseline in kernels.CASES:
        module = parse_source(kernels._program(op_text, arity, element, result), label)
        args = kernels._inputs(element, arity, rng)
        [ours] = shlo_cli.interpret(module, *args)
        assert np.allclose(ours, baseline(*args), rtol=1e-6, atol=0), label


def test_while_program_matches_python_loop() -> None:
    i, x = shlo_cli.interpret(parse_source(kernels.WHILE_PROGRAM, "while"))
    expected_i, expected_x = kernels._python_while()
    assert int(i) == int(expected_i) == kernels.ITERATIONS
    assert float(x) == float(expected_x)


def test_fft_accuracy_ulp_counts_representable_values() -> None:
    one = np.array([1.0], np.float32)
    assert fft_accuracy.ulp(one, one) == 0
    assert fft_accuracy.ulp(np.nextafter(one, np.float32(2)), one) == 1
    tiny = np.array([np.finfo(np.float64).smallest_subnormal])
    assert fft_accuracy.ulp(tiny, -tiny) == 2  # through zero
    z = np.array([1 + 1j], np.complex64)
    assert fft_accuracy.ulp(z, z + np.complex64(1j * 2 ** -23)) == 1
    assert fft_accuracy.ulp(np.array([np.nan]), np.array([1.0])) == 2 ** 63


def test_fft_accuracy_reads_the_testdata_fft_ops(tmp_path: Path) -> None:
    (tmp_path / "testdata").mkdir()
    (tmp_path / "testdata" / "fft_x.mlir").write_text(
        "%2 = stablehlo.fft %0, type =  IRFFT, length = [15, 16, 32] : "
        "(tensor<14x15x16x17xcomplex<f32>>) -> tensor<14x15x16x32xf32>\n")
    cases = fft_accuracy._cases(str(tmp_path), np.random.default_rng(0))
    assert cases[0] == ("IRFFT", [15, 16, 32], (14, 15, 16, 17), np.complex64)


def test_parse_print_bench_sees_every_dense_literal() -> None:
    """The parse_print section times dense decoding apart by hooking the parser's decoder:
    the hook must still be the one the parser calls (a rename left it seeing nothing)."""
    text = ("func.func @f() -> tensor<2xf32> {\n"
            "  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
            "  %1 = stablehlo.constant dense<3.0> : tensor<2xf32>\n"
            "  return %0 : tensor<2xf32>\n}\n")
    found = parse_print.dense_literals([("t.mlir", text, 0)])
    assert [body for body, _ in found] == ["[1.0, 2.0]", "3.0"]
