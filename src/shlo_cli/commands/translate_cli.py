"""The click command of `stablehlo-translate` (see translate.py): every spelling, `--help`,
`--version` and LLVM-style errors; a plain command line never gets here."""

from __future__ import annotations

import sys
from typing import Any

import click

from .common import report
from .interpret import interpret_options, run_interpret
from .llvm_cl import LlvmCommand
from .terminal import version_option


def _flag(name: str, help: str) -> Any:
    return click.option(f"-{name}", f"--{name}", is_flag=True, help=help)


@click.command(cls=LlvmCommand, context_settings={"help_option_names": ["-h", "--help"]})
@version_option("stablehlo-translate")
@interpret_options
@_flag("interpret", "Interpret the program's entry function and print its results.")
@_flag("serialize", "Serialize a StableHLO program into a portable artifact.")
@_flag("deserialize", "Deserialize a portable artifact into a StableHLO program.")
@click.option("-target", "--target", default=None,
              help="Target version for serialization: current, minimum or X.Y.Z.")
@_flag("strip-debuginfo", "Strip debug info from all operations (serialize).")
@_flag("print-stablehlo-version", "Print the StableHLO version of the artifact (deserialize).")
@_flag("allow-other-dialects", "Allow ops of other dialects when serializing.")
@_flag("mlir-print-debuginfo", "Print locations (deserialize).")
@_flag("mlir-print-op-generic", "Print every op in generic form (deserialize).")
@_flag("mlir-print-local-scope", "Print locations inline rather than as aliases (deserialize).")
@click.option("-mlir-disable-threading", "--mlir-disable-threading", is_flag=True,
              expose_value=False, help="Accepted for mlir-translate compatibility.")
def translate(input: str, interpret: bool, serialize: bool, deserialize: bool,
              target: str | None, strip_debuginfo: bool, print_stablehlo_version: bool,
              allow_other_dialects: bool, mlir_print_debuginfo: bool,
              mlir_print_op_generic: bool, mlir_print_local_scope: bool,
              **options: Any) -> None:
    """StableHLO translation driver (`--interpret`, `--serialize`, `--deserialize`)."""
    chosen = [name for name, on in (("interpret", interpret), ("serialize", serialize),
                                    ("deserialize", deserialize)) if on]
    if len(chosen) > 1:
        report("only one translation may be selected, got: "
               + ", ".join("--" + c for c in chosen))
        sys.exit(1)
    if not chosen:
        report("no translation selected; use --interpret, --serialize or --deserialize")
        sys.exit(1)
    # The portable-artifact code (VHLO, its passes, bytecode) loads only for these two.
    if chosen[0] == "serialize":
        from .portable import run_serialize

        sys.exit(run_serialize(input, output=options["output"], target=target,
                               strip_debuginfo=strip_debuginfo,
                               allow_other_dialects=allow_other_dialects,
                               split_input_file=options["split_input_file"],
                               allow_unregistered_dialect=options["allow_unregistered_dialect"]))
    if chosen[0] == "deserialize":
        from .portable import run_deserialize

        sys.exit(run_deserialize(input, output=options["output"],
                                 print_stablehlo_version=print_stablehlo_version,
                                 debuginfo=mlir_print_debuginfo,
                                 generic=mlir_print_op_generic,
                                 local_scope=mlir_print_local_scope))
    sys.exit(run_interpret(input, **options))

