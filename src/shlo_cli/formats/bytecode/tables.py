"""The reader's attribute and type table: entries located by the offset section and decoded
on first use, by the owning dialect's hooks (custom encoding) or our text parser (the
assembly-format fallback), as upstream's `AttrTypeReader` does."""

from __future__ import annotations

from ...ir import registry
from ...ir.attributes import Attribute, OpaqueAttr
from ...ir.diagnostics import Diagnostic, SourceFile
from ...ir.lexer import EOF
from ...ir.parser import Parser
from ...ir.record import set_field
from ...ir.types import Type
from .encoding import BytecodeError, Reader, unzigzag
from .entries import ATTRIBUTES, TYPES
from .entries import varint as entry_varint
from .hooks import DialectHooks, hooks_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .entries import Decoder
    from .reader import _Reader


class DialectState:
    """A dialect named by the file; loaded (checked and given its hooks) on first use."""

    __slots__ = ("name", "version_bytes", "loaded", "known", "hooks")

    def __init__(self, name: str) -> None:
        self.name = name
        self.version_bytes: bytes | None = None
        self.loaded = False
        self.known = False
        self.hooks: DialectHooks | None = None


_PENDING = object()
# Attributes and types read from their text (immutable values, as the text parser's own
# caches keep them): (kind, text, unregistered ops allowed) -> value.
_TEXT_VALUES: dict[tuple[str, str, bool], Any] = {}
_TEXT_VALUES_LIMIT = 1 << 14


# Dialects whose ops a `keep_undecodable` read keeps as unregistered ops (Shardy's sharding
# ops in jax exports: the jax loader removes them, as they do nothing on one device).
UNDECODABLE_DIALECTS = frozenset({"sdy"})


class UndecodedAttr(OpaqueAttr):
    """An attribute of a dialect we cannot decode (e.g. Shardy's `sdy`), kept only when the
    caller asked for it (`read_bytecode(keep_undecodable=True)`) so it can drop it."""

    __slots__ = ("dialect",)
    dialect: str

    def __init__(self, text: str, dialect: str = "") -> None:
        super().__init__(text)
        set_field(self, "dialect", dialect)


