"""Every upstream conformance program on quantized types (testdata/quantized: JAX-generated
programs with their expected results, and interpret/) still passes its own checks after
`--stablehlo-legalize-quant-to-math` lowered it to integer/float math. Skipped when the
conformance folder is absent.

`python tests/unit/passes/quant/test_quant_to_math_conformance.py` prints each chunk's
outcome and the counts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import shlo_cli
from shlo_cli.commands.common import split_chunks
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes

ROOT = Path(os.environ.get("SHLO_CONFORMANCE",
                           Path(__file__).resolve().parents[5] / "shared" / "conformance"))


def chunks() -> list[tuple[str, int, str]]:
    """(file relative to ROOT, chunk line offset, chunk text) for every quantized chunk."""
    found = []
    for folder in ("interpret", "testdata"):
        base = ROOT / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.mlir")):
            text = path.read_text(encoding="utf-8")
            if "!quant.uniform" not in text:
                continue
            for chunk in split_chunks(text, "// -----" in text):
                if "!quant.uniform" in chunk.text:
                    found.append((str(path.relative_to(ROOT)), chunk.line_offset, chunk.text))
    return found


def outcome(name: str, line_offset: int, text: str) -> str:
    """'pass', 'refused: <diagnostic>' (the pass declined an op) or 'fail: <why>'."""
    module = parse_source(text, name, line_offset=line_offset)
    verify_module(module, line_offset)
    try:
        run_passes(module, ["stablehlo-legalize-quant-to-math"],
                   lambda m: verify_module(m, line_offset))
    except Diagnostic as d:
        return "refused: " + d.message
    printed = print_module(module)
    if "!quant" in printed:
        return "fail: quantized type left in the output"
    try:
        shlo_cli.interpret(parse_source(printed, name))
    except Diagnostic as d:
        return "fail: " + d.message.splitlines()[0]
    return "pass"


@pytest.mark.skipif(not ROOT.is_dir(), reason="conformance folder absent")
def test_lowered_quantized_programs_pass_their_checks() -> None:
    found = chunks()
    assert len(found) >= 50, "expected the quantized testdata programs"
    results = [(name, outcome(name, offset, text)) for name, offset, text in found]
    assert [r for r in results if r[1].startswith("fail")] == []
    assert sum(result == "pass" for _, result in results) >= len(results) - 2


if __name__ == "__main__":
    counts: dict[str, int] = {}
    for file, offset, text in chunks():
        result = outcome(file, offset, text)
        kind = result.split(":")[0]
        counts[kind] = counts.get(kind, 0) + 1
        print(f"{file}:{offset + 1}: {result}")
    print(counts)
    sys.exit(1 if counts.get("fail") else 0)
