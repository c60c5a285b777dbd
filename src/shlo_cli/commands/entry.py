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

import errno
import gc
import io
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
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


def _internal_error(e: Exception) -> int:
    """`error: internal error: ...` on stderr, exit status 1 (every input error has its own
    diagnostic: this is the net under the ones not foreseen)."""
    try:
        sys.stderr.write(f"error: internal error: {type(e).__name__}: {e}\n")
    except (OSError, ValueError):
        pass
    return 1


class _WholeWrites(io.FileIO):
    """The standard output file with every write whole. One write into a pipe whose reader
    closes midway (`| head`) writes what fits and reports that count, not an error; the
    layers above drop the rest without a word (unbuffered, as under PYTHONUNBUFFERED, or
    from a buffered write larger than the buffer). Writing the rest raises BrokenPipeError,
    which the commands report (exit 1)."""

    def write(self, data: object) -> int:  # type: ignore[override]
        view = memoryview(data).cast("B")  # type: ignore[arg-type]
        size = len(view)
        while view:
            written = super().write(view)
            if written is None:  # a non-blocking descriptor that would block
                raise BlockingIOError(errno.EAGAIN, "standard output would block")
            view = view[written:]
        return size


def _whole_stdout() -> None:
    """sys.stdout again, over `_WholeWrites` (same descriptor, encoding and buffering)."""
    out = sys.stdout
    if not isinstance(out, io.TextIOWrapper):
        return
    try:
        descriptor = out.fileno()
        out.flush()
    except (OSError, ValueError):
        return
    raw = _WholeWrites(descriptor, "w", closefd=False)
    binary = io.BufferedWriter(raw) if isinstance(out.buffer, io.BufferedWriter) else raw
    sys.stdout = io.TextIOWrapper(binary, encoding=out.encoding, errors=out.errors,  # type: ignore[arg-type]
                                  newline="\n", line_buffering=out.line_buffering,
                                  write_through=out.write_through)


def _raw_stderr() -> None:
    """Source text is decoded with `surrogateescape`, so a diagnostic quoting a line with
    bytes that are not UTF-8 writes those bytes back as they were (as MLIR does), not as
    `\\udcXX` escapes."""
    err = sys.stderr
    if isinstance(err, io.TextIOWrapper):
        err.reconfigure(errors="surrogateescape")


def _run(main: Callable[[], object]) -> NoReturn:
    _whole_stdout()
    _raw_stderr()
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
    except Exception as e:  # a bug, still reported as a diagnostic rather than a traceback
        code = _internal_error(e)
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
