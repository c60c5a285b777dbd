"""Operations, values, blocks and regions: the IR every subcommand shares."""

from __future__ import annotations

from .attributes import Attribute
from .types import Type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any, Protocol

    from .registry import OpDef

    class _Positions(Protocol):
        """What a `SourceLocation` reads its line and column from (`diagnostics.SourceFile`)."""

        name: str

        def position(self, offset: int) -> tuple[int, int]: ...


class Location:
    """Where an op came from: a source position for diagnostics and an optional `loc(...)`."""

    __slots__ = ("filename", "line", "col", "attr")

    def __init__(self, filename: str, line: int, col: int, attr: Attribute | None = None) -> None:
        self.filename = filename
        self.line = line
        self.col = col
        self.attr = attr

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}"


UNKNOWN_LOCATION = Location("<unknown>", 0, 0)


class SourceLocation(Location):
    """A parsed op's location, kept as an offset into its source: the parser places every
    op, while only diagnostics and printed locations read a line and column, worked out
    (once) on first read. Behaves as a `Location` with those values."""

    __slots__ = ("_source", "_offset", "_at")

    def __init__(self, source: _Positions, offset: int) -> None:
        self.filename = source.name
        self.attr = None
        self._source = source
        self._offset = offset
        self._at: tuple[int, int] | None = None

    def _line_col(self) -> tuple[int, int]:
        at = self._at
        if at is None:
            at = self._at = self._source.position(self._offset)
        return at

    @property
    def offset(self) -> int:
        """Where in its source the op's name starts."""
        return self._offset

    @property
    def line(self) -> int:
        return self._line_col()[0]

    @line.setter
    def line(self, value: int) -> None:
        self._at = (value, self._line_col()[1])

    @property
    def col(self) -> int:
        return self._line_col()[1]

    @col.setter
    def col(self, value: int) -> None:
        self._at = (self._line_col()[0], value)


# What an IR list field holds when it is empty: the regions, successors, operands or
# results of an op that has none, the arguments (and their locations) of a block without
# any. One shared empty tuple, so the IR carries no empty lists: each list is an object the
# cyclic garbage collector tracks, visits and frees with its module (empty operand, result
# and block-argument lists were a seventh of all a parse allocated). Code replaces these
# fields whole, never appends to them (`Block.add_argument` makes the lists it appends to).
NONE: tuple[Any, ...] = ()
# The same object where a field is declared a list (`Operation.operands`, `results`,
# `Block.arguments`, `arg_locations`): read, iterated, measured, never changed in place.
EMPTY: Any = NONE


class Value:
    """An SSA value: an op result or a block argument.

    ``use_order`` is the use-list order a bytecode file recorded for the value (MLIR's
    writer encoding: for the i-th use in reverse pre-order, its position in the use list);
    we keep no use lists ourselves, so it is only carried from reading to writing."""

    __slots__ = ("type", "owner", "index", "name_hint", "use_order")

    def __init__(self, type: Type, owner: Operation | Block | None, index: int,
                 name_hint: str | None = None) -> None:
        self.type = type
        self.owner = owner
        self.index = index
        self.name_hint = name_hint
        self.use_order: tuple[int, ...] | None = None

    def __repr__(self) -> str:
        return f"<Value {self.name_hint or '?'}: {self.type}>"


class Block:
    __slots__ = ("arguments", "operations", "parent", "label", "arg_locations")
    arguments: list[Value]  # (EMPTY when there are none)
    arg_locations: list[Attribute | None]

    def __init__(self, arg_types: list[Type] | None = None) -> None:
        if arg_types:
            self.arguments = [Value(t, self, i) for i, t in enumerate(arg_types)]
            self.arg_locations = [None] * len(arg_types)
        else:
            self.arguments = self.arg_locations = EMPTY
        self.operations: list[Operation] = []
        self.parent: Region | None = None
        self.label: str | None = None

    def add_argument(self, type: Type, name_hint: str | None = None) -> Value:
        value = Value(type, self, len(self.arguments), name_hint)
        if self.arguments is EMPTY:
            self.arguments = []
        if self.arg_locations is EMPTY:
            self.arg_locations = []
        self.arguments.append(value)
        self.arg_locations.append(None)
        return value

    def append(self, op: Operation) -> None:
        op.parent = self
        self.operations.append(op)

    @property
    def terminator(self) -> Operation | None:
        return self.operations[-1] if self.operations else None


class Region:
    __slots__ = ("blocks", "parent")

    def __init__(self, blocks: list[Block] | None = None) -> None:
        self.blocks: list[Block] = []
        self.parent: Operation | None = None
        if blocks:
            for b in blocks:
                self.add_block(b)

    def add_block(self, block: Block) -> Block:
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def entry(self) -> Block:
        return self.blocks[0]


