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

from ...ir import storage
from ...ir.attributes import (
    ArrayAttr,
    Attribute,
    DenseElementsAttr,
    DictAttr,
    StringAttr,
    all_equal,
)
from ...ir.core import UNKNOWN_LOCATION, Block, Operation, Region, Value
from ...ir.dense import storage_type
from ...ir.locations import FileLineColLoc, LocationAttr, UnknownLoc
from ...ir.types import TensorType, Type, numpy_dtype
from .builtin import FILE_LINE_COL_LOC
from .encoding import NATIVE_PROPERTIES_ENCODING, Emitter, encode_varint
from .hooks import DialectHooks, OpSpec, attribute_dialect, hooks_for, type_dialect
from .properties import op_spec

UNKNOWN_LOC = UnknownLoc()
_BUILTIN_ATTR_CLASSES = frozenset({StringAttr, FileLineColLoc, DictAttr, ArrayAttr})
FILE_LINE_COL_CODE = encode_varint(FILE_LINE_COL_LOC)


class DialectEntry:
    __slots__ = ("name", "number", "hooks", "resources")

    def __init__(self, name: str, number: int) -> None:
        self.name = name
        self.number = number
        self.hooks: DialectHooks | None = hooks_for(name)
        self.resources: dict[str, int] = {}  # key -> resource number (set when finalized)


