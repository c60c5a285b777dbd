"""The rewrite machinery every pattern-based pass shares: a rewriter that keeps use lists and
a worklist current, and MLIR's greedy pattern driver on top of it.

The driver follows MLIR's GreedyPatternRewriteDriver (facts from mlir/lib/Transforms/Utils/
GreedyPatternRewriteDriver.cpp and FoldUtils.cpp), because upstream's CHECK lines record the op
order it produces:

- each iteration walks the region (post-order, popped last-first: bottom-up; or pre-order,
  popped first-first: top-down) and fills a worklist, each op queued with its ancestors (so
  an op with regions is queued at its first nested op, and its region's later ops pop before
  it); constants met on the way are uniqued
  per isolated-from-above region and moved to the front of its entry block (a constant not
  already directly after other uniqued constants goes to the very front);
- each popped op is erased when trivially dead, else folded (constants are not folded; a
  folded attribute becomes a new constant right before the op), else the first matching
  pattern (highest benefit first) rewrites it;
- inserted and modified ops, users of replaced values, ancestors of queued ops (within the
  driven region) and defining ops of an erased op's operands with at most one other user are
  queued again;
- iterations repeat while something changed, up to ``max_iterations``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..ir import registry
from ..ir.attributes import Attribute
from ..ir.core import Block, Location, Operation, Region, Value
from ..ir.types import Type
from .effects import constant_value, is_constant_like, is_trivially_dead

PatternFn = Callable[[Operation, "PatternRewriter"], bool]


@dataclass(frozen=True)
class RewritePattern:
    """A rewrite of ops named ``roots`` (empty: any op); higher ``benefit`` is tried first."""

    fn: PatternFn
    roots: tuple[str, ...] = ()
    benefit: int = 1

    @property
    def name(self) -> str:
        return getattr(self.fn, "__name__", "pattern")


def pattern(*roots: str, benefit: int = 1) -> Callable[[PatternFn], RewritePattern]:
    """Decorator turning ``fn(op, rewriter) -> bool`` into a RewritePattern."""

    def wrap(fn: PatternFn) -> RewritePattern:
        return RewritePattern(fn, roots, benefit)

    return wrap


@dataclass
class GreedyConfig:
    """MLIR's GreedyRewriteConfig, the parts that change results."""

    top_down: bool = False
    fold: bool = True
    cse_constants: bool = True
    max_iterations: int = 10  # -1: no limit
    max_num_rewrites: int = -1
    # MLIR's region simplification (its dead-code part): after each iteration's worklist,
    # erase ops whose results are unused and that have no effects; a change counts.
    region_dce: bool = False


