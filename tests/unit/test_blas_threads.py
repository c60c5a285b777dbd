"""gemm's one-thread BLAS products (blas_threads.matmul) equal numpy's own `a @ b` bit for
bit, on random inputs with NaN, -0.0 and empty operands, batched and not, below, inside and
above the one-thread size band; the calling thread's BLAS thread count is restored."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import blas_threads

SHAPES = [((0, 5), (5, 3)), ((4, 0), (0, 7)), ((3, 4), (4, 5)),  # tiny, empty
          ((1024, 72), (72, 36)), ((300, 200), (200, 130)),  # the one-thread band
          ((3, 64, 90), (3, 90, 50)), ((2, 40, 30), (30, 20)),  # batched
          ((1100, 1000), (1000, 40))]  # above the band: numpy's own threading


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("ls", "rs"), SHAPES)
def test_matmul_is_numpys_product(dtype: type, ls: tuple[int, ...], rs: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(ls) * 100 + ls[-1])
    a = rng.standard_normal(ls).astype(dtype)
    b = rng.standard_normal(rs).astype(dtype)
    if a.size > 4:
        a.reshape(-1)[::7] = -0.0
        a.reshape(-1)[3] = np.nan
        b.reshape(-1)[::5] = -0.0
    got = blas_threads.matmul(a, b)
    want = a @ b
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_thread_count_restored() -> None:
    set_local = blas_threads._set_local()
    if set_local is None:
        pytest.skip("no OpenBLAS thread-local control in this numpy")
    before = set_local(3)
    try:
        blas_threads.matmul(np.ones((500, 100), np.float32), np.ones((100, 100), np.float32))
        assert set_local(3) == 3
    finally:
        set_local(before)
