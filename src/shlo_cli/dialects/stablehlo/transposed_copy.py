"""Contiguous copies of transposed arrays, a tile at a time.

numpy copies a transposed view element by element in the output's order, so for a large
matrix every output row reads one element from each of thousands of source rows: nearly
every read misses the cache (a 1024x1024 f32 transpose takes ~4.5 ms). Copying a tile of
source rows at a time keeps the rows being read in the cache (~1.3 ms); the values are the
same, only the order of the memory accesses changes.

A permutation is tiled when it keeps some leading axes and rotates the rest, i.e. when it is
a batch of matrix transposes: (1, 0), (2, 0, 1) and (1, 2, 0) in 3-D, (0, 3, 1, 2) for
NHWC -> NCHW, and so on. Other permutations, and small sides, use numpy's copy.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

TILE = 64  # source rows per step; both matrix sides must be at least this long


def batched_transpose(perm: tuple[int, ...], shape: tuple[int, ...]
                      ) -> tuple[int, int, int] | None:
    """(batch, rows, columns) when transposing `shape` by `perm` is, in C order, a batch of
    rows x columns matrices each transposed; None for any other permutation."""
    rank = len(perm)
    lead = 0
    while lead < rank and perm[lead] == lead:
        lead += 1
    rest = perm[lead:]
    if len(rest) < 2:
        return None
    split = rest[0]  # the source axis the result's first moved axis comes from
    rotated = tuple(range(split, rank)) + tuple(range(lead, split))
    if rest != rotated:
        return None
    return (math.prod(shape[:lead]), math.prod(shape[lead:split]), math.prod(shape[split:]))


def transposed_copy(x: np.ndarray, perm: tuple[int, ...]) -> np.ndarray:
    """`x.transpose(perm)` as a fresh C-contiguous array, tiled where that pays."""
    view = x.transpose(perm)
    found = batched_transpose(perm, x.shape) if x.flags.c_contiguous else None
    if found is None or min(found[1:]) < TILE:
        return np.array(view, order="C")
    batch, rows, columns = found
    source = x.reshape(batch, rows, columns)
    out = np.empty((batch, columns, rows), x.dtype)
    for start in range(0, rows, TILE):
        out[:, :, start:start + TILE] = source[:, start:start + TILE].transpose(0, 2, 1)
    return out.reshape(view.shape)


def transposer(perm: tuple[int, ...], shape: tuple[int, ...]
               ) -> Callable[[np.ndarray], np.ndarray]:
    """`transposed_copy(x, perm)` for arrays x of `shape`, with the tiling decided once
    (a 10x128 gradient's transpose in a training loop: the decision cost as much as the
    copy)."""
    found = batched_transpose(perm, shape)
    if found is None or min(found[1:]) < TILE:
        def copy(x: np.ndarray) -> np.ndarray:
            return x.transpose(perm).copy()  # (C order; half np.array's call cost)
        return copy

    def tiled(x: np.ndarray) -> np.ndarray:
        if not x.flags.c_contiguous:
            return np.array(x.transpose(perm), order="C")
        return transposed_copy(x, perm)
    return tiled
