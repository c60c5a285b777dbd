"""MLIR-style diagnostics: `file:line:col: error: message`, the source line and a caret."""

from __future__ import annotations

import bisect
import sys

from .record import Struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


class SourceFile(Struct):
    """A named source text with offset -> line:col: counted forward from the last position
    asked for (the parser asks in text order), else by a lazily built line index."""

    name: str
    text: str
    line_offset: int  # lines before this chunk (for -split-input-file)
    _starts: list[int] | None
    _mark: tuple[int, int, int]  # the last offset asked for, its line index and line start

    def __init__(self, name: str, text: str, line_offset: int = 0,
                 _starts: list[int] | None = None) -> None:
        self.name = name
        self.text = text
        self.line_offset = line_offset
        self._starts = _starts
        self._mark = (0, 0, 0)

    def position(self, offset: int) -> tuple[int, int]:
        mark, line, start = self._mark
        if offset >= mark:
            text = self.text
            newlines = text.count("\n", mark, offset)
            if newlines:
                line += newlines
                start = text.rfind("\n", mark, offset) + 1
            self._mark = (offset, line, start)
            return line + 1 + self.line_offset, offset - start + 1
        if self._starts is None:
            starts = [0]
            find = self.text.find
            i = find("\n")
            while i != -1:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._starts = starts
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1 + self.line_offset, offset - self._starts[line] + 1

    def line_text(self, line: int) -> str:
        lines = self.text.split("\n")
        index = line - 1 - self.line_offset
        return lines[index] if 0 <= index < len(lines) else ""


MAX_QUOTED = 400  # characters of a long source line quoted under a diagnostic


class Diagnostic(Exception):
    """An error (or note) tied to a source position; rendered like MLIR does."""

    def __init__(self, message: str, source: SourceFile | None = None, offset: int = 0,
                 severity: str = "error", line: int | None = None, col: int | None = None,
                 notes: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.severity = severity
        self.notes = notes or []
        if source is not None and line is None:
            line, col = source.position(offset)
        self.line = line
        self.col = col

    def with_source(self, source: SourceFile) -> Diagnostic:
        """This diagnostic and its notes, tied to `source` where they have none yet (a
        pass's diagnostic at an op knows only the op's line and column)."""
        if self.source is None:
            self.source = source
        for note in self.notes:
            note.with_source(source)
        return self

    def __str__(self) -> str:
        """What the command line prints: `file:line:col: error: message`, the source line
        and a caret (just `error: message` without a position)."""
        return self.render()

    def render(self, show_source: bool = True) -> str:
        if self.source is None or self.line is None:
            head = f"{self.severity}: {self.message}"
            return head
        head = f"{self.source.name}:{self.line}:{self.col}: {self.severity}: {self.message}"
        out = [head]
        if show_source and self.source.text:  # (no text: a file we only know by name)
            text = self.source.line_text(self.line)
            if text or self.col:
                caret = max((self.col or 1) - 1, 0)
                if len(text) > MAX_QUOTED:  # a megabyte-long line: quote a window around col
                    start = max(caret - MAX_QUOTED // 2, 0)
                    text = ("..." if start else "") + text[start:start + MAX_QUOTED] + "..."
                    caret = caret - start + (3 if start else 0)
                out.append(text)
                out.append(" " * caret + "^")
        for note in self.notes:
            out.append(note.render(show_source))
        return "\n".join(out)


def report(diag: Diagnostic, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    stream.write(diag.render() + "\n")
    stream.flush()


class ShloError(Exception):
    """An error with no source position (bad flags, unreadable file)."""


class EvaluationError(Exception):
    """Raised by kernels for a run-time error; the interpreter reports it at the op's location.

    Defined here, below the dialects, so op evaluators can raise it without importing the
    interpreter (`shlo_cli.interpreter.engine` re-exports it)."""
