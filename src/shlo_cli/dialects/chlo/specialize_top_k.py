"""`chlo.top_k` with k much smaller than the row by selection, not a full sort (an engine
binding hook).

The general evaluator (structured.top_k) sorts every row stably in descending order and
keeps the first k: a beam search's top_k over beam x vocabulary sorted 8,000 keys to keep 4.
Here, on the same order keys (structured.order_key), np.partition finds each row's k-th
largest key; the elements at or above it (at least k, more only with ties) are the only
ones the sorted prefix can hold. They are gathered in index order into a small padded block
and sorted there by descending key, ties by ascending index (what the stable descending sort
gives), padding last: the same k indices, hence the same values. Rows without ties at the
k-th key (the usual case) have exactly k candidates: no padded block to lay out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from .structured import order_key

Kernel = Callable[..., Any]

_RATIO = 8  # rows at least this many times longer than k are selected, not sorted


def _candidates(rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(indices, keys): per row, the elements whose key is at least the row's k-th largest,
    in index order, padded to the longest such list with index n; None when ties make that
    list a large part of the row (the full sort costs no more)."""
    count, n = rows.shape
    threshold = np.partition(rows, n - k, axis=-1)[:, n - k]
    mask = rows >= threshold[:, None]
    per_row = np.count_nonzero(mask, axis=-1)
    width = int(per_row.max())
    if 2 * width > n:
        return None
    if width == k and int(per_row.min()) == k:  # no ties at the k-th key: k per row
        columns = (np.flatnonzero(mask) % n).reshape(count, k)
        return columns, np.take_along_axis(rows, columns, axis=-1)
    row, column = np.nonzero(mask)  # row-major: columns ascending within each row
    starts = np.cumsum(per_row) - per_row
    slot = np.arange(row.size) - np.repeat(starts, per_row)
    indices = np.full((count, width), n, np.int64)
    keys = np.zeros((count, width), rows.dtype)
    indices[row, slot] = column
    keys[row, slot] = rows[row, column]
    return indices, keys


def _top_k(k: int, general: Kernel) -> Kernel:
    array = np.ndarray

    def kernel(operand: Any) -> Any:
        if operand.__class__ is not array or operand.ndim == 0 or operand.dtype == np.bool_:
            return general(operand)
        n = operand.shape[-1]
        if k <= 0 or k * _RATIO > n:
            return general(operand)
        key = order_key(operand)
        found = _candidates(key.reshape(-1, n), k)
        if found is None:
            return general(operand)
        indices, keys = found
        # ascending by (real, key, -index), reversed: descending key, ties by ascending
        # index, the padding (real False) last
        ranked = np.lexsort((-indices, keys, indices < n), axis=-1)[:, ::-1][:, :k]
        order = np.take_along_axis(indices, ranked, axis=-1).reshape(operand.shape[:-1] + (k,))
        return np.take_along_axis(operand, order, axis=-1), order.astype(np.int32)

    return kernel


def top_k_kernel(k: int, n: int, general: Kernel) -> Kernel:
    """The selecting kernel where it pays (rows of n at least _RATIO times k), else
    `general`: for callers binding a top_k outside a chlo.top_k op."""
    return _top_k(k, general) if 0 < k and k * _RATIO <= n else general


def bind_top_k(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A selecting top_k kernel for rows much longer than k, or None (the general
    evaluator)."""
    if op.name != "chlo.top_k":
        return None
    source = op.operand_types[0]
    if not isinstance(source, TensorType) or not source.shape or source.shape[-1] < 0:
        return None
    try:
        k = int(kwargs["k"])
    except (KeyError, TypeError, ValueError):
        return None
    if k <= 0 or k * _RATIO > source.shape[-1]:
        return None
    return _top_k(k, bind_after(bind_top_k, op, opdef, kwargs))


register_bind_hook(bind_top_k, 60, ops=("chlo.top_k",))
