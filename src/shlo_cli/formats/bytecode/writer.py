"""The MLIR bytecode writer (upstream `BytecodeWriter.cpp`), byte-identical by construction.

Sections come in upstream's order: dialects (with op names), attribute/type offsets and
data, the IR, resource offsets and data, strings, and properties (version 5 and later).
Version gates: dialect versions and the flagged dialect name (1), isolated regions in
their own section (2), use-list orders (3), the op-name count and elided unknown block
argument locations (4), properties apart from the attribute dictionary and the
op-name registered flag (5).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...ir.attributes import Attribute
from ...ir.core import Block, Module, Operation, Region, Value
from ...ir.diagnostics import ShloError
from ...ir.types import Type
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
    group_runs,
)
from .numbering import IRNumbering, arg_location, op_location
from .properties import is_registered
from .uselists import densemap_order, stored_order

DEFAULT_PRODUCER = "MLIR24.0.0git"
"""What `mlir-opt -emit-bytecode` writes (MLIR followed by the LLVM version)."""

BLOB_KIND = 0  # AsmResourceEntryKind::Blob


class EmitWriter:
    """What dialect encoders write through (upstream's `DialectWriter`)."""

    __slots__ = ("state", "out", "strings", "version")

    def __init__(self, state: IRNumbering, out: Emitter, strings: StringTable) -> None:
        self.state = state
        self.out = out
        self.strings = strings
        self.version = state.version

    def attribute(self, attr: Attribute) -> None:
        self.out.varint(self.state.attr_number(attr))

    def optional_attribute(self, attr: Attribute | None) -> None:
        if attr is None:
            self.out.varint(0)
        else:
            self.out.varint_flag(self.state.attr_number(attr), True)

    def attributes(self, attrs: Iterable[Attribute]) -> None:
        attrs = list(attrs)
        self.out.varint(len(attrs))
        for attr in attrs:
            self.out.varint(self.state.attr_number(attr))

    def type(self, type: Type) -> None:
        self.out.varint(self.state.type_number(type))

    def types(self, types: Iterable[Type]) -> None:
        types = list(types)
        self.out.varint(len(types))
        for type in types:
            self.out.varint(self.state.type_number(type))

    def resource(self, key: str) -> None:
        self.out.varint(self.state.resource_number(key))

    def varint(self, value: int) -> None:
        self.out.varint(value)

    def signed_varint(self, value: int) -> None:
        self.out.signed_varint(value)

    def signed_varints(self, values: Iterable[int]) -> None:
        values = list(values)
        self.out.varint(len(values))
        for value in values:
            self.out.signed_varint(value)

    def string(self, text: str) -> None:
        self.out.varint(self.strings.insert(text))

    def blob(self, data: bytes) -> None:
        self.out.varint(len(data))
        self.out.raw(data)

    def bool(self, value: bool) -> None:
        self.out.byte(1 if value else 0)

    def apint(self, value: int, width: int) -> None:
        """An APInt of known width: a byte up to 8 bits, a signed varint up to 64, else
        the count of active 64-bit words and each word as a signed varint."""
        value &= (1 << width) - 1
        if width <= 8:
            self.out.byte(value)
        elif width <= 64:
            self.out.signed_varint(value)
        else:
            words = max(1, (value.bit_length() + 63) // 64)
            self.out.varint(words)
            for i in range(words):
                self.out.signed_varint((value >> (64 * i)) & ((1 << 64) - 1))


class _Writer:
    def __init__(self, module: Module, version: int) -> None:
        self.module = module
        self.version = version
        self.strings = StringTable()
        self.blobs = _resource_blobs(module.resources)
        self.state = IRNumbering(module.op, version, self.blobs)
        self.props: list[bytes] = []
        self.props_index: dict[bytes, int] = {}

    def write(self, producer: str) -> bytes:
        out = Emitter()
        out.raw(MAGIC)
        out.varint(self.version)
        out.cstring(producer.encode("utf-8", "surrogateescape"))
        self._dialect_section(out)
        self._attr_type_sections(out)
        ir = Emitter()
        ir.varint_flag(1, False)
        self._op(ir, self.module.op)
        out.section(IR, ir)
        self._resource_sections(out)
        strings = Emitter()
        self.strings.write(strings)
        out.section(STRING, strings)
        if self.version >= NATIVE_PROPERTIES_ENCODING:
            props = Emitter()
            props.varint(len(self.props))
            for entry in self.props:
                props.raw(entry)
            out.section(PROPERTIES, props)
        return bytes(out.buf)

    # ---- dialects ----------------------------------------------------------------------------

    def _dialect_section(self, out: Emitter) -> None:
        section = Emitter()
        dialects = list(self.state.dialects.values())
        section.varint(len(dialects))
        for dialect in dialects:
            name_id = self.strings.insert(dialect.name)
            if self.version < DIALECT_VERSIONING:
                section.varint(name_id)
            else:
                section.varint_flag(name_id, False)  # our dialects write no version
        names = self.state.op_name_order
        if self.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
            section.varint(len(names))
        for dialect_number, group in group_runs(names, lambda e: e.dialect.number):
            section.varint(dialect_number)
            section.varint(len(group))
            for entry in group:
                name: str = entry.value
                string_id = self.strings.insert(name.split(".", 1)[1] if "." in name else "")
                if self.version < NATIVE_PROPERTIES_ENCODING:
                    section.varint(string_id)
                else:
                    section.varint_flag(string_id, is_registered(name))
        out.section(DIALECT, section)

    # ---- attributes and types ----------------------------------------------------------------

    def _attr_type_sections(self, out: Emitter) -> None:
        data = Emitter()
        offsets = Emitter()
        state = self.state
        offsets.varint(len(state.attr_order))
        offsets.varint(len(state.type_order))
        writer = EmitWriter(state, data, self.strings)
        previous = 0
        for is_type, order in ((False, state.attr_order), (True, state.type_order)):
            for dialect_number, group in group_runs(order, lambda e: e.dialect.number):
                offsets.varint(dialect_number)
                offsets.varint(len(group))
                for entry in group:
                    custom = False
                    hooks = entry.dialect.hooks
                    if entry.custom and hooks is not None:
                        encode = hooks.write_type if is_type else hooks.write_attribute
                        mark = len(data.buf)
                        custom = bool(encode is not None and encode(entry.value, writer))
                        if not custom:
                            del data.buf[mark:]
                    if not custom:
                        data.raw(str(entry.value).encode("utf-8", "surrogateescape"))
                        data.byte(0)
                    offsets.varint_flag(len(data.buf) - previous, custom)
                    previous = len(data.buf)
        out.section(ATTR_TYPE_OFFSET, offsets)
        out.section(ATTR_TYPE, data)

    # ---- the IR ------------------------------------------------------------------------------

    def _op(self, out: Emitter, op: Operation) -> None:
        state = self.state
        out.varint(state.op_names[op.name].number)
        mask_at = len(out.buf)
        out.byte(0)
        mask = 0
        out.varint(state.attr_number(op_location(op)))
        enc = state.op_encodings[id(op)]
        if enc.attrs is not None:
            mask |= HAS_ATTRS
            out.varint(state.attr_number(enc.attrs))
        if self.version >= NATIVE_PROPERTIES_ENCODING:
            index = self._properties(enc)
            if index is not None:
                mask |= HAS_PROPERTIES
                out.varint(index)
        if op.results:
            mask |= HAS_RESULTS
            out.varint(len(op.results))
            for result in op.results:
                out.varint(state.type_number(result.type))
        if op.operands:
            mask |= HAS_OPERANDS
            out.varint(len(op.operands))
            for operand in op.operands:
                number = state.values.get(id(operand))
                if number is None:
                    raise ShloError(f"cannot write bytecode: an operand of '{op.name}' is not "
                                    "defined in an enclosing region")
                out.varint(number)
        if op.successors:
            mask |= HAS_SUCCESSORS
            out.varint(len(op.successors))
            for block in op.successors:
                number = state.blocks.get(id(block))
                if number is None:
                    raise ShloError(f"cannot write bytecode: a successor of '{op.name}' is not "
                                    "a block of its region")
                out.varint(number)
        if self.version >= USE_LIST_ORDERING and self._use_lists(out, op.results):
            mask |= HAS_USE_LIST_ORDERS
        if op.regions:
            mask |= HAS_INLINE_REGIONS
        out.buf[mask_at] = mask
        if op.regions:
            isolated = state.isolated.get(id(op), False)
            out.varint_flag(len(op.regions), isolated)
            if isolated and self.version >= LAZY_LOADING:
                section = Emitter()
                for region in op.regions:
                    self._region(section, region)
                out.section(IR, section)
            else:
                for region in op.regions:
                    self._region(out, region)

    def _region(self, out: Emitter, region: Region) -> None:
        if not region.blocks:
            out.varint(0)
            return
        blocks, values = self.state.region_counts[id(region)]
        out.varint(blocks)
        out.varint(values)
        for block in region.blocks:
            self._block(out, block)

    def _block(self, out: Emitter, block: Block) -> None:
        state = self.state
        args = block.arguments
        out.varint_flag(len(block.operations), bool(args))
        if args:
            out.varint(len(args))
            locs = list(block.arg_locations) + [None] * len(args)
            for arg, raw_loc in zip(args, locs, strict=False):
                loc = arg_location(raw_loc)
                type_number = state.type_number(arg.type)
                if self.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
                    known = type(loc).__name__ != "UnknownLoc"
                    out.varint_flag(type_number, known)
                    if known:
                        out.varint(state.attr_number(loc))
                else:
                    out.varint(type_number)
                    out.varint(state.attr_number(loc))
            if self.version >= USE_LIST_ORDERING:
                mask_at = len(out.buf)
                out.byte(0)
                if self._use_lists(out, args):
                    out.buf[mask_at] = HAS_USE_LIST_ORDERS
        for op in block.operations:
            self._op(out, op)

    def _use_lists(self, out: Emitter, values: list[Value]) -> bool:
        """Emit the use-list orders read from bytecode that are still valid; True if any."""
        orders: dict[int, list[int]] = {}
        for index, value in enumerate(values):
            order = stored_order(value, self.state.use_counts.get(id(value), 0))
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

    def _properties(self, enc: Any) -> int | None:
        if enc.spec is None:
            if enc.unregistered_props is None:
                return None
            body = Emitter()
            body.varint(self.state.attr_number(enc.unregistered_props))
        elif not enc.spec:
            return None
        else:
            body = Emitter()
            writer = EmitWriter(self.state, body, self.strings)
            for name, optional in enc.spec:
                value = enc.props.get(name)
                if optional:
                    writer.optional_attribute(value)
                elif value is None:
                    raise ShloError(f"cannot write bytecode: required attribute '{name}' "
                                    "is missing")
                else:
                    writer.attribute(value)
        entry = Emitter()
        entry.varint(len(body.buf))
        entry.raw(body.buf)
        key = bytes(entry.buf)
        index = self.props_index.get(key)
        if index is None:
            index = self.props_index[key] = len(self.props)
            self.props.append(key)
        return index

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
    try:
        return _Writer(module, version).write(producer)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
        # IR our encoders cannot represent (e.g. an attribute holding a value of the wrong
        # kind): a clear error rather than a traceback.
        raise ShloError(f"cannot write bytecode: unsupported IR ({type(e).__name__}: {e})"
                        ) from None