class PatternRewriter:
    """Creates, replaces and erases ops while keeping use lists; subclasses hear of every
    change through the ``_notify_*`` hooks."""

    def __init__(self, root: Operation) -> None:
        self.root = root
        self._uses: dict[Value, list[Operation]] = {}
        for op in root.walk():
            for value in op.operands:
                self._uses.setdefault(value, []).append(op)
        self._block: Block | None = None
        self._before: Operation | None = None

    # -- uses ---------------------------------------------------------------------------

    def users(self, value: Value) -> list[Operation]:
        """The ops using `value`, once per use."""
        return self._uses.get(value, [])

    def has_uses(self, value: Value) -> bool:
        return bool(self._uses.get(value))

    def has_one_use(self, value: Value) -> bool:
        return len(self._uses.get(value, ())) == 1

    def _add_uses(self, op: Operation) -> None:
        for nested in op.walk():
            for value in nested.operands:
                self._uses.setdefault(value, []).append(nested)

    def _drop_uses(self, op: Operation) -> None:
        for value in op.operands:
            users = self._uses.get(value)
            if users is not None:
                users.remove(op)

    # -- insertion point ----------------------------------------------------------------

    def set_insertion_point(self, op: Operation) -> None:
        """New ops go right before `op`."""
        self._block, self._before = op.parent, op

    def set_insertion_point_after(self, op: Operation) -> None:
        block = op.parent
        assert block is not None
        index = block.operations.index(op)
        nxt = block.operations[index + 1] if index + 1 < len(block.operations) else None
        self._block, self._before = block, nxt

    def set_insertion_point_to_start(self, block: Block) -> None:
        self._block = block
        self._before = block.operations[0] if block.operations else None

    def set_insertion_point_to_end(self, block: Block) -> None:
        self._block, self._before = block, None

    # -- building -----------------------------------------------------------------------

    def insert(self, op: Operation) -> Operation:
        """Put a built op at the insertion point."""
        block = self._block
        assert block is not None, "no insertion point"
        op.parent = block
        if self._before is None:
            block.operations.append(op)
        else:
            block.operations.insert(block.operations.index(self._before), op)
        self._add_uses(op)
        self._notify_inserted(op)
        return op

    def create(self, name: str, operands: Sequence[Value], result_types: Sequence[Type],
               properties: dict[str, Attribute] | None = None,
               attributes: dict[str, Attribute] | None = None,
               regions: list[Region] | None = None,
               location: Location | None = None) -> Operation:
        """Build op `name` at the insertion point (at the location of the op before which it
        goes unless one is given)."""
        if location is None:
            location = self._before.location if self._before is not None else self.root.location
        op = Operation(name, list(operands), list(result_types), dict(properties or {}),
                       dict(attributes or {}), regions, location=location,
                       opdef=registry.lookup(name))
        return self.insert(op)

    def constant(self, value: Attribute, type: Type, dialect: str = "stablehlo",
                 location: Location | None = None) -> Value:
        """A constant holding `value` at the insertion point (the dialect's materializer)."""
        op = materialize_constant(dialect, value, type, location or UNKNOWN)
        if op is None:
            raise ValueError(f"dialect {dialect} cannot materialize {value} as {type}")
        return self.insert(op).results[0]

    # -- changing -----------------------------------------------------------------------

    def set_operands(self, op: Operation, operands: Sequence[Value]) -> None:
        self._drop_uses(op)
        op.operands = list(operands)
        for value in op.operands:
            self._uses.setdefault(value, []).append(op)
        self._notify_modified(op)

    def modified(self, op: Operation) -> None:
        """Say that `op`'s attributes (or regions) were changed in place."""
        self._notify_modified(op)

    def replace_all_uses_with(self, old: Value, new: Value) -> None:
        if old is new:
            return
        users = self._uses.pop(old, [])
        for user in dict.fromkeys(users):
            user.operands = [new if v is old else v for v in user.operands]
        self._uses.setdefault(new, []).extend(users)
        for user in dict.fromkeys(users):
            self._notify_modified(user)

    def replace_op(self, op: Operation, values: Sequence[Value]) -> None:
        """Replace every result of `op` by `values`, then erase `op`."""
        assert len(values) == len(op.results), f"{op.name}: wrong replacement count"
        for old, new in zip(op.results, values, strict=True):
            self.replace_all_uses_with(old, new)
        self.erase_op(op)

    def replace_op_with(self, op: Operation, name: str, operands: Sequence[Value],
                        properties: dict[str, Attribute] | None = None,
                        attributes: dict[str, Attribute] | None = None) -> Operation:
        """Replace `op` by a new op `name` with the same result types and location."""
        self.set_insertion_point(op)
        new = self.create(name, operands, op.result_types, properties, attributes,
                          location=op.location)
        self.replace_op(op, new.results)
        return new

    def erase_op(self, op: Operation) -> None:
        """Remove `op` (and what it holds); its results must be unused."""
        self._notify_erased(op)
        for nested in reversed(list(op.walk())):
            self._drop_uses(nested)
            for result in nested.results:
                self._uses.pop(result, None)
        block = op.parent
        if block is not None:
            block.operations.remove(op)
        op.parent = None

    def inline_block_before(self, block: Block, anchor: Operation) -> None:
        """Move every op of `block` (block arguments must be unused) right before `anchor`;
        each moved op counts as inserted there (MLIR's inlineBlockBefore)."""
        target = anchor.parent
        assert target is not None
        moved = list(block.operations)
        block.operations.clear()
        at = target.operations.index(anchor)
        target.operations[at:at] = moved
        for op in moved:
            op.parent = target
        for op in moved:
            self._notify_inserted(op)

    def move_before(self, op: Operation, anchor: Operation) -> None:
        block = op.parent
        assert block is not None and anchor.parent is not None
        block.operations.remove(op)
        target = anchor.parent
        target.operations.insert(target.operations.index(anchor), op)
        op.parent = target

    # -- notifications (the greedy driver queues work from these) -------------------------

    def _notify_inserted(self, op: Operation) -> None:
        pass

    def _notify_modified(self, op: Operation) -> None:
        pass

    def _notify_erased(self, op: Operation) -> None:
        pass


