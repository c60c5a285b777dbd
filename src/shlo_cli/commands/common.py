"""What every front end shares: reading input (MLIR text or bytecode), `// -----` chunks,
diagnostics, atomic output."""

from __future__ import annotations

import errno
import io
import os
import stat
import sys

from ..formats.bytecode import is_bytecode
from ..ir import regex_programs
from ..ir.core import Module
from ..ir.diagnostics import Diagnostic, ShloError
from ..ir.parser import parse_source
from ..ir.record import Struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

SPLIT_MARKER = "// -----"
# MLIR splits at the marker wherever it appears on a line (so `// // -----` splits too).
_SPLIT_LINE = regex_programs.compile(r"^.*?// -----.*$", regex_programs.MULTILINE)


class Chunk(Struct):
    text: str
    line_offset: int
    data: bytes | None  # MLIR bytecode (a whole file; `text` is then empty)

    def __init__(self, text: str, line_offset: int, data: bytes | None = None) -> None:
        self.text = text
        self.line_offset = line_offset
        self.data = data


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
        if split:
            yield from _split_bytecode(text)
        else:
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


def _split_bytecode(data: bytes) -> Iterator[Chunk]:
    """A bytecode file's `// -----` chunks, split as mlir-opt splits any input buffer: at
    each marker, the rest of its line (its newline) starting the next chunk. A chunk is
    bytecode if it starts with the magic number, else text, so a chunk after a marker
    (which starts with that newline) is read as text, as upstream reads it."""
    start = 0
    marker = SPLIT_MARKER.encode()
    while True:
        end = data.find(marker, start)
        piece = data[start:] if end < 0 else data[start:end]
        line = data.count(b"\n", 0, start)
        yield Chunk("", line, piece) if is_bytecode(piece) else Chunk(decode_text(piece), line)
        if end < 0:
            return
        start = end + len(marker)


def parse_chunk(chunk: Chunk, name: str, allow_unregistered: bool = False) -> Module:
    if chunk.data is not None:
        from ..formats.bytecode import read_bytecode

        return read_bytecode(chunk.data, name, allow_unregistered)
    return parse_source(chunk.text, name, allow_unregistered, chunk.line_offset)


def report(diag: Diagnostic | ShloError | str) -> None:
    text = diag.render() if isinstance(diag, Diagnostic) else str(diag)
    if isinstance(diag, (ShloError, str)) and not text.startswith("error:"):
        text = "error: " + text
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def write_output(text: str | bytes, path: str | None) -> None:
    """Write text (or bytes, e.g. bytecode) to stdout, or to `path`: a regular (or new) file
    atomically (a temp file in the same folder, then a rename, keeping the file's
    permissions); a symlink's target the same way (the link stays); a device or FIFO
    directly, since those cannot be replaced. Write errors (a full disk, a closed pipe) are
    a ShloError, never a traceback."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
    if path is None or path == "-":
        try:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)  # whole: see entry._WholeWrites
            sys.stdout.buffer.flush()
        except OSError as e:
            _silence_stdout()
            raise ShloError(f"cannot write to standard output: {e.strerror}") from None
        return
    target = os.path.realpath(path)
    try:
        try:
            mode: int | None = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            with open(target, "wb") as f:
                f.write(data)
            return
        fd, tmp = _temporary_file(os.path.dirname(target))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as e:
        # MLIR's openOutputFile wording (a failed write is reported the same way)
        raise ShloError(f"cannot open output file '{path}': {e.strerror}") from None


def discard_output(path: str | None) -> None:
    """What upstream's tools leave at `-o` after a failed run. They open (create or
    truncate) the file before reading the program, and LLVM's ToolOutputFile removes it
    unless the run succeeded; its sys::fs::remove takes only regular files and symlinks,
    never a device, FIFO or folder. A symlink is left as it is, target and all (upstream
    truncates the target and removes the link): an `-o` that is not a regular file is
    written through, never replaced or removed. Call it once the input was read: a missing
    input leaves `-o` untouched."""
    if path is None or path == "-":
        return
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return
        os.remove(path)
    except OSError:
        return  # like upstream, a file that cannot be removed is left


def _temporary_file(directory: str) -> tuple[int, str]:
    """A new file `.shlo-XXXX.tmp` in `directory`, created exclusively with mode 0600 (what
    `tempfile.mkstemp` does, without importing tempfile: ~5 ms of a launch)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        path = os.path.join(directory, f".shlo-{os.urandom(6).hex()}.tmp")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no usable temporary file name found")


def _silence_stdout() -> None:
    """After a failed write to stdout, point it at /dev/null so the interpreter's own flush
    at exit does not fail a second time (with a traceback)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except OSError:
        pass


def _umask() -> int:
    """The process umask (new files get 0666 & ~umask, as open() would create them)."""
    current = os.umask(0)
    os.umask(current)
    return current
