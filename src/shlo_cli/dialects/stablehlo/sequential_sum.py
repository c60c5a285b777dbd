"""Sequential float sums of the rows of a large C-contiguous matrix, a block at a time.

A float reduce adds each result's elements one after the other from the init value (the
reference order). numpy does that, vectorized across results, when the reduced elements are
the rows of a C-contiguous array: `np.add.reduce(rows, axis=0)` adds row after row into the
accumulator. Summing the rows of an (R, L) matrix (a layer norm's mean over the last axis)
therefore needs its transpose, and numpy's copy of a transposed view reads one element from
each of thousands of source rows per output row: a 8192x512 f32 transpose costs ~10 ms,
ten times the additions.

Here a block of rows is transposed at a time, through the cache, in two steps: first
64-byte units (16 f32 elements of a row, moved as one raw `V64` element, bits untouched),
so the strided reads fetch whole cache lines; then, within the cache, the units are
split into their elements. Long rows are cut into column chunks: each chunk's sum starts
from the previous chunk's running sums (row 0 of the chunk's buffer; the first from the
init value), so every result is still `init + x0 + x1 + ...` in order. The additions are
the same numpy reduction over the same values in the same order: the same bits
(8192x512 f32: ~5 ms, from ~10).
"""

from __future__ import annotations

from typing import Any

import numpy as np

BLOCK = 1 << 16
"""Elements per block (rows x chunk columns): the block, its units and its rows buffer
stay in a core's L2 cache."""

_UNITS = (64, 32, 16)
"""Bytes moved as one element in the first step (a raw `V64`: 16 f32 elements, one cache
line; a smaller unit where a row's bytes are not a multiple of 64; else no first step)."""
_PAYS_FROM = 1 << 16
_ROW_BYTES_FROM = 1024
_LARGE_FROM, _LARGE_ROW_BYTES_FROM = 16 << 20, 256


def blocked_pays(rows: int, length: int, itemsize: int) -> bool:
    """Whether `blocked_row_sums` costs less than one transposed copy of the whole matrix:
    rows of whole cache lines, at least `_ROW_BYTES_FROM` bytes long, in a matrix of at
    least `_PAYS_FROM` bytes; or rows of at least `_LARGE_ROW_BYTES_FROM` bytes in a matrix
    of at least `_LARGE_FROM` bytes (an attention softmax's sum over 128 keys), whose whole
    copy misses the cache throughout. Measured on f32 (time blocked / whole, 256 to 16384
    rows): 0.3-0.75 for 256, 512 and 1024 columns; 1.1-1.5 for 64 to 300 columns (shorter
    rows, or rows of 16-byte units); below 64 KiB, 1.2-1.7; from 16 MiB, 0.5-0.85 for 64,
    128 and 192 columns."""
    row_bytes = length * itemsize
    if rows < 2 or row_bytes % _UNITS[0]:
        return False
    size = rows * row_bytes
    return ((row_bytes >= _ROW_BYTES_FROM and size >= _PAYS_FROM)
            or (row_bytes >= _LARGE_ROW_BYTES_FROM and size >= _LARGE_FROM))


_ALIGN = 128
"""Rows per block: a multiple of this, and a last block shorter than this joins the one
before (short blocks cost: numpy's reduction takes ~10 ns per row it adds). Which
operand's NaN payload numpy's add keeps for NaN + NaN depends on an element's place in its
vector loop (unrolled vectors from the start, a tail at the end; short loops are scalar
code): blocks that start at multiples of every unrolled vector width and are never short
put each result where one reduction of all the rows puts it, so NaN payloads come out the
same too."""


def blocked_row_sums(x: np.ndarray, init: Any) -> np.ndarray:
    """`init + x[r, 0] + x[r, 1] + ...` for each row r of a C-contiguous (R, L) float or
    complex matrix, R >= 2 and L >= 1, added in that order in x's dtype (`init` a scalar of
    that dtype); the caller quiets numpy's floating-point warnings."""
    rows, length = x.shape
    dtype = x.dtype
    width = next((unit // dtype.itemsize for unit in _UNITS
                  if unit > dtype.itemsize and length * dtype.itemsize % unit == 0), 1)
    packed = np.dtype(f"V{width * dtype.itemsize}") if width > 1 else dtype
    units = x.view(packed)  # (R, L / width); x itself when width is 1
    per_block = min(rows, max(_ALIGN, BLOCK // length // _ALIGN * _ALIGN))
    chunk = length if per_block * length <= 2 * BLOCK else max(
        width, BLOCK // per_block // width * width)
    starts = list(range(0, rows, per_block))
    if len(starts) > 1 and rows - starts[-1] < _ALIGN:
        starts.pop()  # a short last block joins the one before (see _ALIGN)
    out = np.empty(rows, dtype)
    for first, end in zip(starts, starts[1:] + [rows], strict=True):
        count = end - first
        stage = np.empty(count * (chunk // width), packed)
        buffer = np.empty((chunk + 1) * count, dtype)
        running: Any = init
        for column in range(0, length, chunk):
            stop = min(length, column + chunk)
            taken = stop - column
            # (taken + 1, count), C-contiguous: row 0 the running sums, then the chunk
            summed = buffer[:(taken + 1) * count].reshape(taken + 1, count)
            summed[0] = running
            if width > 1:
                moved = stage[:taken // width * count].reshape(taken // width, count)
                np.copyto(moved, units[first:end, column // width:stop // width].T)
                split = moved.view(dtype).reshape(taken // width, count, width)
                np.copyto(summed[1:].reshape(taken // width, width, count),
                          split.transpose(0, 2, 1))
            else:
                np.copyto(summed[1:], x[first:end, column:stop].T)
            running = np.add.reduce(summed, axis=0, dtype=dtype,
                                    out=out[first:end] if stop == length else None)
    return out
