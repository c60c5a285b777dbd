"""The MLIR bytecode writer (upstream `BytecodeWriter.cpp`), byte-identical by construction.

Sections come in upstream's order: dialects (with op names), attribute/type offsets and
data, the IR, resource offsets and data, strings, and properties (version 5 and later).
Version gates: dialect versions and the flagged dialect name (1), isolated regions in
their own section (2), use-list orders (3), the op-name count and elided unknown block
argument locations (4), properties apart from the attribute dictionary and the
op-name registered flag (5).
"""

from __future__ import annotations

import gc
from itertools import groupby
from operator import itemgetter

from ...ir.core import Block, Module, Operation, Region, Value
from ...ir.diagnostics import ShloError
from .builtin import FILE_LINE_COL_LOC
from .builtin import STRING as STRING_ATTR
from .encoding import (
    ATTR_TYPE,
    ATTR_TYPE_OFFSET,
    CURRENT_VERSION,
    DIALECT,
    DIALECT_VERSIONING,
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
    MAGIC,
    MIN_VERSION,
    NATIVE_PROPERTIES_ENCODING,
    PROPERTIES,
    RESOURCE,
    RESOURCE_OFFSET,
    STRING,
    USE_LIST_ORDERING,
    Emitter,
    StringTable,
    encode_varint,
)
from .numbering import NUMBER, OWNER, RECIPE, VALUE, IRNumbering
from .properties import is_registered
from .recipes import REF_OPTIONAL_ATTR, REF_STRING
from .uselists import densemap_order, stored_order

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .numbering import Entry

DEFAULT_PRODUCER = "MLIR24.0.0git"
"""What `mlir-opt -emit-bytecode` writes (MLIR followed by the LLVM version)."""

BLOB_KIND = 0  # AsmResourceEntryKind::Blob
_STRING_CODE = encode_varint(STRING_ATTR)
# a string attribute whose string number is below 128 (its code, the number), and the
# offset entry of a two-byte attribute encoded by its dialect (size 2, flagged)
_STRING_ENTRIES = [_STRING_CODE + bytes(((n << 1) | 1,)) for n in range(0x80)]
_TWO_BYTE_ENTRY = ((((2 << 1) | 1) << 1) | 1)
_FILE_LINE_COL_CODE = encode_varint(FILE_LINE_COL_LOC)
_SMALL = [bytes(((n << 1) | 1,)) for n in range(0x80)]  # the one-byte varints
_ONE_ITEM = [_SMALL[1] + _SMALL[n] for n in range(0x80)]  # a properties entry of one number
# The resource sections of a module without resources: offsets (no external groups, no
# dialect entries) and empty data.
# op name -> (its name within the dialect, 1 if registered) (kept for the process)
_OP_NAME_PARTS: dict[str, tuple[str, int]] = {}
_HEADERS: dict[tuple[int, str], bytes] = {}  # (version, producer) -> magic, version, producer
_ONE_REGION = encode_varint(1 << 1)  # the IR section's start: one region, not isolated
_owner = itemgetter(OWNER)
_NO_RESOURCES = bytes((RESOURCE_OFFSET, 0x03, 0x01, RESOURCE, 0x01))
# (version, dialect names, op names in number order) -> the dialect section and the string
# table it leaves (a string's number is its insertion order, dialect names first)
_DIALECT_SECTIONS: dict[tuple[Any, ...], tuple[bytes, dict[str, int]]] = {}
_CACHE_LIMIT = 4096
_SIZE_CODES = [((n + 1) << 1) | 1 for n in range(0x7F)]  # a string's one-byte size varint


