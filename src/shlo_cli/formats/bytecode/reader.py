"""The MLIR bytecode reader (upstream `BytecodeReader.cpp`): every section and every
version from 0 to 6, into our IR.

Errors are diagnostics located at `file:0:0` with upstream's wording and upstream's note
`in bytecode version N produced by: P`; no Python exception escapes for bad input.
Attributes and types are decoded on first use, as upstream does lazily. This module reads
the header and the sections around the IR; `ir_reader` reads the IR itself, `tables` the
attribute/type entries (the common builtin ones through `entries`).
"""

from __future__ import annotations

import gc

from ...ir import registry
from ...ir.attributes import Attribute, DenseResourceAttr
from ...ir.core import Block, Location, Module, Operation, Region, Value
from ...ir.diagnostics import Diagnostic, SourceFile
from .encoding import (
    ATTR_TYPE,
    ATTR_TYPE_OFFSET,
    CURRENT_VERSION,
    DIALECT,
    DIALECT_VERSIONING,
    DIALECT_VERSIONS,
    ELIDE_UNKNOWN_BLOCK_ARG_LOCATION,
    IR,
    NATIVE_PROPERTIES_ENCODING,
    NUM_SECTIONS,
    PROPERTIES,
    RESOURCE,
    RESOURCE_OFFSET,
    STRING,
    BytecodeError,
    Reader,
    is_bytecode,
    read_string_table,
    section_name,
)
from .hooks import hooks_for
from .ir_reader import IRReader, OpInfo, entry_at, open_section, slow_varint
from .tables import UNDECODABLE_DIALECTS, AttrTypeTable, DialectState
from .uselists import decode_order

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class BytecodeDiagnostic(Diagnostic):
    """A diagnostic at a location with no source text to show (`file:line:col: ...`)."""

    def render(self, show_source: bool = True) -> str:
        where = f"{self.source.name}:{self.line}:{self.col}: " if self.source else ""
        lines = [f"{where}{self.severity}: {self.message}"]
        lines += [note.render(show_source) for note in self.notes]
        return "\n".join(lines)


def _diagnostic(message: str, filename: str, line: int = 0, col: int = 0,
                note: str | None = None) -> BytecodeDiagnostic:
    source = SourceFile(filename, "")
    notes: list[Diagnostic] = [BytecodeDiagnostic(note, source, line=line, col=col,
                                                  severity="note")] if note else []
    return BytecodeDiagnostic(message, source, line=line, col=col, notes=notes)


class _OpError(Exception):
    """An error located at an op (upstream's verifier errors)."""

    def __init__(self, message: str, location: Location) -> None:
        super().__init__(message)
        self.message = message
        self.location = location


def _string_table(section: Reader) -> list[str]:
    """`read_string_table` with one-byte sizes read inline; anything else (long strings,
    malformed tables) is left to it, which raises upstream's errors."""
    data = section.data
    if not isinstance(data, bytes):
        return read_string_table(section)
    pos = section.pos
    end = section.end
    count = data[pos] >> 1 if pos < end and data[pos] & 1 else -1
    if count < 0 or count > end - pos - 1:
        return read_string_table(section)
    sizes = data[pos + 1:pos + 1 + count]
    if any(not size & 1 for size in sizes):
        return read_string_table(section)
    data_end = end
    strings: list[str] = [""] * count
    for i, size in enumerate(sizes):
        size >>= 1
        start = data_end - size
        if size == 0 or start < pos:
            return read_string_table(section)
        strings[count - 1 - i] = data[start:data_end - 1].decode("utf-8", "surrogateescape")
        data_end = start
    if data_end != pos + 1 + count:
        return read_string_table(section)
    return strings


