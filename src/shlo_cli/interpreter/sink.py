"""Small constants a region reads from outside, planned as the region's own first ops.

`jax.export` defines a program's constants at the top of `main`: a `lax.scan`'s bound and
step (`%c_0 = constant 10`, `%c = constant 1`) are values its while op's regions capture,
not constants of the regions, as `jax.jit(f).lower(...)` writes them. The loop compiler
reads a region's constants from its own ops (ranges.py: a counted loop's bound and step,
scan_inputs.py: an index the loop counts, codegen.py: folding), so such a loop ran as a
`while True` loop reading its bound from the frame every step (the scalar RNN benchmark
as exported: 0.47 ms, against 0.31 ms as lowered). Each captured constant of at most
SMALL elements gets a detached copy at the head of the region's plan defining the same
value: the region then sees its constant, which is the same value it read before. The
module is not changed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..ir.core import Block, Operation, Value
from ..ir.types import TensorType

SMALL = 256  # elements: bounds, steps, splats; a large constant stays where it is
CONSTANT = "stablehlo.constant"


def sunk_constants(block: Block, ops: Sequence[Operation],
                   terminator: Sequence[Value] | None) -> list[Operation]:
    """Copies of the small constants defined outside `block` that `ops` (its plan) or its
    terminator read, each defining the value it copies."""
    defined = {r for op in ops for r in op.results}
    copies: list[Operation] = []
    seen: set[Value] = set()
    for v in [v for op in ops for v in op.operands] + list(terminator or ()):
        if v in seen or v in defined:
            continue
        seen.add(v)
        owner = v.owner
        if (isinstance(owner, Operation) and owner.name == CONSTANT and not owner.operands
                and len(owner.results) == 1 and owner.parent is not block and _small(v)):
            copy = Operation(CONSTANT, [], [v.type], dict(owner.properties),
                             dict(owner.attributes), location=owner.location,
                             opdef=owner.opdef)
            copy.results = [v]
            copies.append(copy)
    return copies


def _small(v: Value) -> bool:
    t = v.type
    return isinstance(t, TensorType) and t.is_static and math.prod(t.shape) <= SMALL
