"""gemm's one-thread BLAS products (blas_threads.matmul) equal numpy's own `a @ b` bit for
bit, on random inputs with NaN, -0.0 and empty operands, batched and not, below and inside
the one-thread size band; above it, large 2-D products are row blocks (`row_blocks`): each
block's rows are that block's own one-thread product, bit for bit, whatever the number of
helper threads, and close to `a @ b`; the calling thread's BLAS thread count is restored."""

from __future__ import annotations

import threading
import time

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


def _one_thread(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    set_local = blas_threads._set_local()
    assert set_local is not None
    previous = set_local(1)
    try:
        return a @ b
    finally:
        set_local(previous)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize(("m", "k", "n", "axis"), [
    (128, 300, 40, 0), (1000, 257, 130, 0), (4099, 64, 17, 0), (700, 1, 3, 0),
    (64, 900, 384, 1), (2, 50, 1000, 1), (127, 33, 129, 1)])
def test_product_blocks_are_their_blocks_products(dtype: type, m: int, k: int, n: int,
                                                  axis: int) -> None:
    set_local = blas_threads._set_local()
    if set_local is None:
        pytest.skip("no OpenBLAS thread-local control in this numpy")
    rng = np.random.default_rng(m + k + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    a.reshape(-1)[::11] = -0.0
    a.reshape(-1)[5] = np.nan
    b.reshape(-1)[::3] = -0.0
    assert blas_threads.split_axis(a, b) == axis
    bounds = blas_threads.block_bounds((m, n)[axis])
    assert bounds[0] == 0 and bounds[-1] == (m, n)[axis] and len(bounds) >= 3
    parts = [slice(lo, hi) for lo, hi in zip(bounds, bounds[1:], strict=False)]
    sizes = [part.stop - part.start for part in parts]
    assert min(sizes[:-1]) >= blas_threads.MIN_BLOCK and 0 < sizes[-1] <= sizes[0]
    if axis == 0:
        want = np.concatenate([_one_thread(a[part], b) for part in parts])
    else:
        want = np.concatenate([_one_thread(a, b[:, part]) for part in parts], axis=1)
    for helpers in (0, 1, 3):
        got = blas_threads.product_blocks(a, b, set_local, axis, helpers)
        assert got.dtype == want.dtype and got.shape == (m, n)
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], (a @ b)[ok], rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(("m", "k", "n"), [(2000, 300, 60), (64, 1000, 600)])
def test_matmul_takes_blocks_above_the_band(m: int, k: int, n: int) -> None:
    set_local = blas_threads._set_local()
    if set_local is None:
        pytest.skip("no OpenBLAS thread-local control in this numpy")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    assert a.size * b.shape[1] > blas_threads.SINGLE_THREAD_WORK
    axis = blas_threads.split_axis(a, b)
    assert axis is not None
    got = blas_threads.matmul(a, b)
    assert np.array_equal(got, blas_threads.product_blocks(a, b, set_local, axis, 0))
    assert np.array_equal(got, blas_threads.matmul(np.asfortranarray(a), b))  # views too
    assert np.array_equal(got, blas_threads.matmul(a, np.asfortranarray(b)))


def test_rows_of_one_are_left_to_numpy() -> None:
    a, b = np.ones((1, 10), np.float32), np.ones((10, 300), np.float32)
    assert blas_threads.split_axis(a, b) is None
    assert blas_threads.split_axis(a.astype(np.int32), b.astype(np.int32)) is None


def test_product_blocks_report_errors() -> None:
    set_local = blas_threads._set_local()
    if set_local is None:
        pytest.skip("no OpenBLAS thread-local control in this numpy")
    a = np.ones((200, 10), np.float32)
    with pytest.raises(ValueError):
        blas_threads.product_blocks(a, np.ones((11, 4), np.float32), set_local, 0, 1)


@pytest.mark.parametrize("late", [True, False])
def test_helpers_multiply_only_while_the_count_is_one(late: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The thread count is the process's in numpy's OpenBLAS: helpers start only once the
    calling thread holds it at one, and a helper slowed between taking a block and
    multiplying it (a busy core) still multiplies at one thread, because the calling thread
    restores the count only after every block has finished; the count is then as before.
    (`late`: the helper waits between taking a block and multiplying it; else it multiplies
    at once, then waits.)"""
    count = [4]
    seen: list[int] = []
    helped: list[bool] = []

    def set_local(n: int) -> int:  # (one process-wide count, as numpy's OpenBLAS has)
        if threading.current_thread() is threading.main_thread() and n == 1:
            time.sleep(0.1)  # (a helper already running would take a block meanwhile)
        previous, count[0] = count[0], n
        return previous

    real = np.matmul

    def slowed(*args: object, **kwargs: object) -> object:
        helper = threading.current_thread() is not threading.main_thread()
        if late or not helper:
            time.sleep(0.2 if helper else 0.02)
        seen.append(count[0])  # (the count BLAS would take)
        helped.append(helper)
        if helper and not late:
            time.sleep(0.2)
        return real(*args, **kwargs)

    a = np.ones((1024, 8), np.float32)
    b = np.ones((8, 4), np.float32)
    monkeypatch.setattr(blas_threads.np, "matmul", slowed)
    got = blas_threads.product_blocks(a, b, set_local, 0, 1)
    monkeypatch.undo()
    assert np.array_equal(got, a @ b) and count[0] == 4
    assert len(seen) == len(blas_threads.block_bounds(1024)) - 1 and set(seen) == {1}
    assert any(helped)



def _recording(delay: float, count: list[int], seen: list[tuple[str, int]]) -> type[np.ndarray]:
    """An operand type whose `@` waits `delay` seconds, then records the process's count."""

    class Recorded(np.ndarray):
        def __matmul__(self, other: object) -> np.ndarray:
            time.sleep(delay)
            seen.append((threading.current_thread().name, count[0]))
            return np.zeros((1, 1), np.float32)

    return Recorded


def test_threads_share_the_process_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads' one-thread products overlap (the count is the process's): the second
    still multiplies at one thread after the first has finished, and the count goes back
    only when both have. A product left to OpenBLAS's threading, started while another
    thread holds the count at one, waits and multiplies at the process's own count."""
    count = [4]
    seen: list[tuple[str, int]] = []

    def set_local(n: int) -> int:
        previous, count[0] = count[0], n
        return previous

    monkeypatch.setattr(blas_threads, "_set_local", lambda: set_local)
    band = (300, 300), (300, 300)  # inside the one-thread band
    large = (4, 1024, 1024), (4, 1024, 64)  # above it, batched: not split into blocks

    def product(name: str, shapes: tuple[tuple[int, ...], ...], delay: float) -> threading.Thread:
        one = np.float32(1)
        a = np.broadcast_to(one, shapes[0]).view(_recording(delay, count, seen))
        thread = threading.Thread(target=blas_threads.matmul, name=name,
                                  args=(a, np.broadcast_to(one, shapes[1])))
        thread.start()
        return thread

    first = product("first", band, 0.1)
    time.sleep(0.03)
    second = product("second", band, 0.3)
    time.sleep(0.03)
    third = product("large", large, 0.0)
    for thread in (first, second, third):
        thread.join()
    assert seen == [("first", 1), ("second", 1), ("large", 4)] and count[0] == 4
