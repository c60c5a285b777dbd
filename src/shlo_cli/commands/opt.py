"""`stablehlo-opt`: parse, run passes, print; accepts upstream's flag spellings.

The command line is read by hand when it uses only the plain spellings upstream's tests use
(`_simple_args`); anything else (`--help`, `--version`, `--flag=true`, an unknown option, a
missing value) goes to the click command in `opt_cli`, which knows every spelling and reports
errors as LLVM does. A launch on the fast path imports neither click nor any pass module
besides those it runs.
"""

from __future__ import annotations

import sys

from ..formats.bytecode import CURRENT_VERSION, MIN_VERSION
from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.printer import print_module
from ..ir.verifier import verify_module
from ..passes import PASSES, PassOptionError, PassRequest, run_passes, take_emitted
from ..passes.pipeline import parse_pipeline
from .common import (
    SPLIT_MARKER,
    discard_output,
    parse_chunk,
    read_source,
    report,
    split_chunks,
    write_output,
)
from .plain_args import read_plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..ir.expected_diagnostics import DiagnosticVerifier

# The command's boolean options (besides the pass flags), by name without dashes.
FLAGS = ("split-input-file", "allow-unregistered-dialect", "mlir-print-op-generic",
         "mlir-print-debuginfo", "mlir-print-local-scope", "verify-diagnostics", "emit-bytecode",
         "mlir-pass-statistics")
# MlirOptMain's flags that change nothing here, accepted so upstream-style command lines run:
# -verify-each (we verify after every pass anyway; `=false` would only skip a check our passes
# never fail) and -mlir-disable-threading (we run one thread).
IGNORED_FLAGS = ("verify-each", "mlir-disable-threading")


def run_opt(input: str, output: str | None, split_input_file: bool,
            allow_unregistered_dialect: bool, mlir_print_op_generic: bool,
            mlir_print_debuginfo: bool, mlir_print_local_scope: bool, verify_diagnostics: bool,
            emit_bytecode: bool, bytecode_version: int | None, pass_pipeline: str | None,
            flagged: set[str], mlir_pass_statistics: bool = False) -> None:
    """Parse an MLIR file (text or bytecode), run the requested passes and print the
    result (or write bytecode)."""
    selected: list[PassRequest] = [
        (name, _PASS_OPTIONS.get(name, "")) if PASSES[name].options else name
        for name in (_pass_order() if flagged else ()) if name in flagged]
    try:
        if pass_pipeline is not None:
            selected += parse_pipeline(pass_pipeline)
        # Bad option text (of a flag or a pipeline element) fails before any input is read.
        for request in selected:
            if not isinstance(request, str):
                PASSES[request[0]].parse_options(request[1])
    except PassOptionError as e:
        # The pipeline parser's message carries its own `error:` and caret, as upstream's.
        if "PassPipeline Parser" in str(e):
            sys.stderr.write(f"{e}\n")
        else:
            report(ShloError(str(e)))
        sys.exit(1)
    try:
        name, text = read_source(input)
    except ShloError as e:
        report(e)
        sys.exit(1)
    if bytecode_version is not None and not MIN_VERSION <= bytecode_version <= CURRENT_VERSION:
        report(f"unsupported version requested {bytecode_version}, must be in range "
               f"[{MIN_VERSION}, {CURRENT_VERSION}]")
        sys.exit(1)
    version, producer = CURRENT_VERSION, ""
    if emit_bytecode:
        from ..formats.bytecode import DEFAULT_PRODUCER

        producer = DEFAULT_PRODUCER
    if isinstance(text, bytes):  # keep the file's header, so reading then writing is exact
        from ..formats.bytecode.reader import bytecode_header

        version, producer = bytecode_header(text) or (version, producer)
    if bytecode_version is not None:
        version = bytecode_version
    outputs: list = []
    failed = False
    for chunk in split_chunks(text, split_input_file):
        if verify_diagnostics:  # its module (regexes, ~1 ms) only for -verify-diagnostics
            from ..ir.expected_diagnostics import DiagnosticVerifier
        checker = (DiagnosticVerifier(SourceFile(name, chunk.text, chunk.line_offset))
                   if verify_diagnostics else None)
        try:
            module = parse_chunk(chunk, name, allow_unregistered_dialect)
            verify_module(module, chunk.line_offset)
            try:
                run_passes(module, selected,
                           lambda m, offset=chunk.line_offset: verify_module(m, offset))
            finally:
                _report_emitted(checker, SourceFile(name, chunk.text, chunk.line_offset))
            if emit_bytecode:
                from ..formats.bytecode import write_bytecode

                outputs.append(write_bytecode(module, version, producer))
            else:
                # mlir-opt writes an extra newline after the printed top-level op.
                outputs.append(print_module(module, mlir_print_op_generic,
                                            mlir_print_debuginfo, mlir_print_local_scope)
                               + "\n")
        except ShloError as e:
            outputs.append(b"" if emit_bytecode else "")
            report(e)
            failed = True
        except Diagnostic as d:
            _give_source(d, SourceFile(name, chunk.text, chunk.line_offset))
            outputs.append(b"" if emit_bytecode else "")
            if checker is None:
                report(d.with_source(SourceFile(name, chunk.text, chunk.line_offset)))
                failed = True
            else:
                checker.process(d)
        if checker is not None:
            # With -verify-diagnostics only mismatches count (and are reported).
            for problem in checker.finish():
                report(problem)
                failed = True
    if failed:  # mlir-opt removes the file it opened when a chunk fails
        discard_output(output)
    try:
        if not (failed and output not in (None, "-")):
            if emit_bytecode:
                write_output((SPLIT_MARKER + "\n").encode().join(outputs), output)
            else:
                write_output((SPLIT_MARKER + "\n").join(outputs), output)
    except ShloError as e:
        report(e)
        discard_output(output)
        sys.exit(1)
    if mlir_pass_statistics:
        from ..passes import statistics_report

        sys.stderr.write(statistics_report())
    sys.exit(1 if failed else 0)


