"""The byte-level layer of MLIR bytecode: varints, sections, alignment and the string table.

Facts from MLIR's `BytecodeFormat.md` and `Bytecode/Encoding.h`: a file is the magic
`ML\\xefR`, a varint version, a NUL-terminated producer and a list of sections. A section is
`id | hasAlign << 7`, a varint length, an optional varint alignment followed by `0xCB`
padding, and its bytes. Varints are "PrefixVarInt": the count of trailing zero bits of the
first byte is the number of extra bytes (a zero first byte means 8 raw bytes follow).
"""

from __future__ import annotations

import builtins

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    _Item = TypeVar("_Item")

MAGIC = b"ML\xefR"


def is_bytecode(data: bytes) -> bool:
    """Whether `data` starts with MLIR bytecode's magic number `ML\\xefR`."""
    return data[:4] == MAGIC


ALIGNMENT_BYTE = 0xCB

# Bytecode versions and the feature each one introduced (upstream's `BytecodeVersion`).
MIN_VERSION = 0
DIALECT_VERSIONING = 1
LAZY_LOADING = 2
USE_LIST_ORDERING = 3
ELIDE_UNKNOWN_BLOCK_ARG_LOCATION = 4
NATIVE_PROPERTIES_ENCODING = 5
NATIVE_PROPERTIES_ODS_SEGMENT_SIZE = 6
CURRENT_VERSION = 6

# Section ids.
STRING, DIALECT, ATTR_TYPE, ATTR_TYPE_OFFSET, IR, RESOURCE, RESOURCE_OFFSET = range(7)
DIALECT_VERSIONS, PROPERTIES = 7, 8
NUM_SECTIONS = 9
SECTION_NAMES = ("String", "Dialect", "AttrType", "AttrTypeOffset", "IR", "Resource",
                 "ResourceOffset", "DialectVersions", "Properties")

# Bits of an operation's encoding mask.
HAS_ATTRS = 0x01
HAS_RESULTS = 0x02
HAS_OPERANDS = 0x04
HAS_SUCCESSORS = 0x08
HAS_INLINE_REGIONS = 0x10
HAS_USE_LIST_ORDERS = 0x20
HAS_PROPERTIES = 0x40

_MASK64 = (1 << 64) - 1


def section_name(section_id: int) -> str:
    """`String (0)`, as upstream names sections in its errors."""
    if section_id < NUM_SECTIONS:
        return f"{SECTION_NAMES[section_id]} ({section_id})"
    return f"Unknown ({section_id})"


def encode_varint(value: int) -> bytes:
    """The PrefixVarInt bytes of an unsigned 64-bit value."""
    if 0 <= value < 0x4000:  # one or two bytes (most values)
        if value < 0x80:
            return bytes(((value << 1) | 1,))
        return ((value << 2) | 2).to_bytes(2, "little")
    value &= _MASK64
    if value < 0x80:
        return bytes(((value << 1) | 1,))
    for extra in range(1, 8):
        if value >> (7 * (extra + 1)) == 0:
            encoded = ((value << 1) | 1) << extra
            return encoded.to_bytes(extra + 1, "little")
    return b"\x00" + value.to_bytes(8, "little")


def zigzag(value: int) -> int:
    """Signed -> unsigned, as `(v << 1) ^ (v >> 63)` on 64-bit two's complement."""
    value &= _MASK64
    if value >> 63:
        value -= 1 << 64
    return ((value << 1) ^ (value >> 63)) & _MASK64


def unzigzag(value: int) -> int:
    """Unsigned -> signed 64-bit (the inverse of `zigzag`)."""
    return (value >> 1) ^ -(value & 1)


class Emitter:
    """A growing byte buffer that knows the alignment its start needs (`align`)."""

    __slots__ = ("buf", "align")

    def __init__(self) -> None:
        self.buf = bytearray()
        self.align = 1

    def __len__(self) -> int:
        return len(self.buf)

    def byte(self, value: int) -> None:
        self.buf.append(value & 0xFF)

    def raw(self, data: bytes | bytearray | memoryview) -> None:
        self.buf += data

    def varint(self, value: int) -> None:
        if 0 <= value < 0x80:
            self.buf.append((value << 1) | 1)
        else:
            self.buf += encode_varint(value)

    def signed_varint(self, value: int) -> None:
        self.varint(zigzag(value))

    def varint_flag(self, value: int, flag: bool) -> None:
        self.varint((value << 1) | (1 if flag else 0))

    def cstring(self, text: bytes) -> None:
        self.buf += text
        self.buf.append(0)

    def align_to(self, alignment: int) -> None:
        """Pad with 0xCB up to `alignment` (a power of two) and remember it is needed."""
        if alignment < 2:
            return
        pad = -len(self.buf) % alignment
        self.buf += bytes((ALIGNMENT_BYTE,)) * pad
        self.align = max(self.align, alignment)

    def section(self, section_id: int, body: Emitter) -> None:
        """Append `body` as a nested section, aligning it if its contents need that."""
        code_at = len(self.buf)
        self.buf.append(section_id)
        self.varint(len(body.buf))
        need = body.align
        if need > 1:
            if len(self.buf) & (need - 1):
                self.varint(need)
                self.align_to(need)
                self.buf[code_at] |= 0x80
            else:
                self.align = max(self.align, need)
        self.buf += body.buf


class BytecodeError(Exception):
    """Malformed bytecode; the reader turns it into a located diagnostic."""


