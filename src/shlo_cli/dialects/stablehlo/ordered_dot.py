"""Dots of a few terms in the reference's order, through numpy's own matmul loop.

A dot of at most SEQUENTIAL_DEPTH terms keeps the reference's order (gemm.py): each
output is `acc = acc + l_k * r_k` from +0, one contracting index after the other, every
product and sum rounded in the operands' type. numpy's matmul has exactly that loop for a
core it cannot give BLAS: per output element, zero, then `out += l[k] * r[k]` for k in
order, in the operands' type. It takes that loop for a (1, K) x (K, N) core (N >= 2) whose
right operand has no BLAS layout: columns at a non-positive stride (reversed) or a stride
other than one element. So a (B, M, 1, K) x (B, 1, K, N) matmul is a whole shallow dot in
one call (an RNN step's h x W: a third of the multiply, reduction and allocation the
vectorized form needs, and faster on every size tried up to 1000 x 8 x 64).

That the loop was compiled as written (a multiply and add contracted into one FMA round
once, not twice: a build targeting FMA may do so) is a property of the numpy build, so
`available(dtype)` checks it once per process against the vectorized form on sums whose
roundings tell the two apart; where it fails, callers keep the vectorized form. Where two
NaNs meet, the loop keeps the left one (the sum's, then the lhs's): the general path and
the plan-time kernels both call this loop, so their payloads agree.

A dot with one result per row (N = 1: an RNN's `W @ h`, a regression's `x @ w`) takes the
same loop (or, for one row, numpy's dot loop, `sum += l[k] * r[k]` from zero) when one
operand's contracting axis runs at a negative stride: numpy gives BLAS only positive
strides. `looped_column` copies the right operand backwards in memory (its elements in
order); `backwards` lays out a loop's invariant left operand so once per execution of the
loop (a matvec kernel's `prepare`), and then matmul takes the operands as they come.
`column_available(dtype)` checks that form once per process as `available` checks its own.
"""

from __future__ import annotations

import functools
import math

import numpy as np

_TYPES = ("float32", "float64")


def looped_products(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """(B, M, K) x (B, K, N >= 2) -> (B, M, N) by matmul's own loop (module doc): the
    right operand's columns reversed (a view: no BLAS layout), the result written into a
    fresh C-ordered array through the same reversal."""
    b, m, k = lhs.shape
    n = rhs.shape[2]
    right = rhs.reshape(b, 1, k, n)[..., ::-1]
    if right.strides[-1] > 0:  # (reversed reversed columns: BLAS could take them)
        right = np.ascontiguousarray(rhs).reshape(b, 1, k, n)[..., ::-1]
    out = np.empty((b, m, 1, n), np.result_type(lhs, rhs))
    np.matmul(lhs.reshape(b, m, 1, k), right, out[..., ::-1])
    return out.reshape(b, m, n)


def looped_column(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """(B, M, K) x (B, K, 1) -> (B, M, 1) by matmul's own loop (module doc): the right
    operand copied into memory read backwards, its elements in order."""
    b, _, k = lhs.shape
    right = np.empty((b, k, 1), np.result_type(lhs, rhs))[:, ::-1]
    right[...] = rhs
    out: np.ndarray = np.matmul(lhs, right)
    return out


def backwards(x: np.ndarray) -> np.ndarray:
    """A copy of `x` (ndim >= 1) whose last axis runs at a negative stride, its elements in
    order: matmul gives no product with such an operand to BLAS."""
    out = np.empty(x.shape, x.dtype)[..., ::-1]
    out[...] = x
    return out


def unblasable(rhs: np.ndarray) -> np.ndarray:
    """A copy of `rhs` whose last dimension is at a stride of two elements: matmul takes
    its own loop on it, and the product's columns come out in order (a loop's invariant
    weights, prepared once per execution of the loop)."""
    spread = np.empty((*rhs.shape[:-1], 2 * rhs.shape[-1]), rhs.dtype)[..., ::2]
    spread[...] = rhs
    return spread


@functools.cache
def available(dtype: np.dtype) -> bool:
    """Whether `looped_products` gives the reference's bits for operands of `dtype` in
    this numpy build (checked once, against the vectorized form, dot_general's
    `summed_products`): f32 and f64 only (numpy's other loops widen)."""
    if np.dtype(dtype).name not in _TYPES:
        return False
    from .dot_general import product_layout, summed_products  # (it imports this module)

    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):
        for b, m, k, n in ((1, 1, 8, 2), (2, 3, 5, 4), (1, 2, 3, 17), (1, 1, 1, 3),
                           (1, 3, 0, 2), (1, 1, 8, 33)):
            lhs = _scrambled((b, m, k), dtype, 7, 60)  # magnitudes 2^-30..2^30: roundings
            rhs = _scrambled((b, k, n), dtype, 11, 0)
            left, right, perm, shape = product_layout(b, m, k, n)
            want = summed_products(lhs.reshape(left).transpose(perm),
                                   rhs.reshape(right).transpose(perm), shape)
            if looped_products(lhs, rhs).tobytes() != want.tobytes():
                return False
        # c + a * a with a * a inexact: 0 when the product is rounded before the sum, the
        # rounding error of a * a when the two are one FMA
        a = 1 + 2.0 ** -(np.finfo(dtype).nmant // 2 + 1)
        c = -(dtype.type(a) * dtype.type(a))
        lhs = np.array([[[1, a]]], dtype)
        rhs = np.array([[[c, c], [a, a]]], dtype)
        return bool(looped_products(lhs, rhs).tobytes() == bytes(2 * dtype.itemsize))


@functools.cache
def column_available(dtype: np.dtype) -> bool:
    """Whether `looped_column` gives the reference's bits for operands of `dtype` in this
    numpy build (checked once, as `available`: one row and several, one term and several,
    products and sums rounded apart), against the products summed one index at a time."""
    if np.dtype(dtype).name not in _TYPES:
        return False
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):
        for b, m, k in ((1, 1, 8), (1, 3, 3), (2, 5, 7), (1, 100, 8), (1, 4, 1), (3, 1, 2)):
            lhs = _scrambled((b, m, k), dtype, 5, 60)
            rhs = _scrambled((b, k, 1), dtype, 13, 0)
            want = np.zeros((b, m, 1), dtype)
            for t in range(k):
                want = want + lhs[:, :, t, None] * rhs[:, None, t, :]
            if looped_column(lhs, rhs).tobytes() != want.tobytes():
                return False
        a = 1 + 2.0 ** -(np.finfo(dtype).nmant // 2 + 1)
        c = -(dtype.type(a) * dtype.type(a))
        for rows in (1, 2):  # (numpy's dot loop for one row, matmul's for more)
            lhs = np.array([[[c, a]] * rows], dtype)
            rhs = np.array([[[1], [a]]], dtype)
            if looped_column(lhs, rhs).tobytes() != bytes(rows * dtype.itemsize):
                return False
    return True


def _scrambled(shape: tuple[int, ...], dtype: np.dtype, seed: int, spread: int) -> np.ndarray:
    """Fixed values in [-1, 1) of `shape` times powers of two up to 2^(spread / 2) either
    way (numpy's random module costs more to import than the check itself)."""
    ints = (np.arange(1, math.prod(shape) + 1, dtype=np.uint64) * np.uint64(2654435761)
            + np.uint64(seed)) % np.uint64(1 << 20)
    values = ints.astype(np.float64) / (1 << 19) - 1
    scale = np.exp2((ints % np.uint64(spread + 1)).astype(np.float64) - spread // 2)
    return (values * scale).astype(dtype).reshape(shape)
