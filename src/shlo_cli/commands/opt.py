"""`stablehlo-opt`: parse, run passes, print; accepts upstream's flag spellings."""

from __future__ import annotations

import sys

import click

from ..formats.bytecode import CURRENT_VERSION, DEFAULT_PRODUCER, MIN_VERSION, write_bytecode
from ..formats.bytecode.reader import bytecode_header
from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.expected_diagnostics import DiagnosticVerifier
from ..ir.printer import print_module
from ..ir.verifier import verify_module
from ..passes import PASSES, PassOptionError, PassRequest, run_passes, take_emitted
from ..passes.pipeline import parse_pipeline
from .common import SPLIT_MARKER, parse_chunk, read_source, report, split_chunks, write_output
from .terminal import version_option


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
    fn = _flag("emit-bytecode", "Write MLIR bytecode instead of text (binary; byte-identical "
               "to MLIR's writer). A module read from bytecode keeps its version and "
               "producer unless -emit-bytecode-version says otherwise.")(fn)
    fn = click.option("-emit-bytecode-version", "--emit-bytecode-version", "bytecode_version",
                      type=int, default=None, metavar="N",
                      help=f"Bytecode version to write ({MIN_VERSION}..{CURRENT_VERSION}).")(fn)
    fn = click.option("-pass-pipeline", "--pass-pipeline", "pass_pipeline", default=None,
                      metavar="'builtin.module(p1, p2{opt=v}, ...)'",
                      help="A textual pass pipeline, run after the passes given as flags.")(fn)
    fn = click.option("-debug-only", "--debug-only", "debug_only", default=None, metavar="NAME",
                      help="Accepted and ignored (upstream debug tracing).")(fn)
    for name, pass_ in reversed(PASSES.items()):
        fn = click.option(f"-{name}", f"--{name}", name.replace("-", "_"), is_flag=True,
                          help=pass_.help)(fn)
    return fn


class _OptCommand(click.Command):
    """Reports unknown options as LLVM's command-line parser does (mlir-opt's words, exit 1)
    instead of click's usage text; an option is known by its name with one or two dashes."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        params = self.get_params(ctx)
        unknown = _unknown_argument(params, args)
        if unknown is not None:
            _fail(ctx, f"Unknown command line argument '{unknown}'.  "
                       "Try: 'stablehlo-opt --help'")
        try:
            args = _boolean_values(params, args)
            return super().parse_args(ctx, args)
        except _BadBoolean as e:
            _fail(ctx, f"for the {_llvm_spelling(e.name)} option: '{e.value}' is invalid "
                       "value for boolean argument! Try 0 or 1")
        except click.BadParameter as e:
            name = e.param.opts[0] if e.param is not None and e.param.opts else "?"
            value = e.message.split("'")[1] if e.message.count("'") >= 2 else ""
            _fail(ctx, f"for the {_llvm_spelling(name)} option: '{value}' value invalid for "
                       "integer argument!")
        except click.UsageError as e:
            name = getattr(e, "option_name", None) or "?"
            _fail(ctx, f"for the {_llvm_spelling(name)} option: requires a value!")
        return []  # not reached: _fail exits


class _BadBoolean(ValueError):
    def __init__(self, name: str, value: str) -> None:
        super().__init__(value)
        self.name, self.value = name, value


def _fail(ctx: click.Context, message: str) -> None:
    """LLVM's command-line error: `<tool>: <message>` on stderr, exit 1."""
    sys.stderr.write(f"stablehlo-opt: {message}\n")
    ctx.exit(1)


def _llvm_spelling(name: str) -> str:
    """How LLVM names an option in errors: `-o`, `--long-name`."""
    bare = name.lstrip("-")
    return f"-{bare}" if len(bare) == 1 else f"--{bare}"


def _boolean_values(params: list[click.Parameter], args: list[str]) -> list[str]:
    """LLVM's boolean options also take `=true/false/1/0`: rewrite them to click's flags."""
    flags = {spelling.lstrip("-") for p in params if isinstance(p, click.Option) and p.is_flag
             for spelling in p.opts}
    out = []
    for arg in args:
        name, eq, value = arg.lstrip("-").partition("=")
        if arg.startswith("-") and eq and name in flags:
            if value in ("true", "1", "TRUE", "True"):
                out.append(f"--{name}")
            elif value not in ("false", "0", "FALSE", "False"):
                raise _BadBoolean(name, value)
            continue
        out.append(arg)
    return out


def _unknown_argument(params: list[click.Parameter], args: list[str]) -> str | None:
    """The first argument naming none of the options in `params` (values of options that take one
    are skipped), or None."""
    names: dict[str, bool] = {}  # option name without dashes -> takes a value
    for param in params:
        if isinstance(param, click.Option):
            for spelling in (*param.opts, *param.secondary_opts):
                names[spelling.lstrip("-")] = not param.is_flag
    skip_value = False
    for arg in args:
        if skip_value:
            skip_value = False
            continue
        if arg == "--":
            return None
        if not arg.startswith("-") or arg == "-":
            continue
        name, eq, _ = arg.lstrip("-").partition("=")
        if name not in names:
            return arg
        skip_value = names[name] and not eq
    return None


@click.command(cls=_OptCommand, context_settings={"help_option_names": ["-h", "--help"]})
@version_option("stablehlo-opt")
@opt_options
@click.pass_context
def opt(ctx: click.Context, input: str, output: str | None, split_input_file: bool,
        allow_unregistered_dialect: bool, mlir_print_op_generic: bool, mlir_print_debuginfo: bool,
        mlir_print_local_scope: bool, verify_diagnostics: bool, emit_bytecode: bool,
        bytecode_version: int | None, pass_pipeline: str | None, debug_only: str | None,
        **passes: bool) -> None:
    """Parse an MLIR file (text or bytecode), run the requested passes and print the
    result (or write bytecode)."""
    selected: list[PassRequest] = [
        (name, _PASS_OPTIONS.get(name, "")) if PASSES[name].options else name
        for name in _pass_order(ctx) if passes.get(name.replace("-", "_"))]
    try:
        if pass_pipeline is not None:
            selected += parse_pipeline(pass_pipeline)
        for name, text in _PASS_OPTIONS.items():
            PASSES[name].parse_options(text)  # bad option text fails before any input is read
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
    version, producer = CURRENT_VERSION, DEFAULT_PRODUCER
    if isinstance(text, bytes):  # keep the file's header, so reading then writing is exact
        version, producer = bytecode_header(text) or (version, producer)
    if bytecode_version is not None:
        version = bytecode_version
    outputs: list = []
    failed = False
    for chunk in split_chunks(text, split_input_file):
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
    try:
        # Like mlir-opt, a file named by `-o` is only kept when every chunk succeeded.
        if not (failed and output not in (None, "-")):
            if emit_bytecode:
                write_output((SPLIT_MARKER + "\n").encode().join(outputs), output)
            else:
                write_output((SPLIT_MARKER + "\n").join(outputs), output)
    except ShloError as e:
        report(e)
        sys.exit(1)
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


def main() -> None:
    from . import interrupt

    interrupt.install()  # Ctrl-C: one line, exit 130, no partial -o file
    opt(args=_take_pass_options(sys.argv[1:]), prog_name="stablehlo-opt")
