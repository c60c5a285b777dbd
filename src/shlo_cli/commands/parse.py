"""`shlo parse FILE|-`: parse and print the module in canonical form."""

from __future__ import annotations

import sys

import click

from ..ir.diagnostics import Diagnostic, ShloError
from ..ir.printer import print_module
from ..ir.verifier import verify_module
from .common import SPLIT_MARKER, parse_chunk, read_source, report, split_chunks, write_output


@click.command("parse")
@click.argument("input", default="-", required=False)
@click.option("--split-input-file", is_flag=True, help="Treat `// -----` chunks separately.")
@click.option("--generic", is_flag=True, help="Print every op in generic form.")
@click.option("--debuginfo", is_flag=True, help="Print locations.")
@click.option("--allow-unregistered-dialect", is_flag=True, help="Accept unknown dialects.")
@click.option("-o", "output", default=None, help="Output file (written atomically).")
def parse_command(input: str, split_input_file: bool, generic: bool, debuginfo: bool,
                  allow_unregistered_dialect: bool, output: str | None) -> None:
    """Parse an MLIR file and print it back in canonical form."""
    try:
        name, text = read_source(input)
    except ShloError as e:
        report(e)
        sys.exit(1)
    outputs = []
    failed = False
    for chunk in split_chunks(text, split_input_file):
        try:
            module = parse_chunk(chunk, name, allow_unregistered_dialect)
            verify_module(module, chunk.line_offset)
            outputs.append(print_module(module, generic, debuginfo, local_scope=True))
        except Diagnostic as d:
            report(d)
            failed = True
    if not (failed and output not in (None, "-")):  # a failed run leaves no output file
        try:
            write_output(("\n" + SPLIT_MARKER + "\n").join(outputs), output)
        except ShloError as e:
            report(e)
            sys.exit(1)
    sys.exit(1 if failed else 0)