class Entry:
    """A numbered attribute, type or op name."""

    __slots__ = ("value", "dialect", "refs", "number", "custom", "recipe")

    def __init__(self, value: Any, dialect: DialectEntry) -> None:
        self.value = value
        self.dialect = dialect
        self.refs = 1
        self.number = -1
        self.custom = False
        # The dialect encoding, recorded while numbering (see RecordingWriter): written
        # by replaying it once the numbers are final, so no encoder runs twice.
        self.recipe: list[Any] = []


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
    properties (as a spec to encode, or the single attribute of an unregistered op), with
    the entries numbering found for them, so writing looks nothing up by value again."""

    __slots__ = ("attrs", "spec", "props", "unregistered_props", "name_entry", "loc_entry",
                 "attrs_entry", "result_entries", "prop_entries", "props_entry")

    def __init__(self) -> None:
        self.attrs: DictAttr | None = None
        self.spec: OpSpec | None = None
        self.props: dict[str, Attribute] = {}
        self.unregistered_props: DictAttr | None = None
        self.name_entry: Entry | None = None
        self.loc_entry: Entry | None = None
        self.attrs_entry: Entry | None = None
        self.result_entries: list[Entry] = []
        self.prop_entries: list[Entry | None] = []  # per spec item; None when absent
        self.props_entry: Entry | None = None  # the unregistered op's property dictionary


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
        # per block: (type entry, location entry, location known) of each argument
        self.block_args: dict[int, list[tuple[Entry, Entry, bool]]] = {}
        self._builtin: DialectEntry | None = None
        self._filenames: dict[str, Entry] = {}  # filename -> its string attribute's entry
        self._specs: dict[str, Any] = {}  # op name -> op_spec(name)
        self._spec_names: dict[str, frozenset[str]] = {}  # op name -> its spec's names

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
        elif cls is DenseElementsAttr:
            key = self._dense_key(attr)  # type: ignore[arg-type]
        else:
            key = str(attr)
        self._keys[id(attr)] = (attr, key)  # holding `attr` keeps its id from being reused
        return key

    def _dense_key(self, attr: DenseElementsAttr) -> Any:
        """Equal exactly when the printed forms are: the type and the element bytes, one
        element when all are equal (MLIR prints, and uniques, those as a splat)."""
        type = attr.type
        if isinstance(type, TensorType) and 0 in type.shape:  # no elements: one spelling
            return ("dense", self.type_key(type), None)
        held = attr.held_storage
        lay = storage.layout(storage_type(type))
        if held is not None and lay is not None:  # no numpy: MLIR's bytes are the key
            if attr.splat or storage.all_equal(held, lay.size):
                return ("dense", self.type_key(type), True, lay.kind, held[:lay.size])
            return ("dense", self.type_key(type), False, lay.kind, held)
        data = attr.data
        if lay is not None and data.dtype == numpy_dtype(storage_type(type)):
            flat = attr.storage()
            if attr.splat or storage.all_equal(flat, lay.size):
                return ("dense", self.type_key(type), True, lay.kind, flat[:lay.size])
            return ("dense", self.type_key(type), False, lay.kind, flat)
        if attr.splat or all_equal(data):
            raw = data.reshape(-1)[:1].tobytes()
            return ("dense", self.type_key(attr.type), True, data.dtype.str, raw)
        return ("dense", self.type_key(attr.type), False, data.dtype.str, data.tobytes())

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

    def number_op_name(self, name: str) -> Entry:
        entry = self.op_names.get(name)
        if entry is not None:
            entry.refs += 1
            return entry
        entry = Entry(name, self.dialect(name.split(".", 1)[0]))
        self.op_names[name] = entry
        self.op_name_order.append(entry)
        return entry

    def number_attr(self, attr: Attribute) -> Entry:
        cls = attr.__class__
        if cls is StringAttr:  # the most common leaves: cheap keys, nothing to cache
            key: Any = ('"', attr.text)  # type: ignore[attr-defined]
        elif cls is FileLineColLoc:
            key = ("loc", attr.filename, attr.line, attr.col)  # type: ignore[attr-defined]
            entry = self.attrs.get(key)
            if entry is not None:
                entry.refs += 1
                return entry
            return self._new_file_line_col(key, attr)  # type: ignore[arg-type]
        else:
            if isinstance(attr, LocationAttr):
                attr = attr.resolved()
            found = self._keys.get(id(attr))
            key = found[1] if found is not None else self.attr_key(attr)
        entry = self.attrs.get(key)
        if entry is not None:
            entry.refs += 1
            return entry
        entry = Entry(attr, self.dialect(
            "builtin" if cls in _BUILTIN_ATTR_CLASSES else attribute_dialect(attr)))
        self.attrs[key] = entry
        self.attr_order.append(entry)
        hooks = entry.dialect.hooks
        if hooks is not None and hooks.write_attribute is not None:
            recorder = RecordingWriter(self)
            entry.custom = bool(hooks.write_attribute(attr, recorder))
            if entry.custom:
                entry.recipe = recorder.finish()
        return entry

    def number_location(self, op: Operation) -> Entry:
        """`number_attr(op_location(op))`, without building the location of a plain
        parsed position that is already numbered."""
        loc = op.location
        if loc.attr is None and loc is not UNKNOWN_LOCATION and loc.filename != "<unknown>":
            key = ("loc", loc.filename, loc.line, loc.col)
            entry = self.attrs.get(key)
            if entry is not None:
                entry.refs += 1
                return entry
            return self._new_file_line_col(key, FileLineColLoc(loc.filename, loc.line, loc.col))
        return self.number_attr(op_location(op))

    def _new_file_line_col(self, key: Any, attr: FileLineColLoc) -> Entry:
        """Number a location met for the first time: every op has its own, so this is the
        writer's most common new entry; its builtin encoding (code, filename string
        attribute, line, column: see builtin.write_attribute) is recorded directly."""
        builtin = self._builtin
        if builtin is None:
            builtin = self._builtin = self.dialect("builtin")
        entry = Entry(attr, builtin)
        self.attrs[key] = entry
        self.attr_order.append(entry)
        filename = self._filenames.get(attr.filename)
        if filename is None:
            filename = self._filenames[attr.filename] = self.number_attr(
                StringAttr(attr.filename))
        else:
            filename.refs += 1
        line, col = attr.line, attr.col
        entry.custom = True
        if 0 <= line < 0x80 and 0 <= col < 0x80:
            numbers = bytes(((line << 1) | 1, (col << 1) | 1))
        else:
            numbers = encode_varint(line) + encode_varint(col)
        entry.recipe = [FILE_LINE_COL_CODE, (REF_ATTR, filename), numbers]
        return entry

    def number_type(self, type: Type) -> Entry:
        key = self.type_key(type)
        entry = self.types.get(key)
        if entry is not None:
            entry.refs += 1
            return entry
        entry = Entry(type, self.dialect(type_dialect(type)))
        self.types[key] = entry
        self.type_order.append(entry)
        hooks = entry.dialect.hooks
        if hooks is not None and hooks.write_type is not None:
            recorder = RecordingWriter(self)
            entry.custom = bool(hooks.write_type(type, recorder))
            if entry.custom:
                entry.recipe = recorder.finish()
        return entry

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
        values = self.values
        for index, block in enumerate(region.blocks):
            self.blocks[id(block)] = index
            if block.arguments:
                args = []
                for arg, loc in zip(block.arguments, _arg_locations(block), strict=True):
                    values[id(arg)] = next_id
                    next_id += 1
                    location = arg_location(loc)
                    loc_entry = self.number_attr(location)
                    args.append((self.number_type(arg.type), loc_entry,
                                 type(location) is not UnknownLoc))
                self.block_args[id(block)] = args
            for op in block.operations:
                next_id = self._number_op(op, next_id)
        self.region_counts[id(region)] = (len(region.blocks), next_id - first)
        return next_id

    def _number_op(self, op: Operation, next_id: int = 0) -> int:
        name_entry = self.number_op_name(op.name)
        values = self.values
        result_entries = []
        keys = self._keys
        types = self.types
        for result in op.results:
            values[id(result)] = next_id
            next_id += 1
            rtype = result.type
            found = keys.get(id(rtype))  # a type already seen: count one more reference
            entry = types.get(found[1]) if found is not None else None
            if entry is None:
                entry = self.number_type(rtype)
            else:
                entry.refs += 1
            result_entries.append(entry)
        enc = self._op_encoding(op)
        enc.name_entry = name_entry
        enc.result_entries = result_entries
        if enc.attrs is not None:
            enc.attrs_entry = self.number_attr(enc.attrs)
        if self.version >= NATIVE_PROPERTIES_ENCODING:
            if enc.spec:
                props = enc.props
                enc.prop_entries = [
                    None if props.get(name) is None else self.number_attr(props[name])
                    for name, _ in enc.spec]
            elif enc.unregistered_props is not None:
                enc.props_entry = self.number_attr(enc.unregistered_props)
        enc.loc_entry = self.number_location(op)
        return next_id

    def _op_encoding(self, op: Operation) -> OpEncoding:
        """Split the op's attributes into the dictionary and properties the writer emits."""
        enc = OpEncoding()
        name = op.name
        spec = self._specs.get(name, False)
        if spec is False:
            spec = self._specs[name] = op_spec(name)
        enc.spec = spec
        if not op.attributes and not op.properties:
            self.op_encodings[id(op)] = enc
            return enc
        if self.version < NATIVE_PROPERTIES_ENCODING or spec == ():
            attrs = merged_attributes(op)
        elif spec is None:
            attrs = dict(op.attributes)
            if op.properties:
                enc.unregistered_props = DictAttr(tuple(sorted(op.properties.items())))
        else:
            names = self._spec_names.get(name)
            if names is None:
                names = self._spec_names[name] = frozenset(item for item, _ in spec)
            if not op.attributes and names.issuperset(op.properties):
                enc.props = op.properties  # the common case: only inherent attributes
                self.op_encodings[id(op)] = enc
                return enc
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


