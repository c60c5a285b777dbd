"""Terminal niceties that never leak into files or pipes: colour and a progress spinner only
when the stream is a TTY and `NO_COLOR` is unset; `--version` for every tool."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import click

STABLEHLO_VERSION = "1.20.0"  # the StableHLO specification version shlo implements
SPINNER_DELAY = 1.0  # seconds before a run shows a spinner


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("shlo-cli")
    except PackageNotFoundError:
        return "unknown"


def version_text(prog: str) -> str:
    tool = "shlo" if prog == "shlo" else f"{prog}: shlo"
    return f"{tool} {package_version()} (implements StableHLO {STABLEHLO_VERSION})"


def version_option(prog: str) -> Callable[[Any], Any]:
    """`--version` printing our version and the StableHLO version implemented."""
    import click


    def show(ctx: click.Context, param: Any, value: bool) -> None:
        if value and not ctx.resilient_parsing:
            click.echo(version_text(prog))
            ctx.exit(0)

    return click.option("--version", is_flag=True, expose_value=False, is_eager=True,
                        callback=show, help="Show the version and exit.")


def use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") is not None or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed stream
        return False


_STYLES = {"error": "\x1b[1;31m", "warning": "\x1b[1;35m", "note": "\x1b[1;36m",
           "ok": "\x1b[32m", "bad": "\x1b[1;31m", "bold": "\x1b[1m"}


def paint(text: str, style: str, stream: TextIO) -> str:
    if not use_color(stream):
        return text
    return f"{_STYLES[style]}{text}\x1b[0m"


def color_diagnostic(text: str, stream: TextIO) -> str:
    """Colour the `error:`/`warning:`/`note:` labels of rendered diagnostics on a TTY."""
    if not use_color(stream):
        return text
    for label in ("error", "warning", "note"):
        text = text.replace(f" {label}: ", " " + paint(f"{label}:", label, stream) + " ")
        if text.startswith(f"{label}: "):
            text = paint(f"{label}:", label, stream) + text[len(label) + 1:]
    return text


@contextmanager
def spinner(message: str, enabled: bool = True) -> Iterator[None]:
    """A transient rich spinner on stderr for runs longer than SPINNER_DELAY, TTY only."""
    if not enabled or not use_color(sys.stderr):
        yield
        return
    import threading

    from rich.console import Console

    console = Console(stderr=True)
    state: dict[str, Any] = {}
    lock = threading.Lock()

    def start() -> None:
        with lock:
            if "done" not in state:
                state["status"] = console.status(message)
                state["status"].start()

    timer = threading.Timer(SPINNER_DELAY, start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if "status" in state:
                state["status"].stop()
