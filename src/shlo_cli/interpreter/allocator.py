"""The C allocator's thresholds for the arrays an interpretation allocates and frees.

glibc serves every allocation from 128 KiB up with fresh mmap()ed pages and returns them on
free, so a kernel making a 1 MiB temporary pays page faults for all of it on every call; the
threshold adapts only after such a chunk is freed, and a run that never triggers that keeps
paying (measured per warm run of the benchmark models, same results: cnn 1.82 -> 1.19 ms,
convnext 6.2 -> 4.9 ms). Once per process, before the first run, the mmap threshold is raised
to 64 MiB and the trim threshold to 128 MiB: arrays below that reuse freed heap memory, and
up to 128 MiB of freed memory stays with the process. Where there is no glibc `mallopt`
(other C libraries, other systems) nothing changes.
"""

from __future__ import annotations

import ctypes

_MMAP_THRESHOLD = 1 << 26  # bytes: allocations below it come from the heap
_TRIM_THRESHOLD = 1 << 27  # bytes of free heap kept before memory is given back
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameter numbers
_done = False


def tune_allocator() -> None:
    """Set the thresholds (once per process; a failure to find `mallopt` is ignored)."""
    global _done
    if _done:
        return
    _done = True
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no C library to ask, or no mallopt
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