class AttrTypeTable:
    """Entries are located by file offset in `data` (a reader over the whole file's bytes)."""

    def __init__(self, state: _Reader, strings: list[str], data: Reader, offsets: Reader,
                 resources: dict[str, Any]) -> None:
        self.state = state
        self.strings = strings
        self.buf = buf = state.data  # the file's bytes: entries are read at file offsets
        self.data = Reader(buf)
        self.data.pos = current = data.base + data.pos
        self.data.end = data_end = data.base + data.end
        self.resources = resources
        self.resource_keys: list[str] = resources["__keys__"]
        num_attrs = offsets.varint()
        num_types = offsets.varint()
        if num_attrs + num_types > offsets.remaining():
            raise BytecodeError("Attribute or Type entry offset points past the end of section")
        # Entry k (the attributes, then the types) starts at file offset `marks[k] >> 1`
        # and ends where entry k + 1 starts; `marks[k] & 1` says it has a custom encoding
        # and `owners[k]` is its dialect. Values: the decoded objects.
        marks: list[int] = []
        owners: list[DialectState] = []
        self.marks = marks
        self.owners = owners
        self.num_attrs = num_attrs
        self.attr_values: list[Any] = [None] * num_attrs
        self.type_values: list[Any] = [None] * num_types
        dialects = state.dialects
        pos = offsets.base + offsets.pos  # the offsets, read inline from the file's bytes
        end = offsets.base + offsets.end
        mark = marks.append
        for count in (num_attrs, num_attrs + num_types):
            while len(marks) < count:
                index, pos = _varint(buf, pos, end, offsets)
                if index >= len(dialects):
                    raise BytecodeError(f"invalid dialect index: {index}")
                dialect = dialects[index]
                group, pos = _varint(buf, pos, end, offsets)
                if len(marks) + group > count:
                    group = count - len(marks) + 1  # reads the entries, then fails
                owners += [dialect] * group
                for _ in range(group):
                    if len(marks) >= count:
                        raise BytecodeError("unexpected trailing data in the Attribute/Type "
                                            "offset section")
                    first = buf[pos] if pos < end else 0
                    if first & 1:
                        pos += 1
                        value = first >> 1
                    else:
                        value, pos = _varint(buf, pos, end, offsets)
                    size = value >> 1
                    if current + size > data_end:
                        raise BytecodeError(
                            "Attribute or Type entry offset points past the end of section")
                    mark(current << 1 | (value & 1))
                    current += size
        if pos != end:
            raise BytecodeError(
                "unexpected trailing data in the Attribute/Type offset section")
        mark(current << 1)  # where the last entry ends

    @property
    def attr_entries(self) -> list[tuple[DialectState, bool, int, int]]:
        """(dialect, custom, file offset, size) of each attribute entry."""
        return [self._entry(k) for k in range(self.num_attrs)]

    @property
    def type_entries(self) -> list[tuple[DialectState, bool, int, int]]:
        return [self._entry(k) for k in range(self.num_attrs, len(self.marks) - 1)]

    def _entry(self, k: int) -> tuple[DialectState, bool, int, int]:
        start = self.marks[k] >> 1
        return self.owners[k], bool(self.marks[k] & 1), start, (self.marks[k + 1] >> 1) - start

    def attribute(self, index: int) -> Attribute:
        values = self.attr_values
        if index < len(values):
            value = values[index]
            if value is not None and value is not _PENDING:  # decoded already
                return value  # type: ignore[no-any-return]
        attr: Attribute = self._resolve(index, 0, values, "Attribute", ATTRIBUTES)
        return attr

    def type(self, index: int) -> Type:
        values = self.type_values
        if index < len(values):
            value = values[index]
            if value is not None and value is not _PENDING:
                return value  # type: ignore[no-any-return]
        type: Type = self._resolve(index, self.num_attrs, values, "Type", TYPES)
        return type

    def _resolve(self, index: int, first: int, values: list[Any], kind: str,
                 fast: dict[int, Decoder]) -> Any:
        if index >= len(values):
            raise BytecodeError(f"invalid {kind} index: {index}")
        value = values[index]
        if value is not None:
            if value is _PENDING:
                raise BytecodeError(f"{kind} entry {index} refers to itself")
            return value
        k = first + index
        marks = self.marks
        start = marks[k] >> 1
        end = marks[k + 1] >> 1
        custom = marks[k] & 1
        dialect = self.owners[k]
        values[index] = _PENDING
        try:
            if custom and end > start and dialect.name == "builtin":  # decoded directly
                if not dialect.loaded:
                    self.state.load_dialect(dialect)
                buf = self.buf
                code = buf[start]
                decode = fast.get(code >> 1) if code & 1 else None
                if decode is not None:
                    value = decode(self, buf, start + 1, end)
            if value is None:
                reader = Reader(self.buf)
                reader.pos = start
                reader.end = end
                if custom:
                    value = self._custom(dialect, reader, kind)
                else:
                    value = self._text(reader, kind)
                if not reader.empty():
                    raise BytecodeError(f"unexpected trailing bytes after {kind} entry")
        finally:
            values[index] = None
        values[index] = value
        return value

    def _custom(self, dialect: DialectState, reader: Reader, kind: str) -> Any:
        if kind == "Attribute" and self.state.keep_undecodable \
                and hooks_for(dialect.name) is None:
            reader.skip(reader.remaining())
            return UndecodedAttr(f"#{dialect.name}<undecoded>", dialect.name)
        if not dialect.loaded:
            self.state.load_dialect(dialect)
        hooks = dialect.hooks
        decode = None
        if hooks is not None:
            decode = hooks.read_type if kind == "Type" else hooks.read_attribute
        if decode is None:
            raise BytecodeError(
                f"dialect '{dialect.name}' does not implement the bytecode interface")
        return decode(DialectReader(self, reader))

    def _text(self, reader: Reader, kind: str) -> Any:
        text = reader.cstring().decode("utf-8", "surrogateescape")
        key = (kind, text, self.state.allow_unregistered)
        found = _TEXT_VALUES.get(key)
        if found is not None:
            return found
        value = self._parse_text(text, kind)
        # Kept unless it depends on the file's resources, holds an array or is a placeholder.
        if "dense" not in text and value.__class__ is not UndecodedAttr:
            if len(_TEXT_VALUES) >= _TEXT_VALUES_LIMIT:
                _TEXT_VALUES.clear()
            _TEXT_VALUES[key] = value
        return value

    def _parse_text(self, text: str, kind: str) -> Any:
        parser = Parser(SourceFile(self.state.filename, text), self.state.allow_unregistered)
        parser.resources = self.resources
        try:
            value = parser.parse_type() if kind == "Type" else parser.parse_attribute()
        except Diagnostic as e:
            dialect = text[1:].split(".", 1)[0].split("<", 1)[0]
            if kind == "Attribute" and self.state.keep_undecodable and text.startswith("#") \
                    and not registry.is_known_dialect(dialect):
                return UndecodedAttr(text, dialect)
            raise BytecodeError(e.message) from None
        if parser.tok.kind != EOF:
            raise BytecodeError(f"trailing characters found after {kind} assembly format: "
                                f"{text[parser.tok.start:]}")
        return value


