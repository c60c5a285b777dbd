"""The MLIR bytecode reader (upstream `BytecodeReader.cpp`): every section and every
version from 0 to 6, into our IR.

Errors are diagnostics located at `file:0:0` with upstream's wording and upstream's note
`in bytecode version N produced by: P`; no Python exception escapes for bad input.
Attributes and types are decoded on first use, as upstream does lazily.
"""

from __future__ import annotations

import gc
from typing import Any, TypeVar

from ...ir import registry
from ...ir.attributes import Attribute, DenseResourceAttr, DictAttr
from ...ir.core import Block, Location, Module, Operation, Region, Value
from ...ir.diagnostics import Diagnostic, SourceFile
from ...ir.locations import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    LocationAttr,
    NameLoc,
    UnknownLoc,
)
from ...ir.types import Type
from .encoding import (
    ATTR_TYPE,
    ATTR_TYPE_OFFSET,
    CURRENT_VERSION,
    DIALECT,
    DIALECT_VERSIONING,
    DIALECT_VERSIONS,
    ELIDE_UNKNOWN_BLOCK_ARG_LOCATION,
    HAS_ATTRS,
    HAS_INLINE_REGIONS,
    HAS_OPERANDS,
    HAS_PROPERTIES,
    HAS_RESULTS,
    HAS_SUCCESSORS,
    HAS_USE_LIST_ORDERS,
    IR,
    LAZY_LOADING,
    NATIVE_PROPERTIES_ENCODING,
    NUM_SECTIONS,
    PROPERTIES,
    RESOURCE,
    RESOURCE_OFFSET,
    STRING,
    USE_LIST_ORDERING,
    BytecodeError,
    Reader,
    is_bytecode,
    read_string_table,
    section_name,
)
from .hooks import OpSpec, hooks_for
from .properties import op_spec
from .tables import AttrTypeTable, DialectState
from .uselists import decode_order


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


class _ForwardRef:
    """A use of a value defined later: the ops and operand slots to patch."""

    __slots__ = ("uses",)

    def __init__(self) -> None:
        self.uses: list[tuple[Operation, int]] = []


class _OpInfo:
    """An op name's facts, looked up once per file: its name, the `wasRegistered` flag,
    its definition, its inherent attribute names and whether upstream rejects the op."""

    __slots__ = ("name", "registered", "opdef", "inherent", "rejected", "spec")

    def __init__(self, name: str, registered: bool | None, opdef: Any,
                 inherent: frozenset[str], rejected: bool, spec: OpSpec | None) -> None:
        self.name = name
        self.spec = spec
        self.registered = registered
        self.opdef = opdef
        self.inherent = inherent
        self.rejected = rejected


# (op name, `wasRegistered`) -> the facts of a registered op, shared by every file while
# the registry holds the same definition.
_OP_INFOS: dict[tuple[str, bool | None], _OpInfo] = {}
_REGISTERED = registry._REGISTRY


def _window(data: bytes, end: int) -> Reader:
    """A reader of `data` up to `end`, for what the inline decoding leaves to `Reader`."""
    reader = Reader(data)
    reader.end = end
    return reader


def _slow_varint(reader: Reader, pos: int) -> tuple[int, int]:
    """A varint of more than one byte (or a missing one: the reader raises), and the
    position after it."""
    reader.pos = pos
    value = reader.varint()
    return value, reader.pos


def _section(reader: Reader) -> tuple[int, Reader]:
    """The next section's id and a reader over its bytes, sharing `reader`'s buffer and
    offsets (`Reader.section` slices a memoryview instead); same checks and errors."""
    code = reader.byte()
    length = reader.varint()
    section_id = code & 0x7F
    if section_id >= NUM_SECTIONS:
        raise BytecodeError(f"invalid section ID: {section_id}")
    if code & 0x80:
        reader.align_to(reader.varint())
    start = reader.pos
    if length > reader.end - start:
        raise BytecodeError(f"attempting to parse {length} bytes when only "
                            f"{reader.end - start} remain")
    reader.pos = start + length
    section = Reader(reader.data, reader.base)
    section.pos = start
    section.end = start + length
    return section_id, section


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


class _Scope:
    """The values of one isolated-from-above scope; each open region reserves a range."""

    __slots__ = ("values", "next_ids")

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.next_ids: list[int] = []

    def push(self, count: int) -> None:
        self.next_ids.append(len(self.values))
        self.values.extend([None] * count)

    def pop(self, count: int) -> None:
        del self.values[len(self.values) - count:]
        self.next_ids.pop()


