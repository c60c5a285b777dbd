"""IR numbering for the writer (upstream `IRNumbering.cpp`): which dialects, op names,
attributes, types, values, blocks and resources the IR uses, and the number of each.

The order is upstream's, so that the bytes match: a pre-order walk first gives every op an
id and decides which ops are isolated from above (no use of an outer value); then the root
op, and each region in LIFO worklist order, numbers what its ops reference (name, result
types, attribute dictionary, properties, location). Attributes and types are numbered when
first met, then nested entries; entries are finally sorted by reference count (stable) and
grouped by dialect within each run of indices that share a varint width.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...ir.attributes import ArrayAttr, Attribute, DictAttr, StringAttr
from ...ir.core import UNKNOWN_LOCATION, Block, Operation, Region, Value
from ...ir.locations import FileLineColLoc, LocationAttr, UnknownLoc
from ...ir.types import Type
from .encoding import NATIVE_PROPERTIES_ENCODING
from .hooks import DialectHooks, OpSpec, attribute_dialect, hooks_for, type_dialect
from .properties import op_spec

UNKNOWN_LOC = UnknownLoc()


class DialectEntry:
    __slots__ = ("name", "number", "hooks", "resources")

    def __init__(self, name: str, number: int) -> None:
        self.name = name
        self.number = number
        self.hooks: DialectHooks | None = hooks_for(name)
        self.resources: dict[str, int] = {}  # key -> resource number (set when finalized)


class Entry:
    """A numbered attribute, type or op name."""

    __slots__ = ("value", "dialect", "refs", "number", "custom")

    def __init__(self, value: Any, dialect: DialectEntry) -> None:
        self.value = value
        self.dialect = dialect
        self.refs = 1
        self.number = -1
        self.custom = False


def op_location(op: Operation) -> LocationAttr:
    """The location MLIR would give the op: its `loc(...)`, else where it was parsed."""
    loc = op.location
    attr = loc.attr
    if isinstance(attr, LocationAttr):
        return attr.resolved()
    if loc is UNKNOWN_LOCATION or loc.filename == "<unknown>":
        return UNKNOWN_LOC
    return FileLineColLoc(loc.filename, loc.line, loc.col)


def arg_location(loc: Attribute | None) -> LocationAttr:
    return loc.resolved() if isinstance(loc, LocationAttr) else UNKNOWN_LOC


def merged_attributes(op: Operation) -> dict[str, Attribute]:
    merged = dict(op.attributes)
    merged.update(op.properties)
    return merged


def value_region(value: Value) -> Region | None:
    owner = value.owner
    if isinstance(owner, Block):
        return owner.parent
    if isinstance(owner, Operation) and owner.parent is not None:
        return owner.parent.parent
    return None


class OpEncoding:
    """What the writer emits for one op besides operands: its attribute dictionary and its
    properties (as a spec to encode, or the single attribute of an unregistered op)."""

    __slots__ = ("attrs", "spec", "props", "unregistered_props")

    def __init__(self) -> None:
        self.attrs: DictAttr | None = None
        self.spec: OpSpec | None = None
        self.props: dict[str, Attribute] = {}
        self.unregistered_props: DictAttr | None = None


class IRNumbering:
    def __init__(self, root: Operation, version: int,
                 resource_data: dict[str, Any] | None = None) -> None:
        self.version = version
        self.resource_data = resource_data or {}
        self.dialects: dict[str, DialectEntry] = {}
        self.attrs: dict[Any, Entry] = {}
        self.attr_order: list[Entry] = []
        self.types: dict[Any, Entry] = {}
        self.type_order: list[Entry] = []
        self.op_names: dict[str, Entry] = {}
        self.op_name_order: list[Entry] = []
        self.values: dict[int, int] = {}
        self.blocks: dict[int, int] = {}
        self.region_counts: dict[int, tuple[int, int]] = {}
        self.op_ids: dict[int, int] = {}
        self.isolated: dict[int, bool] = {}
        self.use_counts: dict[int, int] = {}
        self.op_encodings: dict[int, OpEncoding] = {}
        self._keys: dict[int, tuple[object, Any]] = {}
        self._writer = NumberingWriter(self)

        self._number_globally(root)
        self._number_op(root)
        work: list[tuple[Region, int]] = []
        next_id = 0
        self._push_regions(root, work, next_id)
        while work:
            region, next_id = work.pop()
            next_id = self._number_region(region, next_id)
            for block in region.blocks:
                for op in block.operations:
                    self._push_regions(op, work, next_id)
        for index, dialect in enumerate(self.dialects.values()):
            dialect.number = index
        for order in (self.attr_order, self.op_name_order, self.type_order):
            order.sort(key=lambda e: -e.refs)
            group_by_dialect_per_byte(order)
            for index, entry in enumerate(order):
                entry.number = index
        self._number_resources()

    # ---- keys ------------------------------------------------------------------------------

    def attr_key(self, attr: Attribute) -> Any:
        """A value identity for `attr` (MLIR uniques attributes by value): its printed form,
        with dictionaries and arrays keyed by their elements' keys."""
        found = self._keys.get(id(attr))
        if found is not None:
            return found[1]
        cls = type(attr)
        if cls is StringAttr:  # the common leaves get cheap structural keys
            key: Any = ('"', attr.text)  # type: ignore[attr-defined]
        elif cls is FileLineColLoc:
            key = ("loc", attr.filename, attr.line, attr.col)  # type: ignore[attr-defined]
        elif cls is DictAttr:
            key = ("{}", tuple(sorted((k, self.attr_key(v))
                                      for k, v in attr.entries)))  # type: ignore[attr-defined]
        elif cls is ArrayAttr:
            key = ("[]", tuple(self.attr_key(e) for e in attr.elements))  # type: ignore
        else:
            key = str(attr)
        self._keys[id(attr)] = (attr, key)  # holding `attr` keeps its id from being reused
        return key

    def type_key(self, type: Type) -> Any:
        found = self._keys.get(id(type))
        if found is not None:
            return found[1]
        key = ("!", str(type))
        self._keys[id(type)] = (type, key)
        return key

    # ---- lookups for the writer ------------------------------------------------------------

    def attr_number(self, attr: Attribute) -> int:
        return self.attrs[self.attr_key(_canonical(attr))].number

    def type_number(self, type: Type) -> int:
        return self.types[self.type_key(type)].number

    # ---- dialects, names, attributes, types --------------------------------------------------

    def dialect(self, name: str) -> DialectEntry:
        entry = self.dialects.get(name)
        if entry is None:
            entry = self.dialects[name] = DialectEntry(name, len(self.dialects))
        return entry

    def number_op_name(self, name: str) -> None:
        entry = self.op_names.get(name)
        if entry is not None:
            entry.refs += 1
            return
        entry = Entry(name, self.dialect(name.split(".", 1)[0]))
        self.op_names[name] = entry
        self.op_name_order.append(entry)

    def number_attr(self, attr: Attribute) -> None:
        attr = _canonical(attr)
        key = self.attr_key(attr)
        entry = self.attrs.get(key)
        if entry is not None:
            entry.refs += 1
            return
        entry = Entry(attr, self.dialect(attribute_dialect(attr)))
        self.attrs[key] = entry
        self.attr_order.append(entry)
        hooks = entry.dialect.hooks
        if hooks is not None and hooks.write_attribute is not None:
            entry.custom = hooks.write_attribute(attr, self._writer)

    def number_type(self, type: Type) -> None:
        key = self.type_key(type)
        entry = self.types.get(key)
        if entry is not None:
            entry.refs += 1
            return
        entry = Entry(type, self.dialect(type_dialect(type)))
        self.types[key] = entry
        self.type_order.append(entry)
        hooks = entry.dialect.hooks
        if hooks is not None and hooks.write_type is not None:
            entry.custom = hooks.write_type(type, self._writer)

    def number_resource(self, key: str) -> None:
        self.dialect("builtin").resources.setdefault(key, -1)

    # ---- the IR ----------------------------------------------------------------------------

    def _number_globally(self, root: Operation) -> None:
        """Pre-order op ids, use counts and isolation (upstream's global numbering state)."""
        op_ids = self.op_ids
        isolated = self.isolated
        use_counts = self.use_counts
        # Stack entries: [op, unresolved isolation]
        stack: list[list[Any]] = []

        def visit(op: Operation) -> None:
            if stack and stack[-1][1]:
                parent_region = op.parent.parent if op.parent is not None else None
                for operand in op.operands:
                    region = value_region(operand)
                    if region is parent_region or region is None:
                        continue
                    container = region.parent
                    at = len(stack) - 1
                    while at > 0 and stack[at][1] and stack[at][0] is not container:
                        at -= 1
                    resolved = stack[at][1]
                    for state in stack[at + 1:]:
                        state[1] = resolved
                        isolated[id(state[0])] = False
            op_ids[id(op)] = len(op_ids)
            for operand in op.operands:
                use_counts[id(operand)] = use_counts.get(id(operand), 0) + 1
            if not op.regions:
                return
            trait = op.opdef is not None and op.opdef.isolated
            if trait:
                isolated[id(op)] = True
            stack.append([op, not trait])
            for region in op.regions:
                for block in region.blocks:
                    for nested in block.operations:
                        visit(nested)
            stack.pop()
            isolated.setdefault(id(op), True)

        visit(root)

    def _push_regions(self, op: Operation, work: list[tuple[Region, int]], next_id: int) -> None:
        if op.regions:
            first = 0 if self.isolated.get(id(op), False) else next_id
            for region in op.regions:
                work.append((region, first))

    def _number_region(self, region: Region, next_id: int) -> int:
        if not region.blocks:
            return next_id
        first = next_id
        for index, block in enumerate(region.blocks):
            self.blocks[id(block)] = index
            for arg, loc in zip(block.arguments, _arg_locations(block), strict=True):
                self.values[id(arg)] = next_id
                next_id += 1
                self.number_attr(arg_location(loc))
                self.number_type(arg.type)
            for op in block.operations:
                next_id = self._number_op(op, next_id)
        self.region_counts[id(region)] = (len(region.blocks), next_id - first)
        return next_id

    def _number_op(self, op: Operation, next_id: int = 0) -> int:
        self.number_op_name(op.name)
        for result in op.results:
            self.values[id(result)] = next_id
            next_id += 1
            self.number_type(result.type)
        enc = self._op_encoding(op)
        if enc.attrs is not None:
            self.number_attr(enc.attrs)
        if self.version >= NATIVE_PROPERTIES_ENCODING:
            if enc.spec:
                for name, _ in enc.spec:
                    value = enc.props.get(name)
                    if value is not None:
                        self.number_attr(value)
            elif enc.unregistered_props is not None:
                self.number_attr(enc.unregistered_props)
        self.number_attr(op_location(op))
        return next_id

    def _op_encoding(self, op: Operation) -> OpEncoding:
        """Split the op's attributes into the dictionary and properties the writer emits."""
        enc = OpEncoding()
        spec = op_spec(op.name)
        enc.spec = spec
        if self.version < NATIVE_PROPERTIES_ENCODING or spec == ():
            attrs = merged_attributes(op)
        elif spec is None:
            attrs = dict(op.attributes)
            if op.properties:
                enc.unregistered_props = DictAttr(tuple(sorted(op.properties.items())))
        else:
            names = {name for name, _ in spec}
            attrs = dict(op.attributes)
            for name, value in op.properties.items():
                if name in names:
                    enc.props[name] = value
                else:  # not an inherent attribute of this op: keep it discardable
                    attrs.setdefault(name, value)
            for name in op.attributes:
                if name in names and name not in enc.props:
                    enc.props[name] = attrs.pop(name)
        if attrs:
            enc.attrs = DictAttr(tuple(sorted(attrs.items())))
        self.op_encodings[id(op)] = enc
        return enc

    # ---- resources ---------------------------------------------------------------------------

    def _number_resources(self) -> None:
        """Resources with data first, in the order they were referenced, then declarations
        (referenced keys without data); numbers run across dialects in dialect order."""
        next_number = 0
        for dialect in self.dialects.values():
            for key in dialect.resources:
                if key in self.resource_data:
                    dialect.resources[key] = next_number
                    next_number += 1
            for key, number in dialect.resources.items():
                if number < 0:
                    dialect.resources[key] = next_number
                    next_number += 1

    def resource_number(self, key: str) -> int:
        return self.dialect("builtin").resources[key]

    # ---- queries -----------------------------------------------------------------------------

    def value_number(self, value: Value) -> int:
        return self.values[id(value)]


