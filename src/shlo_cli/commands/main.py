"""`shlo`: the umbrella command; one module per subcommand."""

from __future__ import annotations

import click

from .parse import parse_command
from .terminal import version_option


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@version_option("shlo")
def cli() -> None:
    """A pure-Python StableHLO toolchain: parse, verify, interpret and expand programs."""
    from . import interrupt

    interrupt.install()  # Ctrl-C: one line, exit 130, no traceback


cli.add_command(parse_command)

for _module, _name in (("interpret", "interpret_command"), ("verify", "verify_command"),
                       ("hlo_expand", "hlo_expand_command"), ("portable", "serialize_command"),
                       ("portable", "deserialize_command"), ("compare", "compare_command"),
                       ("inspect", "inspect_command")):
    try:
        _mod = __import__(f"{__package__}.{_module}", fromlist=[_name])
    except ImportError:
        continue
    cli.add_command(getattr(_mod, _name))