class _Writer:
    __slots__ = ("module", "version", "strings", "blobs", "state", "props_index",
                 "use_list_orders")

    def __init__(self, module: Module, version: int) -> None:
        self.module = module
        self.version = version
        self.strings = StringTable()
        self.blobs = _resource_blobs(module.resources) if module.resources else {}
        self.state = IRNumbering(module.op, version, self.blobs)
        self.props_index: dict[bytes, int] = {}  # each distinct properties entry: its index
        self.use_list_orders = version >= USE_LIST_ORDERING

    def write(self, producer: str) -> bytes:
        version = self.version
        out = Emitter()
        buf = out.buf
        header = _HEADERS.get((version, producer))
        if header is None:
            if len(_HEADERS) > 64:
                _HEADERS.clear()
            header = _HEADERS[(version, producer)] = (
                MAGIC + _varint(version) + producer.encode("utf-8", "surrogateescape") + b"\0")
        buf += header
        _section(buf, DIALECT, self._dialect_section())
        self._attr_type_sections(buf)
        buf.append(IR)  # written in place: its size goes in front after
        start = len(buf)
        buf += _ONE_REGION
        self._ops(buf, self.state.root_ops)
        size = len(buf) - start
        if size < 0x80:
            buf.insert(start, (size << 1) | 1)
        else:
            buf[start:start] = encode_varint(size)
        if self.state.uses_resources:
            self._resource_sections(out)
        else:  # no external resource groups, no dialect resources
            buf += _NO_RESOURCES
        _section(buf, STRING, self._string_section())
        if version >= NATIVE_PROPERTIES_ENCODING:
            props = bytearray(_varint(len(self.props_index)))
            props += b"".join(self.props_index)
            _section(buf, PROPERTIES, props)
        return bytes(buf)

    def _string_section(self) -> bytearray:
        """The count, the sizes (with the NUL) in reverse order, then the data."""
        strings = list(self.strings.index)
        section = bytearray(_varint(len(strings)))
        joined = "\0".join(strings)
        if joined.isascii():  # one character a byte: sizes are lengths, one encode
            sizes = bytearray()
            for text in reversed(strings):
                size = len(text)
                if size >= 0x7F:
                    break
                sizes.append(_SIZE_CODES[size])
            else:
                section += sizes
                section += joined.encode("ascii")
                if strings:
                    section.append(0)
                return section
        encoded = [text.encode("utf-8", "surrogateescape") for text in strings]
        for data in reversed(encoded):
            size = len(data) + 1
            if size < 0x80:
                section.append((size << 1) | 1)
            else:
                section += encode_varint(size)
        section += b"\0".join(encoded)
        if encoded:
            section.append(0)
        return section

    # ---- dialects ----------------------------------------------------------------------------

    def _dialect_section(self) -> bytes:
        """Dialect names, then op names grouped by dialect. The section and the strings it
        inserts first into the (still empty) string table depend only on the version and the
        names, which modules often share: kept per (version, dialects, op names)."""
        state = self.state
        key = (self.version, tuple(state.dialects),
               tuple([entry[VALUE] for entry in state.op_name_order]))
        found = _DIALECT_SECTIONS.get(key)
        if found is None:
            section = bytes(self._new_dialect_section())
            if len(_DIALECT_SECTIONS) >= _CACHE_LIMIT:
                _DIALECT_SECTIONS.clear()
            found = _DIALECT_SECTIONS[key] = (section, dict(self.strings.index))
        else:
            self.strings.index = found[1].copy()
        return found[0]

    def _new_dialect_section(self) -> bytearray:
        version = self.version
        insert = self.strings.insert
        dialects = list(self.state.dialects.values())
        section = bytearray(_varint(len(dialects)))
        for dialect in dialects:
            name_id = insert(dialect.name)
            # from version 1, flagged: our dialects write no version
            section += _varint(name_id if version < DIALECT_VERSIONING else name_id << 1)
        names = self.state.op_name_order
        if version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
            section += _varint(len(names))
        flagged = version >= NATIVE_PROPERTIES_ENCODING
        for dialect_number, group in _dialect_runs(names):
            section += _varint(dialect_number)
            section += _varint(len(group))
            for entry in group:
                name: str = entry[VALUE]
                parts = _OP_NAME_PARTS.get(name)
                if parts is None:
                    parts = _OP_NAME_PARTS[name] = (
                        name.split(".", 1)[1] if "." in name else "",
                        1 if is_registered(name) else 0)
                string_id = insert(parts[0])
                if flagged:
                    string_id = (string_id << 1) | parts[1]
                section += _SMALL[string_id] if string_id < 0x80 else encode_varint(string_id)
        return section

    # ---- attributes and types ----------------------------------------------------------------

    def _attr_type_sections(self, out: bytearray) -> None:
        state = self.state
        buf = bytearray()
        offsets_buf = bytearray(_varint(len(state.attr_order)))
        offsets_buf += _varint(len(state.type_order))
        insert = self.strings.insert
        string_index = self.strings.index
        previous = 0
        last_filename: Entry | None = None
        prefix = b""
        for order in (state.attr_order, state.type_order):
            for dialect_number, group in _dialect_runs(order):
                offsets_buf += _varint(dialect_number)
                offsets_buf += _varint(len(group))
                for entry in group:
                    # Replay the encoding recorded while numbering (see numbering.Entry).
                    recipe = entry[RECIPE]
                    cls = recipe.__class__
                    if cls is str:  # a string attribute: its code and string number
                        number = string_index.get(recipe, -1)
                        if number < 0:
                            number = string_index[recipe] = len(string_index)
                        if number < 0x80:  # two bytes: their offset entry is known
                            buf += _STRING_ENTRIES[number]
                            offsets_buf.append(_TWO_BYTE_ENTRY)
                            previous += 2
                            continue
                        buf += _STRING_CODE
                        buf += encode_varint(number)
                    elif cls is bytes:  # file:line:col: code, filename attribute, numbers
                        filename = entry[VALUE]
                        if filename is not last_filename:  # mostly one file per module
                            last_filename = filename
                            prefix = _FILE_LINE_COL_CODE + _varint(filename[NUMBER])
                        buf += prefix
                        buf += recipe
                    elif recipe is None:  # no dialect encoding: the text, NUL-terminated
                        buf += str(entry[VALUE]).encode("utf-8", "surrogateescape")
                        buf.append(0)
                        size = len(buf)
                        flagged = (size - previous) << 1
                        if flagged < 0x80:
                            offsets_buf.append((flagged << 1) | 1)
                        else:
                            offsets_buf += encode_varint(flagged)
                        previous = size
                        continue
                    else:
                        for item in recipe:
                            cls = item.__class__
                            if cls is bytes:
                                buf += item
                            elif cls is list:  # an attribute or type entry
                                number = item[NUMBER]
                                if number < 0x80:
                                    buf.append((number << 1) | 1)
                                else:
                                    buf += encode_varint(number)
                            else:
                                kind, payload = item
                                if kind == REF_STRING:
                                    buf += _varint(insert(payload))
                                elif kind == REF_OPTIONAL_ATTR:
                                    buf += _varint((payload[NUMBER] << 1) | 1)
                                else:
                                    buf += _varint(state.resource_number(payload))
                    size = len(buf)
                    flagged = ((size - previous) << 1) | 1
                    if flagged < 0x80:
                        offsets_buf.append((flagged << 1) | 1)
                    else:
                        offsets_buf += encode_varint(flagged)
                    previous = size
        _section(out, ATTR_TYPE_OFFSET, offsets_buf)
        _section(out, ATTR_TYPE, buf)

    # ---- the IR ------------------------------------------------------------------------------

    def _ops(self, buf: bytearray, operations: list[Operation]) -> None:
        """The ops of a block (or the root op), one after the other (one call per block)."""
        state = self.state
        records = state.ops[id(operations)]
        values = state.values
        props_index = self.props_index
        use_orders = state.has_use_orders and self.use_list_orders
        for op, record in zip(operations, records, strict=True):
            name_entry, loc_entry, attrs_entry, results, props = record
            number = name_entry[NUMBER]
            if number < 0x80:
                buf.append((number << 1) | 1)
            else:
                buf += encode_varint(number)
            # The numbers after the mask byte go in place once the mask is known.
            mask_at = len(buf)
            buf.append(0)
            number = loc_entry[NUMBER]
            if number < 0x80:
                buf.append((number << 1) | 1)
            else:
                buf += encode_varint(number)
            mask = 0
            if attrs_entry is not None:
                mask = HAS_ATTRS
                number = attrs_entry[NUMBER]
                if number < 0x80:
                    buf.append((number << 1) | 1)
                else:
                    buf += encode_varint(number)
            if props is not None:
                cls = props.__class__
                if cls is bytes:  # every item absent: the entry is known
                    key = props
                elif cls is tuple and len(props[1]) == 1 and props[1][0] is not None:
                    # one attribute (e.g. a constant's value): the body inline
                    number = props[1][0][NUMBER]
                    if props[0].optional[0]:
                        number = (number << 1) | 1
                    key = (_ONE_ITEM[number] if number < 0x80
                           else _sized(encode_varint(number)))
                else:
                    key = self._properties(props)
                index = props_index.get(key, -1)
                if index < 0:
                    index = props_index[key] = len(props_index)
                mask |= HAS_PROPERTIES
                if index < 0x80:
                    buf.append((index << 1) | 1)
                else:
                    buf += encode_varint(index)
            if results:
                mask |= HAS_RESULTS
                count = len(results)
                if count < 0x80:
                    buf.append((count << 1) | 1)
                else:
                    buf += encode_varint(count)
                for entry in results:
                    number = entry[NUMBER]
                    if number < 0x80:
                        buf.append((number << 1) | 1)
                    else:
                        buf += encode_varint(number)
            operands = op.operands
            if operands:
                mask |= HAS_OPERANDS
                count = len(operands)
                if count < 0x80:
                    buf.append((count << 1) | 1)
                else:
                    buf += encode_varint(count)
                for operand in operands:
                    number = values.get(operand, -1)
                    if number < 0:
                        raise ShloError(f"cannot write bytecode: an operand of '{op.name}' is "
                                        "not defined in an enclosing region")
                    if number < 0x80:
                        buf.append((number << 1) | 1)
                    else:
                        buf += encode_varint(number)
            if op.successors:
                mask |= HAS_SUCCESSORS
                buf += _varint(len(op.successors))
                for block in op.successors:
                    number = state.blocks.get(id(block), -1)
                    if number < 0:
                        raise ShloError(f"cannot write bytecode: a successor of '{op.name}' is "
                                        "not a block of its region")
                    buf += _varint(number)
            if use_orders and any(r.use_order is not None for r in op.results):
                orders = Emitter()
                if self._use_lists(orders, op.results):
                    mask |= HAS_USE_LIST_ORDERS
                    buf += orders.buf
            regions = op.regions
            if not regions:
                buf[mask_at] = mask
                continue
            buf[mask_at] = mask | HAS_INLINE_REGIONS
            isolated = state.isolated.get(id(op), False)
            buf += _varint((len(regions) << 1) | (1 if isolated else 0))
            if isolated and self.version >= LAZY_LOADING:
                # a section of their own, written in place: its size goes in front after
                buf.append(IR)
                start = len(buf)
                for region in regions:
                    self._region(buf, region)
                size = len(buf) - start
                if size < 0x80:
                    buf.insert(start, (size << 1) | 1)
                else:
                    buf[start:start] = encode_varint(size)
            else:
                for region in regions:
                    self._region(buf, region)

    def _region(self, buf: bytearray, region: Region) -> None:
        if not region.blocks:
            buf.append(1)  # varint 0
            return
        blocks, values = self.state.region_counts[id(region)]
        if blocks < 0x80 and values < 0x80:
            buf.append((blocks << 1) | 1)
            buf.append((values << 1) | 1)
        else:
            buf += encode_varint(blocks)
            buf += encode_varint(values)
        for block in region.blocks:
            args = block.arguments
            operations = block.operations
            count = (len(operations) << 1) | (1 if args else 0)
            if count < 0x80:
                buf.append((count << 1) | 1)
            else:
                buf += encode_varint(count)
            if args:
                self._block_arguments(buf, block)
            self._ops(buf, operations)

    def _block_arguments(self, buf: bytearray, block: Block) -> None:
        """A block's argument count, types and locations, and their use-list orders."""
        args = block.arguments
        if args:
            state = self.state
            buf += _varint(len(args))
            elide = self.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION
            for type_entry, loc_entry, known in state.block_args[id(block)]:
                if elide:
                    buf += _varint((type_entry[NUMBER] << 1) | (1 if known else 0))
                    if known:
                        buf += _varint(loc_entry[NUMBER])
                else:
                    buf += _varint(type_entry[NUMBER])
                    buf += _varint(loc_entry[NUMBER])
            if self.version >= USE_LIST_ORDERING:
                mask_at = len(buf)
                buf.append(0)
                if state.has_use_orders:
                    orders = Emitter()
                    if self._use_lists(orders, args):
                        buf[mask_at] = HAS_USE_LIST_ORDERS
                        buf += orders.buf

    def _use_lists(self, out: Emitter, values: list[Value]) -> bool:
        """Emit the use-list orders read from bytecode that are still valid; True if any."""
        orders: dict[int, list[int]] = {}
        use_counts = self.state.use_counts
        for index, value in enumerate(values):
            order = stored_order(value, use_counts.get(id(value), 0))
            if order is not None:
                orders[index] = order
        if not orders:
            return False
        many = len(values) != 1
        if many:
            out.varint(len(orders))
        for index in densemap_order(list(orders)):
            order = orders[index]
            shuffled = sum(1 for i, j in enumerate(order) if i != j)
            pairs = shuffled < len(order) // 2
            if many:
                out.varint(index)
            if pairs:
                out.varint_flag(shuffled * 2, True)
                for i, j in enumerate(order):
                    if i != j:
                        out.varint(j)
                        out.varint(i)
            else:
                out.varint_flag(len(order), False)
                for j in order:
                    out.varint(j)
        return True

    def _properties(self, props: Any) -> bytes:
        """The op's entry in the properties section: its size, then its body."""
        if props.__class__ is list:  # an unregistered op's dictionary (an entry)
            return _sized(encode_varint(props[NUMBER]))
        spec, entries = props
        body = bytearray(b"\x01")  # the size's place: one byte while the body is short
        for optional, entry in zip(spec.optional, entries, strict=True):
            if entry is not None:
                number = (entry[NUMBER] << 1) | 1 if optional else entry[NUMBER]
                if number < 0x80:
                    body.append((number << 1) | 1)
                else:
                    body += encode_varint(number)
            elif optional:
                body.append(1)  # varint 0: absent
            else:
                name = next(item for item, flag, found in zip(
                    spec.items, spec.optional, entries, strict=True)
                    if found is None and not flag)
                raise ShloError(f"cannot write bytecode: required attribute '{name}' "
                                "is missing")
        size = len(body) - 1
        if size < 0x80:
            body[0] = (size << 1) | 1
            return bytes(body)
        return _sized(body[1:])

    # ---- resources ---------------------------------------------------------------------------

    def _resource_sections(self, out: Emitter) -> None:
        data = Emitter()
        offsets = Emitter()
        offsets.varint(0)  # no external resource groups
        previous = 0
        for dialect in self.state.dialects.values():
            if not dialect.resources:
                continue
            entries: list[tuple[str, int]] = []
            for key, _ in sorted(dialect.resources.items(), key=lambda kv: kv[1]):
                blob = self.blobs.get(key)
                if blob is not None:
                    alignment, payload = blob
                    data.varint(alignment)
                    data.varint(len(payload))
                    data.align_to(alignment)
                    data.raw(payload)
                entries.append((key, len(data.buf) - previous))
                previous = len(data.buf)
            offsets.varint(dialect.number)
            offsets.varint(len(entries))
            for key, size in entries:
                offsets.varint(self.strings.insert(key))
                offsets.varint(size)
                offsets.byte(BLOB_KIND)
        out.section(RESOURCE_OFFSET, offsets)
        out.section(RESOURCE, data)


