"""A select of two values computed on Python scalars that computes only the one it picks
(loopgen.py, on a loop body's lines).

`lax.cond` in a scalar step exports as a select of both branches' results (or becomes one:
ifconvert.py), so both branches' ops run every step and one result is dropped. In a
generated loop the step's Python-scalar lines (pyscalar.py) are pure: they read and define
local names (the `_cell` rounding buffer aside, set and read within one line), raise
nothing, and may run twice (a NaN redo) or not at all. The lines whose names only one side
of a select reads (directly or through other such lines) move inside `if p: ... else:
...` at the select, so a step runs only the side it keeps. What the loop computes is
unchanged: the moved lines define names nothing else reads, and run after the names they
read are set, which no later line sets again (a block defines each name once, but a NaN
redo, which is part of the same side).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Sequence
from typing import Any

Line = tuple[str, Any]


class Lines:
    """A block's lines with the indices of its Python-scalar lines, its NaN redos and its
    owned-vector writes (codegen.BlockCode's `scalar`, `fixes`, `stores`)."""

    __slots__ = ("lines", "scalar", "fixes", "stores")

    def __init__(self, lines: Sequence[Line], scalar: Collection[int], fixes: Collection[int],
                 stores: Collection[int]) -> None:
        self.lines = list(lines)
        self.scalar = set(scalar)
        self.fixes = set(fixes)
        self.stores = set(stores)


def lazy_selects(block: Lines, exported: Collection[str]) -> Lines:
    """`block` with each select line `t = b if p else c` (a Python-scalar line) preceded
    by `if p:` and the lines only `b` needs, then `else:` and those only `c` needs;
    `exported` names are read after the block. Unchanged when a line is no plain
    statement or no select has a side to move."""
    defines: list[set[str]] = []
    reads: list[set[str]] = []
    for text, _ in block.lines:
        try:
            tree = ast.parse(text)
        except SyntaxError:  # (an indented or compound line: left as it is)
            return block
        found = [n for n in ast.walk(tree) if isinstance(n, ast.Name)]
        defines.append({n.id for n in found if isinstance(n.ctx, ast.Store)})
        reads.append({n.id for n in found if not isinstance(n.ctx, ast.Store)})
    defined_at: dict[str, list[int]] = {}
    readers: dict[str, set[int]] = {}
    for k, names in enumerate(defines):
        for name in names:
            defined_at.setdefault(name, []).append(k)
    for k, names in enumerate(reads):
        for name in names:
            readers.setdefault(name, set()).add(k)
    taken: set[int] = set()
    chosen: dict[int, tuple[str, str, str, str, list[int], list[int]]] = {}
    for k in sorted(block.scalar, reverse=True):  # (an outer select first)
        pick = _select(block.lines[k][0])
        if pick is None or k in taken:
            continue
        t, p, b, c = pick
        sides = [_side(v, k, p, block, defined_at, readers, defines, reads, exported)
                 for v in (b, c)] if b != c else [set(), set()]
        if not any(sides) or any(side & taken for side in sides):
            continue
        taken.update(*sides)
        chosen[k] = (t, p, b, c, sorted(sides[0]), sorted(sides[1]))
    if not chosen:
        return block
    out = Lines([], (), (), ())
    for k, line in enumerate(block.lines):
        if k in taken:
            continue
        if k not in chosen:
            _keep(out, block, k, "", line)
            continue
        t, p, b, c, then, other = chosen[k]
        for head, side, value in ((f"if {p}:", then, b), ("else:", other, c)):
            _keep(out, block, k, "", (head, line[1]))
            inner = lazy_selects(_part(block, side), {value})  # (a select on this side)
            for j in range(len(inner.lines)):
                _keep(out, inner, j, "    ", inner.lines[j])
            _keep(out, block, k, "    ", (f"{t} = {value}", line[1]))
    return out


def _part(block: Lines, picked: Sequence[int]) -> Lines:
    """The lines `picked` of `block`, with their kinds."""
    return Lines([block.lines[j] for j in picked],
                 *[[n for n, j in enumerate(picked) if j in kind]
                   for kind in (block.scalar, block.fixes, block.stores)])


def _keep(out: Lines, block: Lines, k: int, indent: str, line: Line) -> None:
    """Appends `line` indented by `indent`, of the kinds of line `k` of `block` (the
    select's, for the lines that replace it: a Python-scalar line)."""
    at = len(out.lines)
    out.lines.append((indent + line[0], line[1]))
    for source, target in ((block.scalar, out.scalar), (block.fixes, out.fixes),
                           (block.stores, out.stores)):
        if k in source:
            target.add(at)


_SELECT = re.compile(r"(\w+) = (\w+) if (\w+) else (\w+)")


def _select(text: str) -> tuple[str, str, str, str] | None:
    """(target, predicate, picked when true, picked when false) of a select line."""
    m = _SELECT.fullmatch(text)
    return None if m is None else (m[1], m[3], m[2], m[4])


def _side(value: str, k: int, predicate: str, block: Lines, defined_at: dict[str, list[int]],
          readers: dict[str, set[int]], defines: list[set[str]], reads: list[set[str]],
          exported: Collection[str]) -> set[int]:
    """The Python-scalar lines before line `k` that only `value`'s side of select `k` needs:
    those computing it and what only they read, none computing the predicate, none whose
    names anything else reads."""
    side: set[int] = set()
    todo = [value]
    while todo:
        for j in defined_at.get(todo.pop(), ()):
            if j < k and j not in side and j in block.scalar and j not in block.stores:
                side.add(j)
                todo.extend(n for n in reads[j] if n in defined_at)
    side -= set(defined_at.get(predicate, ()))
    while True:  # (drop the lines some line outside reads, until none is left)
        outside = {j for j in side for name in defines[j]  # (the select reads `value` only)
                   if name in exported or not readers.get(name, set()) <= (
                       side | {k} if name == value else side)}
        if not outside:
            return side
        side -= outside
