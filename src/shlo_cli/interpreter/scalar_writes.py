"""A scan's per-step output written from a Python scalar (codegen.py's scalar mode).

`ys = ys.at[t].set(h)` exports as a broadcast (or reshape) of the 0-d `h` to a one-element
vector and a dynamic_update_slice of it into the carried stack (in a scan), or as a
scatter of `h` at `t` broadcast to a one-element index vector (in a fori_loop). In a
generated loop where `h` and `t` are Python scalars, that was conversions to numpy
scalars, a one-element array and the update kernel: a microsecond or more per step, more
than the whole scalar step. Here the pair is one call of the update kernel's
`write_element` (specialize_dynamic_slice.py, specialize_scatter.py), which assigns the
Python scalar to the element in place: numpy's item assignment casts it as the conversion
back to a numpy scalar would, so only values pyscalar.py may convert back (clean ones) are
written so.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..ir.core import Value
from .pyscalar import kind_of

_MAKERS = frozenset(("stablehlo.broadcast_in_dim", "stablehlo.reshape"))


class Write:
    """One element write: the step making a one-element vector (skipped), the 0-d value
    written and the 0-d integer index, both taken as Python scalars."""

    __slots__ = ("maker", "value", "index")

    def __init__(self, maker: int, value: Value, index: Value) -> None:
        self.maker = maker
        self.value = value
        self.index = index


def element_writes(steps: Sequence[Any], kept: Collection[Value], skipped: Collection[int]
                   ) -> dict[int, Write]:
    """Update step -> its Write, for each one-element update of a vector whose kernel writes
    an element from a Python scalar (`in_place.write_element`): a dynamic_update_slice of a
    0-d value broadcast (or reshaped) to one element (`ys.at[t].set(h)` in a scan), or a
    scatter of a 0-d value at a 0-d index so made (the same in a fori_loop). The made vector
    must have no other use; `kept` values (read after the block or by nested regions) and
    `skipped` steps are left alone."""
    uses: dict[Value, int] = {}
    for step in steps:
        for v in step.op.operands:
            uses[v] = uses.get(v, 0) + 1
    producer = {step.op.results[0]: i for i, step in enumerate(steps)
                if len(step.op.results) == 1 and step.op.name in _MAKERS
                and len(step.op.operands) == 1 and kind_of(step.op.operands[0]) is not None}
    writes: dict[int, Write] = {}
    for j, step in enumerate(steps):
        write = getattr(getattr(step.fn, "in_place", None), "write_element", None)
        if write is None or len(step.op.operands) != 3 or j in skipped:
            continue
        scatter = step.op.name == "stablehlo.scatter"
        made = step.op.operands[1]  # (the update, or a scatter's index vector)
        i = producer.get(made)
        if i is None or i in skipped or uses[made] != 1 or made in kept:
            continue
        inner = steps[i].op.operands[0]
        value, index = (step.op.operands[2], inner) if scatter else (inner, step.op.operands[2])
        if kind_of(value) is not None and kind_of(index) is not None:
            writes[j] = Write(i, value, index)
    return writes
