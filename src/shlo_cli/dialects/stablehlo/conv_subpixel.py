"""Convolutions with lhs dilation (transposed convolutions) without the inserted zeros.

A base dilation D puts D - 1 zeros between input elements; im2col over that input multiplies
by them, about D^s times the useful work for s spatial dimensions. Along one dimension the
output positions o fall in phases o = r + q * D' (D' = D / gcd(stride, D)); within a phase
the same kernel taps land on real input elements for every q, evenly spaced, and those
elements are evenly spaced in the undilated input. So each phase is an ordinary convolution
(no lhs dilation) of the undilated input with a slice of the kernel, written to every D'-th
output position; a phase where no tap lands on the input is all zeros. This is the
"sub-pixel" decomposition; spatial dimensions decompose independently. Where the im2col
path would be one GEMM (window stride 1, no groups: Keras Conv2DTranspose, conv_transpose)
`scatter_gemm` is cheaper still: one GEMM of the undilated input with all taps side by side,
each tap's products added to the output positions they reach (col2im).

Only products with inserted (or padding) zeros are left out, which changes a sum only when
the kernel holds an infinity or NaN (0 * inf is NaN): such kernels take the general path.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .blas_threads import matmul
from .gemm import IM2COL_BUDGET, blas_dtype

if TYPE_CHECKING:  # (numpy stays unloaded until an op runs)
    Runner = Callable[[np.ndarray, np.ndarray, list[tuple[int, int]], list[int], list[int],
                       tuple[int, ...]], np.ndarray]
    """(x, k, padding, strides, rhs dilation, counts) -> the (N', O.., F) result of an
    ordinary convolution: the general evaluator without lhs dilation or reversal."""


@dataclass(frozen=True)
class AxisPhase:
    """One phase along one spatial dimension, as an ordinary convolution."""

    first: int  # first output position of the phase
    step: int  # distance between its output positions (D')
    taps: slice  # kernel taps that land on input elements
    padding: tuple[int, int]  # of the undilated input (negative: cropped)
    stride: int
    dilation: int
    count: int  # output positions in the phase


def axis_phases(size: int, window: int, count: int, stride: int, lhs_dilation: int,
                rhs_dilation: int, padding: tuple[int, int]) -> list[AxisPhase]:
    """The phases of one spatial dimension that have output positions and kernel taps (the
    output positions of the others are zeros)."""
    step = lhs_dilation // math.gcd(stride, lhs_dilation)
    tap_step = lhs_dilation // math.gcd(rhs_dilation, lhs_dilation)
    sub_stride = stride // math.gcd(stride, lhs_dilation)
    sub_dilation = rhs_dilation // math.gcd(rhs_dilation, lhs_dilation)
    out = []
    for first in range(min(step, count)):
        base = first * stride - padding[0]  # dilated input index of tap 0, minus the padding
        hits = [t for t in range(min(window, tap_step)) if (base + t * rhs_dilation)
                % lhs_dilation == 0]
        if not hits:
            continue
        taps = len(range(hits[0], window, tap_step))
        start = (base + hits[0] * rhs_dilation) // lhs_dilation  # input index, first window
        phase_count = len(range(first, count, step))
        extent = (phase_count - 1) * sub_stride + (taps - 1) * sub_dilation + 1
        out.append(AxisPhase(first, step, slice(hits[0], window, tap_step),
                             (-start, extent - size + start), sub_stride, sub_dilation,
                             phase_count))
    return out


def finite_kernel(k: np.ndarray) -> bool:
    """Whether leaving out products with zeros keeps every sum (no inf or NaN taps)."""
    if k.dtype.kind in "iub":
        return True
    if k.dtype.kind not in "fc":  # bf16, f8...: numpy's isfinite may not know them
        k = k.astype(np.float64)
    return bool(np.isfinite(k).all())


def subpixel(x: np.ndarray, k: np.ndarray, counts: Sequence[int], strides: Sequence[int],
             lhs_dilation: Sequence[int], rhs_dilation: Sequence[int],
             padding: Sequence[tuple[int, int]], out_batch: int, run: Runner) -> np.ndarray:
    """x (N, I.., C) undilated and unpadded, k (K.., C/G, F) unreversed -> (N', O.., F): one
    ordinary convolution per phase (product of the dimensions' phases)."""
    s = len(counts)
    per_axis = [axis_phases(x.shape[1 + i], k.shape[i], counts[i], strides[i],
                            lhs_dilation[i], rhs_dilation[i], padding[i]) for i in range(s)]
    out = np.zeros((out_batch, *counts, k.shape[-1]), k.dtype)
    for combo in itertools.product(*per_axis):
        sub = k[tuple(p.taps for p in combo)]
        part = run(x, sub, [p.padding for p in combo], [p.stride for p in combo],
                   [p.dilation for p in combo], tuple(p.count for p in combo))
        out[(slice(None),) + tuple(slice(p.first, None, p.step) for p in combo)] = part
    return out


def applies(sizes: Sequence[int], k: np.ndarray, counts: Sequence[int], strides: Sequence[int],
            lhs_dilation: Sequence[int], rhs_dilation: Sequence[int],
            padding: Sequence[tuple[int, int]]) -> bool:
    """Whether to decompose: some lhs dilation, nothing empty, every window inside the padded
    input (else the general path reports it) and a finite kernel."""
    if all(v == 1 for v in lhs_dilation) or not all(sizes) or not all(counts):
        return False
    for n, c, kk, st, ld, rd, (lo, hi) in zip(sizes, counts, k.shape, strides, lhs_dilation,
                                              rhs_dilation, padding, strict=False):
        padded = (n - 1) * ld + 1 + lo + hi
        if kk == 0 or padded <= 0 or (c - 1) * st + (kk - 1) * rd >= padded:
            return False
    return finite_kernel(k)


def scatter_gemm(x: np.ndarray, k: np.ndarray, counts: Sequence[int],
                 lhs_dilation: Sequence[int], rhs_dilation: Sequence[int],
                 padding: Sequence[tuple[int, int]], dtype: np.dtype) -> np.ndarray | None:
    """Window stride 1, no groups (the usual transposed convolution), col2im instead of
    phases: Y = x (N*I.., C) @ k (C, K.. x F) in one GEMM, then input element m's product
    with tap t is added to output o = m * lhs_dilation + low - t * rhs_dilation, one strided
    add per tap (row-major, from +0). None when Y would exceed IM2COL_BUDGET."""
    acc = blas_dtype(dtype)
    assert acc is not None
    s = len(counts)
    batch, sizes, channels = x.shape[0], x.shape[1:-1], x.shape[-1]
    window, features = k.shape[:s], k.shape[-1]
    taps = math.prod(window)
    if batch * math.prod(sizes) * taps * features * acc.itemsize > IM2COL_BUDGET:
        return None
    kk = k.astype(dtype, copy=False).astype(acc, copy=False).reshape(taps, channels, features)
    kmat = np.ascontiguousarray(kk.transpose(1, 0, 2)).reshape(channels, taps * features)
    rows = x.astype(dtype, copy=False).astype(acc, copy=False).reshape(-1, channels)
    out = np.zeros((batch, *counts, features), acc)
    with np.errstate(all="ignore"):
        y = matmul(rows, kmat).reshape(batch, *sizes, taps, features)
        for index, tap in enumerate(np.ndindex(*window)):
            span = _tap_slices(sizes, counts, tap, lhs_dilation, rhs_dilation, padding)
            if span is not None:
                out[(slice(None),) + span[0]] += y[(slice(None),) + span[1] + (index,)]
        out += acc.type(0)
    return out.astype(dtype, copy=False)


def _tap_slices(sizes: Sequence[int], counts: Sequence[int], tap: tuple[int, ...],
                lhs_dilation: Sequence[int], rhs_dilation: Sequence[int],
                padding: Sequence[tuple[int, int]]
                ) -> tuple[tuple[slice, ...], tuple[slice, ...]] | None:
    """(output slices, input slices) pairing o = m * lhs_dilation - shift per dimension
    (shift = tap * rhs_dilation - low), both in range; None if some dimension has none."""
    outs, ins = [], []
    for size, count, t, ld, rd, (lo, _) in zip(sizes, counts, tap, lhs_dilation, rhs_dilation,
                                               padding, strict=True):
        shift = t * rd - lo
        first = max(0, -(-shift // ld))  # smallest m with o >= 0
        last = min(size, (count - 1 + shift) // ld + 1)
        if last <= first:
            return None
        o = first * ld - shift
        outs.append(slice(o, o + (last - first - 1) * ld + 1, ld))
        ins.append(slice(first, last))
    return tuple(outs), tuple(ins)
