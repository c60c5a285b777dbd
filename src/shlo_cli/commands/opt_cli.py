"""`stablehlo-opt`'s click command: every option spelling, `--help`, `--version`, and
LLVM-style errors for bad command lines. `opt.main` parses plain command lines itself and
comes here for the rest; the work is `opt.run_opt`."""

from __future__ import annotations

import sys

import click

from ..formats.bytecode import CURRENT_VERSION, MIN_VERSION
from ..passes import PASSES
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