class Operation:
    """One operation. Inherent attributes live in ``properties`` (printed `<{...}>` in generic
    form), the rest in ``attributes``; ``attr`` looks in both."""

    __slots__ = ("name", "operands", "results", "properties", "attributes", "regions",
                 "successors", "_location", "_source", "parent", "opdef", "_plan_cache")
    operands: list[Value]  # (EMPTY when there are none: replaced whole, never appended to)
    results: list[Value]  # (EMPTY when there are none)
    regions: Sequence[Region]  # (NONE when there are none)
    successors: Sequence[Block]

    def __init__(
        self,
        name: str,
        operands: list[Value] | None = None,
        result_types: list[Type] | None = None,
        properties: dict[str, Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
        regions: list[Region] | None = None,
        successors: list[Block] | None = None,
        location: Location = UNKNOWN_LOCATION,
        opdef: OpDef | None = None,
    ) -> None:
        self.name = name
        self.operands = operands or EMPTY
        self.results = ([Value(t, self, i) for i, t in enumerate(result_types)] if result_types
                        else EMPTY)
        self.properties = properties or {}
        self.attributes = attributes or {}
        self.regions = regions or NONE
        for r in self.regions:
            r.parent = self
        self.successors = successors or NONE
        self._location: Location | int = location
        self._source: _Positions | None = None
        self.parent: Block | None = None
        self.opdef = opdef
        self._plan_cache: Any = None

    @property
    def location(self) -> Location:
        """Where the op came from. The parser places an op by its offset into its source
        (`new_operation`): the `SourceLocation` is made on first read, as most parsed ops
        are never asked (one object fewer per op to build, and for the cyclic garbage
        collector to visit and free with its module)."""
        location = self._location
        if isinstance(location, int):
            location = self._location = SourceLocation(self._source,  # type: ignore[arg-type]
                                                       location)
        return location

    @location.setter
    def location(self, value: Location) -> None:
        self._location = value

    def attr(self, name: str) -> Attribute | None:
        found = self.properties.get(name)
        if found is None:
            found = self.attributes.get(name)
        return found

    @property
    def symbol_name(self) -> str:
        """The `sym_name` of a symbol op (func.func, ...); "" for an op without one."""
        found = self.attr("sym_name")
        return "" if found is None else str(found.value)

    def set_attr(self, name: str, value: Attribute) -> None:
        if self.opdef is not None and name in self.opdef.properties:
            self.properties[name] = value
        else:
            self.attributes[name] = value

    @property
    def result(self) -> Value:
        return self.results[0]

    @property
    def result_types(self) -> list[Type]:
        return [r.type for r in self.results]

    @property
    def operand_types(self) -> list[Type]:
        return [v.type for v in self.operands]

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0]

    def walk(self) -> Iterator[Operation]:
        """This op and every op nested in it, pre-order."""
        yield self
        for region in self.regions:
            for block in region.blocks:
                for op in block.operations:
                    yield from op.walk()

    @property
    def parent_op(self) -> Operation | None:
        if self.parent is None or self.parent.parent is None:
            return None
        return self.parent.parent.parent

    def __repr__(self) -> str:
        return f"<Operation {self.name} at {self.location}>"


_new_object = object.__new__


def new_operation(name: str, operands: list[Value], result_types: list[Type],
                  properties: dict[str, Attribute], attributes: dict[str, Attribute],
                  location: Location | int, opdef: OpDef | None,
                  source: _Positions | None = None) -> Operation:
    """`Operation(...)` for an op without regions or successors, from lists and dicts it may
    keep (the parser's fast paths build most ops this way: fewer steps than `__init__`).
    An int `location` is an offset into `source` (see `Operation.location`)."""
    op: Operation = _new_object(Operation)
    op.name = name
    op.operands = operands or EMPTY
    if len(result_types) == 1:  # (`Value(t, op, 0)`, by fewer steps: most ops have one)
        value: Value = _new_object(Value)
        value.type = result_types[0]
        value.owner = op
        value.index = 0
        value.name_hint = None
        value.use_order = None
        op.results = [value]
    elif not result_types:
        op.results = EMPTY
    else:
        op.results = _results(op, result_types)
    op.properties = properties
    op.attributes = attributes
    op.regions = NONE
    op.successors = NONE
    op._location = location
    op._source = source
    op.parent = None
    op.opdef = opdef
    op._plan_cache = None
    return op


def _results(op: Operation, result_types: list[Type]) -> list[Value]:
    """The result values of `op` (a helper: a comprehension in `new_operation` would make its
    `op` a cell, one more object for every op built)."""
    return [Value(t, op, i) for i, t in enumerate(result_types)]


class Module:
    """A parsed file chunk: the top-level `builtin.module` op plus file-level extras."""

    __slots__ = ("op", "resources", "filename", "source")

    def __init__(self, op: Operation, resources: dict[str, Any] | None = None,
                 filename: str = "<stdin>", source: str = "") -> None:
        self.op = op
        self.resources = resources or {}
        self.filename = filename
        self.source = source

    @property
    def body(self) -> Block:
        return self.op.regions[0].entry

    def functions(self) -> list[Operation]:
        return [op for op in self.body.operations if op.name == "func.func"]

    def lookup(self, symbol: str) -> Operation | None:
        for op in self.body.operations:
            name = op.attr("sym_name")
            if name is not None and name.value == symbol:
                return op
        return None
