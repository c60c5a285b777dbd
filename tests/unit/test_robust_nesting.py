"""Deep nesting, long lines and 0-d/empty tensors: diagnostics or results, never tracebacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import shlo_cli

BIN = Path(sys.executable).parent


def _regions(n: int) -> str:
    s = "stablehlo.return %c : tensor<f32>"
    for i in range(n):
        s = (f'%x{i} = "stablehlo.if"(%p) ({{ {s} }}, {{ stablehlo.return %c : tensor<f32> }})'
             f" : (tensor<i1>) -> tensor<f32>\n stablehlo.return %x{i} : tensor<f32>")
    s = s.rsplit("\n", 1)[0]
    return "\n".join(["func.func @main(%p: tensor<i1>) -> tensor<f32> {",
                      "  %c = stablehlo.constant dense<1.0> : tensor<f32>", s,
                      f"  return %x{n - 1} : tensor<f32>", "}"])


def _types(n: int) -> str:
    t = "tensor<f32>"
    for _ in range(n):
        t = f"tuple<{t}>"
    return f"func.func @main(%a: {t}) -> {t} {{\n  return %a : {t}\n}}"


def _attrs(n: int) -> str:
    return ("func.func @main() -> tensor<f32> attributes {a = " + "[" * n + "]" * n + "} {\n"
            "  %c = stablehlo.constant dense<1.0> : tensor<f32>\n  return %c : tensor<f32>\n}\n")


@pytest.mark.parametrize("kind", ["regions", "types", "attrs"])
@pytest.mark.parametrize("depth", [50, 300, 5000])
def test_deep_nesting_never_surfaces_recursion(kind: str, depth: int, tmp_path: Path) -> None:
    text = {"regions": _regions, "types": _types, "attrs": _attrs}[kind](depth)
    path = tmp_path / "deep.mlir"
    path.write_text(text)
    for cmd in ([BIN / "shlo", "parse", path], [BIN / "stablehlo-opt", path],
                [BIN / "stablehlo-opt", "--mlir-print-op-generic", path],
                [BIN / "stablehlo-translate", "--interpret", path,
                 "--args=[dense<true> : tensor<i1>]"]):
        proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120)
        assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr, cmd
        assert proc.returncode in (0, 1)
        if proc.returncode:
            assert "error:" in proc.stderr
    if kind == "regions" and depth == 50:
        assert shlo_cli.interpret(text, np.bool_(True))[0] == 1.0


def test_long_line_diagnostic_quotes_a_window(tmp_path: Path) -> None:
    values = ", ".join(f"{i % 97}.5" for i in range(200000))
    values = values.replace("48.5, 49.5", "48.5, 4x9.5", 1)
    path = tmp_path / "long.mlir"
    path.write_text(f"func.func @main() -> tensor<200000xf32> {{\n  %c = stablehlo.constant "
                    f"dense<[{values}]> : tensor<200000xf32>\n  return %c : tensor<200000xf32>\n}}")
    proc = subprocess.run([str(BIN / "shlo"), "interpret", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1
    head, quoted, caret = proc.stderr.splitlines()[:3]
    assert "long.mlir:2:" in head and "error:" in head
    assert len(quoted) < 500 and quoted[len(caret) - 1] == "x"


ZERO_D_AND_EMPTY = [
    ("stablehlo.abs %a : tensor<0x3xf32>", "tensor<0x3xf32>", "tensor<0x3xf32>"),
    ("stablehlo.reverse %a, dims = [] : tensor<f32>", "tensor<f32>", "tensor<f32>"),
    ("stablehlo.transpose %a, dims = [] : (tensor<f32>) -> tensor<f32>", "tensor<f32>",
     "tensor<f32>"),
    ("stablehlo.reshape %a : (tensor<0x2xf32>) -> tensor<0xf32>", "tensor<0x2xf32>",
     "tensor<0xf32>"),
    ("stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<0x4xf32>",
     "tensor<f32>", "tensor<0x4xf32>"),
]


@pytest.mark.parametrize("body,arg,result", ZERO_D_AND_EMPTY)
def test_zero_d_and_empty_tensors(body: str, arg: str, result: str) -> None:
    prog = f"func.func @main(%a: {arg}) -> {result} {{\n  %r = {body}\n  return %r : {result}\n}}"
    shape = tuple(int(d) for d in arg[7:-4].split("x") if d)
    [out] = shlo_cli.interpret(prog, np.ones(shape, np.float32))
    expected = tuple(int(d) for d in result[7:-4].split("x") if d)
    assert out.shape == expected
