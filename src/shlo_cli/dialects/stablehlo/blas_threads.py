"""GEMMs on one BLAS thread per core: moderate ones on the calling thread, large ones as
row blocks shared by the calling thread and helper threads.

numpy's OpenBLAS splits a GEMM of a few million multiply-adds over every core. A model at
batch 1 (a 32x32 convolution as one 1024x72 @ 72x36 product) then waits, per call, for the
helper threads to be scheduled: on an idle machine that is a few microseconds, on a busy
one (other processes on every core) a whole scheduler slice, 4-8 ms for a product that takes
0.1 ms on one thread. Below `SINGLE_THREAD_WORK` multiply-adds the interpreter asks OpenBLAS
for one thread (`openblas_set_num_threads_local`, OpenBLAS 0.3.27 and later) and restores the
previous count right after. In a pthreads build (numpy's wheels) that count is the whole
process's, not the calling thread's, so a product's helper threads only call BLAS while the
calling thread holds it at one: the count goes back after every block has finished. Where
that call does not exist (other BLAS builds, other systems) products run as numpy runs them.

Larger 2-D products (a VGG convolution: 50176x576 @ 576x64) need every core, but OpenBLAS's
own threading divides the rows evenly up front: with another process on one core, the
half given to that core finishes last and the other thread spins waiting for it (VGG16 ran
1.4x slower than on one thread). `product_blocks` cuts the rows (or, for a product of
fewer rows, such as an 8x8 convolution's 64, the columns) into `BLOCKS` blocks instead,
each one single-threaded GEMM into its part of the result; the calling thread and one
helper thread per further core take blocks as they become free, so a slowed core simply
takes fewer. (Each block packs the operand it does not split again: rows are split only when
there are enough of them, columns only when the rows are few, so that operand is small.)
The blocks depend only on the shape, never on the core count or on which thread runs which
block, so results are the same on every machine with the same BLAS and every run.
(OpenBLAS's sums are not independent of how a product is divided: its small-size kernels and
its own threads round differently, so neither one GEMM on two threads nor an uneven split
would give the same bits; these products are not numpy's `a @ b` bit for bit, only close.)
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

SINGLE_THREAD_WORK = 1 << 25
"""Products with at most this many multiply-adds (about 10 ms on one core) run on one thread;
OpenBLAS itself keeps products below about 2^16 on one thread already (`ONE_THREAD_BELOW`)."""
ONE_THREAD_BELOW = 1 << 16
BLOCKS = 8
"""Blocks of a product above `SINGLE_THREAD_WORK` (enough for a slowed core to take fewer)."""
WAIT = 1e-4
"""Seconds between looks at the BLAS count while another thread holds it at another value
(only threads multiplying at once ever wait)."""
MIN_BLOCK = 64
"""Fewest rows (columns) of a block: thinner blocks would repack the whole other operand for
little work each. Products with fewer than two blocks' worth either way (a row times a
matrix) run as numpy runs them."""


@functools.cache
def _set_local() -> Callable[[int], int] | None:
    """OpenBLAS's thread-local `set_num_threads` (returns the previous count), from the
    library numpy has loaded, or None."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here, not at import: tools that never multiply skip loading it

    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            paths = {line.split(None, 5)[-1].strip() for line in f if "blas" in line.lower()}
    except OSError:
        return None
    for path in sorted(p for p in paths if p.startswith("/")):
        try:
            lib = ctypes.CDLL(path, mode=getattr(ctypes, "RTLD_NOLOAD", 4) | ctypes.RTLD_LOCAL)
        except OSError:
            continue
        fn = getattr(lib, "openblas_set_num_threads_local", None)
        if fn is not None:
            fn.argtypes = [ctypes.c_int]
            fn.restype = ctypes.c_int
            return fn  # type: ignore[no-any-return]
    return None


def matmul(a: Any, b: Any) -> Any:
    """`a @ b` (numpy arrays): on one BLAS thread when the product is of moderate size, as
    `product_blocks` when it is large (see the module docstring)."""
    work = a.size * b.shape[-1] if a.ndim >= 2 and b.ndim >= 2 else 0
    if work < ONE_THREAD_BELOW:
        return a @ b
    set_local = _set_local()
    if set_local is None:
        return a @ b
    if work > SINGLE_THREAD_WORK:
        axis = split_axis(a, b)
        if axis is not None:
            return product_blocks(a, b, set_local, axis)
        _COUNT.hold_default()
        try:
            return a @ b
        finally:
            _COUNT.release_default()
    _COUNT.hold_one(set_local)
    try:
        return a @ b
    finally:
        _COUNT.release_one(set_local)


