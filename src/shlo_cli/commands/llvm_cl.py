"""Click commands that read their command line as LLVM's `cl` parser reports it: unknown
options, bad booleans and integers, missing values in mlir-opt's and mlir-translate's words
(`<tool>: Unknown command line argument '--x'.  Try: '<tool> --help'`, exit 1), and LLVM's
`--flag=true|false|1|0` spellings of boolean options."""

from __future__ import annotations

import sys

import click


class LlvmCommand(click.Command):
    """Reports unknown options as LLVM's command-line parser does (`<tool>: Unknown command
    line argument ...`, exit 1) instead of click's usage text; an option is known by its name
    with one or two dashes. The tool is the program name the command runs under."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        params = self.get_params(ctx)
        unknown = _unknown_argument(params, args)
        if unknown is not None:
            _fail(ctx, f"Unknown command line argument '{unknown}'.  "
                       f"Try: '{ctx.info_name} --help'")
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
    sys.stderr.write(f"{ctx.info_name}: {message}\n")
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
