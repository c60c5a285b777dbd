"""Location attributes (`loc(...)`) and the `#loc` aliases MLIR prints with debug info.

Locations are kept structured so they print both inline (`-mlir-print-local-scope`) and as
`loc(#locN)` uses with `#locN = loc(...)` definitions, exactly as MLIR's alias printer does.
A reference to an alias defined later in the file (`loc(#loc3)` before `#loc3 = ...`)
resolves lazily through the parser's alias table.
"""

from __future__ import annotations

from .attributes import Attribute, escape_string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


class LocationAttr(Attribute):
    """Base of location attributes; `inline()` is the text between `loc(` and `)`."""

    __slots__ = ()

    def inline(self, alias_of: dict[str, str] | None = None) -> str:
        raise NotImplementedError

    def children(self) -> tuple[LocationAttr, ...]:
        return ()

    def resolved(self) -> LocationAttr:
        return self

    def __str__(self) -> str:
        return f"loc({self.inline()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LocationAttr) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def key(self) -> str:
        return self.resolved().inline()


def _child(loc: LocationAttr, alias_of: dict[str, str] | None) -> str:
    """A nested location: its alias name when aliases are printed, else its inline text."""
    if alias_of is not None:
        found = alias_of.get(loc.key())
        if found is not None:
            return found
    return loc.inline(alias_of)


class UnknownLoc(LocationAttr):
    __slots__ = ()

    def inline(self, alias_of: dict[str, str] | None = None) -> str:
        return "unknown"


class FileLineColLoc(LocationAttr):
    """`"file":line:col`, or MLIR's FileLineColRange `"file":line:col to :end_col` /
    `to end_line:end_col` (jax's exports carry these), whose end is kept for printing and
    bytecode; a range ending where it starts is the point."""

    __slots__ = ("filename", "line", "col", "end_line", "end_col")

    def __init__(self, filename: str, line: int, col: int, end_line: int | None = None,
                 end_col: int | None = None) -> None:
        self.filename = filename
        self.line = line
        self.col = col
        self.end_line = line if end_line is None else end_line
        self.end_col = col if end_col is None else end_col

    @property
    def is_range(self) -> bool:
        return (self.end_line, self.end_col) != (self.line, self.col)

    def inline(self, alias_of: dict[str, str] | None = None) -> str:
        text = f"{escape_string(self.filename)}:{self.line}:{self.col}"
        if not self.is_range:
            return text
        if self.end_line == self.line:
            return f"{text} to :{self.end_col}"
        return f"{text} to {self.end_line}:{self.end_col}"


class NameLoc(LocationAttr):
    __slots__ = ("name", "child")

    def __init__(self, name: str, child: LocationAttr | None = None) -> None:
        self.name = name
        self.child = child

    def children(self) -> tuple[LocationAttr, ...]:
        child = self.child.resolved() if self.child is not None else None
        return (child,) if child is not None and not isinstance(child, UnknownLoc) else ()

    def inline(self, alias_of: dict[str, str] | None = None) -> str:
        kids = self.children()
        text = escape_string(self.name)
        return text + f"({_child(kids[0], alias_of)})" if kids else text


class CallSiteLoc(LocationAttr):
    __slots__ = ("callee", "caller")

    def __init__(self, callee: LocationAttr, caller: LocationAttr) -> None:
        self.callee = callee
        self.caller = caller

    def children(self) -> tuple[LocationAttr, ...]:
        return (self.callee.resolved(), self.caller.resolved())

    def inline(self, alias_of: dict[str, str] | None = None) -> str:
        callee, caller = self.children()
        return f"callsite({_child(callee, alias_of)} at {_child(caller, alias_of)})"


class FusedLoc(LocationAttr):
    __slots__ = ("locations", "metadata")

    def __init__(self, locations: tuple[LocationAttr, ...],
                 metadata: Attribute | None = None) -> None:
        self.locations = locations
        self.metadata = metadata

    def children(self) -> tuple[LocationAttr, ...]:
        return tuple(loc.resolved() for loc in self.locations)

    def inline(self, alias_of: dict[str, str] | None = None) -> str:
        meta = f"<{self.metadata}>" if self.metadata is not None else ""
        return f"fused{meta}[" + ", ".join(_child(c, alias_of) for c in self.children()) + "]"


class LocAliasRef(LocationAttr):
    """`#locN` inside a location, resolved through the table the parser fills in."""

    __slots__ = ("name", "table")

    def __init__(self, name: str, table: dict[str, LocationAttr]) -> None:
        self.name = name
        self.table = table

    def resolved(self) -> LocationAttr:
        seen = 0
        loc: LocationAttr = self
        while isinstance(loc, LocAliasRef):
            target = loc.table.get(loc.name)
            seen += 1
            if target is None or seen > 64:
                return UnknownLoc()
            loc = target
        return loc

    def children(self) -> tuple[LocationAttr, ...]:
        return self.resolved().children()

    def inline(self, alias_of: dict[str, str] | None = None) -> str:
        return self.resolved().inline(alias_of)


class LocAliases:
    """MLIR's alias assignment for locations: every location reached while printing (ops'
    trailing locations and their nested locations) gets `#loc`, `#loc1`, ... ordered by
    nesting depth, then first visit. Locations reached only through ops are printed after
    the module (deferred); those reached through block arguments before it."""

    def __init__(self) -> None:
        self.order: list[LocationAttr] = []
        self.depth: dict[str, int] = {}
        self.deferrable: dict[str, bool] = {}
        self.names: dict[str, str] = {}

    def visit(self, loc: LocationAttr, deferrable: bool) -> int:
        loc = loc.resolved()
        key = loc.key()
        if key in self.depth:
            if not deferrable and self.deferrable[key]:
                self._undefer(loc)
            return self.depth[key]
        self.order.append(loc)
        self.deferrable[key] = deferrable
        self.depth[key] = 1
        depth = 1
        for child in loc.children():
            depth = max(depth, 1 + self.visit(child, deferrable))
        self.depth[key] = depth
        return depth

    def _undefer(self, loc: LocationAttr) -> None:
        self.deferrable[loc.key()] = False
        for child in loc.children():
            self._undefer(child.resolved())

    def assign(self) -> None:
        ranked = sorted(range(len(self.order)), key=lambda i: self.depth[self.order[i].key()])
        for n, i in enumerate(ranked):
            self.names[self.order[i].key()] = "#loc" if n == 0 else f"#loc{n}"

    def use(self, loc: LocationAttr) -> str:
        return f"loc({self.names.get(loc.key(), loc.inline())})"

    def definitions(self, deferred: bool) -> Iterator[str]:
        ranked = sorted(self.order, key=lambda loc: self.depth[loc.key()])
        for loc in ranked:
            if self.deferrable[loc.key()] == deferred:
                yield f"{self.names[loc.key()]} = loc({loc.inline(self.names)})"
