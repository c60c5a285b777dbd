"""Hand reading of plain command lines, the spellings upstream's lit tests use, so that the
drop-in tools skip importing click on their hot path (click parses everything else)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Container

PlainArgs = tuple[str, "str | None", dict[str, str], list[str]]
"""(input, `-o` file or None, string options by name, flags by name in order)."""


def read_plain(args: list[str], is_flag: Callable[[str], bool],
               value_options: Container[str]) -> PlainArgs | None:
    """`args` read as `-flag`/`--flag` (no `=value`), `--name=TEXT` or `--name TEXT` for the
    names in `value_options`, `-o FILE` and at most one input (`-` is stdin); None for
    anything else."""
    source, output = "-", None
    options: dict[str, str] = {}
    flags: list[str] = []
    inputs = 0
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            inputs += 1
            source = arg
            continue
        if arg.startswith("---") or arg == "--":
            return None
        name, eq, text = arg.lstrip("-").partition("=")
        if is_flag(name) and not eq:
            flags.append(name)
        elif arg == "-o" or name in value_options:
            if not eq:
                if i >= len(args):
                    return None
                text = args[i]
                i += 1
            if arg == "-o":
                output = text
            else:
                options[name] = text
        else:
            return None
    return (source, output, options, flags) if inputs <= 1 else None
