"""Depthwise-style grouped convolutions (f32/f64, at most DEPTHWISE_DEPTH products per sum)
take the sequential multiply-add path: checked bit for bit against a straightforward loop
in the reference order (kernel positions row-major, then the group's input features, each
product and partial sum rounded to the element type), with NaN, -0.0, infinities, channel
multipliers, strides, padding and empty tensors."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.dialects.stablehlo import convolution


def _naive(x: np.ndarray, k: np.ndarray, groups: int, stride: int, pad: int) -> np.ndarray:
    """NHWC input, HWIO kernel (I = C / groups), one output element at a time."""
    dtype = x.dtype.type
    n, h, w, c = x.shape
    kh, kw, width, f = k.shape
    xp = np.zeros((n, h + 2 * pad, w + 2 * pad, c), x.dtype)
    xp[:, pad:pad + h, pad:pad + w] = x
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w + 2 * pad - kw) // stride + 1
    fg = f // groups
    out = np.zeros((n, max(oh, 0), max(ow, 0), f), x.dtype)
    with np.errstate(all="ignore"):
        for b, i, j, o in np.ndindex(*out.shape):
            g = o // fg
            acc = dtype(0)
            for di, dj in np.ndindex(kh, kw):
                for ci in range(width):
                    v = xp[b, i * stride + di, j * stride + dj, g * width + ci]
                    acc = dtype(acc + dtype(v * k[di, dj, ci, o]))
            out[b, i, j, o] = acc
    return out


def _interpret(x: np.ndarray, k: np.ndarray, groups: int, stride: int, pad: int,
               out_shape: tuple[int, ...]) -> np.ndarray:
    elem = "f32" if x.dtype == np.float32 else "f64"

    def t(shape: tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"

    text = (f"func.func @main(%x: {t(x.shape)}, %k: {t(k.shape)}) -> {t(out_shape)} {{\n"
            f"  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->"
            f"[b, 0, 1, f], window = {{stride = [{stride}, {stride}], pad = [[{pad}, {pad}], "
            f"[{pad}, {pad}]]}} {{batch_group_count = 1 : i64, feature_group_count = {groups} "
            f": i64}} : ({t(x.shape)}, {t(k.shape)}) -> {t(out_shape)}\n"
            f"  func.return %0 : {t(out_shape)}\n}}\n")
    (out,) = shlo_cli.interpret(text, x, k)
    return np.asarray(out)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,groups,mult,kh,stride,pad", [
    ((1, 6, 5, 4), 4, 1, 3, 1, 1),     # depthwise 3x3, same padding (depth 9)
    ((2, 7, 7, 6), 6, 2, 3, 2, 1),     # channel multiplier 2, stride 2
    ((1, 6, 6, 4), 4, 3, 3, 1, 1),     # multiplier 3 < groups: accumulated as (3, groups)
    ((1, 6, 6, 2), 2, 5, 3, 1, 0),     # multiplier 5 > groups: as (groups, 5)
    ((1, 5, 5, 8), 4, 1, 3, 1, 0),     # 2 input channels per group (depth 18)
    ((1, 4, 4, 3), 3, 1, 5, 1, 2),     # 5x5 (depth 25)
    ((0, 4, 4, 3), 3, 1, 3, 1, 1),     # empty batch
    ((1, 0, 4, 3), 3, 1, 3, 1, 1),     # empty spatial dimension
])
def test_depthwise_matches_reference_order(dtype: type, shape: tuple[int, ...], groups: int,
                                           mult: int, kh: int, stride: int, pad: int) -> None:
    rng = np.random.default_rng(sum(shape) + groups)
    x = rng.standard_normal(shape).astype(dtype)
    width = shape[-1] // groups
    k = rng.standard_normal((kh, kh, width, groups * mult)).astype(dtype)
    assert kh * kh * width <= convolution.DEPTHWISE_DEPTH
    flat = x.reshape(-1)
    for i, v in enumerate([np.nan, -0.0, np.inf, -np.inf, 1e30]):
        if i < flat.size:
            flat[i * 7 % max(flat.size, 1)] = v
    k.reshape(-1)[:2] = [-0.0, 0.0]
    want = _naive(x, k, groups, stride, pad)
    got = _interpret(x, k, groups, stride, pad, want.shape)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    bits = np.uint32 if dtype == np.float32 else np.uint64
    ok = ~np.isnan(want)
    assert np.array_equal(got.view(bits)[ok], want.view(bits)[ok])