UNKNOWN = Location("<unknown>", 0, 0)


def materialize_constant(dialect: str, value: Attribute, type: Type,
                         location: Location) -> Operation | None:
    """A new (not inserted) constant op of `dialect` holding `value`, else None."""
    materializer = registry.CONSTANT_MATERIALIZERS.get(dialect)
    if materializer is None:
        registry.ensure_loaded()
        materializer = registry.CONSTANT_MATERIALIZERS.get(dialect)
    return materializer(value, type, location) if materializer is not None else None


def constant_operands(op: Operation) -> list[Any]:
    """Per operand, the attribute of its defining constant op, else None (m_Constant)."""
    out: list[Any] = []
    for value in op.operands:
        owner = value.owner
        out.append(constant_value(owner) if isinstance(owner, Operation) else None)
    return out


def fold_op(op: Operation) -> list[Value | Attribute] | None:
    """The op's registered folder's replacements for its results; [] = folded in place."""
    opdef = op.opdef
    if opdef is None or opdef.fold is None:
        return None
    result = opdef.fold(op, constant_operands(op))
    if result is None:
        return None
    if not isinstance(result, list | tuple):
        result = [result]
    if len(result) == 1 and op.results and result[0] is op.results[0]:
        return []
    return list(result)


@dataclass
class _Worklist:
    """MLIR's worklist: push ignores ops already queued; removed ops leave a hole."""

    items: list[Operation | None] = field(default_factory=list)
    index: dict[Operation, int] = field(default_factory=dict)

    def push(self, op: Operation) -> None:
        if op not in self.index:
            self.index[op] = len(self.items)
            self.items.append(op)

    def pop(self) -> Operation | None:
        op = self.items.pop()
        if op is not None:
            del self.index[op]
        return op

    def remove(self, op: Operation) -> None:
        at = self.index.pop(op, None)
        if at is not None:
            self.items[at] = None

    def reverse(self) -> None:
        self.items.reverse()
        self.index = {op: i for i, op in enumerate(self.items) if op is not None}

    def __bool__(self) -> bool:
        return bool(self.items)


