"""A gather of one dynamic start index planned as the dynamic_slice it is.

jnp's dynamic indexing of a non-leading axis (`x[:, i]`, `x[..., i]` with a traced `i`)
exports as `gather(x, broadcast_in_dim(i))`: one start index vector of one element,
`start_index_map = [a]`, a window of `slice_sizes`. Its spec clamps the start along `a` to
[0, x.shape[a] - slice_sizes[a]] and starts every other dimension at 0: the dynamic_slice
of `x` at (0, ..., i, ..., 0) of those sizes, reshaped when the gather collapses axis `a`.
In a loop step (an edit distance row's `prev[j]`) the broadcast and the gather's index
handling cost more than the window: the dynamic_slice reads `i` itself (a Python int in
a generated loop, pyscalar.py) and the broadcast goes when nothing else reads it. Only
gathers without batch dimensions whose result is the window's dimensions in order are
rewritten; the module is not changed (detached ops, the gather's own result value).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ir import registry
from ..ir.attributes import DenseArrayAttr, DenseElementsAttr
from ..ir.core import Operation, Value
from ..ir.types import IntegerType, TensorType, numpy_dtype
from .ifconvert import drop_unread

GATHER = "stablehlo.gather"
_SLICE, _RESHAPE, _CONSTANT = "stablehlo.dynamic_slice", "stablehlo.reshape", "stablehlo.constant"
_I64 = IntegerType(64)


def slice_gathers(ops: list[Operation], terminator: Sequence[Value] | None
                  ) -> list[Operation]:
    """`ops` with each one-index gather replaced by a dynamic_slice (and a reshape), the
    index broadcasts nothing reads any more dropped."""
    if not any(op.name == GATHER for op in ops) or any(
            registry.lookup(name) is None for name in (_SLICE, _RESHAPE, _CONSTANT)):
        return ops
    producers = {r: op for op in ops for r in op.results}
    out: list[Operation] = []
    changed = False
    for op in ops:
        new = _as_slice(op, producers) if op.name == GATHER else None
        out.extend([op] if new is None else new)
        changed = changed or new is not None
    return drop_unread(out, terminator or ()) if changed else out


def _ints(value: Any) -> list[int] | None:
    try:
        return [int(v) for v in value or ()]
    except (TypeError, ValueError):
        return None


def _as_slice(op: Operation, producers: dict[Value, Operation]) -> list[Operation] | None:
    """The dynamic_slice (and reshape) computing the gather `op`, or None."""
    if len(op.operands) != 2 or len(op.results) != 1:
        return None
    table, ids = op.operands
    tt, it, rt = table.type, ids.type, op.results[0].type
    if not all(isinstance(t, TensorType) and t.is_static for t in (tt, it, rt)):
        return None
    assert isinstance(tt, TensorType) and isinstance(it, TensorType)
    assert isinstance(rt, TensorType)
    dims = op.attr("dimension_numbers")
    get = getattr(dims, "get", None)
    sizes = _ints(getattr(op.attr("slice_sizes"), "value", None))
    if get is None or sizes is None or len(sizes) != len(tt.shape):
        return None
    offset, collapsed = _ints(get("offset_dims")), _ints(get("collapsed_slice_dims"))
    index_map = _ints(get("start_index_map"))
    vector_dim = get("index_vector_dim") or 0
    if (offset is None or collapsed is None or index_map is None or len(index_map) != 1
            or get("operand_batching_dims") or get("start_indices_batching_dims")
            or vector_dim != 0):
        return None
    axis = index_map[0]
    if (not 0 <= axis < len(sizes) or collapsed not in ([], [axis])
            or (collapsed and sizes[axis] != 1)
            or any(not 0 <= k <= n for k, n in zip(sizes, tt.shape, strict=True))):
        return None
    kept = [sizes[d] for d in range(len(sizes)) if d not in collapsed]
    if offset != list(range(len(kept))) or list(rt.shape) != kept:
        return None
    index: Value | None = None
    if not it.shape:
        index = ids
    elif list(it.shape) == [1] and ids in producers:
        owner = producers[ids]
        source = owner.operands[0] if owner.operands else None
        st = source.type if source is not None else None
        if (owner.name != "stablehlo.broadcast_in_dim" or not isinstance(st, TensorType)
                or st.shape or st.element != it.element):
            return None
        index = source
    if index is None:
        return None
    t = index.type
    if not isinstance(t, TensorType) or not isinstance(t.element, IntegerType) or (
            t.element.width == 64 and np.dtype(numpy_dtype(t.element)).kind == "u"):
        return None  # (the slices' clamps read starts as int64)
    zero = Operation(_CONSTANT, [], [t], {"value": DenseElementsAttr(
        t, np.array(0, numpy_dtype(t.element)))}, location=op.location,
        opdef=registry.lookup(_CONSTANT))
    starts = [index if d == axis else zero.results[0] for d in range(len(sizes))]
    window = TensorType(tuple(sizes), rt.element)
    sliced = Operation(_SLICE, [table, *starts], [window],
                       {"slice_sizes": DenseArrayAttr(_I64, tuple(sizes))},
                       location=op.location, opdef=registry.lookup(_SLICE))
    if not collapsed:
        sliced.results = [op.results[0]]
        return [zero, sliced]
    reshape = Operation(_RESHAPE, [sliced.results[0]], [rt], location=op.location,
                        opdef=registry.lookup(_RESHAPE))
    reshape.results = [op.results[0]]
    return [zero, sliced, reshape]