def _varint(value: int) -> bytes:
    return _SMALL[value] if value < 0x80 else encode_varint(value)


def _sized(body: bytes | bytearray) -> bytes:
    """`body` after its varint size (a properties entry)."""
    size = len(body)
    return (_SMALL[size] if size < 0x80 else encode_varint(size)) + body


def _section(buf: bytearray, section_id: int, body: bytes | bytearray) -> None:
    """Append a section that needs no alignment: id, varint length, body."""
    buf.append(section_id)
    size = len(body)
    if size < 0x80:
        buf.append((size << 1) | 1)
    else:
        buf += encode_varint(size)
    buf += body


def _dialect_runs(entries: list[Entry]) -> list[tuple[int, list[Entry]]]:
    """Consecutive runs of entries of one dialect: `(dialect number, entries)`."""
    if not entries:
        return []
    first = entries[0][OWNER]
    if len(entries) <= 0x80 and entries[-1][OWNER] is first:
        # up to 128 entries are ordered by dialect (numbering.group_by_dialect_per_byte):
        # the same dialect first and last is one run
        return [(first.number, entries)]
    for entry in entries:
        if entry[OWNER] is not first:
            break
    else:  # one dialect throughout
        return [(first.number, entries)]
    return [(owner.number, list(run)) for owner, run in groupby(entries, _owner)]


