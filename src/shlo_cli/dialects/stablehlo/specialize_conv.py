"""`convolution` specialized once per op when the plan is built (an engine binding hook).

The general evaluator decodes the dimension numbers, window and padding on every call,
transposes and copies the input, pads it into a fresh array, copies the window matrix and
copies the result twice more. For a static f32/f64 convolution without lhs dilation, window
reversal or groups (ResNet's and DenseNet's), everything but the data is known when the plan
is built: here the padded input lives in a buffer kept by the kernel (its zero border written
once, only the interior each call), the window matrix is copied into a second kept buffer, and
the GEMM's result is the returned array. The GEMM operands are the general path's, element for
element and in the same layout (rows = windows in (batch, output positions) x (kernel
positions, channels) order, kernel matrix (kernel positions x channels, features)), and
stride-1 convolutions that the general path sends to `gemm.conv_shifted` go there too, so the
results are the general path's bit for bit. A window matrix above `gemm.IM2COL_BUDGET` (VGG's
224x224x64 3x3 convolution: 115 MB) is copied block by block as the general path copies it
(`gemm.im2col_blocks`), each block into the one kept buffer and multiplied as there. Buffers
are per kernel, i.e. per op of one plan: an op's kernel never runs again before it returns.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import register_bind_hook
from ...ir.types import TensorType
from . import gemm
from .attr_conv import decode_conv_dims
from .blas_threads import matmul
from .gemm import SEQUENTIAL_DEPTH, im2col_blocks
from .specialize import _native_types

Kernel = Callable[..., Any]


def _ints(value: Any, count: int, default: int) -> list[int] | None:
    if value is None:
        return [default] * count
    try:
        out = [int(v) for v in np.asarray(value).reshape(-1).tolist()]
    except (TypeError, ValueError):
        return None
    return out if len(out) == count else None


def bind_convolution(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A specialized convolution kernel, or None (the general evaluator)."""
    if op.name != "stablehlo.convolution" or len(op.operands) != 2:
        return None
    from . import convolution as general  # loaded with the op; not at every launch

    dtypes = _native_types(op)
    if dtypes is None or len(set(dtypes)) != 1 or dtypes[0] not in (
            np.dtype(np.float32), np.dtype(np.float64)):
        return None
    dtype = dtypes[0]
    try:
        d = decode_conv_dims(kwargs["dimension_numbers"])
    except Exception:  # noqa: BLE001 - the general evaluator reports it
        return None
    if int(kwargs.get("feature_group_count") or 1) != 1 or int(
            kwargs.get("batch_group_count") or 1) != 1:
        return None
    lhs_t, rhs_t, res_t = op.operand_types[0], op.operand_types[1], op.result_types[0]
    assert isinstance(lhs_t, TensorType) and isinstance(rhs_t, TensorType)
    assert isinstance(res_t, TensorType)
    s = len(d.input_spatial)
    rank = s + 2
    if not (len(lhs_t.shape) == len(rhs_t.shape) == len(res_t.shape) == rank):
        return None
    strides = _ints(kwargs.get("window_strides"), s, 1)
    lhs_dil = _ints(kwargs.get("lhs_dilation"), s, 1)
    rhs_dil = _ints(kwargs.get("rhs_dilation"), s, 1)
    pads = _ints(kwargs.get("padding"), 2 * s, 0)
    reversal = kwargs.get("window_reversal")
    if strides is None or lhs_dil is None or rhs_dil is None or pads is None:
        return None
    if any(v != 1 for v in lhs_dil) or any(v < 1 for v in strides + rhs_dil) or any(
            p < 0 for p in pads) or (reversal is not None and any(bool(v) for v in reversal)):
        return None
    in_perm = (d.input_batch, *d.input_spatial, d.input_feature)
    k_perm = (*d.kernel_spatial, d.kernel_input_feature, d.kernel_output_feature)
    if sorted(in_perm) != list(range(rank)) or sorted(k_perm) != list(range(rank)):
        return None
    ls, ks = tuple(lhs_t.shape), tuple(rhs_t.shape)
    batch, channels = ls[d.input_batch], ls[d.input_feature]
    spatial = [ls[a] for a in d.input_spatial]
    sizes = [ks[a] for a in d.kernel_spatial]
    features = ks[d.kernel_output_feature]
    if ks[d.kernel_input_feature] != channels:
        return None
    padded = [n + pads[2 * i] + pads[2 * i + 1] for i, n in enumerate(spatial)]
    counts = [res_t.shape[a] for a in d.output_spatial]
    for n, c, st, kk, dl in zip(padded, counts, strides, sizes, rhs_dil, strict=True):
        if c <= 0 or kk <= 0 or (c - 1) * st + (kk - 1) * dl >= n:
            return None  # empty or does not fit: the general path decides (and reports)
    if res_t.shape[d.output_batch] != batch or res_t.shape[d.output_feature] != features:
        return None
    kprod = math.prod(sizes)
    depth = kprod * channels
    opos = math.prod(counts)
    if depth <= SEQUENTIAL_DEPTH or batch == 0 or features == 0:
        return None
    shifted = (depth > channels and channels >= general.SHIFTED_RATIO * features
               and all(st == 1 for st in strides))
    if shifted and (batch * math.prod(padded) * kprod * features * dtype.itemsize
                    > gemm.IM2COL_BUDGET):
        shifted = False  # conv_shifted would decline: im2col below, as the general path
    blocks = im2col_blocks(batch, tuple(counts), depth * dtype.itemsize)
    inverse = [0] * rank
    inverse[d.output_batch] = 0
    for i, a in enumerate(d.output_spatial):
        inverse[a] = i + 1
    inverse[d.output_feature] = s + 1
    out_perm = tuple(inverse)
    identity_in = in_perm == tuple(range(rank))
    identity_out = out_perm == tuple(range(rank))
    interior = (slice(None), *[slice(pads[2 * i], pads[2 * i] + n)
                               for i, n in enumerate(spatial)], slice(None))
    any_pad = any(pads)
    padded_shape = (batch, *padded, channels)
    bufs: dict[str, np.ndarray] = {}

    def padded_input(lhs: np.ndarray) -> np.ndarray:
        x = lhs if identity_in else lhs.transpose(in_perm)
        if not any_pad:
            return np.ascontiguousarray(x, dtype=dtype)
        buf = bufs.get("pad")
        if buf is None:
            buf = bufs["pad"] = np.zeros(padded_shape, dtype)
        buf[interior] = x
        return buf

    def finish(out: np.ndarray) -> np.ndarray:
        if identity_out:
            return out
        return np.ascontiguousarray(out.transpose(out_perm))

    if shifted:
        def shifted_kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
            x = padded_input(lhs)
            k = np.ascontiguousarray(rhs.transpose(k_perm))
            # through the general module's name, as the general evaluator calls it
            result = general.conv_shifted(x, k, tuple(counts), rhs_dil, dtype)
            assert result is not None  # its budget was checked when planning
            return finish(result)
        return shifted_kernel

    window_shape = (batch, *counts, *sizes, channels)
    direct = not any_pad and all(kk == 1 for kk in sizes) and all(st == 1 for st in strides)
    zero = dtype.type(0)
    lead = (slice(None),) * (1 + s)  # batch and output positions
    taps: list[tuple[Any, ...]] | None = None if channels != 1 else [
        (*lead, *tap, 0) for tap in itertools.product(*(range(kk) for kk in sizes))]

    def window_view(x: np.ndarray) -> np.ndarray:
        step = x.strides
        return np.lib.stride_tricks.as_strided(
            x, window_shape,
            (step[0], *[st * b for st, b in zip(strides, step[1:-1], strict=True)],
             *[dl * b for dl, b in zip(rhs_dil, step[1:-1], strict=True)], step[-1]),
            writeable=False)

    if len(blocks) > 1:
        return _blocked_kernel(padded_input, window_view, finish, blocks, k_perm, depth,
                               features, (batch, opos, *counts), dtype)

    def kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        x = padded_input(lhs)
        kmat = np.ascontiguousarray(rhs.transpose(k_perm)).reshape(depth, features)
        if direct:  # 1x1 kernel, stride 1: the windows are the input itself
            rows = x.reshape(batch * opos, depth)
        else:
            windows = window_view(x)
            kept = bufs.get("rows")
            if kept is None:
                kept = bufs["rows"] = np.empty((batch * opos, depth), dtype)
            if taps is None:
                np.copyto(kept.reshape(window_shape), windows)
            else:  # one channel: numpy copies tap by tap 3x faster than whole windows
                into = kept.reshape(window_shape)
                for tap in taps:
                    into[tap] = windows[tap]
            rows = kept
        with np.errstate(all="ignore"):
            out = matmul(rows, kmat)
            out += zero
        return finish(out.reshape(batch, *counts, features))
    return kernel


