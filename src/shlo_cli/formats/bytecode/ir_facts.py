"""What the bytecode numbering reads off the IR, free of numbering state: the locations
MLIR gives ops and block arguments, whether an op without the trait is isolated from above,
an op's attributes split into inherent (properties) and discardable ones, a dense
attribute's raw storage bytes (from the parser's held bytes when it kept them, so writing
needs no numpy), and which fields key a dialect attribute."""

from __future__ import annotations

from ...ir import storage
from ...ir.attributes import (
    Attribute,
    DenseElementsAttr,
    DialectAttr,
    DictAttr,
    OpaqueAttr,
    raw_bytes,
)
from ...ir.core import UNKNOWN_LOCATION, Block, Operation, Region, Value
from ...ir.dense import bool_splat_byte, storage_type
from ...ir.locations import FileLineColLoc, LocationAttr, UnknownLoc
from ...ir.record import Record
from ...ir.types import ComplexType, FloatType, IndexType, IntegerType
from .hooks import attribute_dialect, hooks_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

UNKNOWN_LOC = UnknownLoc()
# id(shaped type) -> (the type, its storage element type, that type's storage layout): the
# type is held so that its id is not reused
_ELEMENT_LAYOUTS: dict[int, tuple[Any, Any, storage.Layout | None]] = {}


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


def uses_no_outer_value(op: Operation) -> bool:
    """Whether no op nested in `op` (without the isolated-from-above trait) uses a value
    defined outside it: such an op is isolated too (upstream's numbering checks every op with
    regions). Regions are walked outside in, so a value's region is inside `op` exactly when
    it was met before the use."""
    inside: set[int] = set()
    work = list(op.regions)
    while work:
        region = work.pop()
        inside.add(id(region))
        for block in region.blocks:
            for nested in block.operations:
                for operand in nested.operands:
                    owner: Any = operand.owner
                    if owner.__class__ is Block:
                        defined = owner.parent
                    else:  # an op's result (or a value without an owner)
                        block_of = owner.parent if owner is not None else None
                        defined = block_of.parent if block_of is not None else None
                    if defined is not None and id(defined) not in inside:
                        return False
                if nested.regions:
                    opdef = nested.opdef
                    if opdef is None or not opdef.isolated:
                        work.extend(nested.regions)
    return True


def raw_dense(attr: DenseElementsAttr) -> bytes | None:
    """MLIR's raw storage bytes of a dense attribute, as `ir.dense.encode_raw_dense` gives
    them (a single element when all are equal), with the splat test done on the bytes that
    are written anyway. None if the element type has no numpy storage."""
    type = attr.type
    found = _ELEMENT_LAYOUTS.get(id(type))
    if found is None or found[0] is not type:  # types are shared: kept by identity
        etype = storage_type(type)
        if not isinstance(etype, (IntegerType, FloatType, IndexType, ComplexType)):
            return None
        if len(_ELEMENT_LAYOUTS) >= 4096:
            _ELEMENT_LAYOUTS.clear()
        found = _ELEMENT_LAYOUTS[id(type)] = (type, etype, storage.layout(etype))
    _, etype, lay = found
    held = attr.held_storage
    if held is not None and lay is not None:  # the parser kept MLIR's bytes: no numpy
        size = lay.size
        if attr.splat or (held[size:size + size] == held[:size]  # cheap early "no"
                          and storage.all_equal(held, size)):
            return bool_splat_byte(held[:size], etype)
        return held
    data = attr.data
    size = data.size
    if size == 0:
        return b""
    plain = not ((isinstance(etype, IntegerType) and etype.width == 1)
                 or (isinstance(etype, FloatType) and etype.width < 8))
    if attr.splat:
        first = data.reshape(-1)[:1]
        return first.tobytes() if plain else bool_splat_byte(raw_bytes(first, etype), etype)
    full = data.tobytes()  # C order, as the contiguous copy would be
    item = data.itemsize
    if size == 1 or full[:item] * size == full:
        return full[:item] if plain else bool_splat_byte(raw_bytes(data.reshape(-1)[:1], etype),
                                                         etype)
    return full if plain else raw_bytes(data.reshape(-1), etype)


def sorted_dictionary(attrs: dict[str, Attribute]) -> DictAttr:
    return DictAttr(tuple(sorted(attrs.items())))


def split_inherent(attributes: dict[str, Attribute], properties: dict[str, Attribute],
           names: frozenset[str]) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """(inherent, discardable): the op's spec items wherever they are stored; the rest of
    its properties stay discardable unless an attribute of that name is already there."""
    inherent: dict[str, Attribute] = {}
    discardable = dict(attributes)
    for name, value in properties.items():
        if name in names:
            inherent[name] = value
        else:  # not an inherent attribute of this op: keep it discardable
            discardable.setdefault(name, value)
    for name in attributes:
        if name in names and name not in inherent:
            inherent[name] = discardable.pop(name)
    return inherent, discardable


def arg_locations(block: Block) -> list[Attribute | None]:
    locs = list(block.arg_locations)
    if len(locs) < len(block.arguments):
        locs += [None] * (len(block.arguments) - len(locs))
    return locs[:len(block.arguments)]


def canonical(attr: Attribute) -> Attribute:
    return attr.resolved() if isinstance(attr, LocationAttr) else attr


def key_fields(attr: Attribute) -> tuple[str, ...]:
    """The compared fields of an immutable record attribute (`ir.record`) or frozen
    dataclass of a dialect with bytecode hooks besides builtin; () for any other class
    (keyed by its printed form)."""
    if isinstance(attr, Record):
        fields = attr.key_fields
    else:
        params = getattr(attr.__class__, "__dataclass_params__", None)
        if params is None or not params.frozen or not params.eq:
            return ()
        import dataclasses

        fields = tuple(f.name for f in dataclasses.fields(attr) if f.compare)  # type: ignore
    if isinstance(attr, (LocationAttr, DialectAttr, OpaqueAttr)):  # printed from more
        return ()
    hooks = hooks_for(attribute_dialect(attr))
    if hooks is None or hooks.write_attribute is None:
        return ()
    return fields
