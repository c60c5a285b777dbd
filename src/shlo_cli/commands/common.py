"""What every front end shares: reading input, `// -----` chunks, diagnostics, atomic output."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

from ..ir.core import Module
from ..ir.diagnostics import Diagnostic, ShloError
from ..ir.parser import parse_source

SPLIT_MARKER = "// -----"
# MLIR splits at the marker wherever it appears on a line (so `// // -----` splits too).
_SPLIT_LINE = re.compile(r"^.*?// -----.*$", re.MULTILINE)


@dataclass
class Chunk:
    text: str
    line_offset: int


def read_input(path: str) -> tuple[str, str]:
    """(display name, text) of a file or of stdin for `-`."""
    if path == "-":
        return "<stdin>", sys.stdin.read()
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return path, f.read()
    except OSError as e:
        raise ShloError(f"cannot open input file '{path}': {e.strerror}") from None


def split_chunks(text: str, split: bool) -> Iterator[Chunk]:
    """The `// -----`-separated chunks of `text` with the number of lines before each."""
    if not split:
        yield Chunk(text, 0)
        return
    start = 0
    line = 0
    for m in _SPLIT_LINE.finditer(text):
        chunk = text[start:m.start()]
        yield Chunk(chunk, line)
        line += chunk.count("\n") + 1
        start = m.end() + 1
    yield Chunk(text[start:], line)


def parse_chunk(chunk: Chunk, name: str, allow_unregistered: bool = False) -> Module:
    return parse_source(chunk.text, name, allow_unregistered, chunk.line_offset)


def report(diag: Diagnostic | ShloError | str) -> None:
    text = diag.render() if isinstance(diag, Diagnostic) else str(diag)
    if isinstance(diag, (ShloError, str)) and not text.startswith("error:"):
        text = "error: " + text
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def write_output(text: str, path: str | None) -> None:
    """Write to stdout, or to `path`: a regular (or new) file atomically (a temp file in the
    same folder, then a rename, keeping the file's permissions); a symlink's target the same
    way (the link stays); a device or FIFO directly, since those cannot be replaced."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = os.path.realpath(path)
    try:
        try:
            mode: int | None = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
            return
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".shlo-",
                                   suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as e:
        raise ShloError(f"cannot write output file '{path}': {e.strerror}") from None


def _umask() -> int:
    """The process umask (new files get 0666 & ~umask, as open() would create them)."""
    current = os.umask(0)
    os.umask(current)
    return current
