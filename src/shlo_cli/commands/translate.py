"""`stablehlo-translate`: the drop-in front end upstream's lit tests call.

Only the `--interpret` translation is implemented (shared with `shlo interpret`). The
portable-artifact translations (`--serialize`, `--deserialize`) are recognised and rejected
with a clear diagnostic, so tests that need them fail cleanly instead of misbehaving.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from .common import report
from .interpret import interpret_options, run_interpret
from .terminal import version_option

UNSUPPORTED_TRANSLATIONS = ("serialize", "deserialize")


def _flag(name: str, help: str) -> Any:
    return click.option(f"-{name}", f"--{name}", is_flag=True, help=help)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@version_option("stablehlo-translate")
@interpret_options
@_flag("interpret", "Interpret the program's entry function and print its results.")
@_flag("serialize", "Serialize to a portable artifact (not supported).")
@_flag("deserialize", "Deserialize a portable artifact (not supported).")
@click.option("-target", "--target", default=None, help="Serialization target version.")
@_flag("strip-debuginfo", "Strip debug info before serializing.")
@_flag("print-stablehlo-version", "Print the version of a deserialized artifact.")
@_flag("allow-other-dialects", "Allow other dialects when serializing.")
def translate(input: str, interpret: bool, serialize: bool, deserialize: bool,
              target: str | None, strip_debuginfo: bool, print_stablehlo_version: bool,
              allow_other_dialects: bool, **options: Any) -> None:
    """StableHLO translation driver (`--interpret`)."""
    chosen = [name for name, on in (("interpret", interpret), ("serialize", serialize),
                                    ("deserialize", deserialize)) if on]
    if len(chosen) > 1:
        report("only one translation may be selected, got: "
               + ", ".join("--" + c for c in chosen))
        sys.exit(1)
    if not chosen:
        report("no translation selected; use --interpret")
        sys.exit(1)
    if chosen[0] in UNSUPPORTED_TRANSLATIONS:
        report(f"--{chosen[0]} is not supported by shlo: portable artifacts (VHLO bytecode) "
               "cannot be read or written; only --interpret is available")
        sys.exit(1)
    sys.exit(run_interpret(input, **options))


def main() -> None:
    translate(prog_name="stablehlo-translate")
