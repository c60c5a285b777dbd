"""gemm.conv_shifted (stride-1 ungrouped convolutions: one GEMM of the input with all kernel
positions, then shifted adds) against the straightforward evaluation: every output element
summed in float64 from its window, with NaN and infinities where they must appear, -0.0
sums giving +0.0, dilation, padding, 1-d and 3-d windows and empty tensors; and the
convolution op takes the path where it should."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.dialects.stablehlo import convolution, gemm


def _reference(x: np.ndarray, k: np.ndarray, counts: tuple[int, ...],
               dilation: list[int]) -> np.ndarray:
    """x (N, P.., C) already padded; k (K.., C, F); float64 sums, one output at a time."""
    s = k.ndim - 2
    out = np.zeros((x.shape[0], *counts, k.shape[-1]), np.float64)
    with np.errstate(all="ignore"):
        for index in np.ndindex(*out.shape[:-1]):
            n, o = index[0], index[1:]
            window = x[(n, *[slice(p, p + (kk - 1) * d + 1, d)
                             for p, kk, d in zip(o, k.shape[:s], dilation, strict=True)])]
            out[index] = np.tensordot(window.astype(np.float64), k.astype(np.float64),
                                      axes=(list(range(s + 1)), list(range(s + 1))))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xshape,kshape,dilation", [
    ((1, 9, 8, 12), (3, 3, 12, 4), [1, 1]),
    ((2, 10, 10, 9), (3, 2, 9, 3), [2, 1]),
    ((1, 12, 6), (5, 6, 2), [1]),
    ((1, 5, 5, 5, 6), (2, 2, 2, 6, 2), [1, 1, 1]),
    ((0, 6, 6, 6), (3, 3, 6, 2), [1, 1]),
    ((1, 6, 6, 6), (3, 3, 6, 0), [1, 1]),
])
def test_conv_shifted_matches_window_sums(dtype: type, xshape: tuple[int, ...],
                                          kshape: tuple[int, ...], dilation: list[int]) -> None:
    rng = np.random.default_rng(sum(xshape) + sum(kshape))
    x = rng.standard_normal(xshape).astype(dtype)
    k = rng.standard_normal(kshape).astype(dtype)
    if x.size > 40:
        x.reshape(-1)[[3, 17, 40]] = [np.nan, np.inf, -0.0]
    s = k.ndim - 2
    counts = tuple(p - (kk - 1) * d for p, kk, d in zip(x.shape[1:1 + s], k.shape[:s], dilation,
                                                         strict=True))
    got = gemm.conv_shifted(x, k, counts, dilation, np.dtype(dtype))
    assert got is not None and got.dtype == dtype
    want = _reference(x, k, counts, dilation)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    scale = _reference(np.abs(np.nan_to_num(x, posinf=0)), np.abs(k), counts, dilation) + 1
    assert np.all(np.abs(got[finite] - want[finite]) <= tol * scale[finite])


def test_negative_zero_sums_are_positive_zero() -> None:
    x = np.full((1, 4, 4, 6), -0.0, np.float32)
    k = np.ones((3, 3, 6, 2), np.float32)
    got = gemm.conv_shifted(x, k, (2, 2), [1, 1], np.dtype(np.float32))
    assert got is not None and not np.signbit(got).any()


def test_over_budget_declines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gemm, "IM2COL_BUDGET", 16)
    x = np.ones((1, 6, 6, 6), np.float32)
    assert gemm.conv_shifted(x, np.ones((3, 3, 6, 2), np.float32), (4, 4), [1, 1],
                             np.dtype(np.float32)) is None


def test_convolution_op_takes_the_shifted_path(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = convolution.conv_shifted
    monkeypatch.setattr(convolution, "conv_shifted",
                        lambda *a: calls.append(1) or real(*a))  # type: ignore[func-returns-value]
    text = """func.func @main(%x: tensor<1x8x8x12xf32>, %k: tensor<3x3x12x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x12xf32>, tensor<3x3x12x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %0 : tensor<1x8x8x4xf32>
}
"""  # noqa: E501
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 8, 8, 12)).astype(np.float32)
    k = rng.standard_normal((3, 3, 12, 4)).astype(np.float32)
    (out,) = shlo_cli.interpret(text, x, k)
    assert calls
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    np.testing.assert_allclose(out, _reference(padded, k, (8, 8), [1, 1]), rtol=1e-5, atol=1e-5)
