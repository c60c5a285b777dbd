"""`stablehlo.pad` of a static operand as one kernel per op, its canvas and slices computed
when the plan is built (an engine binding hook).

The general evaluator (slicing._pad) rebuilds the canvas shape, the placement slices and the
cut from the attributes on every call, about as long as the copy itself on small tensors: a
Jacobian's scan pads a 2x1 tangent twice per step. The kernel here fills the same canvas
with the padding value, places the operand at the same strided slice and cuts the negative
padding the same way, so the result is the general evaluator's. Canvases past 1 MiB (the
memory budget's floor) stay with the general evaluator, which checks them against the budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from .data_movement import ints
from .specialize import _fresh, _native_types

Kernel = Callable[..., Any]
_SMALL = 1 << 20  # canvas bytes the kernel builds without asking the memory budget


def bind_pad(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A pad kernel for a static operand of a native type, or None (the general evaluator)."""
    if op.name != "stablehlo.pad":
        return None
    dtypes = _native_types(op)
    if dtypes is None or any(d != dtypes[0] for d in dtypes):
        return None
    source, result = op.operand_types[0], op.result_types[0]
    assert isinstance(source, TensorType) and isinstance(result, TensorType)
    try:
        low, high, interior = (ints(kwargs[k]) for k in (
            "edge_padding_low", "edge_padding_high", "interior_padding"))
    except (KeyError, TypeError, ValueError):
        return None
    shape = tuple(source.shape)
    if not len(low) == len(high) == len(interior) == len(shape) or min(interior, default=0) < 0:
        return None
    spread = [(n - 1) * (i + 1) + 1 if n else 0 for n, i in zip(shape, interior, strict=True)]
    canvas = tuple(max(lo, 0) + s + max(hi, 0) for lo, s, hi in zip(low, spread, high,
                                                                     strict=True))
    if math.prod(canvas) * dtypes[0].itemsize > _SMALL:
        return None
    place = tuple(slice(max(lo, 0), max(lo, 0) + s, i + 1)
                  for lo, s, i in zip(low, spread, interior, strict=True))
    cut = tuple(slice(max(-lo, 0), size - max(-hi, 0))
                for lo, hi, size in zip(low, high, canvas, strict=True))
    if any(len(range(*c.indices(n))) != r for c, n, r in zip(cut, canvas, result.shape,
                                                             strict=True)):
        return None
    whole = all(c.start == 0 and c.stop == n for c, n in zip(cut, canvas, strict=True))
    general = bind_after(bind_pad, op, opdef, kwargs)
    dtype, array, full = dtypes[0], np.ndarray, np.full

    def kernel(operand: Any, value: Any) -> Any:
        if operand.__class__ is not array or operand.shape != shape or operand.dtype != dtype:
            return general(operand, value)
        out = full(canvas, value, dtype)
        out[place] = operand
        return out if whole else _fresh(out[cut])
    return kernel


register_bind_hook(bind_pad, 60, ops=("stablehlo.pad",))
