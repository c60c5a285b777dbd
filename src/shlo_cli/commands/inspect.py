"""`shlo inspect FILE.jax`: what a jax.export artifact records, then its module.

A `.jax` file carries more than the module: the shapes (with symbolic dimensions) and dtypes
jax checks calls against, the platforms, the device count, effects and the versions of the
serialization, the calling convention and the StableHLO producer. Seeing them tells why a
call is refused or which platform index the module will get.
"""

from __future__ import annotations

import sys

import click

from ..formats.jax_export import Aval, Exported, load_exported, read_exported, read_file
from ..ir.diagnostics import Diagnostic, ShloError
from ..ir.printer import print_module
from ..loaders import file_kind
from .common import report


def describe(exported: Exported, arg_names: list[str] | None = None) -> str:
    """The record as indented text (stable, for tests)."""
    names = arg_names or []
    lines = [f"function: {exported.function_name}"]
    lines.append(f"serialization version: {exported.serialization_version}")
    lines.append(f"calling convention version: {exported.calling_convention_version}")
    lines.append(f"stablehlo producer: {exported.stablehlo_version or 'unknown'}")
    lines.append(f"jax version: {exported.jax_version or 'not recorded'}")
    lines.append(f"platforms: {', '.join(exported.platforms) or 'none recorded'}")
    lines.append(f"nr_devices: {exported.nr_devices}")
    lines.append(f"shape symbols: {', '.join(exported.symbols) or 'none'}")
    lines.append(f"ordered effects: {', '.join(exported.ordered_effects) or 'none'}")
    lines.append(f"unordered effects: {', '.join(exported.unordered_effects) or 'none'}")
    if exported.disabled_checks:
        lines.append(f"disabled safety checks: {', '.join(exported.disabled_checks)}")
    if exported.has_vjp:
        lines.append("vjp: recorded")
    kept = set(exported.module_kept_var_idx)
    lines.append(f"arguments ({len(exported.in_avals)}):")
    position = 0
    for index, aval in enumerate(exported.in_avals):
        name = ""
        if index in kept:
            if position < len(names) and names[position] != f"arg{position}":
                name = f" '{names[position]}'"
            position += 1
        unused = "" if index in kept else " (unused, not in the module)"
        lines.append(f"  #{index}{name}: {_aval_text(aval)}{unused}")
    lines.append(f"results ({len(exported.out_avals)}):")
    for index, aval in enumerate(exported.out_avals):
        lines.append(f"  #{index}: {_aval_text(aval)}")
    lines += [f"note: {note}" for note in exported.notes]
    return "\n".join(lines) + "\n"


def _aval_text(aval: Aval) -> str:
    tensor = aval.tensor_type()
    text = str(aval) if tensor is None else f"{tensor} ({aval})"
    space = aval.memory_space
    return text + (f" in {space} memory" if space not in ("", "device") else "")


@click.command("inspect")
@click.argument("input")
@click.option("--no-module", is_flag=True, help="Do not print the module text.")
def inspect_command(input: str, no_module: bool) -> None:
    """Show what a jax.export artifact (.jax) records: signature, platforms, versions,
    devices, effects, then its StableHLO module."""
    try:
        if file_kind(input) != ".jax":
            raise ShloError(f"cannot inspect '{input}': expected a jax.export artifact "
                            "(.jax)")
        data = read_file(input)
        if no_module:
            exported, names = read_exported(data, input), None
        else:
            exported, module = load_exported(data, input)
            from ..interpreter.io import signature_of

            funcs = [f for f in module.functions()
                     if getattr(f.attr("sym_name"), "value", None) == "main"]
            names = None
            if funcs:
                from ..interpreter.jax_convention import implicit_inputs

                has_index, tokens = implicit_inputs(funcs[0])
                names = [a.name for a in signature_of(funcs[0]).args][has_index + tokens:]
    except (Diagnostic, ShloError) as e:
        report(e)
        sys.exit(1)
    text = describe(exported, names)
    if not no_module:
        text += "\n" + print_module(module) + "\n"
    sys.stdout.write(text)
