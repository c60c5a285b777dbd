"""Row writes that take their update before its reshape.

A scan's stacked output is written one row a step: `ys = dynamic_update_slice(ys,
reshape(y), i, 0, ...)`, the reshape only putting a unit dimension in front of the row.
The update kernel assigns the row to `ys[i]` as it is (its `row_update` shape,
dialects/stablehlo/specialize_dynamic_slice.py), so the generated code skips the reshape
and passes the row itself: one kernel call less per step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..ir.core import Value
from ..ir.types import TensorType


def skipped_reshapes(steps: Sequence[Any], kept: set[Value],
                     eligible: Callable[[int], bool]) -> set[int]:
    """Indices of reshape steps (kernels marked `plain_reshape`) whose one use is the
    update operand of a later step whose kernel takes that reshape's operand shape as its
    `row_update`; both steps `eligible` (emitted as plain kernel calls)."""
    uses: dict[Value, int] = {}
    for step in steps:
        for v in step.op.operands:
            uses[v] = uses.get(v, 0) + 1
    producer = {step.op.results[0]: j for j, step in enumerate(steps)
                if len(step.op.results) == 1 and len(step.op.operands) == 1
                and getattr(step.fn, "plain_reshape", False)}
    skipped: set[int] = set()
    for i, step in enumerate(steps):
        row_update = getattr(step.fn, "row_update", None)
        if row_update is None or len(step.op.operands) < 2 or not eligible(i):
            continue
        update = step.op.operands[1]
        j = producer.get(update)
        if (j is None or uses[update] != 1 or update in kept or not eligible(j)
                or step.op.operands[0] is update):
            continue
        source = steps[j].op.operands[0].type
        if isinstance(source, TensorType) and tuple(source.shape) == row_update:
            skipped.add(j)
    return skipped
