"""Tiled copies of transposed arrays: the values of numpy's copy, C-contiguous, for every
permutation (tiled or not), several dtypes and non-contiguous sources."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.stablehlo.transposed_copy import (
    batched_transpose,
    transposed_copy,
    transposer,
)

SHAPES = [(130, 70), (3, 70, 65), (2, 3, 64, 66), (64, 64), (7,), (1000, 3), (0, 80, 70)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.bool_, np.complex64,
                                   ml_dtypes.bfloat16])
def test_every_permutation_copies_the_values(shape: tuple[int, ...], dtype: type) -> None:
    x = (np.random.default_rng(0).standard_normal(shape) * 10).astype(dtype)
    for perm in itertools.permutations(range(len(shape))):
        got = transposed_copy(x, perm)
        want = x.transpose(perm)
        assert got.flags.c_contiguous and got.dtype == x.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))


@pytest.mark.parametrize("shape", SHAPES)
def test_transposer_is_transposed_copy(shape: tuple[int, ...]) -> None:
    """The tiling decided once per shape: the same bytes and layout, contiguous and
    strided (reversed) sources, NaN, infinities, -0.0 and subnormals included."""
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45, -3e-39], np.float32)
    x.reshape(-1)[: min(x.size, special.size)] = special[: x.size]
    sources = [x, x[::-1]] if x.ndim else [x]
    for perm in itertools.permutations(range(len(shape))):
        copy = transposer(perm, shape)
        for source in sources:
            got, want = copy(source), transposed_copy(source, perm)
            assert got.flags.c_contiguous and got.shape == want.shape
            assert got.tobytes() == want.tobytes()


def test_non_contiguous_source() -> None:
    x = np.arange(200 * 150, dtype=np.float32).reshape(200, 150)[::2, ::-1]
    np.testing.assert_array_equal(transposed_copy(x, (1, 0)), x.T)


@pytest.mark.parametrize(("perm", "shape", "found"), [
    ((1, 0), (4, 5), (1, 4, 5)),
    ((2, 0, 1), (2, 3, 4), (1, 6, 4)),
    ((1, 2, 0), (2, 3, 4), (1, 2, 12)),
    ((0, 3, 1, 2), (2, 5, 6, 7), (2, 30, 7)),
    ((0, 2, 1), (2, 3, 4), (2, 3, 4)),
    ((1, 0, 2), (2, 3, 4), None),
    ((2, 1, 0), (2, 3, 4), None),
    ((0, 1), (2, 3), None),
])
def test_batched_transpose_forms(perm: tuple[int, ...], shape: tuple[int, ...],
                                 found: tuple[int, int, int] | None) -> None:
    assert batched_transpose(perm, shape) == found
