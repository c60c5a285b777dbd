"""Ctrl-C ends a command cleanly: one line on stderr, exit status 130, no traceback.

The SIGINT handler raises `Interrupted`, a SystemExit: it unwinds through `finally` blocks (so
temporary output files are removed and nothing partial is left), is not caught by kernels'
`except Exception`, and click lets it through, so Python exits with its code silently.
Commands that never go through click leave SIGINT alone (importing `signal` costs 0.6 ms of
each launch): their console-script wrapper (`entry`) turns the KeyboardInterrupt, which
unwinds the same way, into the same line and status.
"""

from __future__ import annotations

import sys
from typing import Any

EXIT_CODE = 130  # 128 + SIGINT, what shells report for an interrupted command


class Interrupted(SystemExit):
    """Raised in the main thread when the user presses Ctrl-C."""


def announce() -> int:
    """Say that the command was interrupted; the exit status to leave with."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        sys.stderr.write("error: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return EXIT_CODE


def _handler(signum: int, frame: Any) -> None:
    raise Interrupted(announce())


def install() -> None:
    """Route SIGINT to `Interrupted` (main thread only; elsewhere signals cannot be set)."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        try:
            signal.signal(signal.SIGINT, _handler)
        except ValueError:  # not the main thread
            pass
