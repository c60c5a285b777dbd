"""BLAS-backed float kernels for `dot_general` and `convolution`.

The spec leaves the order of a dot product's additions to the implementation; XLA CPU calls
Eigen's blocked GEMM (with FMA). We call numpy's matmul (BLAS) in the result type: f32 stays
f32, f64 stays f64; types narrower than f32 (f16, bf16, f8...) are rounded to the result type,
accumulated in f32 and rounded once, as XLA does. One adjustment keeps results independent of
the BLAS build: a sum is started from +0 as in the spec's definition, so an all -0.0 sum is
+0.0 (`out += 0.0` changes nothing else).

Convolution is im2col: the strided window view of the padded, dilated input reshaped to
(rows, window x channels) and multiplied by the kernel matrix, per feature or batch group; the
rows are processed in chunks so the copied window matrix stays under `IM2COL_BUDGET` bytes.
Stride-1 convolutions without groups take `conv_shifted` instead: one GEMM of the input
itself (no window copy) with all kernel positions side by side, then one shifted add per
kernel position.
"""

from __future__ import annotations

import math

import numpy as np

from ...lazy_imports import lazy
from .blas_threads import matmul
from .elementwise_numerics import is_float

SEQUENTIAL_DEPTH = 8
"""Sums of at most this many products keep the reference interpreter's order (one vectorized
multiply-add per term, as cheap as a GEMM call at that depth): upstream's expected values for
tiny dots and convolutions allow only a few ULPs, and BLAS (FMA, blocking) may differ more."""

IM2COL_BUDGET = 64 << 20  # bytes of window matrix materialized at once

_BLAS = lazy(lambda: frozenset(np.dtype(t) for t in (np.float32, np.float64)))


def blas_dtype(dtype: np.dtype) -> np.dtype | None:
    """The type BLAS accumulates `dtype` in, or None when the sum must stay exact (integers,
    bool) or follow per-product rounding (complex)."""
    if dtype in _BLAS:
        return dtype
    if not is_float(dtype) or dtype.itemsize >= 4:  # ints (int4 too), bool, complex
        return None
    return np.dtype(np.float32)  # f16, bf16, f8, f6, f4: XLA accumulates in f32