def _resource_blobs(resources: dict[str, Any]) -> dict[str, tuple[int, bytes]]:
    """`key: "0x<alignment:4 bytes LE><data>"` text resources as (alignment, data)."""
    blobs: dict[str, tuple[int, bytes]] = {}
    for key, value in resources.items():
        if key.startswith("__") or not isinstance(value, str) or not value.startswith("0x"):
            continue
        try:
            raw = bytes.fromhex(value[2:])
        except ValueError:
            continue
        if len(raw) >= 4:
            blobs[key] = (int.from_bytes(raw[:4], "little"), raw[4:])
    return blobs


def write_bytecode(module: Module, version: int = CURRENT_VERSION,
                   producer: str = DEFAULT_PRODUCER) -> bytes:
    """The module as MLIR bytecode of `version`, as upstream's writer emits it."""
    if not MIN_VERSION <= version <= CURRENT_VERSION:
        raise ShloError(f"unsupported version requested {version}, must be in range "
                        f"[{MIN_VERSION}, {CURRENT_VERSION}]")
    # The numbering allocates tens of thousands of small lists and tuples that live until
    # the write ends and form no cycles: without pausing the cycle collector, they trigger
    # collections that traverse every object the process holds (e.g. other modules).
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return _Writer(module, version).write(producer)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
        # IR our encoders cannot represent (e.g. an attribute holding a value of the wrong
        # kind): a clear error rather than a traceback.
        raise ShloError(f"cannot write bytecode: unsupported IR ({type(e).__name__}: {e})"
                        ) from None
    finally:
        if collecting:
            gc.enable()