class _Reader(IRReader):
    def __init__(self, data: bytes, filename: str, allow_unregistered: bool,
                 keep_undecodable: bool = False) -> None:
        self.data = data if data.__class__ is bytes else bytes(data)
        self.filename = filename
        self.allow_unregistered = allow_unregistered
        self.keep_undecodable = keep_undecodable
        self.version = 0
        self.producer = ""
        self.props_data: Reader | None = None
        self.props_offsets: list[int] = []
        # properties index -> (op name, the registered op's decoded properties): ops share
        # entries of the properties section, and attributes are immutable.
        self.props_decoded: dict[int, tuple[str, dict[str, Attribute]]] = {}
        self.op_names: list[tuple[DialectState, str, bool | None]] = []
        self.forward_refs = 0
        self.use_orders: list[tuple[Value, list[int], bool]] = []
        self.odd_props: list[Operation] = []
        self.started = False
        # op-name index -> what every op of that name needs (see `_op_info`)
        self.op_infos: dict[int, OpInfo] = {}
        self.unregistered_op: Operation | None = None  # the first op upstream would reject

    def release(self) -> None:
        """Drop the table, which points back here: the file's tables are then freed as the
        read returns rather than left to the cycle collector."""
        self.__dict__.pop("table", None)

    def note(self) -> str | None:
        """Upstream attaches this note to every diagnostic once the header is read."""
        if not self.started:
            return None
        return f"in bytecode version {self.version} produced by: {self.producer}"

    # ---- top level ---------------------------------------------------------------------------

    def read(self) -> Module:
        data = self.data
        reader = Reader(data)  # every section is read at file offsets from here on
        reader.skip(4)
        self.version = reader.varint()
        if self.version > CURRENT_VERSION:
            raise BytecodeError(f"bytecode version {self.version} is newer than the current "
                                f"version {CURRENT_VERSION}")
        nul = data.find(0, reader.pos)
        if nul < 0:
            raise BytecodeError("malformed null-terminated string, no null character found")
        self.producer = data[reader.pos:nul].decode("utf-8", "surrogateescape")
        reader.pos = nul + 1
        self.started = True
        sections: list[Reader | None] = [None] * NUM_SECTIONS
        while reader.pos < reader.end:
            section_id, section = open_section(reader)
            if sections[section_id] is not None:
                raise BytecodeError(f"duplicate top-level section: {section_name(section_id)}")
            sections[section_id] = section
        for section_id in range(NUM_SECTIONS):
            if sections[section_id] is None and not self._optional(section_id):
                raise BytecodeError(
                    f"missing data for top-level section: {section_name(section_id)}")
        strings = _string_table(sections[STRING])  # type: ignore[arg-type]
        properties = sections[PROPERTIES]
        if properties is not None:
            self._read_properties_section(properties)
        self.dialects = self._read_dialect_section(sections[DIALECT], strings)  # type: ignore
        resources = self._read_resources(sections[RESOURCE], sections[RESOURCE_OFFSET],
                                         strings)
        self.table = AttrTypeTable(self, strings, sections[ATTR_TYPE],  # type: ignore[arg-type]
                                   sections[ATTR_TYPE_OFFSET], resources)  # type: ignore
        ops = self._read_ir(sections[IR])  # type: ignore[arg-type]
        return self._finish(ops, resources)

    def _optional(self, section_id: int) -> bool:
        if section_id in (RESOURCE, RESOURCE_OFFSET, DIALECT_VERSIONS):
            return True
        if section_id == PROPERTIES:
            return self.version < NATIVE_PROPERTIES_ENCODING
        return False

    # ---- dialects and op names ---------------------------------------------------------------

    def _read_dialect_section(self, section: Reader, strings: list[str]) -> list[DialectState]:
        count = section.varint()
        if count > section.remaining():
            raise BytecodeError("invalid dialect count")
        dialects: list[DialectState] = []
        for _ in range(count):
            if self.version < DIALECT_VERSIONING:
                dialects.append(DialectState(_string(strings, section.varint())))
                continue
            name_id, versioned = section.varint_flag()
            dialect = DialectState(_string(strings, name_id))
            if versioned:
                section_id, body = section.section()
                if section_id != DIALECT_VERSIONS:
                    raise BytecodeError("expected dialect version section")
                dialect.version_bytes = bytes(body.data[body.pos:body.end])
            dialects.append(dialect)
        if self.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
            section.varint()  # the op-name count, a reservation hint
        while not section.empty():
            dialect = entry_at(dialects, section.varint(), "dialect")
            for _ in range(section.varint()):
                if self.version < NATIVE_PROPERTIES_ENCODING:
                    name = _string(strings, section.varint())
                    registered: bool | None = None
                else:
                    name_id, registered = section.varint_flag()
                    name = _string(strings, name_id)
                self.op_names.append((dialect, name, registered))
        return dialects

    def load_dialect(self, dialect: DialectState) -> None:
        """Upstream loads a dialect on first use and rejects one it does not know."""
        if dialect.loaded:
            return
        dialect.loaded = True
        dialect.hooks = hooks_for(dialect.name)
        dialect.known = dialect.hooks is not None or registry.is_known_dialect(dialect.name)
        if not dialect.known and not self.allow_unregistered \
                and not (self.keep_undecodable and dialect.name in UNDECODABLE_DIALECTS):
            raise BytecodeError(
                f"dialect '{dialect.name}' is unknown. If this is intended, please call "
                "allowUnregisteredDialects() on the MLIRContext, or use "
                "-allow-unregistered-dialect with the MLIR tool used.")
        if dialect.version_bytes is not None and not dialect.known:
            # Upstream reads versions through the dialect's interface; the dialects we know
            # but encode as text (stablehlo, chlo, ...) keep theirs unread, as no IR
            # upgrade depends on it here.
            raise BytecodeError(f"dialect '{dialect.name}' does not implement the bytecode "
                                "interface, but found a version entry")

    def _op_name_at(self, index: int) -> tuple[str, bool | None]:
        dialect, name, registered = entry_at(self.op_names, index, "operation name")
        self.load_dialect(dialect)
        if not name:
            if dialect.known:
                raise BytecodeError(f"has an empty opname for dialect '{dialect.name}'\n")
            return dialect.name, registered
        return f"{dialect.name}.{name}", registered

    # ---- resources and properties ------------------------------------------------------------

    def _read_resources(self, data: Reader | None, offsets: Reader | None,
                        strings: list[str]) -> dict[str, Any]:
        if (data is None) != (offsets is None):
            if offsets is not None:
                raise BytecodeError(
                    "unexpected resource offset section when resource section is not present")
            raise BytecodeError(
                "expected resource offset section when resource section is present")
        resources: dict[str, Any] = {"__keys__": []}
        if data is None or offsets is None:
            return resources
        for _ in range(offsets.varint()):  # external groups: nobody here handles them
            _string(strings, offsets.varint())
            self._resource_group(offsets, data, strings, None)
        while not offsets.empty():
            dialect = entry_at(self.dialects, offsets.varint(), "dialect")
            self.load_dialect(dialect)
            if not dialect.known:
                raise BytecodeError(f"dialect '{dialect.name}' is unknown")
            if dialect.name != "builtin":
                raise BytecodeError(f"unexpected resources for dialect '{dialect.name}'")
            self._resource_group(offsets, data, strings, resources)
        return resources

    def _resource_group(self, offsets: Reader, data: Reader, strings: list[str],
                        into: dict[str, Any] | None) -> None:
        for _ in range(offsets.varint()):
            key = _string(strings, offsets.varint())
            size = offsets.varint()
            kind = offsets.byte()
            body = data.bytes(size)
            if into is None:
                continue
            into["__keys__"].append(key)
            if not size:
                continue  # a declaration without data
            entry = Reader(body, data.base + data.pos - size)
            if kind != 0:
                raise BytecodeError(f"expected a blob resource entry, but found a "
                                    f"{('blob', 'bool', 'string')[kind] if kind < 3 else kind} "
                                    "entry instead")
            blob, alignment = entry.blob_and_alignment()
            if not entry.empty():
                raise BytecodeError(f"unexpected trailing bytes in resource entry '{key}'")
            into[key] = "0x" + (alignment.to_bytes(4, "little") + bytes(blob)).hex().upper()

    def _read_properties_section(self, section: Reader) -> None:
        if section.empty():
            return
        count = section.varint()
        body = Reader(section.data, section.base)  # the section's bytes, at its offsets
        data = body.data
        pos = section.pos
        end = body.end = section.end
        offsets: list[int] = []
        append = offsets.append
        for _ in range(count):
            append(pos)
            b = data[pos] if pos < end else 0
            if b & 1:
                pos += 1
                size = b >> 1
            else:
                size, pos = slow_varint(body, pos)
            if size > end - pos:
                body.pos = pos
                body.bytes(size)  # raises
            pos += size
        body.pos = pos
        if not body.empty():
            raise BytecodeError("Broken properties section: didn't exhaust the offsets table")
        self.props_data = body
        self.props_offsets = offsets

    # ---- after the IR ------------------------------------------------------------------------

    def _finish(self, ops: list[Operation], resources: dict[str, Any]) -> Module:
        if len(ops) == 1 and ops[0].name == "builtin.module":
            top = ops[0]
        else:
            body = Block()
            for op in ops:
                body.append(op)
            top = Operation("builtin.module", regions=[Region([body])],
                            location=Location(self.filename, 0, 0),
                            opdef=registry.lookup("builtin.module"))
        self._apply_use_orders(top)
        rejected = self.unregistered_op
        if rejected is not None:
            dialect = rejected.name.split(".", 1)[0]
            raise _OpError(
                f"unregistered operation '{rejected.name}' found in dialect ('{dialect}') "
                "that does not allow unknown operations", rejected.location)
        if self.odd_props:
            op = self.odd_props[0]
            raise _OpError(f"properties of unregistered operation '{op.name}' are not a "
                           "dictionary, which this reader cannot represent", op.location)
        keys = resources.pop("__keys__", [])
        for key in keys:
            if key not in resources:
                resources[key] = None  # declared without data
        module = Module(top, {k: v for k, v in resources.items() if v is not None},
                        self.filename, "")
        _link_resources(self.table.attr_values, module.resources)
        return module

    def _apply_use_orders(self, top: Operation) -> None:
        if not self.use_orders:
            return
        counts: dict[int, int] = {}
        for op in top.walk():
            for operand in op.operands:
                counts[id(operand)] = counts.get(id(operand), 0) + 1
        for value, indices, pairs in self.use_orders:
            order = decode_order(indices, pairs, counts.get(id(value), 0))
            if order is None:
                raise BytecodeError(
                    "parsed use-list orders were invalid and could not be applied")
            value.use_order = order


