"""Every upstream conformance file parses, and print -> parse -> print is a fixed point;
the testdata files (upstream printer output) print byte-for-byte as written.

Covers /work/shared/conformance/{interpret,testdata,math} (recursively; each `// -----` chunk
separately). Skipped when the folder is absent. Files that cannot pass yet are listed in
XFAIL below, with the reason; run `python tests/unit/test_round_trip_conformance.py` to list
the files failing now (to prune XFAIL as op syntaxes land).
"""
# ruff: noqa: E501

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from shlo_cli.commands.common import split_chunks
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

ROOT = Path(os.environ.get("SHLO_CONFORMANCE",
                           Path(__file__).resolve().parents[3] / "shared" / "conformance"))
FOLDERS = ("interpret", "testdata", "math")

# The one list of expected failures: path relative to ROOT -> why it cannot pass yet.
XFAIL: dict[str, str] = {
}


def conformance_files() -> list[str]:
    files: list[str] = []
    for folder in FOLDERS:
        base = ROOT / folder
        if base.is_dir():
            files += sorted(str(p.relative_to(ROOT)) for p in base.rglob("*.mlir"))
    return files


def round_trip_problem(path: Path) -> str | None:
    """None when every chunk parses and re-prints identically, else what went wrong."""
    text = path.read_text(encoding="utf-8")
    for chunk in split_chunks(text, "// -----" in text):
        try:
            module = parse_source(chunk.text, str(path), line_offset=chunk.line_offset)
        except Diagnostic as d:
            return "parse: " + d.render(show_source=False)
        first = print_module(module)
        try:
            again = print_module(parse_source(first, "<printed>"))
        except Diagnostic as d:
            return "re-parse of printed text: " + d.render(show_source=False)
        if again != first:
            return "printed text is not a fixed point"
    return None


def xfail_reason(problem: str) -> str:
    """A short reason for XFAIL from a failure message."""
    message = problem.splitlines()[0].split(": error: ")[-1]
    op = re.search(r"'([a-z_]+\.[a-z_0-9.]+)'", message)
    if op and ("is unknown" in message or "unregistered operation" in message):
        return f"op {op.group(1)} is not registered yet"
    return message[:90]


FILES = conformance_files()


@pytest.mark.skipif(not FILES, reason=f"no conformance files under {ROOT}")
@pytest.mark.parametrize("rel", FILES or ["<none>"])
def test_conformance_file_round_trips(rel: str) -> None:
    if rel in XFAIL:
        pytest.xfail(XFAIL[rel])
    problem = round_trip_problem(ROOT / rel)
    assert problem is None, problem


def printed_as_upstream_wrote(path: Path) -> bool:
    """Whether printing the parsed file gives its own text (RUN/comment lines aside). The
    files were printed before llvm-project#184253 (in upstream since its June 2026 LLVM
    integrate), which printed two spaces before an enum in an op's format (`compare  LT, %a,
    %b,  SIGNED`, `type =  FFT`, and a while's `cond` one column right); upstream prints
    one now, as we do."""
    text = path.read_text(encoding="utf-8")
    body = "\n".join(_one_space_before_enums(line) for line in text.split("\n")
                     if not line.startswith("//"))
    return print_module(parse_source(text, str(path))).strip() == body.strip()


_ENUM_AFTER_TWO_SPACES = re.compile(r"(stablehlo\.compare|,|=)  (?=[A-Z])")


def _one_space_before_enums(line: str) -> str:
    if line.endswith(" cond {") and line.strip() == "cond {":  # ` cond` after printNewline()
        return line[1:]
    # an empty complex splat: that MLIR wrote `(0.0, 0.0)`, MLIR now prints the element
    line = line.replace("dense<(0.0, 0.0)>", "dense<(0.000000e+00,0.000000e+00)>")
    return _ENUM_AFTER_TWO_SPACES.sub(r"\1 ", line)


@pytest.mark.skipif(not (ROOT / "testdata").is_dir(), reason=f"no testdata under {ROOT}")
def test_testdata_prints_byte_for_byte() -> None:
    """The JAX-generated testdata files are upstream printer output: we print them the same."""
    files = sorted((ROOT / "testdata").glob("*.mlir"))
    different = [p.name for p in files if not printed_as_upstream_wrote(p)]
    assert not different, f"{len(different)} of {len(files)} differ, e.g. {different[:5]}"


def test_xfail_list_names_existing_files() -> None:
    if FILES:
        missing = sorted(set(XFAIL) - set(FILES))
        assert not missing, f"XFAIL names files that do not exist: {missing[:5]}"


if __name__ == "__main__":  # list the files failing now, in XFAIL's format
    for rel in conformance_files():
        problem = round_trip_problem(ROOT / rel)
        if problem is not None:
            sys.stdout.write(f"    {rel!r}: {xfail_reason(problem)!r},\n")
