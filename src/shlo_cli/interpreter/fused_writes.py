"""An owned vector's element written straight from the expression that computes it.

A scan's per-step output `y = h * w` is, in a generated loop, an f32 line rounding the
double result to f32 (a store into the 0-d f32 cell and a load: pyscalar.py) and an item
assignment of `y` into the loop's own f32 stack (scalar_writes.owned_write), which rounds
it again by the same C cast, where it changes nothing. When nothing else reads `y`, the
item assignment takes the expression itself: the same bits, one store and one load fewer
per step. Only in a counted loop's copy for runs with no checks whose NaN tests are
deferred to its end (loopgen.py): there the line has no NaN redo anyway, and a NaN written
is found by the stack's test at the end (`_HASNAN`), which runs the steps again with their
redos. Only Python-scalar lines are moved to their write (the last lines of the step):
they cannot fail.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

_ROUNDED = re.compile(r"_cell\[\(\)\] = (?P<expr>.+); (?P<name>\w+) = _cell\[\(\)\]")
_WRITE = re.compile(r"(?P<target>\w+_m\[.+\]) = (?P<name>\w+)")

Line = tuple[str, Any]


def fuse_writes(lines: Sequence[tuple[int, Line]], writes: Sequence[Line],
                scalar: Collection[int], read_after: Collection[str]
                ) -> tuple[list[tuple[int, Line]], list[Line]]:
    """`lines` (by their index in the step) and the owned vectors' element `writes` (run
    after them) with each write of a rounded f32 value that no other line and nothing
    `read_after` reads taking that value's expression (the value's line dropped): only
    values of `scalar` lines (by index)."""
    words = [set(re.findall(r"\w+", text)) for _, (text, _) in lines]
    words += [set(re.findall(r"\w+", text)) for text, _ in writes]
    kept = list(lines)
    fused = list(writes)
    for w, (text, s) in enumerate(writes):
        write = _WRITE.fullmatch(text)
        if write is None:
            continue
        name = write["name"]
        where = [j for j, (k, (line, _)) in enumerate(kept)
                 if k in scalar and (m := _ROUNDED.fullmatch(line)) and m["name"] == name]
        readers = sum(name in found for found in words)
        if len(where) != 1 or name in read_after or readers != 2:  # (its line, its write)
            continue
        j = where[0]
        expr = _ROUNDED.fullmatch(kept[j][1][0])["expr"]  # type: ignore[index]
        fused[w] = (f"{write['target']} = {expr}", s)
        del kept[j]
    return kept, fused
