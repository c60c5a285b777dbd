"""`hlo-expand` and `shlo hlo-expand`: XLA's hlo-expand tool for StableHLO programs.

Flags follow XLA's (xla/tools/hlo_expand.cc, tsl flag syntax): `--flag`, `-flag`,
`--flag=true|false`, `-o=FILE`; the expanders and their order live in
`passes/expanders/pipeline.py`. XLA flags shlo does not implement, and unknown flags, are
refused (exit 1) rather than ignored.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ..ir.core import Module
from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.printer import print_module
from ..ir.verifier import verify_module
from ..passes.expanders import pipeline
from .common import (
    SPLIT_MARKER,
    Chunk,
    parse_chunk,
    read_input,
    report,
    split_chunks,
    write_output,
)

_VALUE_FLAGS = {"o": "output_file", "output_file": "output_file"}
_OTHER_BOOLS = {"expand_all": pipeline.EXPAND_ALL_HELP,
                "verify_hlo": "Verify the module after every expander",
                "split-input-file": "Expand each `// -----` chunk on its own"}


def expander_flags() -> dict[str, str]:
    """Every expander flag this build accepts, with its one-line help: XLA's individual
    flags, its compound ones, then ours."""
    registered = pipeline.available()
    flags = {name: registered[name].help for name in pipeline.XLA_EXPANDERS
             if name in registered}
    flags.update({name: help for name, (_, help) in pipeline.COMPOUND.items()})
    flags.update({name: registered[name].help for name in pipeline.order()
                  if name in registered and name not in flags})
    return flags


class FlagRefused(Exception):
    """A flag hlo-expand will not run with."""


def normalize_flags(args: list[str], bools: set[str]) -> list[str]:
    """XLA/tsl spellings to click's: `-flag` and `--flag=true` to `--flag`, `--flag=false`
    dropped, `-o=F`/`-output_file F` to `--output_file=F`; refuses unimplemented and unknown
    flags."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            out.extend(args[i - 1:])
            break
        if arg == "-" or not arg.startswith("-"):
            out.append(arg)
            continue
        name, eq, value = arg.lstrip("-").partition("=")
        if name in ("h", "help"):
            out.append("--help")
        elif name in _VALUE_FLAGS:
            if not eq:
                if i >= len(args):
                    raise FlagRefused(f"flag '{arg}' expects a file name")
                value = args[i]
                i += 1
            out.append(f"--{_VALUE_FLAGS[name]}={value}")
        elif name in bools:
            if not eq or value.lower() in ("true", "1"):
                out.append(f"--{name}")
            elif value.lower() not in ("false", "0"):
                raise FlagRefused(f"flag '{arg}': expected true or false, got '{value}'")
        elif name in pipeline.UNIMPLEMENTED:
            raise FlagRefused(f"flag '--{name}' of XLA's hlo-expand is not supported: "
                           f"{pipeline.UNIMPLEMENTED[name]}")
        elif name in pipeline.XLA_EXPANDERS:
            raise FlagRefused(f"flag '--{name}' is not available: this build has no "
                           f"{name.removesuffix('_expander')} expander")
        else:
            raise FlagRefused(f"unknown flag '{arg}' (see hlo-expand --help)")
    return out


class _XlaFlagsCommand(click.Command):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        bools = {*expander_flags(), *_OTHER_BOOLS}
        try:
            args = normalize_flags(args, bools)
        except FlagRefused as e:
            report(str(e))
            ctx.exit(1)
        return super().parse_args(ctx, args)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """One line per flag (click would wrap the long flag names)."""
        rows = [row for param in self.get_params(ctx) if isinstance(param, click.Option)
                if (row := param.get_help_record(ctx)) is not None]
        with formatter.section("Options"):
            formatter.write_dl(rows, col_max=42)


def _options(fn: Any) -> Any:
    fn = click.argument("input", default="-", required=False)(fn)
    fn = click.option("-o", "--output_file", "output_file", default=None, metavar="FILE",
                      help="Output file (written atomically; `-` is stdout).")(fn)
    for name, help in reversed([*expander_flags().items(), *_OTHER_BOOLS.items()]):
        fn = click.option(f"--{name}", name.replace("-", "_"), is_flag=True, help=help)(fn)
    return fn


@click.command("hlo-expand", cls=_XlaFlagsCommand,
               context_settings={"help_option_names": ["-h", "--help"],
                                 "max_content_width": 120, "terminal_width": 120},
               epilog="Every flag may also be written with one dash (-expand_all), booleans "
                      "as --flag=true|false, the output as -o FILE or -o=FILE. XLA flags "
                      "shlo does not implement (--spmd_expander, --input_format, "
                      "--output_format) are refused.")
@_options
def hlo_expand_command(input: str, output_file: str | None, expand_all: bool,
                       verify_hlo: bool, split_input_file: bool, **flags: bool) -> None:
    """Expand ops of a StableHLO program into simpler StableHLO ops, like XLA's hlo-expand
    (which reads HLO; this reads StableHLO text from INPUT or `-` for stdin; CHLO ops are
    legalized first, as HLO has none) and print the result as StableHLO text."""
    names = pipeline.expand_selection([name for name, on in flags.items() if on], expand_all)
    try:
        source_name, text = read_input(input)
    except ShloError as e:
        report(e)
        sys.exit(1)
    outputs, failed = [], False
    for chunk in split_chunks(text, split_input_file):
        try:
            outputs.append(_expand_chunk(chunk, source_name, names, verify_hlo))
        except Diagnostic as d:
            report(d.with_source(SourceFile(source_name, chunk.text, chunk.line_offset)))
            outputs.append("")
            failed = True
    try:
        # A file named by -o is only written when every chunk expanded.
        if not (failed and output_file not in (None, "-")):
            write_output((SPLIT_MARKER + "\n").join(outputs), output_file)
    except ShloError as e:
        report(e)
        sys.exit(1)
    sys.exit(1 if failed else 0)


def _expand_chunk(chunk: Chunk, name: str, names: list[str], verify_each: bool) -> str:
    module = parse_chunk(chunk, name)
    verify_module(module, chunk.line_offset)

    def verify(_: str, expanded: Module) -> None:
        verify_module(expanded, chunk.line_offset)

    pipeline.import_chlo(module)
    pipeline.run(module, names, verify if verify_each else None)
    if not verify_each:
        verify_module(module, chunk.line_offset)
    return print_module(module) + "\n"


def main() -> None:
    hlo_expand_command(prog_name="hlo-expand")
