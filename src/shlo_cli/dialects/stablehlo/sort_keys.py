"""Sort comparators that compare one key derived from one operand (jax's float sort).

jax sorts floats with a comparator that first canonicalizes both sides (-0 -> 0, any NaN ->
one NaN) and then compares with `compare LT, TOTALORDER`. Such a comparator is
`compare(f(lhs), g(rhs))` where `f` reads only the lhs arguments of one operand pair and `g`
only the rhs ones. We evaluate `f` and `g` once on whole arrays (a copy of the comparator
region returning the two compare operands) and, when `f(x) == g(x)` bit for bit on the actual
data, every comparison the sort could make equals `compare(key[a], key[b])` with
`key = f(x)`: one stable argsort of the key replaces the comparator-driven merge sort.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...ir.clone import clone_region
from ...ir.core import Block, Operation, Region, Value

_RETURNS = frozenset({"stablehlo.return", "func.return"})


@dataclass
class KeyComparator:
    """A comparator region rewritten to return `(f(lhs), g(rhs))` for operand pair `pair`."""

    region: Region
    pair: int
    descending: bool
    kind: str


def _arg_deps(value: Value, block: Block, memo: dict[int, frozenset[int] | None]
              ) -> frozenset[int] | None:
    """Indices of the block arguments `value` depends on; None if it depends on an op of
    this block that has regions. A value the block reads from outside (jax.export defines
    the comparator's 0.0 and NaN at the top of `main`) is the same in every comparison:
    it depends on none."""
    key = id(value)
    if key in memo:
        return memo[key]
    owner = value.owner
    result: frozenset[int] | None
    if owner is block:
        result = frozenset({value.index})
    elif isinstance(owner, Operation) and owner.parent is block and not owner.regions:
        deps: set[int] = set()
        result = frozenset()
        for operand in owner.operands:
            sub = _arg_deps(operand, block, memo)
            if sub is None:
                result = None
                break
            deps |= sub
        if result is not None:
            result = frozenset(deps)
    elif isinstance(owner, Operation) and owner.parent is block:
        result = None
    else:
        result = frozenset()
    memo[key] = result
    return result


def key_comparator(region: Region, count: int) -> KeyComparator | None:
    """The key form of the comparator, or None when it is not `compare(f(lhs), g(rhs))`."""
    if len(region.blocks) != 1:
        return None
    block = region.entry
    ops = block.operations
    if len(block.arguments) != 2 * count or not ops or ops[-1].name not in _RETURNS:
        return None
    if len(ops[-1].operands) != 1:
        return None
    compare = ops[-1].operands[0].owner
    if not isinstance(compare, Operation) or compare.name != "stablehlo.compare":
        return None
    direction = compare.attr("comparison_direction")
    if direction is None or direction.value not in ("LT", "GT") or len(compare.operands) != 2:
        return None
    memo: dict[int, frozenset[int] | None] = {}
    left = _arg_deps(compare.operands[0], block, memo)
    right = _arg_deps(compare.operands[1], block, memo)
    if not left or not right or len(left) != 1 or len(right) != 1:
        return None
    (a,), (b,) = left, right
    if a // 2 != b // 2 or a == b:
        return None
    descending = direction.value == "GT"
    if a % 2 == 1:  # compare(g(rhs), f(lhs)): the order flips
        descending = not descending
    mapping: dict[Value, Value] = {}
    copy = clone_region(region, mapping)
    ret = copy.entry.operations[-1]
    ret.operands = [mapping[compare.operands[0]], mapping[compare.operands[1]]]
    kind = compare.attr("compare_type")
    return KeyComparator(copy, a // 2, descending, kind.value if kind is not None else "")


def comparator_key(spec: KeyComparator, run: Callable[..., Any],
                   flat: list[np.ndarray]) -> np.ndarray | None:
    """The key array (shape of `flat[spec.pair]`), or None when `f` and `g` disagree on the
    data or the region does not run on whole arrays."""
    from ...ir.diagnostics import Diagnostic

    args: list[np.ndarray] = []
    for x in flat:
        args += [x, x]
    try:
        f, g = run(*args)
    except Diagnostic:
        return None
    shape = flat[spec.pair].shape
    f = np.ascontiguousarray(np.broadcast_to(f, shape))
    g = np.ascontiguousarray(np.broadcast_to(g, shape))
    if f.dtype != g.dtype or f.tobytes() != g.tobytes():
        return None
    return f


# ---- lexicographic comparators (jnp.lexsort, sorts on several keys) --------------------------


@dataclass
class LexComparator:
    """A comparator `lt_1 or (eq_1 and (lt_2 or (eq_2 and ... lt_m)))`: `region` is rewritten
    to return `(f_1(lhs), g_1(rhs), ..., f_m(lhs), g_m(rhs))`, the operands of the `lt_i`;
    per level, whether it sorts descending and its compare type."""

    region: Region
    levels: list[tuple[bool, str]]


def _compare(value: Value, directions: tuple[str, ...]) -> Operation | None:
    owner = value.owner
    if (isinstance(owner, Operation) and owner.name == "stablehlo.compare"
            and len(owner.operands) == 2):
        direction = owner.attr("comparison_direction")
        if direction is not None and direction.value in directions:
            return owner
    return None


def _binary(value: Value, name: str) -> list[tuple[Value, Value]]:
    """Both orders of the operands of `value`'s producer when that is `name`."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == name and len(owner.operands) == 2:
        a, b = owner.operands
        return [(a, b), (b, a)]
    return []


def _kind(op: Operation) -> str:
    kind = op.attr("compare_type")
    return kind.value if kind is not None else ""


def _lex_chain(value: Value) -> list[Operation] | None:
    """The strict compares `lt_1 ... lt_m` of a lexicographic chain ending in `value`; each
    `eq_i` compares the same two values with EQ and the same compare type as `lt_i`."""
    last = _compare(value, ("LT", "GT"))
    if last is not None:
        return [last]
    for strict_value, rest in _binary(value, "stablehlo.or"):
        strict = _compare(strict_value, ("LT", "GT"))
        if strict is None:
            continue
        for eq_value, tail in _binary(rest, "stablehlo.and"):
            eq = _compare(eq_value, ("EQ",))
            if (eq is None or _kind(eq) != _kind(strict)
                    or {id(v) for v in eq.operands} != {id(v) for v in strict.operands}):
                continue
            chain = _lex_chain(tail)
            if chain is not None:
                return [strict, *chain]
    return None


def lex_comparator(region: Region, count: int) -> LexComparator | None:
    """The lexicographic form of the comparator (at least two levels), or None."""
    if len(region.blocks) != 1:
        return None
    block = region.entry
    ops = block.operations
    if (len(block.arguments) != 2 * count or not ops or ops[-1].name not in _RETURNS
            or len(ops[-1].operands) != 1):
        return None
    chain = _lex_chain(ops[-1].operands[0])
    if chain is None or len(chain) < 2:
        return None
    memo: dict[int, frozenset[int] | None] = {}
    levels: list[tuple[bool, str]] = []
    for strict in chain:
        left = _arg_deps(strict.operands[0], block, memo)
        right = _arg_deps(strict.operands[1], block, memo)
        if not left or not right or len(left) != 1 or len(right) != 1:
            return None
        (a,), (b,) = left, right
        if a // 2 != b // 2 or a == b:
            return None
        descending = strict.attr("comparison_direction").value == "GT"  # type: ignore[union-attr]
        levels.append((descending != (a % 2 == 1), _kind(strict)))
    mapping: dict[Value, Value] = {}
    copy = clone_region(region, mapping)
    ret = copy.entry.operations[-1]
    ret.operands = [mapping[v] for strict in chain for v in strict.operands]
    return LexComparator(copy, levels)


def lex_keys(spec: LexComparator, run: Callable[..., Any],
             flat: list[np.ndarray]) -> list[np.ndarray] | None:
    """Each level's key array (the row shape), in the region's lhs-first orientation, or
    None when a level's `f` and `g` disagree on the data or the region needs scalars. (The
    caller orders the levels: a level whose lhs is the compare's second operand flips.)"""
    from ...ir.diagnostics import Diagnostic

    args: list[np.ndarray] = []
    for x in flat:
        args += [x, x]
    try:
        out = run(*args)
    except Diagnostic:
        return None
    shape = flat[0].shape
    keys = []
    for i in range(len(spec.levels)):
        f = np.ascontiguousarray(np.broadcast_to(out[2 * i], shape))
        g = np.ascontiguousarray(np.broadcast_to(out[2 * i + 1], shape))
        if f.dtype != g.dtype or f.tobytes() != g.tobytes():
            return None
        keys.append(f)
    return keys
