"""`-verify-diagnostics`: match produced diagnostics against `// expected-error {{...}}`.

Follows MLIR's SourceMgrDiagnosticVerifierHandler: annotations
`expected-(error|warning|note|remark)(-re)?(@above|@below|@+N|@-N|@unknown)? {{text}}` name a
line; a produced diagnostic matches an unmatched annotation on its line whose text is a
substring of its message (for `-re`, `{{...}}` parts inside the text are regexes). A
diagnostic nothing expects is reported as `unexpected error: ...` at its location, an
annotation nothing matched as `expected error "..." was not produced` at the annotation.
Notes attached to a diagnostic are matched as diagnostics of their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import regex_programs
from .diagnostics import Diagnostic, SourceFile
from .record import Struct

_ANNOTATION = regex_programs.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *"
    r"\{\{(.*)\}\}$")
_REGEX_PART = regex_programs.compile(r"\{\{(.*?)\}\}")


class ExpectedDiagnostic(Struct):
    """One `expected-*` annotation: where it points and what message it expects."""

    severity: str
    line: int  # the line the diagnostic must be on (0 for @unknown)
    text: str
    annotation_line: int
    annotation_col: int
    pattern: re.Pattern[str] | None
    matched: bool

    def __init__(self, severity: str, line: int, text: str, annotation_line: int,
                 annotation_col: int, pattern: re.Pattern[str] | None = None,
                 matched: bool = False) -> None:
        self.severity = severity
        self.line = line
        self.text = text
        self.annotation_line = annotation_line
        self.annotation_col = annotation_col
        self.pattern = pattern
        self.matched = matched

    def matches(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


def _compile_re(text: str) -> re.Pattern[str] | None:
    """`-re` text: literal except for `{{regex}}` parts; None when a regex is invalid."""
    parts = []
    pos = 0
    for m in _REGEX_PART.finditer(text):
        parts.append(re.escape(text[pos:m.start()]))
        parts.append("(?:" + m.group(1) + ")")
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    try:
        return re.compile("".join(parts))
    except re.error:
        return None


def collect_expected(source: SourceFile) -> list[ExpectedDiagnostic]:
    """The annotations of a chunk, with absolute line numbers (like the diagnostics')."""
    expected: list[ExpectedDiagnostic] = []
    waiting_for_next_line: list[ExpectedDiagnostic] = []
    last_plain_line = 0
    for index, text in enumerate(source.text.split("\n")):
        line = index + 1 + source.line_offset
        m = _ANNOTATION.search(text)
        if m is None:
            for e in waiting_for_next_line:
                e.line = line
            waiting_for_next_line.clear()
            last_plain_line = line
            continue
        severity, is_re, designator, body = m.group(1), m.group(2), m.group(4), m.group(5)
        record = ExpectedDiagnostic(severity, line, body, line, m.start() + 1)
        if is_re:
            record.pattern = _compile_re(body)
        if designator == "above":
            record.line = last_plain_line
        elif designator == "below":
            waiting_for_next_line.append(record)
        elif designator == "unknown":
            record.line = 0
        elif designator:
            record.line = line + int(designator)
        expected.append(record)
    return expected


class DiagnosticVerifier:
    """Checks one chunk's produced diagnostics against its annotations."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.expected = collect_expected(source)
        self.problems: list[Diagnostic] = []

    def process(self, diagnostic: Diagnostic) -> None:
        """Match a produced diagnostic and each of its notes."""
        self._process_one(diagnostic)
        for note in diagnostic.notes:
            self._process_one(note)

    def process_all(self, diagnostics: Iterable[Diagnostic]) -> None:
        for diagnostic in diagnostics:
            self.process(diagnostic)

    def _process_one(self, diag: Diagnostic) -> None:
        line = diag.line if diag.source is not None or diag.line else 0
        line = line or 0
        near_miss: ExpectedDiagnostic | None = None
        for e in self.expected:
            if e.line == line and e.matches(diag.message):
                if e.severity == diag.severity:
                    e.matched = True
                    return
                near_miss = e
        if near_miss is not None:
            self.problems.append(self._at_annotation(
                near_miss, f"'{diag.severity}' diagnostic emitted when expecting a "
                           f"'{near_miss.severity}'"))
            return
        source = diag.source or self.source
        self.problems.append(Diagnostic(
            f"unexpected {diag.severity}: {diag.message}", source if line else None,
            line=line or None, col=diag.col if line else None))

    def finish(self) -> list[Diagnostic]:
        """All problems: mismatched diagnostics, then annotations nothing produced."""
        for e in self.expected:
            if not e.matched:
                self.problems.append(self._at_annotation(
                    e, f"expected {e.severity} \"{e.text}\" was not produced"))
        return self.problems

    def _at_annotation(self, e: ExpectedDiagnostic, message: str) -> Diagnostic:
        return Diagnostic(message, self.source, line=e.annotation_line, col=e.annotation_col)
