"""`stablehlo-opt`: parse, run passes, print; accepts upstream's flag spellings."""

from __future__ import annotations

import sys

import click

from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.expected_diagnostics import DiagnosticVerifier
from ..ir.printer import print_module
from ..ir.verifier import verify_module
from ..passes import PASSES, run_passes
from .common import SPLIT_MARKER, parse_chunk, read_input, report, split_chunks, write_output


def _flag(name: str, help: str) -> click.Option:
    return click.option(f"-{name}", f"--{name}", is_flag=True, help=help)


def opt_options(fn):  # type: ignore[no-untyped-def]
    fn = click.argument("input", default="-", required=False)(fn)
    fn = click.option("-o", "output", default=None, help="Output file (written atomically).")(fn)
    fn = _flag("split-input-file", "Process each `// -----` chunk separately.")(fn)
    fn = _flag("allow-unregistered-dialect", "Accept ops of unknown dialects.")(fn)
    fn = _flag("mlir-print-op-generic", "Print every op in generic form.")(fn)
    fn = _flag("mlir-print-debuginfo", "Print locations.")(fn)
    fn = _flag("mlir-print-local-scope", "Print locations inline rather than as aliases.")(fn)
    fn = _flag("verify-diagnostics", "Check `expected-error` annotations.")(fn)
    fn = _flag("emit-bytecode", "Accepted for compatibility; the output stays MLIR text "
               "(there is no bytecode writer), which every shlo tool reads back.")(fn)
    fn = click.option("-debug-only", "--debug-only", "debug_only", default=None, metavar="NAME",
                      help="Accepted and ignored (upstream debug tracing).")(fn)
    for name, pass_ in reversed(PASSES.items()):
        fn = click.option(f"-{name}", f"--{name}", name.replace("-", "_"), is_flag=True,
                          help=pass_.help)(fn)
    return fn


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@opt_options
@click.pass_context
def opt(ctx: click.Context, input: str, output: str | None, split_input_file: bool,
        allow_unregistered_dialect: bool, mlir_print_op_generic: bool, mlir_print_debuginfo: bool,
        mlir_print_local_scope: bool, verify_diagnostics: bool, emit_bytecode: bool,
        debug_only: str | None, **passes: bool) -> None:
    """Parse an MLIR file, run the requested passes and print the result."""
    selected = [name for name in _pass_order(ctx) if passes.get(name.replace("-", "_"))]
    try:
        name, text = read_input(input)
    except ShloError as e:
        report(e)
        sys.exit(1)
    outputs = []
    failed = False
    for chunk in split_chunks(text, split_input_file):
        checker = (DiagnosticVerifier(SourceFile(name, chunk.text, chunk.line_offset))
                   if verify_diagnostics else None)
        try:
            module = parse_chunk(chunk, name, allow_unregistered_dialect)
            verify_module(module, chunk.line_offset)
            run_passes(module, selected,
                       lambda m, offset=chunk.line_offset: verify_module(m, offset))
            # mlir-opt writes an extra newline after the printed top-level op.
            outputs.append(print_module(module, mlir_print_op_generic, mlir_print_debuginfo,
                                        mlir_print_local_scope) + "\n")
        except Diagnostic as d:
            outputs.append("")
            if checker is None:
                report(d)
                failed = True
            else:
                checker.process(d)
        if checker is not None:
            # With -verify-diagnostics only mismatches count (and are reported).
            for problem in checker.finish():
                report(problem)
                failed = True
    try:
        # Like mlir-opt, a file named by `-o` is only kept when every chunk succeeded.
        if not (failed and output not in (None, "-")):
            write_output((SPLIT_MARKER + "\n").join(outputs), output)
    except ShloError as e:
        report(e)
        sys.exit(1)
    sys.exit(1 if failed else 0)


def _pass_order(ctx: click.Context) -> list[str]:
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


def main() -> None:
    from . import interrupt

    interrupt.install()  # Ctrl-C: one line, exit 130, no partial -o file
    opt(prog_name="stablehlo-opt")
