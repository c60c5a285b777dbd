"""IR numbering for the writer (upstream `IRNumbering.cpp`): which dialects, op names,
attributes, types, values, blocks and resources the IR uses, and the number of each.

The order is upstream's, so that the bytes match: the root op, and each region in LIFO
worklist order, numbers what its ops reference (name, result types, attribute
dictionary, properties, location). Attributes and types are numbered when first met, then
nested entries; entries are finally sorted by reference count (stable) and grouped by
dialect within each run of indices that share a varint width. Whether an op with regions is
isolated from above (its trait, or no use of an outer value inside) is decided when its
regions are queued, walking only ops without the trait.

One pass does all the lookups: each op's name, types, attributes and location are found
(or added) in dictionaries keyed by value, and what the writer needs per op is kept as a
tuple of entries, so writing looks nothing up by value again. A new attribute or type gets
its encoding recorded right away (see recipes.py); the common builtin attributes are
encoded directly, and a type's recorded encoding is kept across writes.
"""

from __future__ import annotations

from operator import itemgetter

from ...ir.attributes import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
    DictAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    all_equal,
)
from ...ir.core import UNKNOWN_LOCATION, Block, Location, Operation, Region, Value
from ...ir.locations import FileLineColLoc, LocationAttr, UnknownLoc
from ...ir.types import IntegerType, TensorType, Type
from . import builtin
from .direct import CHEAP_KEYS, DENSE_CODE, DIRECT, TYPE_ATTR_CODE
from .encoding import NATIVE_PROPERTIES_ENCODING, encode_varint
from .hooks import DialectHooks, attribute_dialect, hooks_for, type_dialect
from .ir_facts import (
    arg_location,
    arg_locations,
    key_fields,
    merged_attributes,
    op_location,
    raw_dense,
    sorted_dictionary,
    split_inherent,
    uses_no_outer_value,
)
from .properties import PropertySpec, op_spec
from .recipes import (
    REF_ATTR,
    REF_OPTIONAL_ATTR,
    REF_RESOURCE,
    REF_STRING,
    REF_TYPE,
    TemplateRecorder,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    # A numbered attribute, type or op name is a list (the writer makes tens of thousands, and
    # a list costs a fraction of an object): [reference count, number (-1 until final), value,
    # dialect, recipe]. The recipe is the dialect encoding the writer replays once the numbers
    # are final: None (written as text), a str (a string attribute of that text), bytes (a
    # file:line:col location: the line and column; its value is its filename's entry) or a list
    # of items (bytes, entries, and (kind, payload) pairs for the other references).
    from typing import Any
    Entry = list[Any]

    # What the writer emits for one op besides operands (`IRNumbering.ops[id(ops)][i]` for the
    # i-th op of the list `ops`, a block's operations or `IRNumbering.root_ops`):
    # (name entry, location entry, attribute dictionary entry or None, result type entries,
    #  properties), the properties being None (none written), an entry (an unregistered op's
    # dictionary), bytes (a properties entry of absent items) or (spec, entry or None per spec
    # item).
    OpRecord = tuple[Entry, Entry, "Entry | None", "list[Entry] | tuple[()]", Any]

__all__ = ["REF_ATTR", "REF_OPTIONAL_ATTR", "REF_RESOURCE", "REF_STRING", "REF_TYPE",
           "NUMBER", "OWNER", "RECIPE", "REFS", "VALUE", "DialectEntry", "IRNumbering",
           "group_by_dialect_per_byte", "new_entry"]

_BUILTIN_ATTR_CLASSES = frozenset({StringAttr, FileLineColLoc, DictAttr, ArrayAttr})
FILE_LINE_COL_CODE = encode_varint(builtin.FILE_LINE_COL_LOC)

# Recorded encodings of types, per bytecode version: id(type) -> (type, key, dialect name,
# template or None for text). Holding the type keeps its id from being reused.
_TYPE_INFO: dict[int, dict[int, tuple[Type, str, str, list[Any] | None]]] = {}
_TYPE_INFO_LIMIT = 1 << 16


_SPECS: dict[str, PropertySpec] = {}  # op name -> its spec (kept for the process)
_OP_DIALECT: dict[str, str] = {}  # op name -> its dialect's name (kept for the process)
_SMALL = [bytes(((n << 1) | 1,)) for n in range(0x80)]  # the one-byte varints
# the bytes of a line and a column both below 128 (at (line << 7) | col), made when first met
_PAIRS: list[bytes | None] = [None] * (1 << 14)
_LONG_PAIRS: dict[tuple[int, int], bytes] = {}  # the bytes of the other (line, col) pairs met


# op name -> what an op of that name without attributes writes as properties: the entry's
# bytes (the size, then "absent" per item) when every item is optional (kept for the
# process), else (spec, None per item) for the writer's missing-attribute error
_NO_PROPS: dict[str, Any] = {}


def _no_props(name: str, spec: PropertySpec) -> Any:
    items = spec.items or ()
    if all(spec.optional):
        found: Any = encode_varint(len(items)) + b"\x01" * len(items)
    else:
        found = (spec, [None] * len(items))
    _NO_PROPS[name] = found
    return found


def _spec(name: str) -> PropertySpec:
    spec = _SPECS[name] = PropertySpec(op_spec(name))
    return spec


class DialectEntry:
    __slots__ = ("name", "number", "hooks", "resources")

    def __init__(self, name: str, number: int) -> None:
        self.name = name
        self.number = number
        self.hooks: DialectHooks | None = hooks_for(name)
        self.resources: dict[str, int] = {}  # key -> resource number (set when finalized)


REFS, NUMBER, VALUE, OWNER, RECIPE = range(5)  # OWNER: the dialect entry
_by_refs = itemgetter(REFS)
_owner = itemgetter(OWNER)


def _by_owner_number(entry: Entry) -> int:
    number: int = entry[OWNER].number
    return number


def new_entry(value: Any, dialect: DialectEntry, recipe: Any = None) -> Entry:
    return [1, -1, value, dialect, recipe]


class IRNumbering:
    __slots__ = ("version", "resource_data", "dialects", "attrs", "attr_order", "strings",
                 "types", "type_ids", "attr_ids", "type_order", "op_names", "op_name_order",
                 "values", "blocks", "region_counts", "isolated", "ops", "root_ops",
                 "uses_resources", "has_use_orders", "block_args", "_use_counts", "_root",
                 "_keys", "_dense_raw", "_held", "_builtin", "_filenames", "_type_info",
                 "_native_properties", "_attr_dialects", "_type_dialects", "_nested")

    def __init__(self, root: Operation, version: int,
                 resource_data: dict[str, Any] | None = None) -> None:
        self.version = version
        self.resource_data = resource_data or {}
        self.dialects: dict[str, DialectEntry] = {}
        self.attrs: dict[Any, Entry] = {}
        self.attr_order: list[Entry] = []
        self.strings: dict[str, Entry] = {}  # string attributes by text
        self.types: dict[str, Entry] = {}
        self.type_ids: dict[int, Entry] = {}
        self.attr_ids: dict[int, Entry] = {}  # by object, besides strings and file:line:col
        self.type_order: list[Entry] = []
        self.op_names: dict[str, Entry] = {}
        self.op_name_order: list[Entry] = []
        self.values: dict[Value, int] = {}  # keyed by the objects (hashed by identity)
        self.blocks: dict[int, int] = {}
        self.region_counts: dict[int, tuple[int, int]] = {}
        self.isolated: dict[int, bool] = {}
        self.ops: dict[int, list[OpRecord]] = {}  # per op list (by id): its ops' records
        self.root_ops = [root]
        self.uses_resources = False  # any resource referenced (only builtin has them)
        self.has_use_orders = False  # any value carries a use-list order read from bytecode
        self._use_counts: dict[int, int] | None = None
        self._root = root
        self._keys: dict[int, tuple[object, Any]] = {}
        self._dense_raw: dict[int, bytes | None] = {}
        self._held: list[object] = []  # objects whose ids key `type_ids` and `attr_ids`
        # per block: (type entry, location entry, location known) of each argument
        self.block_args: dict[int, list[tuple[Entry, Entry, bool]]] = {}
        self._builtin: DialectEntry | None = None
        self._filenames: dict[str, Entry] = {}  # filename -> its string attribute's entry
        self._type_info = _TYPE_INFO.setdefault(version, {})
        self._native_properties = version >= NATIVE_PROPERTIES_ENCODING
        # whether an attribute or a type of a dialect other than builtin was numbered
        self._attr_dialects = False
        self._type_dialects = False
        self._nested: list[Operation]

        nested = self._nested = []  # the ops with regions met by the last _number_ops calls
        self._number_ops(self.root_ops, 0)
        work: list[tuple[Region, int]] = []
        next_id = 0
        isolated = self.isolated
        block_numbers = self.blocks
        region_counts = self.region_counts
        while True:
            for op in nested:  # pushed in op order once their region's values are counted
                opdef = op.opdef
                if opdef is not None and opdef.isolated:
                    isolated[id(op)] = True
                    first = 0
                elif uses_no_outer_value(op):
                    isolated[id(op)] = True
                    first = 0
                else:
                    isolated[id(op)] = False
                    first = next_id
                for nested_region in op.regions:
                    work.append((nested_region, first))
            if not work:
                break
            nested.clear()
            region, next_id = work.pop()
            blocks = region.blocks
            if not blocks:
                continue
            first = next_id
            for index, block in enumerate(blocks):
                block_numbers[id(block)] = index
                if block.arguments:
                    next_id = self._number_arguments(block, next_id)
                next_id = self._number_ops(block.operations, next_id)
            region_counts[id(region)] = (len(blocks), next_id - first)
        # (a dialect's number is its index in `dialects`, set when it is added)
        for order, mixed in ((self.attr_order, self._attr_dialects),
                             (self.op_name_order, True), (self.type_order, self._type_dialects)):
            order.sort(key=_by_refs, reverse=True)  # stable: ties keep first-use order
            if mixed:  # else all builtin: grouping by dialect changes nothing
                group_by_dialect_per_byte(order)
            number = 0
            for entry in order:
                entry[NUMBER] = number
                number += 1
        if self.uses_resources:
            self._number_resources()

    # ---- keys ------------------------------------------------------------------------------

    def attr_key(self, attr: Attribute) -> Any:
        """A value identity for `attr` (MLIR uniques attributes by value): its printed form,
        with dictionaries and arrays keyed by their elements' keys."""
        cls = attr.__class__
        if cls is StringAttr:  # the common leaves get cheap structural keys (not kept)
            return ('"', attr.text)  # type: ignore[attr-defined]
        if cls is FileLineColLoc and not attr.is_range:  # type: ignore[attr-defined]
            return ("loc", attr.filename, attr.line, attr.col)  # type: ignore[attr-defined]
        if cls is TypeAttr:
            return ("type", self._info(attr.type)[1])  # type: ignore[attr-defined]
        if cls is IntegerAttr and attr.number.__class__ is int:  # type: ignore[attr-defined]
            # what _dialect_key gives it (its key fields), without looking them up
            return (IntegerAttr, attr.number,  # type: ignore[attr-defined]
                    ("!", self._info(attr.type)[1]))  # type: ignore[attr-defined]
        found = self._keys.get(id(attr))
        if found is not None:
            return found[1]
        key: Any
        if cls is DictAttr:  # string values (the most common) keyed inline
            attr_key = self.attr_key
            parts = [(k, ('"', v.text) if v.__class__ is StringAttr else attr_key(v))
                     for k, v in attr.entries]  # type: ignore[attr-defined]
            parts.sort()
            key = ("{}", tuple(parts))
        elif cls is ArrayAttr:
            attr_key = self.attr_key
            key = ("[]", tuple([('"', e.text) if e.__class__ is StringAttr else attr_key(e)
                                for e in attr.elements]))  # type: ignore[attr-defined]
        elif cls is DenseElementsAttr:
            key = self._dense_key(attr)  # type: ignore[arg-type]
        elif cls is SymbolRefAttr:
            key = ("@", attr.root, attr.nested)  # type: ignore[attr-defined]
        elif cls is BoolAttr:
            key = ("bool", bool(attr.flag))  # type: ignore[attr-defined]
        elif (cls is DenseArrayAttr and attr.element.__class__ is IntegerType  # type: ignore
              and attr.element.width > 1):  # type: ignore[attr-defined]
            key = ("array", attr.element.width, attr.element.signedness,  # type: ignore
                   attr.items)  # type: ignore[attr-defined]
        else:
            key = self._dialect_key(attr)
        self._keys[id(attr)] = (attr, key)  # holding `attr` keeps its id from being reused
        return key

    def _dialect_key(self, attr: Attribute) -> Any:
        """The printed form, or for an attribute of a dialect with bytecode hooks (VHLO),
        whose class is a frozen dataclass printed from its compared fields, the class and
        the keys of those fields (printing a tensor attribute just to compare it is slow)."""
        cls = attr.__class__
        names = _FIELDS.get(cls)
        if names is None:
            names = _FIELDS[cls] = key_fields(attr)
        if names:
            try:
                return (cls, *[self._field_key(getattr(attr, name)) for name in names])
            except _NoKey:
                pass
        return str(attr)

    def _field_key(self, value: Any) -> Any:
        cls = value.__class__
        if cls is str or cls is int or value is None:
            return value
        if cls is bool:
            return ("bool", value)
        if cls is float:
            return ("float", repr(value))  # -0.0 and nan print apart
        if cls is tuple:
            return tuple([self._field_key(v) for v in value])
        if isinstance(value, Attribute):
            return self.attr_key(value)
        if isinstance(value, Type):
            return ("!", self.type_key(value))
        raise _NoKey

    def _dense_key(self, attr: DenseElementsAttr) -> Any:
        """Equal exactly when the stored forms are: the type and MLIR's raw element bytes
        (one element when all are equal, which MLIR stores as a splat). The raw bytes are
        kept for the encoding."""
        raw = self._dense_raw[id(attr)] = raw_dense(attr)
        type = attr.type
        if isinstance(type, TensorType) and 0 in type.shape:  # no elements: one spelling
            return ("dense", self.type_key(type), None)
        if raw is not None:
            return ("dense", self.type_key(type), raw)
        data = attr.data
        if attr.splat or all_equal(data):
            first = data.reshape(-1)[:1].tobytes()
            return ("dense", self.type_key(type), True, data.dtype.str, first)
        return ("dense", self.type_key(type), False, data.dtype.str, data.tobytes())

    def type_key(self, type: Type) -> str:
        return self._info(type)[1]

    def _info(self, type: Type) -> tuple[Type, str, str, list[Any] | None]:
        """The type's key, dialect and recorded encoding (kept across writes)."""
        info = self._type_info.get(id(type))
        if info is None:
            key = str(type)
            dialect = type_dialect(type)
            template = None
            hooks = hooks_for(dialect)
            if hooks is not None and hooks.write_type is not None:
                recorder = TemplateRecorder(self.version)
                if hooks.write_type(type, recorder):
                    template = recorder.finish()
            info = (type, key, dialect, template)
            if len(self._type_info) >= _TYPE_INFO_LIMIT:
                self._type_info.clear()
            self._type_info[id(type)] = info
        return info

    # ---- dialects, names, attributes, types --------------------------------------------------

    def _builtin_entry(self) -> DialectEntry:
        """The builtin dialect's entry, made on first use (kept in `_builtin`)."""
        entry = self._builtin = self.dialect("builtin")
        return entry

    def dialect(self, name: str) -> DialectEntry:
        entry = self.dialects.get(name)
        if entry is None:
            entry = self.dialects[name] = DialectEntry(name, len(self.dialects))
        return entry

    def number_op_name(self, name: str) -> Entry:
        entry = self.op_names.get(name)
        if entry is not None:
            entry[REFS] += 1
            return entry
        dialect_name = _OP_DIALECT.get(name)
        if dialect_name is None:
            dialect_name = _OP_DIALECT[name] = name.split(".", 1)[0]
        dialect = self.dialects.get(dialect_name)
        entry = [1, -1, name, dialect if dialect is not None else self.dialect(dialect_name),
                 None]
        self.op_names[name] = entry
        self.op_name_order.append(entry)
        return entry

    def number_string(self, text: str) -> Entry:
        """The string attribute `"text"` (the most common attribute of all)."""
        entry = self.strings.get(text)
        if entry is not None:
            entry[REFS] += 1
            return entry
        builtin_dialect = self._builtin or self._builtin_entry()
        entry = self.strings[text] = [1, -1, text, builtin_dialect, text]
        self.attr_order.append(entry)
        return entry

    def number_attr(self, attr: Attribute) -> Entry:
        cls = attr.__class__
        if cls is StringAttr:
            return self.number_string(attr.text)  # type: ignore[attr-defined]
        if cls is FileLineColLoc and not attr.is_range:  # type: ignore[attr-defined]
            key: Any = ("loc", attr.filename, attr.line, attr.col)  # type: ignore[attr-defined]
            entry = self.attrs.get(key)
            if entry is not None:
                entry[REFS] += 1
                return entry
            return self._new_file_line_col(key, attr)  # type: ignore[arg-type]
        if cls is SymbolRefAttr:  # the commonest cheap keys inline (see CHEAP_KEYS)
            key = ("@", attr.root, attr.nested)  # type: ignore[attr-defined]
        elif cls is BoolAttr:
            key = ("bool", bool(attr.flag))  # type: ignore[attr-defined]
        else:
            keyed = CHEAP_KEYS.get(cls)
            key = None if keyed is None else keyed(self, attr)
        if key is not None:  # a key cheaper than looking the object up
            entry = self.attrs.get(key)
            if entry is not None:
                entry[REFS] += 1
                return entry
            return self._number_keyed(attr, key)
        entry = self.attr_ids.get(id(attr))  # this very object numbered before
        if entry is not None:
            entry[REFS] += 1
            return entry
        entry = self._number_attr_value(attr)
        self.attr_ids[id(attr)] = entry
        self._held.append(attr)
        return entry

    def _number_attr_value(self, attr: Attribute) -> Entry:
        """`number_attr` of an object not numbered yet: found, or added, by its key."""
        cls = attr.__class__
        encode = DIRECT.get(cls)  # builtin attributes (no locations) encoded directly
        if encode is None and isinstance(attr, LocationAttr):
            attr = attr.resolved()
            cls = attr.__class__
            if cls is FileLineColLoc and not attr.is_range:  # type: ignore[attr-defined]
                return self.number_attr(attr)  # (a range: the generic builtin encoding)
        key = self.attr_key(attr)
        entry = self.attrs.get(key)
        if entry is not None:
            entry[REFS] += 1
            return entry
        if encode is not None:
            builtin_dialect = self._builtin or self._builtin_entry()
            entry = [1, -1, attr, builtin_dialect, None]
            self.attrs[key] = entry
            self.attr_order.append(entry)
            entry[RECIPE] = encode(self, attr)
            return entry
        dialect = self.dialect(
            "builtin" if cls in _BUILTIN_ATTR_CLASSES else attribute_dialect(attr))
        if dialect.name != "builtin":
            self._attr_dialects = True
        entry = new_entry(attr, dialect)
        self.attrs[key] = entry
        self.attr_order.append(entry)
        hooks = dialect.hooks
        if hooks is not None and hooks.write_attribute is not None:
            recorder = TemplateRecorder(self.version)
            if hooks.write_attribute(attr, recorder):
                entry[RECIPE] = self._resolve(recorder.finish())
        return entry

    def _number_keyed(self, attr: Attribute, key: Any) -> Entry:
        """A builtin attribute with a cheap structural key (see direct.CHEAP_KEYS): found, or
        added with its direct encoding."""
        entry = self.attrs.get(key)
        if entry is not None:
            entry[REFS] += 1
            return entry
        builtin_dialect = self._builtin or self._builtin_entry()
        entry = self.attrs[key] = [1, -1, attr, builtin_dialect, None]
        self.attr_order.append(entry)
        entry[RECIPE] = DIRECT[attr.__class__](self, attr)
        return entry

    def _number_dense(self, attr: DenseElementsAttr) -> Entry:
        """`number_attr` of a dense attribute (a constant's value, the most common property
        besides strings), its key and builtin encoding inline: the same key and bytes as
        `_dense_key` and `_encode_dense` give (found by value: an op's value is its own)."""
        type = attr.type
        raw = raw_dense(attr)
        if raw is None or type.__class__ is not TensorType or 0 in type.shape:
            return self.number_attr(attr)
        info = self._type_info.get(id(type))
        if info is None:
            info = self._info(type)
        key = ("dense", info[1], raw)
        entry = self.attrs.get(key)
        if entry is not None:
            entry[REFS] += 1
        else:
            builtin_dialect = self._builtin or self._builtin_entry()
            entry = self.attrs[key] = [1, -1, attr, builtin_dialect, None]
            self.attr_order.append(entry)
            size = len(raw)
            entry[RECIPE] = [DENSE_CODE, self.number_type(type),
                             _SMALL[size] if size < 0x80 else encode_varint(size), raw]
        return entry

    def _resolve(self, template: list[Any]) -> list[Any]:
        """A template's references numbered, in the order the encoder made them."""
        recipe: list[Any] = []
        for item in template:
            if item.__class__ is bytes:
                recipe.append(item)
                continue
            kind, payload = item
            if kind == REF_TYPE:
                recipe.append(self.number_type(payload))
            elif kind == REF_ATTR:
                recipe.append(self.number_attr(payload))
            elif kind == REF_OPTIONAL_ATTR:
                recipe.append((REF_OPTIONAL_ATTR, self.number_attr(payload)))
            else:
                if kind == REF_RESOURCE:
                    self.number_resource(payload)
                recipe.append(item)
        return recipe

    def _new_file_line_col(self, key: Any, attr: FileLineColLoc | Location) -> Entry:
        """Number a location met for the first time: every op has its own, so this is the
        writer's most common new entry; its builtin encoding (code, filename string
        attribute, line, column: see builtin.write_attribute) is recorded directly."""
        builtin_dialect = self._builtin or self._builtin_entry()
        line, col = attr.line, attr.col
        if 0 <= line < 0x80 and 0 <= col < 0x80:
            numbers = bytes(((line << 1) | 1, (col << 1) | 1))
        else:
            numbers = encode_varint(line) + encode_varint(col)
        entry: Entry = [1, -1, None, builtin_dialect, numbers]  # the value: its filename's entry
        self.attrs[key] = entry
        self.attr_order.append(entry)
        filename = self._filenames.get(attr.filename)
        if filename is None:
            filename = self._filenames[attr.filename] = self.number_string(attr.filename)
        else:
            filename[REFS] += 1
        entry[VALUE] = filename
        return entry

    def number_type(self, type: Type) -> Entry:
        entry = self.type_ids.get(id(type))
        if entry is not None:
            entry[REFS] += 1
            return entry
        info = self._info(type)
        entry = self.types.get(info[1])
        self._held.append(type)
        if entry is not None:
            entry[REFS] += 1
            self.type_ids[id(type)] = entry
            return entry
        owner = self.dialects.get(info[2])
        if info[2] != "builtin":
            self._type_dialects = True
        entry = [1, -1, type, owner if owner is not None else self.dialect(info[2]), None]
        self.types[info[1]] = entry
        self.type_ids[id(type)] = entry
        self.type_order.append(entry)
        template = info[3]
        if template is not None:
            entry[RECIPE] = self._resolve(template)
        return entry

    def number_resource(self, key: str) -> None:
        self.uses_resources = True
        self.dialect("builtin").resources.setdefault(key, -1)

    # ---- the IR ----------------------------------------------------------------------------

    @property
    def use_counts(self) -> dict[int, int]:
        """How many uses each value has (by id), counted when first asked for."""
        if self._use_counts is None:
            counts: dict[int, int] = {}
            for op in self._root.walk():
                for operand in op.operands:
                    counts[id(operand)] = counts.get(id(operand), 0) + 1
            self._use_counts = counts
        return self._use_counts

    def _number_arguments(self, block: Block, next_id: int) -> int:
        """Number a block's arguments (values from `next_id`), their types and locations."""
        values = self.values
        args = []
        for arg, loc in zip(block.arguments, arg_locations(block), strict=True):
            values[arg] = next_id
            next_id += 1
            if arg.use_order is not None:
                self.has_use_orders = True
            location = arg_location(loc)
            loc_entry = self.number_attr(location)
            args.append((self.number_type(arg.type), loc_entry,
                         type(location) is not UnknownLoc))
        self.block_args[id(block)] = args
        return next_id

    def _number_ops(self, ops: list[Operation], next_id: int) -> int:
        """Number what each op references, in upstream's order: its name, result types,
        attribute dictionary, properties, then location."""
        values = self.values
        type_ids = self.type_ids
        op_names = self.op_names
        attrs = self.attrs
        attr_order = self.attr_order
        filenames = self._filenames
        strings = self.strings
        records: list[OpRecord] = []
        self.ops[id(ops)] = records
        native = self._native_properties
        number_attr = self.number_attr
        number_type = self.number_type
        nested = self._nested
        type_info = self._type_info
        last_filename = None  # the filename of the last new location, and its entry
        file_entry: Entry = []
        for op in ops:
            if op.regions:
                nested.append(op)
            name = op.name
            name_entry = op_names.get(name)
            if name_entry is None:
                name_entry = self.number_op_name(name)
            else:
                name_entry[REFS] += 1
            results = op.results
            result_entries: Any = [] if results else ()  # most ops without results share ()
            for result in results:
                values[result] = next_id
                next_id += 1
                if result.use_order is not None:
                    self.has_use_orders = True
                entry = type_ids.get(id(result.type))
                if entry is None:
                    entry = number_type(result.type)
                else:
                    entry[REFS] += 1
                result_entries.append(entry)
            attrs_entry = None
            props: Any = None
            attributes = op.attributes
            properties = op.properties
            if native:
                spec = _SPECS.get(name)
                if spec is None:
                    spec = _spec(name)
                items = spec.items
                if not attributes and not properties:
                    if items:
                        props = _NO_PROPS.get(name)
                        if props is None:
                            props = _no_props(name, spec)
                elif items is None:  # unregistered: a dictionary of its own
                    if attributes:
                        attrs_entry = number_attr(sorted_dictionary(attributes))
                    if properties:
                        props = number_attr(sorted_dictionary(properties))
                elif not items:
                    attrs_entry = number_attr(sorted_dictionary(merged_attributes(op)))
                else:
                    if not attributes and spec.names.issuperset(properties):
                        inherent = properties  # the common case: only inherent attributes
                    else:
                        inherent, discardable = split_inherent(attributes, properties, spec.names)
                        if discardable:
                            attrs_entry = number_attr(sorted_dictionary(discardable))
                    get = inherent.get
                    entries: list[Entry | None] = []
                    for item in items:
                        value = get(item)
                        if value is None:
                            entries.append(None)
                        elif value.__class__ is StringAttr:  # inline number_string
                            entry = strings.get(value.text)
                            if entry is None:
                                entry = self.number_string(value.text)
                            else:
                                entry[REFS] += 1
                            entries.append(entry)
                        elif value.__class__ is TypeAttr:  # e.g. a function's type
                            type_key = ("type", (type_info.get(id(value.type))
                                                 or self._info(value.type))[1])
                            entry = attrs.get(type_key)
                            if entry is None:  # its builtin encoding: code, type
                                entry = attrs[type_key] = [1, -1, value, self._builtin
                                                           or self._builtin_entry(), None]
                                attr_order.append(entry)
                                entry[RECIPE] = [TYPE_ATTR_CODE, number_type(value.type)]
                            else:
                                entry[REFS] += 1
                            entries.append(entry)
                        elif value.__class__ is DenseElementsAttr:
                            entries.append(self._number_dense(value))
                        else:
                            entries.append(number_attr(value))
                    props = (spec, entries)
            elif attributes or properties:
                attrs_entry = number_attr(sorted_dictionary(merged_attributes(op)))
            loc = op.location
            where: Any = loc.attr  # a file:line:col location attribute (e.g. read from
            if where is None:      # bytecode), else the parsed position when known
                if loc is not UNKNOWN_LOCATION and loc.filename != "<unknown>":
                    where = loc
            elif where.__class__ is not FileLineColLoc or where.is_range:
                where = None  # (a range: the generic builtin encoding)
            if where is None:
                loc_entry = number_attr(op_location(op))
            else:
                filename = where.filename
                line = where.line
                col = where.col
                key = ("loc", filename, line, col)
                found = attrs.get(key)
                if found is not None:
                    found[REFS] += 1
                    loc_entry = found
                else:  # new (every op has its own): see _new_file_line_col
                    if 0 <= line < 0x80 and 0 <= col < 0x80:
                        numbers = _PAIRS[(line << 7) | col]
                        if numbers is None:
                            numbers = _PAIRS[(line << 7) | col] = _SMALL[line] + _SMALL[col]
                    else:
                        numbers = _LONG_PAIRS.get((line, col))
                        if numbers is None:
                            if len(_LONG_PAIRS) >= 1 << 16:
                                _LONG_PAIRS.clear()
                            numbers = _LONG_PAIRS[(line, col)] = (encode_varint(line)
                                                                  + encode_varint(col))
                    if filename == last_filename:
                        file_entry[REFS] += 1
                    else:
                        known = filenames.get(filename)
                        if known is None:
                            if self._builtin is None:  # the builtin dialect comes first
                                self._builtin_entry()
                            file_entry = filenames[filename] = self.number_string(filename)
                        else:
                            known[REFS] += 1
                            file_entry = known
                        last_filename = filename
                    loc_entry = attrs[key] = [1, -1, file_entry, self._builtin, numbers]
                    attr_order.append(loc_entry)
            records.append((name_entry, loc_entry, attrs_entry, result_entries, props))
        return next_id

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


class _NoKey(Exception):
    """A field without a structural key: the attribute is keyed by its printed form."""


_FIELDS: dict[type, tuple[str, ...]] = {}  # attribute class -> the fields of its key


def group_by_dialect_per_byte(entries: list[Entry]) -> None:
    """Within each run of indices of one varint width (128, then 16256, ...), order entries
    by dialect, the previous run's last dialect first (upstream `groupByDialectPerByte`)."""
    if len(entries) <= 0x80:  # one run (most modules): dialect 0 first is number order
        if entries:
            first = entries[0][OWNER]
            for entry in entries:
                if entry[OWNER] is not first:  # more than one dialect
                    entries.sort(key=_by_owner_number)
                    break
        return
    first_dialect = 0
    group = 0
    start = 0
    for width in range(1, 9):
        group = (1 << (7 * width)) - group
        chunk = entries[start:start + group]
        numbers = {e[OWNER].number for e in chunk}
        if len(numbers) > 1 or first_dialect not in numbers:
            def order(e: Entry, first: int = first_dialect) -> tuple[bool, int]:
                return e[OWNER].number != first, e[OWNER].number

            chunk.sort(key=order)
            entries[start:start + len(chunk)] = chunk
        first_dialect = chunk[-1][OWNER].number
        start += len(chunk)
        if start >= len(entries):
            break