def split_axis(a: Any, b: Any) -> int | None:
    """0 (rows) or 1 (columns): how `product_blocks` divides a @ b; None: not at all."""
    if not (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and b.ndim == 2
            and a.dtype == b.dtype and a.dtype.kind in "fc" and a.shape[1] == b.shape[0]):
        return None
    if a.shape[0] >= 2 * MIN_BLOCK:
        return 0
    return 1 if a.shape[0] > 1 and b.shape[1] >= 2 * MIN_BLOCK else None


def block_bounds(length: int) -> list[int]:
    """Offsets of the blocks along a split axis of `length` (shape-dependent only)."""
    size = -(-length // BLOCKS)
    size = max(MIN_BLOCK, -(-size // 16) * 16)  # whole 16-row (column) kernel tiles
    return [*range(0, length, size), length]


def product_blocks(a: np.ndarray, b: np.ndarray, set_local: Callable[[int], int], axis: int,
                   helpers: int | None = None) -> np.ndarray:
    """a (M, K) @ b (K, N) as one single-threaded GEMM per `block_bounds` block of rows
    (axis 0) or columns (axis 1), the blocks taken by the calling thread and up to `helpers`
    helper threads (default: one per further core) as each becomes free. A helper that
    starts late finds nothing left: the call waits only for blocks a helper has taken."""
    bounds = block_bounds(a.shape[0] if axis == 0 else b.shape[1])
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    state = _Blocks(len(bounds) - 1)
    errors = np.geterr()

    def run_blocks() -> None:
        with np.errstate(**errors):  # numpy's error state is per thread
            while (index := state.take()) is not None:
                try:
                    set_local(1)  # (a helper's own count, where it is per thread)
                    part = slice(bounds[index], bounds[index + 1])
                    if axis == 0:
                        np.matmul(a[part], b, out=out[part])
                    else:
                        np.matmul(a, b[:, part], out=out[:, part])
                except BaseException as error:  # noqa: BLE001 - raised by the caller
                    state.error = error
                finally:
                    state.done()

    count = _helper_count() if helpers is None else helpers
    pool = _pool() if count else None
    _COUNT.hold_one(set_local)  # (before any helper can start a block)
    try:
        for _ in range(min(count, len(bounds) - 2)):
            assert pool is not None
            pool.submit(run_blocks)
        run_blocks()
    finally:
        state.wait()  # (before the count goes back: it may be the process's, not the thread's)
        _COUNT.release_one(set_local)
    if state.error is not None:
        raise state.error
    return out


class _ProcessCount:
    """Who holds numpy's OpenBLAS thread count, which is the process's, not a thread's.

    Products of several threads (an `interpreter.run_parallel` grid, a product's helper
    threads) would otherwise race: one thread restoring the count while another multiplies
    makes that product's rounding depend on timing. Products needing one thread hold the
    count at one together; the first sets it and the last restores it. A product left to
    OpenBLAS's own threading waits until no one holds it at one, and such products keep
    one-thread products waiting in turn, so every product runs at the count its shape
    chose."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # (a plain lock: this runs once per product)
        self.ones = 0
        self.defaults = 0
        self.saved = 0

    def hold_one(self, set_local: Callable[[int], int]) -> None:
        while True:
            with self.lock:
                if not self.defaults:
                    if not self.ones:
                        self.saved = set_local(1)
                    self.ones += 1
                    return
            time.sleep(WAIT)

    def release_one(self, set_local: Callable[[int], int]) -> None:
        with self.lock:
            self.ones -= 1
            if not self.ones:
                set_local(self.saved)

    def hold_default(self) -> None:
        while True:
            with self.lock:
                if not self.ones:
                    self.defaults += 1
                    return
            time.sleep(WAIT)

    def release_default(self) -> None:
        with self.lock:
            self.defaults -= 1


_COUNT = _ProcessCount()


class _Blocks:
    """The blocks of one product not yet taken, and those taken but not finished."""

    def __init__(self, count: int) -> None:
        self.left = list(range(count - 1, -1, -1))
        self.running = 0
        self.error: BaseException | None = None
        self.lock = threading.Condition()

    def take(self) -> int | None:
        with self.lock:
            if not self.left:
                return None
            self.running += 1
            return self.left.pop()

    def done(self) -> None:
        with self.lock:
            self.running -= 1
            if not self.running:
                self.lock.notify_all()

    def wait(self) -> None:
        with self.lock:
            self.left.clear()  # (after an error: nobody starts another block)
            while self.running:
                self.lock.wait()


@functools.cache
def _helper_count() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(0, min(cores, BLOCKS) - 1)


@functools.cache
def _pool() -> Any:
    """The helper threads. Each asks for one BLAS thread once it holds a block, never
    earlier: where the count is the process's, a helper starting late would otherwise set
    it after the calling thread has restored it."""
    from concurrent.futures import ThreadPoolExecutor

    if hasattr(os, "register_at_fork"):  # a forked child has none of these threads
        os.register_at_fork(after_in_child=_pool.cache_clear)
    return ThreadPoolExecutor(_helper_count(), thread_name_prefix="shlo-gemm")
