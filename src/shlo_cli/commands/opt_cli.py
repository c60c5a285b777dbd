"""`stablehlo-opt`'s click command: every option spelling, `--help`, `--version`, and
LLVM-style errors for bad command lines. `opt.main` parses plain command lines itself and
comes here for the rest; the work is `opt.run_opt`."""

from __future__ import annotations

import click

from ..formats.bytecode import CURRENT_VERSION, MIN_VERSION
from ..passes import PASSES
from .llvm_cl import LlvmCommand
from .opt import IGNORED_FLAGS, run_opt
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
    fn = _flag("mlir-pass-statistics", "Print each pass's counters to stderr after the run "
               "(MLIR's pass statistics report).")(fn)
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
    for name in IGNORED_FLAGS:
        fn = click.option(f"-{name}", f"--{name}", is_flag=True, expose_value=False,
                          help="Accepted for mlir-opt compatibility; changes nothing.")(fn)
    for name in reversed(PASSES.names()):
        fn = click.option(f"-{name}", f"--{name}", name.replace("-", "_"), is_flag=True,
                          cls=_PassFlag)(fn)
    return fn


class _PassFlag(click.Option):
    """A pass's flag, whose help text (read from the pass) imports the pass module only when
    `--help` shows it: declaring the flags must not import every pass."""

    @property  # type: ignore[override]
    def help(self) -> str | None:
        name = self.opts[-1].lstrip("-") if getattr(self, "opts", None) else ""
        pass_ = PASSES.load(name) if name else None
        if pass_ is None:
            return None
        options = "; ".join(f"{o.name}: {o.help}" for o in pass_.options)
        return f"{pass_.help} (options: {options})" if options else pass_.help

    @help.setter
    def help(self, value: str | None) -> None:
        pass  # the pass's own help is the one shown


@click.command(cls=LlvmCommand, context_settings={"help_option_names": ["-h", "--help"]})
@version_option("stablehlo-opt")
@opt_options
def opt(input: str, output: str | None, split_input_file: bool,
        allow_unregistered_dialect: bool, mlir_print_op_generic: bool, mlir_print_debuginfo: bool,
        mlir_print_local_scope: bool, verify_diagnostics: bool, mlir_pass_statistics: bool,
        emit_bytecode: bool, bytecode_version: int | None, pass_pipeline: str | None,
        debug_only: str | None, **passes: bool) -> None:
    """Parse an MLIR file (text or bytecode), run the requested passes and print the
    result (or write bytecode)."""
    flagged = {name for name in PASSES if passes.get(name.replace("-", "_"))}
    run_opt(input, output, split_input_file, allow_unregistered_dialect, mlir_print_op_generic,
            mlir_print_debuginfo, mlir_print_local_scope, verify_diagnostics, emit_bytecode,
            bytecode_version, pass_pipeline, flagged, mlir_pass_statistics)