class _Reader:
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
        self.op_infos: dict[int, _OpInfo] = {}
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
            section_id, section = _section(reader)
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
            dialect = _entry(dialects, section.varint(), "dialect")
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
        if not dialect.known and not self.allow_unregistered:
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
        dialect, name, registered = _entry(self.op_names, index, "operation name")
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
            dialect = _entry(self.dialects, offsets.varint(), "dialect")
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
                size, pos = _slow_varint(body, pos)
            if size > end - pos:
                body.pos = pos
                body.bytes(size)  # raises
            pos += size
        body.pos = pos
        if not body.empty():
            raise BytecodeError("Broken properties section: didn't exhaust the offsets table")
        self.props_data = body
        self.props_offsets = offsets

    def _properties(self, index: int, info: _OpInfo,
                    op_props: dict[str, Attribute]) -> Attribute | None:
        """Read a registered op's properties (entry `index` of the properties section);
        returns an unregistered-style attribute when we do not know the op (upstream then
        reads one attribute)."""
        name = info.name
        if index >= len(self.props_offsets) or self.props_data is None:
            raise BytecodeError(f"Properties idx out-of-bound for {name}")
        whole = self.props_data
        data = self.data
        pos = self.props_offsets[index] + whole.base  # read at file offsets, as the IR is
        end = whole.base + whole.end
        b = data[pos] if pos < end else 0
        if b & 1:
            pos += 1
            size = b >> 1
        else:
            size, pos = _slow_varint(_window(data, end), pos)
        if size > end - pos:
            raise BytecodeError(f"attempting to parse {size} bytes when only "
                                f"{end - pos} remain")
        end = pos + size
        spec = info.spec
        table = self.table
        if spec is None:
            value, pos = _slow_varint(_window(data, end), pos)
            return table.attribute(value)
        attr_values = table.attr_values
        for prop, optional in spec:
            b = data[pos] if pos < end else 0
            if b & 1:
                pos += 1
                value = b >> 1
            else:
                value, pos = _slow_varint(_window(data, end), pos)
            if optional:
                if not value & 1:
                    continue
                value >>= 1
            attr = attr_values[value] if value < len(attr_values) else None
            op_props[prop] = table.attribute(value) if attr is None else attr
        self.props_decoded[index] = (name, dict(op_props))
        return None

    # ---- the IR ------------------------------------------------------------------------------

    def _read_ir(self, section: Reader) -> list[Operation]:
        ops_count, has_args = section.varint_flag()
        if has_args:
            raise BytecodeError("value index range was outside of the expected range for "
                                "the parent region, got [0, 1), but the maximum index was -1")
        scope = _Scope()
        scope.push(0)
        block = Block()
        for _ in range(ops_count):
            block.append(self._op(section, scope, []))
        if self.forward_refs:
            raise BytecodeError("not all forward unresolved forward operand references")
        return block.operations

    def _op_info(self, reader: Reader) -> _OpInfo:
        """What ops of the name at the reader need, decided once per op-name index."""
        index = reader.varint()
        info = self.op_infos.get(index)
        if info is None:
            name, registered = self._op_name_at(index)
            key = (name, registered)
            info = _OP_INFOS.get(key)
            if info is None or _REGISTERED.get(name) is not info.opdef:
                opdef = registry.lookup(name)
                spec = op_spec(name)
                inherent = {p for p, _ in (spec or ())}
                if opdef is not None:
                    inherent |= set(opdef.properties)
                rejected = False  # upstream's verifier: a known dialect's op must be registered
                if opdef is None and spec is None:
                    dialect = name.split(".", 1)[0]
                    rejected = registry.is_known_dialect(dialect) or \
                        hooks_for(dialect) is not None
                info = _OpInfo(name, registered, opdef, frozenset(inherent), rejected, spec)
                if opdef is not None:  # registered for good: kept for the process
                    _OP_INFOS[key] = info
            self.op_infos[index] = info
        return info

    def _op(self, reader: Reader, scope: _Scope, blocks: list[Block]) -> Operation:
        # The common encodings are decoded inline from `reader.data` (bytes): one-byte
        # varints, table entries decoded already; the rest goes through the reader's
        # methods, which raise upstream's errors.
        info = self._op_info(reader)
        name = info.name
        data = reader.data
        pos = reader.pos
        end = reader.end
        if pos >= end:
            reader.byte()  # raises: no mask
        mask = data[pos]
        pos += 1
        table = self.table
        attr_values = table.attr_values
        b = data[pos] if pos < end else 0
        if b & 1:
            pos += 1
            index = b >> 1
        else:
            index, pos = _slow_varint(reader, pos)
        attr = attr_values[index] if index < len(attr_values) else None
        if attr is None:
            attr = table.attribute(index)
        if attr.__class__ is FileLineColLoc:  # the common case
            location = Location(attr.filename, attr.line, attr.col, attr)
        else:
            location = self._location(attr)
        attrs: dict[str, Attribute] = {}
        props: dict[str, Attribute] = {}
        odd_props: Attribute | None = None
        if mask & HAS_ATTRS:
            b = data[pos] if pos < end else 0
            if b & 1:
                pos += 1
                index = b >> 1
            else:
                index, pos = _slow_varint(reader, pos)
            found = table.attribute(index)
            if found.__class__ is not DictAttr:
                raise BytecodeError(f"expected attribute of type: DictionaryAttr, but got: "
                                    f"{found}")
            attrs = dict(found.entries)
        if mask & HAS_PROPERTIES:
            registered = info.registered
            if registered is None:
                raise BytecodeError("Unexpected missing `wasRegistered` opname flag at "
                                    f"bytecode version {self.version} with properties.")
            b = data[pos] if pos < end else 0
            if b & 1:
                pos += 1
                index = b >> 1
            else:
                index, pos = _slow_varint(reader, pos)
            if registered:
                decoded = self.props_decoded.get(index)
                if decoded is not None and decoded[0] is name:
                    props = dict(decoded[1])
                else:
                    odd_props = self._properties(index, info, props)
            else:
                odd_props = table.attribute(index)
        result_types: list[Type] = []
        if mask & HAS_RESULTS:
            b = data[pos] if pos < end else 0
            if b & 1:
                pos += 1
                count = b >> 1
            else:
                count, pos = _slow_varint(reader, pos)
            type_values = table.type_values
            for _ in range(count):
                b = data[pos] if pos < end else 0
                if b & 1:
                    pos += 1
                    index = b >> 1
                else:
                    index, pos = _slow_varint(reader, pos)
                known = type_values[index] if index < len(type_values) else None
                result_types.append(table.type(index) if known is None else known)
        operands: list[Any] = []
        forward = False  # an operand is defined later
        if mask & HAS_OPERANDS:
            values = scope.values
            b = data[pos] if pos < end else 0
            if b & 1:
                pos += 1
                count = b >> 1
            else:
                count, pos = _slow_varint(reader, pos)
            for _ in range(count):
                b = data[pos] if pos < end else 0
                if b & 1:
                    pos += 1
                    index = b >> 1
                else:
                    index, pos = _slow_varint(reader, pos)
                if index >= len(values):
                    raise BytecodeError(f"invalid value index: {index}")
                value = values[index]
                if value is None:
                    value = values[index] = _ForwardRef()
                    self.forward_refs += 1
                    forward = True
                elif value.__class__ is _ForwardRef:
                    forward = True
                operands.append(value)
        reader.pos = pos
        successors: list[Block] = []
        if mask & HAS_SUCCESSORS:
            for _ in range(reader.varint()):
                successors.append(_entry(blocks, reader.varint(), "successor"))
        orders: dict[int, tuple[list[int], bool]] = {}
        if self.version >= USE_LIST_ORDERING and mask & HAS_USE_LIST_ORDERS:
            orders = _read_use_list_orders(reader, len(result_types))
        regions: list[Region] = []
        isolated = False
        if mask & HAS_INLINE_REGIONS:
            count, isolated = reader.varint_flag()
            if count > reader.remaining() + 1:
                raise BytecodeError("invalid region count")
            regions = [Region() for _ in range(count)]
        inherent = info.inherent
        if inherent and attrs:
            for key in [k for k in attrs if k in inherent]:
                props.setdefault(key, attrs.pop(key))
        if odd_props is not None and odd_props.__class__ is DictAttr:
            props.update(odd_props.entries)
            odd_props = None
        op = Operation(name, operands, result_types, props, attrs, regions, successors,
                       location, info.opdef)
        if forward:
            for i, value in enumerate(operands):
                if value.__class__ is _ForwardRef:
                    value.uses.append((op, i))
                    operands[i] = None
        if odd_props is not None:
            self.odd_props.append(op)
        if info.rejected and self.unregistered_op is None:
            self.unregistered_op = op
        if result_types:
            self._define(reader, scope, op.results)
            for index, (order, pairs) in orders.items():
                if index < len(op.results):
                    self.use_orders.append((op.results[index], order, pairs))
        if regions:
            if isolated and self.version >= LAZY_LOADING:
                section_id, inner = _section(reader)
                if section_id != IR:
                    raise BytecodeError("expected IR section for region")
                inner_scope = _Scope()
            elif isolated:
                inner, inner_scope = reader, _Scope()
            else:
                inner, inner_scope = reader, scope
            for region in regions:
                self._region(inner, inner_scope, region)
        return op

    def _region(self, reader: Reader, scope: _Scope, region: Region) -> None:
        count = reader.varint()
        if count == 0:
            return
        values = reader.varint()
        if count > reader.remaining() or values > len(self.data):
            raise BytecodeError("invalid block count")
        blocks = [Block() for _ in range(count)]
        for block in blocks:
            region.add_block(block)
        scope.push(values)
        read_op = self._op
        for block in blocks:
            ops = self._block_header(reader, scope, block)
            operations = block.operations
            for _ in range(ops):
                op = read_op(reader, scope, blocks)
                op.parent = block
                operations.append(op)
        scope.pop(values)

    def _block_header(self, reader: Reader, scope: _Scope, block: Block) -> int:
        ops, has_args = reader.varint_flag()
        if has_args:
            count = reader.varint()
            if count > reader.remaining():
                raise BytecodeError("invalid block argument count")
            for _ in range(count):
                if self.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
                    type_index, has_loc = reader.varint_flag()
                    arg_type = self.table.type(type_index)
                    loc = self.table.attribute(reader.varint()) if has_loc else None
                else:
                    arg_type = self.table.type(reader.varint())
                    loc = self.table.attribute(reader.varint())
                if loc is not None and not isinstance(loc, LocationAttr):
                    raise BytecodeError(f"expected attribute of type: LocationAttr, but got: "
                                        f"{loc}")
                block.add_argument(arg_type)
                if loc is not None and not isinstance(loc, UnknownLoc):
                    block.arg_locations[-1] = loc
            self._define(reader, scope, block.arguments)
        if self.version >= USE_LIST_ORDERING and has_args and reader.byte():
            orders = _read_use_list_orders(reader, len(block.arguments))
            if not orders:
                raise BytecodeError("parsed use-list orders were invalid and could not be "
                                    "applied")
            for index, (order, pairs) in orders.items():
                if index < len(block.arguments):
                    self.use_orders.append((block.arguments[index], order, pairs))
        return ops

    def _define(self, reader: Reader, scope: _Scope, values: list[Value]) -> None:
        if not values:
            return
        if not scope.next_ids:
            raise BytecodeError("value index range was outside of the expected range for "
                                "the parent region")
        start = scope.next_ids[-1]
        end = start + len(values)
        if end > len(scope.values):
            raise BytecodeError(
                "value index range was outside of the expected range for the parent region, "
                f"got [{start}, {end}), but the maximum index was {len(scope.values) - 1}")
        for i, value in enumerate(values):
            old = scope.values[start + i]
            scope.values[start + i] = value
            if isinstance(old, _ForwardRef):
                for op, slot in old.uses:
                    op.operands[slot] = value
                self.forward_refs -= 1
        scope.next_ids[-1] = end

    def _location(self, attr: Attribute) -> Location:
        if attr.__class__ is FileLineColLoc:  # the common case
            return Location(attr.filename, attr.line, attr.col, attr)
        if not isinstance(attr, LocationAttr):
            raise BytecodeError(f"expected attribute of type: LocationAttr, but got: {attr}")
        pos = _file_line_col(attr)
        if pos is None:
            return Location(self.filename, 0, 0, attr)
        return Location(pos.filename, pos.line, pos.col, attr)

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