class GreedyDriver(PatternRewriter):
    """Applies patterns and folders to every op under ``root`` until nothing changes."""

    def __init__(self, root: Operation, patterns: Iterable[RewritePattern],
                 config: GreedyConfig | None = None, canonicalize: bool = False,
                 disabled: frozenset[str] = frozenset(),
                 enabled: frozenset[str] | None = None) -> None:
        super().__init__(root)
        self.config = config or GreedyConfig()
        self.worklist = _Worklist()
        self.by_root: dict[str, list[RewritePattern]] = {}
        self.any_root: list[RewritePattern] = []
        for p in patterns:
            if p.name in disabled or (enabled is not None and p.name not in enabled):
                continue
            if p.roots:
                for name in p.roots:
                    self.by_root.setdefault(name, []).append(p)
            else:
                self.any_root.append(p)
        self.canonicalize = canonicalize
        self.disabled, self.enabled = disabled, enabled
        # The constant folder's state: per insertion region, (dialect, value, type) -> op.
        self.constants: dict[Region, dict[tuple[str, Attribute, Type], Operation]] = {}
        self.owned: dict[Operation, tuple[Region, tuple[str, Attribute, Type]]] = {}
        self.num_rewrites = 0
        self.iterations = 0

    # -- the driver loop --------------------------------------------------------------------

    def run(self) -> bool:
        """Rewrite until a fixed point; True when one was reached within the limits."""
        regions = self.root.regions
        changed = True
        while changed:
            limit = self.config.max_iterations
            if limit != -1 and self.iterations >= limit:
                return False
            self.iterations += 1
            self.worklist = _Worklist()
            ops = [op for region in regions for block in region.blocks
                   for top in list(block.operations) for op in _walk(top, self.config.top_down)]
            for op in ops:
                if op.parent is None:
                    continue  # merged into an earlier constant during this walk
                if self.config.cse_constants and is_constant_like(op):
                    if not self._insert_known_constant(op):
                        continue
                self._queue(op)  # with its ancestors, as MLIR's addToWorklist
            if self.config.top_down:
                self.worklist.reverse()
            changed = self._process_worklist()
            if self.config.region_dce:
                changed = self._erase_dead_ops() or changed
        return True

    def _erase_dead_ops(self) -> bool:
        """Erase dead ops under the root, users before producers, until none is left."""
        erased = False

        def sweep(block: Block) -> bool:
            found = False
            for op in reversed(list(block.operations)):
                if is_trivially_dead(op, any(self.has_uses(r) for r in op.results)):
                    self.erase_op(op)
                    found = True
                    continue
                for region in op.regions:
                    for inner in region.blocks:
                        found = sweep(inner) or found
            return found

        while any([sweep(b) for region in self.root.regions for b in region.blocks]):
            erased = True
        return erased

    def _process_worklist(self) -> bool:
        changed = False
        limit = self.config.max_num_rewrites
        self.num_rewrites = 0  # the limit is per iteration
        while self.worklist:
            if limit != -1 and self.num_rewrites >= limit:
                break
            op = self.worklist.pop()
            if op is None or op.parent is None:
                continue
            if is_trivially_dead(op, any(self.has_uses(r) for r in op.results)):
                self.erase_op(op)
                changed = True
                continue
            if self.config.fold and not is_constant_like(op) and self._fold(op):
                changed = True
                continue
            if self._apply_patterns(op):
                self.num_rewrites += 1
                changed = True
        return changed

    def _fold(self, op: Operation) -> bool:
        try:
            results = fold_op(op)
        except (ValueError, ArithmeticError, TypeError, IndexError):
            return False  # a folder that cannot handle this input leaves the op alone
        if results is None:
            return False
        if not results:
            self._notify_modified(op)
            return True
        self.set_insertion_point(op)
        replacements: list[Value] = []
        created: list[Operation] = []
        for result, item in zip(op.results, results, strict=True):
            if isinstance(item, Value):
                replacements.append(item)
                continue
            constant = materialize_constant(op.dialect, item, result.type, op.location)
            if constant is None:
                for made in created:
                    self.erase_op(made)
                return False
            created.append(self.insert(constant))
            replacements.append(constant.results[0])
        self.replace_op(op, replacements)
        return True

    def _patterns_for(self, op: Operation) -> list[RewritePattern]:
        found = list(self.by_root.get(op.name, ()))
        if self.canonicalize and op.opdef is not None:
            found += [RewritePattern(fn, (op.name,)) for fn in op.opdef.canonicalizations
                      if fn.__name__ not in self.disabled
                      and (self.enabled is None or fn.__name__ in self.enabled)]
        found += self.any_root
        found.sort(key=lambda p: -p.benefit)  # stable: declaration order among equals
        return found

    def _apply_patterns(self, op: Operation) -> bool:
        for p in self._patterns_for(op):
            self.set_insertion_point(op)
            if p.fn(op, self):
                return True
        return False

    # -- constant uniquing (MLIR's OperationFolder) -------------------------------------------

    def _insert_known_constant(self, op: Operation) -> bool:
        """Unique `op` in its insertion region and hoist it; False when it was replaced by
        an equal constant (and erased)."""
        block = op.parent
        assert block is not None
        if op in self.owned:
            first = block.operations[0]
            if first is not op and _previous(op) not in self.owned:
                self.move_before(op, first)
            return True
        value = constant_value(op)
        if value is None:
            return True
        region = _insertion_region(block)
        key = (op.dialect, value, op.results[0].type)
        uniqued = self.constants.setdefault(region, {})
        existing = uniqued.get(key)
        if existing is not None and existing is not op:
            self.replace_op(op, existing.results)
            return False
        entry = region.blocks[0]
        if block is not entry or (entry.operations[0] is not op
                                  and _previous(op) not in self.owned):
            self.move_before(op, entry.operations[0])
        uniqued[key] = op
        self.owned[op] = (region, key)
        return True

    # -- notifications -----------------------------------------------------------------------

    def _queue(self, op: Operation) -> None:
        """Queue `op` and its ancestors inside the driven region."""
        chain = []
        current: Operation | None = op
        while current is not None and current is not self.root:
            chain.append(current)
            current = current.parent_op
        if current is None:
            return  # not under the root (already detached)
        for item in chain:
            self.worklist.push(item)

    def _notify_inserted(self, op: Operation) -> None:
        self._queue(op)

    def _notify_modified(self, op: Operation) -> None:
        self._queue(op)

    def _notify_erased(self, op: Operation) -> None:
        for value in op.operands:
            owner = value.owner
            if not isinstance(owner, Operation):
                continue
            others = {id(u) for u in self.users(value) if u is not op}
            if len(others) <= 1:
                self._queue(owner)
        for nested in op.walk():
            self.worklist.remove(nested)
            owned = self.owned.pop(nested, None)
            if owned is not None:
                region, key = owned
                self.constants.get(region, {}).pop(key, None)