def _arg_locations(block: Block) -> list[Attribute | None]:
    locs = list(block.arg_locations)
    if len(locs) < len(block.arguments):
        locs += [None] * (len(block.arguments) - len(locs))
    return locs[:len(block.arguments)]


def _canonical(attr: Attribute) -> Attribute:
    return attr.resolved() if isinstance(attr, LocationAttr) else attr


def group_by_dialect_per_byte(entries: list[Entry]) -> None:
    """Within each run of indices of one varint width (128, then 16256, ...), order entries
    by dialect, the previous run's last dialect first (upstream `groupByDialectPerByte`)."""
    if not entries:
        return
    first_dialect = 0
    group = 0
    start = 0
    for width in range(1, 9):
        group = (1 << (7 * width)) - group
        chunk = entries[start:start + group]
        def order(e: Entry, first: int = first_dialect) -> tuple[bool, int]:
            return e.dialect.number != first, e.dialect.number

        chunk.sort(key=order)
        entries[start:start + len(chunk)] = chunk
        first_dialect = chunk[-1].dialect.number
        start += len(chunk)
        if start >= len(entries):
            break


class NumberingWriter:
    """The dry run of a dialect encoder: numbers what it references, writes nothing."""

    __slots__ = ("state", "version")

    def __init__(self, state: IRNumbering) -> None:
        self.state = state
        self.version = state.version

    def attribute(self, attr: Attribute) -> None:
        self.state.number_attr(attr)

    def optional_attribute(self, attr: Attribute | None) -> None:
        if attr is not None:
            self.state.number_attr(attr)

    def attributes(self, attrs: Iterable[Attribute]) -> None:
        for attr in attrs:
            self.state.number_attr(attr)

    def type(self, type: Type) -> None:
        self.state.number_type(type)

    def types(self, types: Iterable[Type]) -> None:
        for type in types:
            self.state.number_type(type)

    def resource(self, key: str) -> None:
        self.state.number_resource(key)

    def varint(self, value: int) -> None:
        pass

    def signed_varint(self, value: int) -> None:
        pass

    def signed_varints(self, values: Iterable[int]) -> None:
        pass

    def string(self, text: str) -> None:
        pass

    def blob(self, data: bytes) -> None:
        pass

    def bool(self, value: bool) -> None:
        pass

    def apint(self, value: int, width: int) -> None:
        pass
