"""The rest of a counted loop's condition: its test of other values, made after each step.

`lax.while_loop(lambda s: (s[0] < n) & (abs(s[1]) < 100), ...)` bounds its counter as a
fori_loop's condition does, and adds a test of other carried values (an early exit). Such
a loop is counted like a fori_loop (loopgen.py: a `for` statement over the counter's
values) and tests only the other conjuncts after each step, leaving with the counter one
step on when they fail. That is the condition's own verdict: the conjuncts that read the
counter are comparisons with constants, all true exactly while the counter is within the
bound they make (ranges.cond_bounds); it grows by a constant step from an entry value
inside that bound and cannot wrap before leaving it (ranges.entry_facts), so after a step
they hold exactly when the `for` statement has a next value. When they fail the loop
leaves whatever the rest says; when they hold, the rest decides, and it reads no counter
(a test that does is not split: the loop stays a `while`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..ir.core import Value
from .codegen import region_reads
from .ranges import compare_bound, conjuncts

# Ops the rest may leave out (the counter's comparisons and their glue): they cannot fail.
_DROPPABLE = frozenset("stablehlo." + name for name in (
    "constant compare and convert broadcast_in_dim reshape").split())


def rest_of_condition(arguments: Sequence[Value], steps: Sequence[Any], returned: Value,
                      counters: Collection[int]) -> tuple[list[Any], list[Value]] | None:
    """The steps computing the condition's conjuncts other than the comparisons bounding
    the counter (carried at the indices `counters`, the copies of one counter), and those
    conjuncts (none: the condition only bounds it); None when another conjunct reads the
    counter or a step the rest does not need is not one that cannot fail (it must
    still run)."""
    producer = {s.op.results[0]: s for s in steps if len(s.op.results) == 1}
    rest: list[Value] = []
    for value in conjuncts(returned, producer):
        bound = compare_bound(arguments, value, producer)
        if bound is None or bound[0] not in counters:
            rest.append(value)
    needed = set(rest)
    kept: list[Any] = []
    for step in reversed(steps):
        op = step.op
        if needed.isdisjoint(op.results):
            if op.name not in _DROPPABLE or op.regions:
                return None
            continue
        kept.append(step)
        needed.update(op.operands)
        needed.update(region_reads([op]))
    if any(arguments[k] in needed for k in counters):
        return None
    return kept[::-1], list(dict.fromkeys(rest))