def float_matmul(lhs: np.ndarray, rhs: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """(B, M, K) x (B, K, N) -> (B, M, N) in `dtype` via BLAS."""
    acc = blas_dtype(dtype)
    assert acc is not None
    lhs = lhs.astype(dtype, copy=False).astype(acc, copy=False)
    rhs = rhs.astype(dtype, copy=False).astype(acc, copy=False)
    with np.errstate(all="ignore"):
        if lhs.shape[0] == 1:  # one GEMM, no batch loop
            out = matmul(lhs[0], rhs[0])[None]
        else:
            out = matmul(lhs, rhs)
        out += acc.type(0)
    return out.astype(dtype, copy=False)


def conv_im2col(windows: np.ndarray, k: np.ndarray, s: int, groups: int, batch_groups: int,
                dtype: np.dtype) -> np.ndarray:
    """(N, O.., K.., C) windows x (K.., I, F) kernel -> (N', O.., F) in `dtype`."""
    acc = blas_dtype(dtype)
    assert acc is not None
    batch, channels = windows.shape[0], windows.shape[-1]
    counts = windows.shape[1:1 + s]
    kernel = k.shape[:s]
    features = k.shape[-1]
    kprod = int(np.prod(kernel, dtype=np.int64))
    opos = int(np.prod(counts, dtype=np.int64))
    kk = k.astype(dtype, copy=False).astype(acc, copy=False)
    if batch_groups > 1:
        per, fb = batch // batch_groups, features // batch_groups
        # kernel matrix per batch group: (bg, Kprod*C, Fb)
        kmat = np.ascontiguousarray(
            np.moveaxis(kk.reshape(kprod * channels, batch_groups, fb), 1, 0))
        out = np.empty((per, opos, batch_groups, fb), acc)
        for g in range(batch_groups):
            part = windows[g * per:(g + 1) * per]
            out[:, :, g, :] = _chunked_gemm(part, kmat[g], acc, kprod * channels)
        out += acc.type(0)
        return out.reshape(per, *counts, features).astype(dtype, copy=False)
    width = channels // groups
    fg = features // groups
    out = np.empty((batch, opos, groups, fg), acc)
    # kernel (K.., width, F) -> per group (Kprod*width, Fg)
    kgroups = kk.reshape(kprod, width, groups, fg)
    for g in range(groups):
        part = windows[..., g * width:(g + 1) * width] if groups > 1 else windows
        kmat = np.ascontiguousarray(kgroups[:, :, g, :].reshape(kprod * width, fg))
        out[:, :, g, :] = _chunked_gemm(part, kmat, acc, kprod * width)
    out += acc.type(0)
    return out.reshape(batch, *counts, features).astype(dtype, copy=False)


def im2col_blocks(batch: int, counts: tuple[int, ...], row_bytes: int
                  ) -> list[tuple[int, int, int, int]]:
    """The blocks of window rows `_chunked_gemm` copies at a time, each about
    IM2COL_BUDGET bytes at most: (first image, end image, first index, end index along the
    first output dimension); several whole images per block when they fit (index range
    0, 0), else slabs of one image along its first output dimension."""
    opos = math.prod(counts)
    if batch == 0 or opos == 0:
        return []
    row_bytes = max(1, row_bytes)
    per_batch = opos * row_bytes
    if per_batch <= IM2COL_BUDGET or not counts:
        step = max(1, IM2COL_BUDGET // per_batch)
        return [(start, min(start + step, batch), 0, 0) for start in range(0, batch, step)]
    slab = opos // counts[0]  # output positions per index of the first output dim
    step = max(1, IM2COL_BUDGET // (slab * row_bytes))
    return [(image, image + 1, first, min(first + step, counts[0]))
            for image in range(batch) for first in range(0, counts[0], step)]


def _chunked_gemm(windows: np.ndarray, kmat: np.ndarray, acc: np.dtype,
                  depth: int) -> np.ndarray:
    """(n, O.., K.., c) windows x (depth, F) -> (n, prod(O), F), copying one
    `im2col_blocks` block of window rows at a time."""
    n = windows.shape[0]
    spatial = (windows.ndim - 2) // 2
    counts = windows.shape[1:1 + spatial]
    opos = math.prod(counts)
    out = np.empty((n, opos, kmat.shape[1]), acc)
    slab = opos // counts[0] if counts and counts[0] else 0
    with np.errstate(all="ignore"):
        for lo, hi, first, end in im2col_blocks(n, counts, depth * acc.itemsize):
            if first == end:  # whole images
                block = windows[lo:hi]
                rows = block.astype(acc, copy=False).reshape((hi - lo) * opos, depth)
                out[lo:hi] = matmul(rows, kmat).reshape(hi - lo, opos, -1)
            else:
                block = windows[lo, first:end]
                rows = block.astype(acc, copy=False).reshape(-1, depth)
                out[lo, first * slab:end * slab] = matmul(rows, kmat)
    return out


def conv_shifted(x: np.ndarray, k: np.ndarray, counts: tuple[int, ...],
                 rhs_dilation: list[int], dtype: np.dtype) -> np.ndarray | None:
    """Stride-1, ungrouped convolution of the padded, dilated, contiguous input x
    (N, P.., C) with k (K.., C, F): Y = x (N*P, C) @ k (C, K*F) gives every input position's
    dot with every kernel position's matrix; out[o] = sum over kernel positions p of
    Y[o + p * dilation, p], added in row-major order of p from +0. No window matrix is
    copied and the GEMM is wide (K*F columns) even when F is small. None when Y would
    exceed IM2COL_BUDGET (the caller falls back to im2col)."""
    acc = blas_dtype(dtype)
    assert acc is not None
    s = k.ndim - 2
    kernel, channels, features = k.shape[:s], k.shape[s], k.shape[s + 1]
    kprod = int(np.prod(kernel, dtype=np.int64))
    batch, padded = x.shape[0], x.shape[1:1 + s]
    positions = int(np.prod(padded, dtype=np.int64))
    if batch * positions * kprod * max(features, 1) * acc.itemsize > IM2COL_BUDGET:
        return None
    kk = k.astype(dtype, copy=False).astype(acc, copy=False).reshape(kprod, channels, features)
    kmat = np.ascontiguousarray(kk.transpose(1, 0, 2)).reshape(channels, kprod * features)
    rows = x.astype(acc, copy=False).reshape(batch * positions, channels)
    out = np.zeros((batch, *counts, features), acc)
    with np.errstate(all="ignore"):
        y = matmul(rows, kmat).reshape(batch, *padded, kprod, features)
        for index, pos in enumerate(np.ndindex(*kernel)):
            window = tuple(slice(p * d, p * d + c)
                           for p, d, c in zip(pos, rhs_dilation, counts, strict=True))
            out += y[(slice(None),) + window + (index,)]
    return out.astype(dtype, copy=False)
