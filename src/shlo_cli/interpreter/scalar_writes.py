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

A loop may also own such a stack (`owned_stacks`): carried, read by nothing but its one
element write each step, passed on to the next step and nowhere else. loopgen.py then
copies it once when the loop starts and each write is an item assignment into the copy
(`owned_write`): the kernel's checks (class, shape, references) hold by construction.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from ..ir.core import Value
from ..ir.types import TensorType
from .pyscalar import HELD, kind_of

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
        kind = kind_of(value)  # (bf16: ml_dtypes' item assignment drops a NaN's payload)
        if kind is not None and kind.dtype.name != "bfloat16" and kind_of(index) is not None:
            writes[j] = Write(i, value, index)
    return writes


def owned_stacks(cond_arguments: Sequence[Value], cond_steps: Sequence[Any],
                 body_arguments: Sequence[Value], body_steps: Sequence[Any],
                 terminator: Sequence[Value], captured: Collection[Value]) -> set[int]:
    """The carried vectors (indices) a loop may own: static 1-d arrays that the
    condition does not read, that the body reads only as the updated operand of one step
    whose kernel has a `write_element`, and whose updated value goes only to the same
    place of the terminator. No nested region (`captured`) reads either."""
    reads: dict[Value, list[int]] = {}
    for i, step in enumerate(body_steps):
        for v in step.op.operands:
            reads.setdefault(v, []).append(i)
    cond_reads = {v for step in cond_steps for v in step.op.operands}
    owned = set()
    for k, (c, a) in enumerate(zip(cond_arguments, body_arguments, strict=True)):
        t = a.type
        if (not isinstance(t, TensorType) or not t.is_static or len(t.shape) != 1
                or c in cond_reads or c in captured or a in captured
                or len(reads.get(a, ())) != 1 or terminator.count(terminator[k]) != 1):
            continue
        step = body_steps[reads[a][0]]
        if (step.op.operands[0] is a and step.op.operands.count(a) == 1
                and len(step.op.results) == 1 and step.op.results[0] is terminator[k]
                and terminator[k] not in reads and terminator[k] not in captured
                and hasattr(getattr(step.fn, "in_place", None), "write_element")):
            owned.add(k)
    return owned


def item_view(x: np.ndarray) -> Any:
    """What an owned vector's element writes assign into: a memoryview of its buffer for
    the dtypes Python scalars are held in (an item assignment costs half of numpy's, and
    converts as numpy's does: the same C cast of a float, ints and bools in range), else
    the vector itself."""
    return memoryview(x) if x.dtype.name in HELD and x.flags.c_contiguous else x  # type: ignore[arg-type]


def has_nan(x: np.ndarray) -> bool:
    """Whether a vector holds a float NaN (an owned vector's test at a loop's end)."""
    return x.dtype.kind == "f" and bool(np.isnan(x).any())


def owned_write(step: Any, x: str, value: str, index: str, within: bool) -> str:
    """The line of an element write into an owned vector `x` (Python names; its items
    assigned through `{x}_m`, its `item_view`): a dynamic_update_slice clamps its start
    into the vector, a scatter skips an index out of it; `within`: the index is known to
    be in it."""
    x = f"{x}_m"
    top = step.op.operands[0].type.shape[0] - 1
    if within:
        return f"{x}[{index}] = {value}"
    if step.op.name == "stablehlo.scatter":
        return f"if 0 <= {index} <= {top}: {x}[{index}] = {value}"
    return f"{x}[{index} if 0 <= {index} <= {top} else (0 if {index} < 0 else {top})] = {value}"