def _read_use_list_orders(reader: Reader, range_size: int) -> dict[int, tuple[list[int], bool]]:
    count = reader.varint() if range_size > 1 else 1
    orders: dict[int, tuple[list[int], bool]] = {}
    for _ in range(count):
        index = reader.varint() if range_size > 1 else 0
        size, pairs = reader.varint_flag()
        if size > reader.remaining():
            raise BytecodeError(f"attempting to parse {size} bytes when only "
                                f"{reader.remaining()} remain")
        indices = [reader.varint() for _ in range(size)]
        orders.setdefault(index, (indices, pairs))
    return orders


def _file_line_col(loc: LocationAttr) -> FileLineColLoc | None:
    """The first file:line:col inside a location (what a diagnostic would point at)."""
    seen = 0
    while seen < 64:
        seen += 1
        loc = loc.resolved()
        if isinstance(loc, FileLineColLoc):
            return loc
        if isinstance(loc, NameLoc) and loc.child is not None:
            loc = loc.child
        elif isinstance(loc, CallSiteLoc):
            loc = loc.callee
        elif isinstance(loc, FusedLoc) and loc.locations:
            for inner in loc.locations:
                found = _file_line_col(inner)
                if found is not None:
                    return found
            return None
        else:
            return None
    return None


def _link_resources(attributes: list[Any], resources: dict[str, Any]) -> None:
    """Point `dense_resource` attributes at the module's blobs (as the text parser does).
    Every attribute of the file is an entry of its table (`attributes`), nested ones too."""
    for attr in attributes:
        if isinstance(attr, DenseResourceAttr):
            object.__setattr__(attr, "blobs", resources)


_Item = TypeVar("_Item")


def _entry(items: list[_Item], index: int, what: str) -> _Item:
    if index >= len(items):
        raise BytecodeError(f"invalid {what} index: {index}")
    return items[index]


def _string(strings: list[str], index: int) -> str:
    return _entry(strings, index, "string")


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
