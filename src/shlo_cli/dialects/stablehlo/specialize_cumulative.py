"""Cumulative `reduce_window` with a general body (jax's cumlogsumexp, any cumulative scan
whose body is not a single op) as a running fold (an engine binding hook).

jax lowers a cumulative reduction along axis a of length n to a reduce_window whose window
covers w >= n elements along a (1 elsewhere), strides and dilations 1, and low padding w - 1
on a. The general evaluator folds each window in order, `acc = body(acc, element)` from the
init value, one call per window position over every output: n body calls on n x (the rest)
elements, O(n^2) work (a 512x512 cumlogsumexp: 512 calls of ten ops on 262,144 elements).
Output i's window is w - 1 - i copies of the padding value (the init value) then x[0..i].
When body(init, init) is init, bit for bit, at every position (checked on each call, on the
whole init-filled slice: the first step of every padded window), the padding folds away and
output i is output i - 1 folded with x[i]: the same body calls on the same operands, one per
element of the axis, each on one slice. Otherwise, and for windows past the general path's
sequential limit (it folds those as a tree), the general evaluator runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.diagnostics import Diagnostic
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from .reducer import SEQUENTIAL_LIMIT, _call, binary_body_ops, pack_results, promoted

Kernel = Callable[..., Any]


def _ints(value: Any, rank: int, default: int) -> list[int] | None:
    if value is None:
        return [default] * rank
    try:
        out = [int(v) for v in np.asarray(value).reshape(-1)]
    except (TypeError, ValueError):
        return None
    return out


def cumulative_axis(shape: Sequence[int], kwargs: dict[str, Any]) -> int | None:
    """The axis of a cumulative (prefix) window over `shape`, else None."""
    rank = len(shape)
    window = _ints(kwargs.get("window_dimensions"), rank, 1)
    strides = _ints(kwargs.get("window_strides"), rank, 1)
    base = _ints(kwargs.get("base_dilations"), rank, 1)
    dilations = _ints(kwargs.get("window_dilations"), rank, 1)
    padding = _ints(kwargs.get("padding"), 2 * rank, 0)
    if None in (window, strides, base, dilations, padding) or rank == 0:
        return None
    assert window and strides and base and dilations and padding is not None
    if (len(window) != rank or len(padding) != 2 * rank or strides != [1] * rank
            or base != [1] * rank or dilations != [1] * rank):
        return None
    long = [d for d in range(rank) if window[d] != 1]
    if len(long) != 1:
        return None
    axis = long[0]
    n, w = shape[axis], window[axis]
    pads = [0] * (2 * rank)
    pads[2 * axis] = w - 1
    if n < 1 or w < n or w > SEQUENTIAL_LIMIT or padding != pads:
        return None
    return axis


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(np.ascontiguousarray(a).view(np.uint8),
                               np.ascontiguousarray(b).view(np.uint8)))


def _running_fold(axis: int, count: int, body: Kernel, result_types: Sequence[Any],
                  general: Kernel) -> Kernel:
    def kernel(*args: Any) -> Any:
        inputs, inits = promoted(args, count, result_types)
        if any(np.ndim(i) for i in inits) or any(x.ndim <= axis for x in inputs):
            return general(*args)
        dtypes = [x.dtype for x in inputs]
        moved = [np.moveaxis(x, axis, 0) for x in inputs]
        outer = moved[0].shape[1:]
        start = [np.broadcast_to(np.asarray(i, dtype=d), outer)
                 for i, d in zip(inits, dtypes, strict=True)]
        try:
            padded = _call(body, start + start, outer, dtypes)
            if not all(_same_bits(p, s) for p, s in zip(padded, start, strict=True)):
                return general(*args)
            outs = [np.empty(x.shape, d) for x, d in zip(moved, dtypes, strict=True)]
            acc = start
            for k in range(moved[0].shape[0]):
                acc = _call(body, acc + [x[k] for x in moved], outer, dtypes)
                for o, a in zip(outs, acc, strict=True):
                    o[k] = a
        except Diagnostic:  # a body that only works on scalars: the general path's fallback
            return general(*args)
        return pack_results([np.ascontiguousarray(np.moveaxis(o, 0, axis)) for o in outs])

    return kernel


def bind_cumulative(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A running-fold kernel for a cumulative reduce_window with a general body, or None."""
    if op.name != "stablehlo.reduce_window" or not op.regions or len(op.operands) % 2:
        return None
    count = len(op.operands) // 2
    types = [*op.operand_types, *op.result_types]
    if not all(isinstance(t, TensorType) and t.is_static for t in types):
        return None
    if binary_body_ops(op.regions[0], count) is not None:
        return None  # the general path's own fast reductions
    shape = tuple(op.operand_types[0].shape)  # type: ignore[attr-defined]
    if any(tuple(t.shape) != shape for t in types[:count] + types[2 * count:]):  # type: ignore[attr-defined]
        return None
    axis = cumulative_axis(shape, kwargs)
    body = kwargs.get("body")
    if axis is None or body is None:
        return None
    return _running_fold(axis, count, body, kwargs.get("result_types") or (),
                         bind_after(bind_cumulative, op, opdef, kwargs))


register_bind_hook(bind_cumulative, 65)
