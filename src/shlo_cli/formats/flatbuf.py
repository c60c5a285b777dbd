"""A small, bounds-checked reader of FlatBuffers tables (what `jax.export` serializes to).

Only what reading needs: the root table, scalar fields, strings, byte/scalar vectors, tables
and vectors of tables or strings. Field `i` of a table is slot `i` of its vtable; a missing
slot (older writer) or a zero entry means "absent", and the schema default applies. Every
offset is checked against the buffer, so a truncated or corrupt file raises `FlatError`
instead of reading garbage or looping.
"""

from __future__ import annotations

import struct

MAX_DEPTH = 64  # nested tables (a jax export's vjp chain, pytree nesting)


class FlatError(ValueError):
    """The buffer is not a well-formed flatbuffer (message says where)."""


class Buffer:
    """The raw bytes plus checked little-endian reads."""

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(bytes(data))

    def read(self, fmt: str, pos: int) -> int:
        size = struct.calcsize("<" + fmt)
        if pos < 0 or pos + size > len(self.data):
            raise FlatError(f"offset {pos} is outside the {len(self.data)}-byte buffer")
        value: int = struct.unpack_from("<" + fmt, self.data, pos)[0]
        return value

    def target(self, pos: int) -> int:
        """Where the uoffset stored at `pos` points."""
        return pos + self.read("I", pos)

    def root(self) -> Table:
        if len(self.data) < 8:
            raise FlatError(f"{len(self.data)} bytes is too short for a flatbuffer")
        return Table(self, self.target(0), 0)


class Table:
    """One table: its position and vtable."""

    def __init__(self, buf: Buffer, pos: int, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise FlatError("tables nested too deeply")
        self.buf, self.pos, self.depth = buf, pos, depth
        self.vtable = pos - buf.read("i", pos)
        self.vtable_size = buf.read("H", self.vtable)
        self.table_size = buf.read("H", self.vtable + 2)
        if self.vtable_size < 4 or self.vtable_size % 2:
            raise FlatError(f"bad vtable size {self.vtable_size} at offset {self.vtable}")
        buf.read("B", self.vtable + self.vtable_size - 1)  # vtable inside the buffer
        if self.table_size < 4:
            raise FlatError(f"bad table size {self.table_size} at offset {pos}")
        buf.read("B", pos + self.table_size - 1)

    def _field(self, slot: int) -> int | None:
        entry = 4 + 2 * slot
        if entry >= self.vtable_size:
            return None
        offset = self.buf.read("H", self.vtable + entry)
        if offset == 0:
            return None
        if offset >= self.table_size:
            raise FlatError(f"field {slot} of the table at offset {self.pos} lies outside it")
        return self.pos + offset

    def has(self, slot: int) -> bool:
        return self._field(slot) is not None

    def scalar(self, slot: int, fmt: str, default: int = 0) -> int:
        pos = self._field(slot)
        return default if pos is None else self.buf.read(fmt, pos)

    def table(self, slot: int) -> Table | None:
        pos = self._field(slot)
        return None if pos is None else Table(self.buf, self.buf.target(pos), self.depth + 1)

    def _vector(self, slot: int, item_size: int) -> tuple[int, int] | None:
        pos = self._field(slot)
        if pos is None:
            return None
        start = self.buf.target(pos)
        length = self.buf.read("I", start)
        if start + 4 + length * item_size > len(self.buf.data):
            raise FlatError(f"vector of {length} items at offset {start} runs past the end")
        return start + 4, length

    def bytes(self, slot: int) -> bytes:
        vec = self._vector(slot, 1)
        return b"" if vec is None else bytes(self.buf.data[vec[0]:vec[0] + vec[1]])

    def string(self, slot: int) -> str | None:
        vec = self._vector(slot, 1)
        return None if vec is None else _decode(self.buf.data[vec[0]:vec[0] + vec[1]])

    def scalars(self, slot: int, fmt: str) -> list[int]:
        size = struct.calcsize("<" + fmt)
        vec = self._vector(slot, size)
        if vec is None:
            return []
        return [self.buf.read(fmt, vec[0] + i * size) for i in range(vec[1])]

    def tables(self, slot: int) -> list[Table]:
        vec = self._vector(slot, 4)
        if vec is None:
            return []
        return [Table(self.buf, self.buf.target(vec[0] + 4 * i), self.depth + 1)
                for i in range(vec[1])]

    def strings(self, slot: int) -> list[str]:
        vec = self._vector(slot, 4)
        if vec is None:
            return []
        out = []
        for i in range(vec[1]):
            start = self.buf.target(vec[0] + 4 * i)
            length = self.buf.read("I", start)
            if start + 4 + length > len(self.buf.data):
                raise FlatError(f"string at offset {start} runs past the end")
            out.append(_decode(self.buf.data[start + 4:start + 4 + length]))
        return out


def _decode(raw: memoryview) -> str:
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise FlatError("a string is not valid UTF-8") from None
