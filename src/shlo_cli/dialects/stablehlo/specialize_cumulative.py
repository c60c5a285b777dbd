"""Cumulative `reduce_window` with a general body (jax's cumlogsumexp, any cumulative scan
whose body is not a single op), forward or reverse, as folds that share work between
windows (an engine binding hook).

jax lowers a cumulative reduction along axis a of length n to a reduce_window whose window
covers w >= n elements along a (1 elsewhere), strides and dilations 1, and padding w - 1 on
a: low for a forward scan, high for `reverse=True`. The general evaluator materializes every
window and reduces it: for w <= SEQUENTIAL_LIMIT folding in order, `acc = body(acc, e)` from
the init value (the reference interpreter's order), beyond it as a pairwise tree, O(n * w)
body work either way (a 32x2048 cumlogsumexp: 15 s). Here, with the same body calls on the
same operands for every window, so the same bits:

- forward, w <= limit: output i's window is w - 1 - i copies of the padding value (the init
  value) then x[0..i]. When body(init, init) is init, bit for bit, at every position
  (checked on each call, on the whole init-filled slice: the first step of every padded
  window), the padding folds away and output i is output i - 1 folded with x[i]: one body
  call per element of the axis, each on one slice.
- reverse, w <= limit: window i is x[i..n-1] then padding, folded from x[i]; no two windows
  share a partial fold, so `trailing_fold` (window_algorithms) runs each data step only on
  the windows with data there and stops the padding steps at their fixed point.
- w > limit (any one-axis window of stride 1, padded on either side): the tree has the same
  shape for every window, and every node but the last of each level is a perfect subtree
  over 2^l consecutive padded elements, so it is one entry of P_l, where
  P_l[s] = body(P_l-1[s], P_l-1[s + 2^(l-1)]) over all starts s: log2(w) body calls on
  arrays of at most the padded length (a subtree over padding only is one value per level,
  computed once). The last node of a level (an odd element carried up, or merged with it)
  is one array over the windows, updated once per level.

Anything else (other windows, non-scalar init values, bodies that only run on scalars)
runs the general evaluator.
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
from .window_algorithms import same_bits, trailing_fold

Kernel = Callable[..., Any]


def _ints(value: Any, rank: int, default: int) -> list[int] | None:
    if value is None:
        return [default] * rank
    try:
        out = [int(v) for v in np.asarray(value).reshape(-1)]
    except (TypeError, ValueError):
        return None
    return out


def window_axis(shape: Sequence[int], kwargs: dict[str, Any]) -> tuple[int, int, int, int] | None:
    """(axis, window, low, high) of a window over `shape` that is longer than 1 on one axis
    only, with unit strides and dilations and padding (>= 0) on that axis only; else None."""
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
    low, high = padding[2 * axis], padding[2 * axis + 1]
    pads = [0] * (2 * rank)
    pads[2 * axis], pads[2 * axis + 1] = low, high
    if padding != pads or low < 0 or high < 0:
        return None
    return axis, window[axis], low, high


def cumulative_axis(shape: Sequence[int], kwargs: dict[str, Any]) -> int | None:
    """The axis of a forward cumulative (prefix) window over `shape` that the general path
    folds in order, else None."""
    geometry = window_axis(shape, kwargs)
    if geometry is None:
        return None
    axis, w, low, high = geometry
    if not 1 <= shape[axis] <= w <= SEQUENTIAL_LIMIT or (low, high) != (w - 1, 0):
        return None
    return axis


def _prepare(args: Sequence[Any], axis: int, count: int, result_types: Sequence[Any]
             ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.dtype]] | None:
    """The inputs (reduced axis first) and init values in the result types, or None when
    the general path must run (non-scalar init values, empty arrays)."""
    inputs, inits = promoted(args, count, result_types)
    if any(np.ndim(i) for i in inits) or any(x.ndim <= axis or x.size == 0 for x in inputs):
        return None
    dtypes = [x.dtype for x in inputs]
    moved = [np.ascontiguousarray(np.moveaxis(x, axis, 0)) for x in inputs]
    return moved, [np.asarray(i, dtype=d) for i, d in zip(inits, dtypes, strict=True)], dtypes


def _restored(outs: Sequence[np.ndarray], axis: int) -> Any:
    return pack_results([np.ascontiguousarray(np.moveaxis(o, 0, axis)) for o in outs])


def _running_fold(axis: int, count: int, body: Kernel, result_types: Sequence[Any],
                  general: Kernel) -> Kernel:
    def kernel(*args: Any) -> Any:
        prepared = _prepare(args, axis, count, result_types)
        if prepared is None:
            return general(*args)
        moved, inits, dtypes = prepared
        outer = moved[0].shape[1:]
        start = [np.broadcast_to(i, outer) for i in inits]
        try:
            padded = _call(body, start + start, outer, dtypes)
            if not all(same_bits(p, s) for p, s in zip(padded, start, strict=True)):
                return general(*args)
            outs = [np.empty(x.shape, d) for x, d in zip(moved, dtypes, strict=True)]
            acc = start
            for k in range(moved[0].shape[0]):
                acc = _call(body, acc + [x[k] for x in moved], outer, dtypes)
                for o, a in zip(outs, acc, strict=True):
                    o[k] = a
        except Diagnostic:  # a body that only works on scalars: the general path's fallback
            return general(*args)
        return _restored(outs, axis)

    return kernel


def _reverse_fold(axis: int, width: int, high: int, count: int, body: Kernel,
                  result_types: Sequence[Any], general: Kernel) -> Kernel:
    def kernel(*args: Any) -> Any:
        prepared = _prepare(args, axis, count, result_types)
        if prepared is None:
            return general(*args)
        moved, inits, dtypes = prepared
        windows = moved[0].shape[0] + high - width + 1

        def step(acc: list[np.ndarray], xs: list[np.ndarray]) -> list[np.ndarray]:
            return _call(body, acc + xs, acc[0].shape, dtypes)

        try:
            outs = trailing_fold(step, moved, inits, windows, width)
        except Diagnostic:
            return general(*args)
        return _restored(outs, axis)

    return kernel


def sliding_tree(body: Kernel, padded: list[np.ndarray], inits: list[np.ndarray],
                 data: tuple[int, int], width: int, windows: int,
                 dtypes: Sequence[np.dtype]) -> list[np.ndarray]:
    """The pairwise tree (reducer.tree_reduce_last's) of each window padded[i:i + width],
    i < windows, along axis 0, with shared perfect subtrees (see the module docstring).
    Subtrees over padding only (outside padded[data[0]:data[1]]) are one value per level,
    computed once: half the work of a cumulative window."""
    shape = (windows,) + padded[0].shape[1:]
    low, end = data
    constant = [np.broadcast_to(i, shape[1:]) for i in inits]  # a padding-only subtree
    perfect = padded  # perfect[s]: the level's perfect subtree starting at padded[s]
    span = 1  # its size
    tail = [p[width - 1:width - 1 + windows] for p in padded]  # each level's last node
    size = width  # nodes in the level
    while size > 1:
        if size % 2 == 0:  # the last pair merges the level's last node
            start = (size - 2) * span
            tail = _call(body, [p[start:start + windows] for p in perfect] + tail, shape,
                         dtypes)
        size = size // 2 + size % 2
        if size > 1:
            length = perfect[0].shape[0] - span
            last = max(0, min(length, end))
            first = min(max(0, low - 2 * span + 1), last)
            constant = _call(body, constant + constant, shape[1:], dtypes)
            mixed = _call(body, [p[first:last] for p in perfect]
                          + [p[first + span:last + span] for p in perfect],
                          (last - first,) + shape[1:], dtypes)
            grown = []
            for c, m in zip(constant, mixed, strict=True):
                level = np.empty((length,) + shape[1:], m.dtype)
                level[:first] = c
                level[first:last] = m
                level[last:] = c
                grown.append(level)
            perfect = grown
        span *= 2
    return tail


def _padded(x: np.ndarray, init: np.ndarray, low: int, high: int) -> np.ndarray:
    n = x.shape[0]
    out = np.empty((low + n + high,) + x.shape[1:], x.dtype)
    out[:low] = init
    out[low:low + n] = x
    out[low + n:] = init
    return out


def _tree_windows(axis: int, width: int, low: int, high: int, count: int, body: Kernel,
                  result_types: Sequence[Any], general: Kernel) -> Kernel:
    def kernel(*args: Any) -> Any:
        prepared = _prepare(args, axis, count, result_types)
        if prepared is None:
            return general(*args)
        moved, inits, dtypes = prepared
        padded = [_padded(x, i, low, high) for x, i in zip(moved, inits, strict=True)]
        windows = padded[0].shape[0] - width + 1
        if windows < 1:
            return general(*args)
        shape = (windows,) + moved[0].shape[1:]
        try:
            top = sliding_tree(body, padded, inits, (low, low + moved[0].shape[0]), width,
                               windows, dtypes)
            outs = _call(body, [np.broadcast_to(i, shape) for i in inits] + top, shape, dtypes)
        except Diagnostic:  # a body that only works on scalars: the general path's fallback
            return general(*args)
        return _restored([np.asarray(o) for o in outs], axis)

    return kernel


def bind_cumulative(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A sharing kernel for a one-axis reduce_window with a general body (a cumulative one,
    or any window longer than SEQUENTIAL_LIMIT), or None."""
    if op.name != "stablehlo.reduce_window" or not op.regions or len(op.operands) % 2:
        return None
    count = len(op.operands) // 2
    types = [*op.operand_types, *op.result_types]
    if not all(isinstance(t, TensorType) and t.is_static for t in types):
        return None
    if binary_body_ops(op.regions[0], count) is not None:
        return None  # the general path's own fast reductions
    shape = tuple(op.operand_types[0].shape)  # type: ignore[attr-defined]
    if any(tuple(t.shape) != shape for t in types[:count]):  # type: ignore[attr-defined]
        return None
    geometry = window_axis(shape, kwargs)
    body = kwargs.get("body")
    if geometry is None or body is None:
        return None
    axis, w, low, high = geometry
    n = shape[axis]
    out = list(shape)
    out[axis] = n + low + high - w + 1
    if out[axis] < 1 or any(tuple(t.shape) != tuple(out) for t in types[2 * count:]):  # type: ignore[attr-defined]
        return None
    general = bind_after(bind_cumulative, op, opdef, kwargs)
    result_types = kwargs.get("result_types") or ()
    if w > SEQUENTIAL_LIMIT:
        return _tree_windows(axis, w, low, high, count, body, result_types, general)
    if cumulative_axis(shape, kwargs) is not None:
        return _running_fold(axis, count, body, result_types, general)
    if low == 0 and 1 <= n and high <= w - 1:
        return _reverse_fold(axis, w, high, count, body, result_types, general)
    return None


register_bind_hook(bind_cumulative, 65, ops=("stablehlo.reduce_window",))
