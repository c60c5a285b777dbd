"""Moderate GEMMs on one BLAS thread.

numpy's OpenBLAS splits a GEMM of a few million multiply-adds over every core. A model at
batch 1 (a 32x32 convolution as one 1024x72 @ 72x36 product) then waits, per call, for the
helper threads to be scheduled: on an idle machine that is a few microseconds, on a busy
one (other processes on every core) a whole scheduler slice, 4-8 ms for a product that takes
0.1 ms on one thread. Below `SINGLE_THREAD_WORK` multiply-adds the interpreter asks OpenBLAS
for one thread on the calling thread only (`openblas_set_num_threads_local`, OpenBLAS 0.3.27
and later) and restores the previous count right after, so nothing else in the process is
affected. Where that call does not exist (other BLAS builds, other systems) products run as
numpy runs them. The thread count changes only how the work is divided: OpenBLAS computes
every output element with the same kernel and summation order either way.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

SINGLE_THREAD_WORK = 1 << 25
"""Products with at most this many multiply-adds (about 10 ms on one core) run on one thread;
OpenBLAS itself keeps products below about 2^16 on one thread already (`ONE_THREAD_BELOW`)."""
ONE_THREAD_BELOW = 1 << 16


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
    """`a @ b` (numpy arrays), on one BLAS thread when the product is of moderate size."""
    work = a.size * b.shape[-1] if a.ndim >= 2 and b.ndim >= 2 else 0
    if work < ONE_THREAD_BELOW or work > SINGLE_THREAD_WORK:
        return a @ b
    set_local = _set_local()
    if set_local is None:
        return a @ b
    previous = set_local(1)
    try:
        return a @ b
    finally:
        set_local(previous)