def _link_resources(attributes: list[Any], resources: dict[str, Any]) -> None:
    """Point `dense_resource` attributes at the module's blobs (as the text parser does).
    Every attribute of the file is an entry of its table (`attributes`), nested ones too."""
    for attr in attributes:
        if isinstance(attr, DenseResourceAttr):
            object.__setattr__(attr, "blobs", resources)


def _string(strings: list[str], index: int) -> str:
    return entry_at(strings, index, "string")


def read_bytecode(data: bytes, filename: str = "<stdin>", allow_unregistered: bool = False,
                  keep_undecodable: bool = False) -> Module:
    """Parse MLIR bytecode into a Module; raises a Diagnostic for any bad input.

    `keep_undecodable`: an attribute of a dialect we cannot decode (Shardy's sharding rules
    in jax exports) becomes an `UndecodedAttr` placeholder instead of an error."""
    if not is_bytecode(data):
        raise _diagnostic("input buffer is not an MLIR bytecode file", filename)
    state = _Reader(data, filename, allow_unregistered, keep_undecodable)
    # The reader allocates many small objects that all stay alive (the IR and the file's
    # tables): collections while reading would only traverse them, as in the text parser.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return state.read()
    except BytecodeError as e:
        raise _diagnostic(str(e), filename, note=state.note()) from None
    except _OpError as e:
        loc = e.location
        raise _diagnostic(e.message, loc.filename, loc.line, loc.col,
                          note=state.note()) from None
    except Diagnostic as e:
        raise _diagnostic(e.message, filename, note=state.note()) from None
    except RecursionError:
        raise _diagnostic("bytecode nesting is too deep to read", filename,
                          note=state.note()) from None
    finally:
        state.release()
        if collecting:
            gc.enable()


def bytecode_header(data: bytes) -> tuple[int, str] | None:
    """(version, producer) of a bytecode file, or None if the header is malformed."""
    if not is_bytecode(data):
        return None
    reader = Reader(data)
    try:
        reader.skip(4)
        version = reader.varint()
        producer = reader.cstring().decode("utf-8", "surrogateescape")
    except BytecodeError:
        return None
    return version, producer
