"""BLAS dot_general and im2col convolution agree with the straightforward evaluation
(a float64 einsum over the same windows, rounded once) on random inputs with NaN, -0.0 and
empty tensors, for f32, f64, f16 and bf16, feature and batch groups."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

TYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def _shape(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _data(rng: np.random.Generator, shape: tuple[int, ...], elem: str,
          specials: bool = True) -> np.ndarray:
    x = rng.standard_normal(shape).astype(TYPES[elem])
    if specials and x.size:
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, max(1, flat.size // 10), replace=False)] = -0.0
    return x


def _check(got: np.ndarray, exact: np.ndarray, elem: str) -> None:
    """Equal to the float64 result up to the type's rounding of a sum; NaN where it is NaN;
    exact zeros are +0 (a sum starts from +0)."""
    assert got.dtype == np.dtype(TYPES[elem])
    wide = got.astype(np.float64)
    assert np.array_equal(np.isnan(wide), np.isnan(exact))
    ok = ~np.isnan(exact)
    eps = float(ml_dtypes.finfo(TYPES[elem]).eps)
    scale = np.abs(exact[ok]) + 1
    assert np.all(np.abs(wide[ok] - exact[ok]) <= 64 * eps * scale)
    zeros = ok & (exact == 0) & (wide == 0)
    assert not np.signbit(wide[zeros]).any()


@pytest.mark.parametrize("elem", list(TYPES))
@pytest.mark.parametrize("b,m,k,n", [(1, 5, 40, 7), (3, 4, 17, 2), (2, 0, 20, 3), (1, 3, 0, 4),
                                     (1, 6, 9, 1)])
def test_dot_general_blas_matches_einsum(elem, b, m, k, n):
    rng = np.random.default_rng(b * 100 + m * 10 + k)
    lhs = _data(rng, (b, k, m), elem)  # contracting dim in the middle: a transpose folds in
    rhs = _data(rng, (n, k, b), elem)
    if lhs.size > 3:
        lhs.reshape(-1)[3] = np.nan
    rhs = (np.abs(rhs.astype(np.float32)) + 0.5).astype(TYPES[elem])
    if m:
        lhs[0, :, 0] = -0.0  # an output summing only -0 products is +0 (the sum starts at +0)
    res = (b, m, n)
    text = f"""
func.func @main(%a: {_shape(lhs.shape, elem)}, %b: {_shape(rhs.shape, elem)}) -> {_shape(res, elem)} {{
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [2], contracting_dims = [1] x [1] : ({_shape(lhs.shape, elem)}, {_shape(rhs.shape, elem)}) -> {_shape(res, elem)}
  return %0 : {_shape(res, elem)}
}}
"""
    [got] = _run(text, lhs, rhs)
    exact = np.einsum("bkm,nkb->bmn", lhs.astype(np.float64), rhs.astype(np.float64))
    _check(got, exact, elem)


def _conv_reference(x, k, stride, pad, lhs_dil, rhs_dil, groups, batch_groups):
    """NHWC x HWIO, the spec's definition with float64 sums."""
    x = x.astype(np.float64)
    k = k.astype(np.float64)
    n, h, w, c = x.shape
    kh, kw, ci, f = k.shape
    dh = (h - 1) * lhs_dil + 1 if h else 0
    dw = (w - 1) * lhs_dil + 1 if w else 0
    big = np.zeros((n, dh + 2 * pad, dw + 2 * pad, c))
    big[:, pad:pad + dh:lhs_dil, pad:pad + dw:lhs_dil, :] = x
    oh = (big.shape[1] - (kh - 1) * rhs_dil - 1) // stride + 1
    ow = (big.shape[2] - (kw - 1) * rhs_dil - 1) // stride + 1
    per = n // batch_groups
    out = np.zeros((per, oh, ow, f))
    fg = f // groups
    fb = f // batch_groups
    for b, i, j, o in itertools.product(range(per), range(oh), range(ow), range(f)):
        g, bg = o // fg, o // fb
        total = 0.0
        for a, e, ch in itertools.product(range(kh), range(kw), range(ci)):
            total += (big[bg * per + b, i * stride + a * rhs_dil, j * stride + e * rhs_dil,
                          g * ci + ch] * k[a, e, ch, o])
        out[b, i, j, o] = total
    return out


CONVS = [  # (input NHWC, kernel HWIO, stride, pad, lhs dilation, rhs dilation, groups, batch groups)
    ((2, 7, 6, 3), (3, 3, 3, 4), 1, 1, 1, 1, 1, 1),
    ((1, 9, 9, 4), (3, 3, 2, 6), 2, 0, 1, 2, 2, 1),
    ((4, 5, 5, 3), (2, 2, 3, 4), 1, 1, 2, 1, 1, 2),
    ((0, 5, 5, 3), (3, 3, 3, 2), 1, 0, 1, 1, 1, 1),
]


@pytest.mark.parametrize("elem", ["f32", "f64", "bf16"])
@pytest.mark.parametrize("case", range(len(CONVS)))
def test_convolution_im2col_matches_reference(elem, case):
    xs, ks, stride, pad, lhs_dil, rhs_dil, groups, bgroups = CONVS[case]
    rng = np.random.default_rng(case)
    x = _data(rng, xs, elem)
    k = _data(rng, ks, elem, specials=False)
    if x.size:
        x.reshape(-1)[5] = np.nan
    exact = _conv_reference(x, k, stride, pad, lhs_dil, rhs_dil, groups, bgroups)
    out_shape = exact.shape
    text = f"""
func.func @main(%x: {_shape(xs, elem)}, %k: {_shape(ks, elem)}) -> {_shape(out_shape, elem)} {{
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [{stride}, {stride}], pad = [[{pad}, {pad}], [{pad}, {pad}]], lhs_dilate = [{lhs_dil}, {lhs_dil}], rhs_dilate = [{rhs_dil}, {rhs_dil}]}} {{batch_group_count = {bgroups} : i64, feature_group_count = {groups} : i64}} : ({_shape(xs, elem)}, {_shape(ks, elem)}) -> {_shape(out_shape, elem)}
  return %0 : {_shape(out_shape, elem)}
}}
"""
    [got] = _run(text, x, k)
    _check(got, exact, elem)


def test_im2col_chunks_give_the_unchunked_result(monkeypatch):
    from shlo_cli.dialects.stablehlo import gemm

    ks = CONVS[1][1]  # 3x3 kernel, 2 input features per group, 6 output features
    rng = np.random.default_rng(7)
    x = _data(rng, (3, 11, 9, 4), "f32")
    k = _data(rng, ks, "f32", specials=False)
    exact = _conv_reference(x, k, 1, 1, 1, 1, 2, 1)
    text = f"""
func.func @main(%x: {_shape(x.shape, "f32")}, %k: {_shape(ks, "f32")}) -> {_shape(exact.shape, "f32")} {{
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{pad = [[1, 1], [1, 1]]}} {{batch_group_count = 1 : i64, feature_group_count = 2 : i64}} : ({_shape(x.shape, "f32")}, {_shape(ks, "f32")}) -> {_shape(exact.shape, "f32")}
  return %0 : {_shape(exact.shape, "f32")}
}}
"""
    [whole] = _run(text, x, k)
    for budget in (1, 200, 2000):  # one output row, a few rows, a few images at a time
        monkeypatch.setattr(gemm, "IM2COL_BUDGET", budget)
        [chunked] = _run(text, x, k)
        # same rows and columns; only how many rows one GEMM call gets differs
        np.testing.assert_allclose(chunked, whole, rtol=1e-6, atol=1e-6)
    _check(whole, exact, "f32")