def _blocked_kernel(padded_input: Kernel, window_view: Kernel, finish: Kernel,
                    blocks: list[tuple[int, int, int, int]], k_perm: tuple[int, ...],
                    depth: int, features: int, sizes: tuple[int, ...],
                    dtype: np.dtype) -> Kernel:
    """The kernel for a window matrix above IM2COL_BUDGET: the general path's blocks
    (gemm.im2col_blocks), each copied into one kept buffer and multiplied as the general
    path multiplies its copy, into the rows of one result."""
    batch, opos, *counts = sizes
    slab = opos // counts[0]
    rows_of = [(hi - lo) * opos if first == end else (end - first) * slab
               for lo, hi, first, end in blocks]
    bufs: dict[str, np.ndarray] = {}
    zero = dtype.type(0)

    def kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        windows = window_view(padded_input(lhs))
        kmat = np.ascontiguousarray(rhs.transpose(k_perm)).reshape(depth, features)
        kept = bufs.get("rows")
        if kept is None:
            kept = bufs["rows"] = np.empty((max(rows_of), depth), dtype)
        out = np.empty((batch, opos, features), dtype)
        with np.errstate(all="ignore"):
            for (lo, hi, first, end), count in zip(blocks, rows_of, strict=True):
                block = windows[lo:hi] if first == end else windows[lo, first:end]
                rows = kept[:count]
                np.copyto(rows.reshape(block.shape), block)
                if first == end:
                    out[lo:hi] = matmul(rows, kmat).reshape(hi - lo, opos, features)
                else:
                    out[lo, first * slab:end * slab] = matmul(rows, kmat)
            out += zero
        return finish(out.reshape(batch, *counts, features))
    return kernel


register_bind_hook(bind_convolution, 70, ops=("stablehlo.convolution",))
