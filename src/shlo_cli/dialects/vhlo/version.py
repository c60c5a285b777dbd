"""VHLO versions: the `X.Y.Z` numbers that gate every versioned op, type and attribute.

Mirrors upstream `stablehlo/dialect/Version.{h,cpp}` at the conformance snapshot
(openxla/stablehlo 3c9301c1, 2026-08-13): the supported window is MINIMUM = 0.9.0 up to
CURRENT = 1.20.0. A program serialized for a target version uses the MLIR bytecode format
version of `bytecode_version(target)`; the `.mlir.bc` files of the conformance suite carry
it as a prefix varint at byte 4 (0.9.0 -> 0, 0.10/0.11 -> 1, 0.12/0.13 -> 3, 0.14 -> 4,
0.15.0 .. CURRENT -> 6).

Dated log of the window's ends (from upstream's history of `Version.h`):
- 0.9.0: first VHLO release, the minimum ever since (2023-03).
- 1.20.0: current at the snapshot (2026-08).
"""

from __future__ import annotations

from ...ir import regex_programs
from ...ir.record import Record, set_field

_VERSION_TEXT = regex_programs.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)")
_FORM_HINT = "Target version must be of the form `#.#.#`."


class VersionError(ValueError):
    """A target version that cannot be used; the message is upstream's wording."""


class Version(Record):
    """A `major.minor.patch` VHLO version; compares lexicographically like upstream."""

    __slots__ = ("major", "minor", "patch")
    major: int
    minor: int
    patch: int

    def __init__(self, major: int, minor: int, patch: int) -> None:
        set_field(self, "major", major)
        set_field(self, "minor", minor)
        set_field(self, "patch", patch)

    @classmethod
    def parse(cls, text: str) -> Version:
        """`X.Y.Z` (decimal numbers only); raises VersionError otherwise."""
        m = _VERSION_TEXT.fullmatch(text)
        if m is None:
            raise VersionError(f"invalid version '{text}'")
        return cls(int(m.group(1)), int(m.group(2)), int(m.group(3)))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    def __lt__(self, other: Version) -> bool:
        return bool(self._key(self) < other._key(other))

    def __le__(self, other: Version) -> bool:
        return bool(self._key(self) <= other._key(other))

    def __gt__(self, other: Version) -> bool:
        return bool(self._key(self) > other._key(other))

    def __ge__(self, other: Version) -> bool:
        return bool(self._key(self) >= other._key(other))

    def opset(self) -> Version:
        """The version whose op set this one has: opset changes bump the minor version, so
        `X.Y.Z` converts like `X.Y.0` (upstream's vhlo-to-version does the same)."""
        return Version(self.major, self.minor, 0)


MINIMUM = Version(0, 9, 0)
CURRENT = Version(1, 20, 0)


def resolve_target(text: str) -> Version:
    """A target given on a command line: `current`, `minimum` or `X.Y.Z` inside the window.

    Errors use the words of upstream's vhlo-to-version pass (`validateTargetVersion`)."""
    if text == "current":
        return CURRENT
    if text == "minimum":
        return MINIMUM
    if not _VERSION_TEXT.fullmatch(text):
        if not text:
            raise VersionError(f"No target version specified.\n{_FORM_HINT}")
        raise VersionError(f"Invalid target version argument '{text}'\n{_FORM_HINT}")
    version = Version.parse(text)
    if version < MINIMUM:
        raise VersionError(f"target version {version} is less than minimum supported {MINIMUM}")
    if CURRENT < version:
        raise VersionError(f"target version {version} is greater than current version {CURRENT}")
    return version


# (first VHLO version, bytecode format version written from it on), newest first.
_BYTECODE_VERSIONS = (
    (Version(0, 15, 0), 6),
    (Version(0, 14, 0), 4),  # upstream revised this from 5 to 4 (#1827)
    (Version(0, 12, 0), 3),
    (Version(0, 10, 0), 1),
    (Version(0, 9, 0), 0),
)


def bytecode_version(target: Version) -> int:
    """The MLIR bytecode format version upstream writes for a program targeting `target`."""
    if target < MINIMUM or CURRENT < target:
        raise VersionError(f"target version {target} is outside the supported range "
                           f"[{MINIMUM}, {CURRENT}]")
    for first, code in _BYTECODE_VERSIONS:
        if first <= target:
            return code
    raise AssertionError("unreachable: MINIMUM is in the table")