def _walk(op: Operation, pre_order: bool) -> list[Operation]:
    """`op` and its nested ops, pre-order or post-order."""
    out: list[Operation] = []

    def visit(current: Operation) -> None:
        if pre_order:
            out.append(current)
        for region in current.regions:
            for block in region.blocks:
                for inner in list(block.operations):
                    visit(inner)
        if not pre_order:
            out.append(current)

    visit(op)
    return out


def _previous(op: Operation) -> Operation | None:
    block = op.parent
    assert block is not None
    index = block.operations.index(op)
    return block.operations[index - 1] if index else None


def _insertion_region(block: Block) -> Region:
    """The region constants of `block` are hoisted to: that of the nearest op isolated from
    above (a function body), as MLIR's OperationFolder does."""
    region = block.parent
    assert region is not None
    while True:
        owner = region.parent
        if owner is None or (owner.opdef is not None and owner.opdef.isolated):
            return region
        outer = owner.parent
        if outer is None or outer.parent is None:
            return region
        region = outer.parent


def apply_patterns_greedily(root: Operation, patterns: Iterable[RewritePattern] = (),
                            config: GreedyConfig | None = None, *,
                            canonicalize: bool = False,
                            disabled: frozenset[str] = frozenset(),
                            enabled: frozenset[str] | None = None) -> bool:
    """Rewrite the ops nested in `root` (not `root` itself) with `patterns` (and, with
    `canonicalize`, every op's declared canonicalization patterns) plus folding, until a
    fixed point; True when it converged within ``config.max_iterations``."""
    driver = GreedyDriver(root, patterns, config, canonicalize, disabled, enabled)
    return driver.run()
