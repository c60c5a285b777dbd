"""Every upstream conformance program (interpret/ and testdata/) that uses cholesky or
triangular_solve still passes its own check ops after cholesky_expander and
triangular_solve_expander replaced those ops; a program with arguments (the dynamic-batch
ones) gives the same results as before expansion on inputs with every `?` = 3; dynamic
matrix dimensions would be refused with a diagnostic at the op. Skipped when the
conformance folder is absent.

`python tests/unit/test_expand_linalg_conformance.py` prints the per-chunk outcome and the
counts."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import shlo_cli
from shlo_cli.commands.common import split_chunks
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes.expanders.cholesky import expand_cholesky
from shlo_cli.passes.expanders.triangular_solve import expand_triangular_solve

ROOT = Path(os.environ.get("SHLO_CONFORMANCE",
                           Path(__file__).resolve().parents[3] / "shared" / "conformance"))
OPS = ("stablehlo.cholesky", "stablehlo.triangular_solve")


def chunks() -> list[tuple[str, int, str]]:
    """(file relative to ROOT, chunk line offset, chunk text) for every chunk using OPS."""
    found = []
    for folder in ("interpret", "testdata"):
        base = ROOT / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.mlir")):
            text = path.read_text(encoding="utf-8")
            if not any(op in text for op in OPS):
                continue
            for chunk in split_chunks(text, "// -----" in text):
                if any(op in chunk.text for op in OPS):
                    found.append((str(path.relative_to(ROOT)), chunk.line_offset, chunk.text))
    return found


def outcome(name: str, line_offset: int, text: str) -> str:
    """'pass', 'refused: <diagnostic>' (expansion declined) or 'fail: <why>'."""
    module = parse_source(text, name, line_offset=line_offset)
    try:
        expand_cholesky(module)
        expand_triangular_solve(module)
    except Diagnostic as d:
        return "refused: " + d.message
    verify_module(module, line_offset)
    printed = print_module(module)
    if any(op in printed for op in OPS):
        return "fail: op left in the output"
    original = parse_source(text, name, line_offset=line_offset)
    inputs = arguments_for(original)
    try:
        actual = shlo_cli.interpret(parse_source(printed, name), *inputs)
        if inputs:
            expected = shlo_cli.interpret(original, *inputs)
            for got, want in zip(actual, expected, strict=True):
                if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4,
                                                              atol=1e-5):
                    return "fail: results differ from the unexpanded program"
    except Diagnostic as d:
        return "fail: " + d.message.splitlines()[0]
    return "pass"


def arguments_for(module: Any, size: int = 3) -> list[np.ndarray]:
    """Inputs for the entry function: every `?` is `size`, an i64 scalar (a dimension
    variable) is `size`, floats and complex numbers random but well-conditioned for
    triangular matrices (a strong diagonal)."""
    from shlo_cli.interpreter.engine import entry_function
    from shlo_cli.ir.types import numpy_dtype

    rng = np.random.default_rng(0)
    arrays = []
    for t in entry_function(module).attr("function_type").value.inputs:
        shape = tuple(size if d < 0 else d for d in t.shape)
        dtype = numpy_dtype(t.element)
        if dtype.kind in "iu":
            arrays.append(np.full(shape, size, dtype))
            continue
        value = rng.uniform(-0.1, 0.1, shape) + (np.eye(shape[-1], dtype=np.float64) * 2
                                                  if len(shape) >= 2 and shape[-1] ==
                                                  shape[-2] else 0)
        if dtype.kind == "c":
            value = value + 1j * rng.uniform(-0.1, 0.1, shape)
        arrays.append(value.astype(dtype))
    return arrays


@pytest.mark.skipif(not ROOT.is_dir(), reason="conformance folder absent")
def test_expanded_conformance_programs_pass_their_checks() -> None:
    found = chunks()
    assert found, "no conformance program uses cholesky or triangular_solve"
    results = [(name, outcome(name, offset, text), text) for name, offset, text in found]
    failures = [(name, result) for name, result, _ in results if result.startswith("fail")]
    assert not failures
    for name, result, text in results:
        if result.startswith("refused"):
            assert "is not a statically shaped tensor" in result and "?x" in text, name
    passed = sum(result == "pass" for _, result, _ in results)
    assert passed == len(results)  # dynamic batch dimensions are expanded too


if __name__ == "__main__":
    counts: dict[str, int] = {}
    for file, offset, text in chunks():
        result = outcome(file, offset, text)
        kind = result.split(":")[0]
        counts[kind] = counts.get(kind, 0) + 1
        print(f"{file}:{offset + 1}: {result}")
    print(counts)
    sys.exit(1 if counts.get("fail") else 0)
