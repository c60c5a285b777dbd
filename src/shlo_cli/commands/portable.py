"""Portable artifacts from the command line: `stablehlo-translate --serialize/--deserialize` and
`shlo serialize/deserialize` share these two functions (each returns the exit code)."""

from __future__ import annotations

import sys

from ..formats.portable import artifact_version, deserialize, serialize
from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.printer import print_module
from ..ir.verifier import verify_module
from .common import (
    SPLIT_MARKER,
    discard_output,
    parse_chunk,
    read_input_data,
    read_source,
    report,
    split_chunks,
    write_output,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def run_serialize(input: str, *, output: str | None = None, target: str | None = None,
                  strip_debuginfo: bool = False, allow_other_dialects: bool = False,
                  split_input_file: bool = False,
                  allow_unregistered_dialect: bool = False) -> int:
    """Write the portable artifact of each chunk of `input` (text or bytecode)."""
    try:
        name, text = read_source(input)
    except ShloError as e:
        report(e)
        return 1
    artifacts: list[bytes] = []
    failed = False
    for chunk in split_chunks(text, split_input_file):
        try:
            module = parse_chunk(chunk, name, allow_unregistered_dialect)
            verify_module(module, chunk.line_offset)  # mlir-translate verifies what it parsed
            artifacts.append(serialize(module, "" if target is None else target,
                                       strip_debuginfo=strip_debuginfo,
                                       allow_other_dialects=allow_other_dialects))
        except Diagnostic as e:
            report(e.with_source(SourceFile(name, chunk.text, chunk.line_offset)))
            failed = True
        except ShloError as e:
            report(e)
            failed = True
    if failed:  # like upstream, a failed chunk leaves no output file
        discard_output(output)
        return 1
    return _write((SPLIT_MARKER + "\n").encode().join(artifacts), output)


def run_deserialize(input: str, *, output: str | None = None,
                    print_stablehlo_version: bool = False, debuginfo: bool = False,
                    generic: bool = False, local_scope: bool = False) -> int:
    """Print the StableHLO program of a portable artifact (bytecode, or text as upstream's
    parser also accepts), with its locations when `debuginfo`, in generic form when
    `generic`."""
    try:
        name, data = read_input_data(input)
    except ShloError as e:
        report(e)
        return 1
    header = ""
    if print_stablehlo_version:
        version = artifact_version(data)
        header = ("// Failed parsing StableHLO version from portable artifact\n"
                  if version is None else
                  f"// Reading portable artifact with StableHLO version: {version}\n")
    try:
        module = deserialize(data, name)
    except Diagnostic as e:
        if not isinstance(data, bytes) or not data.startswith(b"ML\xefR"):
            e.with_source(SourceFile(name, data.decode("utf-8", "surrogateescape"), 0))
        sys.stdout.write(header)
        report(e)
        discard_output(output)
        return 1
    except ShloError as e:
        sys.stdout.write(header)
        report(e)
        discard_output(output)
        return 1
    return _write(header + print_module(module, generic, debuginfo, local_scope) + "\n", output)


def _write(data: str | bytes, output: str | None) -> int:
    try:
        write_output(data, output)
    except ShloError as e:
        report(e)
        discard_output(output)
        return 1
    return 0


def __getattr__(name: str) -> Any:
    """`serialize_command` / `deserialize_command`, the `shlo` subcommands, built on first
    use: `stablehlo-translate --serialize` runs without importing click."""
    if name not in ("serialize_command", "deserialize_command"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import click

    @click.command("serialize")
    @click.argument("input", default="-", required=False)
    @click.option("-o", "output", default=None, help="Output file (written atomically).")
    @click.option("--target", default="current", show_default=True,
                  help="StableHLO version to write: current, minimum or X.Y.Z.")
    @click.option("--strip-debuginfo", is_flag=True, help="Write every location as unknown.")
    @click.option("--allow-other-dialects", is_flag=True,
                  help="Keep ops of other dialects (the artifact is then not portable).")
    @click.option("--split-input-file", is_flag=True, help="Serialize each `// -----` chunk.")
    def serialize_command(**options: Any) -> None:
        """Write a StableHLO program (text or bytecode) as a portable artifact: VHLO of the
        target version in MLIR bytecode, byte for byte what upstream writes."""
        sys.exit(run_serialize(**options))

    @click.command("deserialize")
    @click.argument("input", default="-", required=False)
    @click.option("-o", "output", default=None, help="Output file (written atomically).")
    @click.option("--print-stablehlo-version", is_flag=True,
                  help="First print the artifact's StableHLO version as a comment.")
    def deserialize_command(**options: Any) -> None:
        """Print the StableHLO program of a portable artifact."""
        sys.exit(run_deserialize(**options))

    commands = {"serialize_command": serialize_command,
                "deserialize_command": deserialize_command}
    globals().update(commands)
    return commands[name]