def _varint(buf: bytes, pos: int, end: int, reader: Reader) -> tuple[int, int]:
    """The varint at file offset `pos` (< `end`) and the offset after it; past the end,
    `reader` (the section being read) raises upstream's error."""
    if pos < end:
        first = buf[pos]
        if first & 1:
            return first >> 1, pos + 1
        value, after = entry_varint(buf, pos, end)
        if value >= 0:
            return value, after
    reader.pos = pos - reader.base
    value = reader.varint()
    return value, reader.base + reader.pos


class DialectReader:
    """What a dialect decoder reads through (upstream's `DialectBytecodeReader`)."""

    __slots__ = ("table", "r", "version")

    def __init__(self, table: AttrTypeTable, reader: Reader) -> None:
        self.table = table
        self.r = reader
        self.version = table.state.version

    def error(self, message: str) -> Exception:
        return BytecodeError(message)

    def varint(self) -> int:
        return self.r.varint()

    def signed_varint(self) -> int:
        return self.r.signed_varint()

    def signed_varints(self) -> list[int]:
        return [self.r.signed_varint() for _ in range(self.r.varint())]

    def attribute(self) -> Attribute:
        return self.table.attribute(self.r.varint())

    def optional_attribute(self) -> Attribute | None:
        index, present = self.r.varint_flag()
        return self.table.attribute(index) if present else None

    def attributes(self) -> list[Attribute]:
        return [self.table.attribute(self.r.varint()) for _ in range(self.r.varint())]

    def type(self) -> Type:
        return self.table.type(self.r.varint())

    def types(self) -> list[Type]:
        return [self.table.type(self.r.varint()) for _ in range(self.r.varint())]

    def string(self) -> str:
        index = self.r.varint()
        if index >= len(self.table.strings):
            raise BytecodeError(f"invalid string index: {index}")
        return self.table.strings[index]

    def blob(self) -> bytes:
        return bytes(self.r.bytes(self.r.varint()))

    def bool(self) -> bool:
        return self.r.byte() != 0

    def apint(self, width: int) -> int:
        """An APInt of known width, as its unsigned `width`-bit value."""
        mask = (1 << width) - 1
        if width <= 8:
            return self.r.byte() & mask
        if width <= 64:
            return unzigzag(self.r.varint()) & mask
        value = 0
        for i in range(self.r.varint()):
            value |= (unzigzag(self.r.varint()) & ((1 << 64) - 1)) << (64 * i)
        return value & mask

    def resource(self) -> str:
        index = self.r.varint()
        if index >= len(self.table.resource_keys):
            raise BytecodeError(f"invalid resource handle index: {index}")
        return self.table.resource_keys[index]
