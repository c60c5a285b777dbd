"""The IR section of MLIR bytecode: ops, regions, blocks and values (upstream
`BytecodeReader.cpp`'s `parseOpWithoutRegions`, `parseRegion`, `parseBlockHeader`).

`IRReader` is a part of the reader (`reader._Reader` mixes it in). The hot path decodes op
records inline from the file's `bytes` at file offsets: one-byte varints in place, table
entries already decoded taken straight from the table; everything else goes through
`encoding.Reader`, whose errors are upstream's.
"""

from __future__ import annotations

from ...ir import registry
from ...ir.attributes import Attribute, DictAttr
from ...ir.core import Block, Location, Operation, Region, Value, new_operation
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
    USE_LIST_ORDERING,
    BytecodeError,
    Reader,
)
from .hooks import OpSpec, hooks_for
from .properties import op_spec
from .tables import UNDECODABLE_DIALECTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from .tables import AttrTypeTable

    _Item = TypeVar("_Item")


class _ForwardRef:
    """A use of a value defined later: the ops and operand slots to patch."""

    __slots__ = ("uses",)

    def __init__(self) -> None:
        self.uses: list[tuple[Operation, int]] = []


class OpInfo:
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
_OP_INFOS: dict[tuple[str, bool | None], OpInfo] = {}
_REGISTERED = registry._REGISTRY


def _window(data: bytes, end: int) -> Reader:
    """A reader of `data` up to `end`, for what the inline decoding leaves to `Reader`."""
    reader = Reader(data)
    reader.end = end
    return reader


def slow_varint(reader: Reader, pos: int) -> tuple[int, int]:
    """A varint of more than one byte (or a missing one: the reader raises), and the
    position after it."""
    reader.pos = pos
    value = reader.varint()
    return value, reader.pos


def open_section(reader: Reader) -> tuple[int, Reader]:
    """The next section's id and a reader over it (`Reader.section`; one name the reader
    modules call, so tests can count the sections opened)."""
    return reader.section()


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


class IRReader:
    """Reads the IR section and its nested regions (a part of `reader._Reader`)."""

    if TYPE_CHECKING:  # the reader's state, set by `_Reader`
        data: bytes
        filename: str
        version: int
        table: AttrTypeTable
        forward_refs: int
        use_orders: list[tuple[Value, list[int], bool]]
        odd_props: list[Operation]
        keep_undecodable: bool
        op_infos: dict[int, OpInfo]
        unregistered_op: Operation | None
        props_data: Reader | None
        props_offsets: list[int]
        props_decoded: dict[int, tuple[str, dict[str, Attribute]]]

        def _op_name_at(self, index: int) -> tuple[str, bool | None]: ...

    def _properties(self, index: int, info: OpInfo,
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
            size, pos = slow_varint(_window(data, end), pos)
        if size > end - pos:
            raise BytecodeError(f"attempting to parse {size} bytes when only "
                                f"{end - pos} remain")
        end = pos + size
        spec = info.spec
        table = self.table
        if spec is None:
            if self.keep_undecodable and name.split(".", 1)[0] in UNDECODABLE_DIALECTS:
                return None  # an unknown op's own encoding (Shardy's): its entry is skipped
            value, pos = slow_varint(_window(data, end), pos)
            return table.attribute(value)
        attr_values = table.attr_values
        for prop, optional in spec:
            b = data[pos] if pos < end else 0
            if b & 1:
                pos += 1
                value = b >> 1
            else:
                value, pos = slow_varint(_window(data, end), pos)
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

    def _op_info(self, index: int) -> OpInfo:
        """What ops of op-name entry `index` need, decided once per file and index."""
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
                info = OpInfo(name, registered, opdef, frozenset(inherent), rejected, spec)
                if opdef is not None:  # registered for good: kept for the process
                    _OP_INFOS[key] = info
            self.op_infos[index] = info
        return info

    def _op(self, reader: Reader, scope: _Scope, blocks: list[Block]) -> Operation:
        # The common encodings are decoded inline from `reader.data` (bytes): one-byte
        # varints, table entries decoded already; the rest goes through the reader's
        # methods, which raise upstream's errors.
        data = reader.data
        pos = reader.pos
        end = reader.end
        b = data[pos] if pos < end else 0
        if b & 1:
            pos += 1
            index = b >> 1
        else:
            index, pos = slow_varint(reader, pos)
        info = self.op_infos.get(index)
        if info is None:
            info = self._op_info(index)
        name = info.name
        if pos >= end:
            reader.pos = pos
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
            index, pos = slow_varint(reader, pos)
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
                index, pos = slow_varint(reader, pos)
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
                index, pos = slow_varint(reader, pos)
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
                count, pos = slow_varint(reader, pos)
            type_values = table.type_values
            for _ in range(count):
                b = data[pos] if pos < end else 0
                if b & 1:
                    pos += 1
                    index = b >> 1
                else:
                    index, pos = slow_varint(reader, pos)
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
                count, pos = slow_varint(reader, pos)
            for _ in range(count):
                b = data[pos] if pos < end else 0
                if b & 1:
                    pos += 1
                    index = b >> 1
                else:
                    index, pos = slow_varint(reader, pos)
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
                successors.append(entry_at(blocks, reader.varint(), "successor"))
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
        if regions or successors:
            op = Operation(name, operands, result_types, props, attrs, regions, successors,
                           location, info.opdef)
        else:
            op = new_operation(name, operands, result_types, props, attrs, location,
                               info.opdef)
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
                section_id, inner = open_section(reader)
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


def entry_at(items: list[_Item], index: int, what: str) -> _Item:
    if index >= len(items):
        raise BytecodeError(f"invalid {what} index: {index}")
    return items[index]
