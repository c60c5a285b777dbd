"""What every front end shares: reading input (MLIR text or bytecode), `// -----` chunks,
diagnostics, atomic output."""

from __future__ import annotations

import io
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

from ..formats import is_bytecode, read_bytecode
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
    data: bytes | None = None  # MLIR bytecode (a whole file; `text` is then empty)


def read_input_data(path: str) -> tuple[str, bytes]:
    """(display name, raw bytes) of a file or of stdin for `-`."""
    if path == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return path, f.read()
    except OSError as e:
        raise ShloError(f"cannot open input file '{path}': {e.strerror}") from None


def decode_text(data: bytes) -> str:
    """UTF-8 text with universal newlines, as reading the file in text mode gives."""
    with io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape",
                          newline=None) as f:
        return f.read()


def read_source(path: str) -> tuple[str, str | bytes]:
    """(display name, text), or the raw bytes when the input is MLIR bytecode (detected by
    its magic number, as mlir-opt does)."""
    name, data = read_input_data(path)
    return name, data if is_bytecode(data) else decode_text(data)


def read_input(path: str) -> tuple[str, str]:
    """(display name, text) of a file or of stdin for `-`."""
    name, data = read_input_data(path)
    return name, decode_text(data)


def split_chunks(text: str | bytes, split: bool) -> Iterator[Chunk]:
    """The `// -----`-separated chunks of `text` with the number of lines before each
    (bytecode is one chunk)."""
    if isinstance(text, bytes):
        yield Chunk("", 0, text)
        return
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
    if chunk.data is not None:
        return read_bytecode(chunk.data, name, allow_unregistered)
    return parse_source(chunk.text, name, allow_unregistered, chunk.line_offset)


def report(diag: Diagnostic | ShloError | str) -> None:
    text = diag.render() if isinstance(diag, Diagnostic) else str(diag)
    if isinstance(diag, (ShloError, str)) and not text.startswith("error:"):
        text = "error: " + text
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def write_output(text: str | bytes, path: str | None) -> None:
    """Write text (or bytes, e.g. bytecode) to stdout, or atomically to `path` (temp file in
    the same folder, then rename)."""
    if path is None or path == "-":
        if isinstance(text, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(text)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".shlo-", suffix=".tmp")
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as f:
                f.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise ShloError(f"cannot write output file '{path}': {e.strerror}") from None
    finally:
        if tmp is not None:  # no partial output file is left behind
            try:
                os.unlink(tmp)
            except OSError:
                pass
