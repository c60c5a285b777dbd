"""Console-script entry points: each runs its command, flushes the standard streams and
leaves with `os._exit`.

A normal interpreter exit tears down every module and object one by one. For a tool launch
that is pure cost (measured: 6 ms of a tiny `stablehlo-opt`, 15 ms of a tiny `--interpret`
once numpy is loaded) and upstream test files launch the tools five or six times each. By the
time a command returns, everything it writes is closed: `-o` files are renamed into place
and temporary files removed inside the command, worker threads joined. What is left is
the standard streams, flushed here. Calling `main()` in-process (tests) is unchanged: only
these wrappers exit early.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from typing import NoReturn


def _exit_code(code: object) -> int:
    """What Python's own exit makes of `SystemExit(code)`: None is 0, an int itself, anything
    else printed on stderr and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        sys.stderr.write(f"{code}\n")
    except (OSError, ValueError):
        pass
    return 1


def _run(main: Callable[[], object]) -> NoReturn:
    # A launch allocates a few hundred thousand objects, nearly all kept (modules, the IR):
    # fewer young-generation collections save 2-4 ms of a tiny one and change no result.
    gc.set_threshold(20_000, 10, 10)
    try:
        main()
        code = 0
    except SystemExit as e:
        code = _exit_code(e.code)
    except KeyboardInterrupt:  # Ctrl-C on a path that installed no SIGINT handler
        from .interrupt import announce

        code = announce()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or a stream already closed
            code = code or 1
    os._exit(code)


def stablehlo_opt() -> NoReturn:
    from .opt import main

    _run(main)


def stablehlo_translate() -> NoReturn:
    from .translate import main

    _run(main)


def hlo_expand() -> NoReturn:
    from .hlo_expand import main

    _run(main)


def shlo() -> NoReturn:
    from .main import cli

    _run(cli)
