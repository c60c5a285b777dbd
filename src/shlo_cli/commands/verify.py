"""`shlo verify FILE|-`: parse and verify, printing nothing but diagnostics.

Each `// -----` chunk (with `--split-input-file`) is checked on its own, as upstream does.
With `--verify-diagnostics` the produced diagnostics are matched against the file's
`expected-error` annotations instead of being reported.
"""

from __future__ import annotations

import sys

import click

from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.expected_diagnostics import DiagnosticVerifier
from ..ir.verifier import verify_module
from .common import Chunk, parse_chunk, read_source, report, split_chunks


def check_chunk(chunk: Chunk, name: str, allow_unregistered: bool,
                verify_diagnostics: bool) -> list[Diagnostic]:
    """The diagnostics to report for one chunk (empty when it passes)."""
    produced: list[Diagnostic] = []
    try:
        verify_module(parse_chunk(chunk, name, allow_unregistered), chunk.line_offset)
    except Diagnostic as d:
        produced.append(d)
    if not verify_diagnostics:
        return produced
    checker = DiagnosticVerifier(SourceFile(name, chunk.text, chunk.line_offset))
    checker.process_all(produced)
    return checker.finish()


@click.command("verify")
@click.argument("input", default="-", required=False)
@click.option("--split-input-file", "-split-input-file", is_flag=True,
              help="Verify each `// -----` chunk separately.")
@click.option("--verify-diagnostics", "-verify-diagnostics", is_flag=True,
              help="Match diagnostics against `expected-error` annotations.")
@click.option("--allow-unregistered-dialect", "-allow-unregistered-dialect", is_flag=True,
              help="Accept ops of unknown dialects.")
def verify_command(input: str, split_input_file: bool, verify_diagnostics: bool,
                   allow_unregistered_dialect: bool) -> None:
    """Parse and verify an MLIR file; exit 1 if any chunk has an error."""
    try:
        name, text = read_source(input)
    except ShloError as e:
        report(e)
        sys.exit(1)
    failed = False
    for chunk in split_chunks(text, split_input_file):
        for diagnostic in check_chunk(chunk, name, allow_unregistered_dialect,
                                      verify_diagnostics):
            report(diagnostic)
            failed = True
    sys.exit(1 if failed else 0)