# Recipe items besides raw bytes: (kind, payload).
REF_ATTR, REF_OPTIONAL_ATTR, REF_TYPE, REF_RESOURCE, REF_STRING = range(5)


class RecordingWriter:
    """What a dialect encoder writes through while numbering: it numbers what the encoding
    references and records the encoding as raw bytes and references (attribute and type
    entries, resources, strings) that the writer resolves once all numbers are final."""

    __slots__ = ("state", "version", "out", "recipe")

    def __init__(self, state: IRNumbering) -> None:
        self.state = state
        self.version = state.version
        self.out = Emitter()
        self.recipe: list[Any] = []

    def _ref(self, kind: int, payload: Any) -> None:
        buf = self.out.buf
        if buf:
            self.recipe.append(bytes(buf))
            buf.clear()
        self.recipe.append((kind, payload))

    def finish(self) -> list[Any]:
        buf = self.out.buf
        if buf:
            self.recipe.append(bytes(buf))
        return self.recipe

    def attribute(self, attr: Attribute) -> None:
        self._ref(REF_ATTR, self.state.number_attr(attr))

    def optional_attribute(self, attr: Attribute | None) -> None:
        if attr is None:
            self.out.varint(0)
        else:
            self._ref(REF_OPTIONAL_ATTR, self.state.number_attr(attr))

    def attributes(self, attrs: Iterable[Attribute]) -> None:
        attrs = list(attrs)
        self.out.varint(len(attrs))
        for attr in attrs:
            self._ref(REF_ATTR, self.state.number_attr(attr))

    def type(self, type: Type) -> None:
        self._ref(REF_TYPE, self.state.number_type(type))

    def types(self, types: Iterable[Type]) -> None:
        types = list(types)
        self.out.varint(len(types))
        for type in types:
            self._ref(REF_TYPE, self.state.number_type(type))

    def resource(self, key: str) -> None:
        self.state.number_resource(key)
        self._ref(REF_RESOURCE, key)

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
        self._ref(REF_STRING, text)

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