class Reader:
    """A cursor over a slice of the file. ``base`` is the slice's offset in the file, so
    alignment is checked against file offsets (upstream checks buffer addresses, which is
    the same for a file loaded at an aligned address)."""

    __slots__ = ("data", "pos", "end", "base")

    def __init__(self, data: bytes | memoryview, base: int = 0) -> None:
        self.data = data
        self.pos = 0
        self.end = len(data)
        self.base = base

    def empty(self) -> bool:
        return self.pos >= self.end

    def remaining(self) -> int:
        return self.end - self.pos

    def byte(self) -> int:
        if self.pos >= self.end:
            raise BytecodeError("attempting to parse a byte at the end of the bytecode")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def bytes(self, length: int) -> memoryview:
        if length > self.end - self.pos:
            raise BytecodeError(f"attempting to parse {length} bytes when only "
                                f"{self.end - self.pos} remain")
        start = self.pos
        self.pos += length
        return memoryview(self.data)[start:self.pos]

    def skip(self, length: int) -> None:
        if length > self.end - self.pos:
            raise BytecodeError(f"attempting to skip {length} bytes when only "
                                f"{self.end - self.pos} remain")
        self.pos += length

    def varint(self) -> int:
        pos = self.pos
        if pos >= self.end:
            raise BytecodeError("attempting to parse a byte at the end of the bytecode")
        first = self.data[pos]
        if first & 1:
            self.pos = pos + 1
            return first >> 1
        if first == 0:
            self.pos = pos + 1
            return int.from_bytes(self.bytes(8), "little")
        extra = (first & -first).bit_length() - 1
        if extra > self.end - pos - 1:
            self.pos = pos + 1
            raise BytecodeError(f"attempting to parse {extra} bytes when only "
                                f"{self.end - pos - 1} remain")
        self.pos = pos + extra + 1
        return int.from_bytes(self.data[pos:pos + extra + 1], "little") >> (extra + 1)

    def signed_varint(self) -> int:
        return unzigzag(self.varint())

    def varint_flag(self) -> tuple[int, bool]:
        value = self.varint()
        return value >> 1, bool(value & 1)

    def cstring(self) -> builtins.bytes:  # `bytes` here would name the method above
        rest = bytes(self.data[self.pos:self.end])
        nul = rest.find(0)
        if nul < 0:
            raise BytecodeError("malformed null-terminated string, no null character found")
        self.pos += nul + 1
        return rest[:nul]

    def align_to(self, alignment: int) -> None:
        if alignment <= 0 or alignment & (alignment - 1):
            raise BytecodeError("expected alignment to be a power-of-two")
        while (self.base + self.pos) & (alignment - 1):
            pad = self.byte()
            if pad != ALIGNMENT_BYTE:
                raise BytecodeError(
                    f"expected alignment byte (0xCB), but got: '0x{pad:X}'")

    def section(self) -> tuple[int, Reader]:
        """The next section's id and a reader over its bytes: a window (`pos`..`end`) on the
        same buffer, so opening a section copies nothing."""
        code = self.byte()
        length = self.varint()
        section_id = code & 0x7F
        if section_id >= NUM_SECTIONS:
            raise BytecodeError(f"invalid section ID: {section_id}")
        if code & 0x80:
            self.align_to(self.varint())
        start = self.pos
        if length > self.end - start:
            raise BytecodeError(f"attempting to parse {length} bytes when only "
                                f"{self.end - start} remain")
        self.pos = start + length
        section = Reader(self.data, self.base)
        section.pos = start
        section.end = start + length
        return section_id, section

    def blob_and_alignment(self) -> tuple[memoryview, int]:
        alignment = self.varint()
        size = self.varint()
        self.align_to(alignment)
        return self.bytes(size), alignment


class StringTable:
    """Strings are numbered in first-use order and written once: the count, the sizes
    (with the NUL) in reverse order, then the NUL-terminated data."""

    __slots__ = ("index",)

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def insert(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.index)
        return found

    def write(self, out: Emitter) -> None:
        encoded = [s.encode("utf-8", "surrogateescape") for s in self.index]
        out.varint(len(encoded))
        for data in reversed(encoded):
            out.varint(len(data) + 1)
        for data in encoded:
            out.cstring(data)


def read_string_table(section: Reader) -> list[str]:
    count = section.varint()
    if count > section.remaining():
        raise BytecodeError("string size exceeds the available data size")
    sizes = [section.varint() for _ in range(count)]
    data_end = section.end
    strings: list[str] = [""] * count
    for i, size in enumerate(sizes):
        if data_end < size or size == 0:
            raise BytecodeError("string size exceeds the available data size")
        start = data_end - size
        strings[count - 1 - i] = bytes(section.data[start:data_end - 1]).decode(
            "utf-8", "surrogateescape")
        data_end = start
    if data_end != section.pos:
        raise BytecodeError(
            "unexpected trailing data between the offsets for strings and their data")
    return strings


def group_runs(items: list[_Item], dialect_of: Callable[[_Item], int],
               ) -> list[tuple[int, list[_Item]]]:
    """Consecutive runs of items with the same dialect number: `(dialect, items)`."""
    runs: list[tuple[int, list[_Item]]] = []
    for item in items:
        d = dialect_of(item)
        if runs and runs[-1][0] == d:
            runs[-1][1].append(item)
        else:
            runs.append((d, [item]))
    return runs