def _report_emitted(checker: DiagnosticVerifier | None, source: SourceFile) -> None:
    """Diagnostics passes emitted without failing: printed, or checked by the verifier."""
    for diag in take_emitted():
        _give_source(diag, source)
        if checker is None:
            report(diag)
        else:
            checker.process(diag)


def _give_source(diag: Diagnostic, source: SourceFile) -> None:
    """Pass diagnostics carry only line:col; show them with the chunk's source line."""
    if diag.source is None and diag.line:
        diag.source = source
    for note in diag.notes:
        _give_source(note, source)


def _pass_order() -> list[str]:
    """Passes in command-line order (upstream runs them in the order given)."""
    order = []
    for arg in sys.argv[1:]:
        flag = arg.lstrip("-").split("=", 1)[0]
        if flag in PASSES and flag not in order:
            order.append(flag)
    for name in PASSES:
        if name not in order:
            order.append(name)
    return order


# Option text of passes given as `--name=options` (`--vhlo-to-version='target=1.0.0'`),
# taken out of the command line before click sees it (click flags take no value).
_PASS_OPTIONS: dict[str, str] = {}


def _take_pass_options(args: list[str]) -> list[str]:
    _PASS_OPTIONS.clear()
    kept = []
    for arg in args:
        flag, eq, text = arg.lstrip("-").partition("=")
        if arg.startswith("-") and eq and flag in PASSES:
            _PASS_OPTIONS[flag] = text
            kept.append(f"--{flag}")
        else:
            kept.append(arg)
    return kept


def _simple_args(args: list[str]) -> dict[str, Any] | None:
    """`run_opt`'s arguments when `args` use only plain spellings: `-flag` / `--flag` of a
    boolean option or pass (no `=value`), `-o FILE`, `--pass-pipeline=TEXT` (or with the
    text next), at most one input. None for anything else: click then parses it."""
    plain = read_plain(args, lambda name: name in FLAGS or name in PASSES or name in IGNORED_FLAGS,
                       ("pass-pipeline",))
    if plain is None:
        return None
    source, output, options, flags = plain
    values: dict[str, Any] = {name.replace("-", "_"): False for name in FLAGS}
    values.update(input=source, output=output, bytecode_version=None,
                  pass_pipeline=options.get("pass-pipeline"), flagged=set())
    for name in flags:
        if name in IGNORED_FLAGS:
            continue
        if name in FLAGS:
            values[name.replace("-", "_")] = True
        else:
            values["flagged"].add(name)
    return values


def __getattr__(name: str) -> Any:
    """`opt`, the click command (for `shlo`'s CLI and tests), built on first use."""
    if name == "opt":
        from .opt_cli import opt

        return opt
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """The command line read by hand when plain, else by click. Ctrl-C: one line, exit 130,
    no partial -o file (through `entry` on the plain path, `interrupt` under click)."""
    args = _take_pass_options(sys.argv[1:])
    values = _simple_args(args)
    if values is None:
        from . import interrupt
        from .opt_cli import opt

        interrupt.install()
        opt(args=args, prog_name="stablehlo-opt")
        return
    try:
        run_opt(**values)
    except BrokenPipeError:  # as click does: a closed pipe (`| head`) is no traceback
        sys.stderr.close()
        sys.exit(1)
