"""Run-time limits of one interpreter run: a cap on `while` iterations and deep recursion.

A program that loops forever, or nests regions deeper than Python's default recursion limit,
must end with a diagnostic, never a hang or a RecursionError traceback.
"""

from __future__ import annotations

import contextlib
import sys
from _thread import _local, allocate_lock  # threading's local and Lock, without threading
from collections.abc import Iterator

RECURSION_LIMIT = 20000  # enough for programs nesting thousands of regions/calls


class _RunCap(_local):
    """The `while` iteration cap of the run on this thread: Python API calls in several
    threads each run with their own cap (a process-wide one let one call's cap end
    another's loops). A run spanning threads (run_parallel's processes) passes its cap on
    with `iteration_cap`."""

    value: int | None = None


_cap = _RunCap()


def max_iterations() -> int | None:
    """The cap on iterations of one `while` loop in this thread's run (None: no cap)."""
    return _cap.value


@contextlib.contextmanager
def iteration_cap(cap: int | None) -> Iterator[None]:
    """Run with `cap` (None: keep the cap in force) on this thread."""
    saved = _cap.value
    _cap.value = cap if cap is not None else saved
    try:
        yield
    finally:
        _cap.value = saved


_recursion_lock = allocate_lock()
_recursion_runs = 0  # runs inside deep_recursion now (API calls in several threads overlap)
_recursion_saved = 0  # the limit before the first of them entered


@contextlib.contextmanager
def deep_recursion(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    """Raise Python's recursion limit for the duration (never lowers it). The limit is the
    process's: while runs overlap, the last one to leave restores the limit the first one
    found (each restoring its own would leave a raised limit behind)."""
    global _recursion_runs, _recursion_saved
    with _recursion_lock:
        if not _recursion_runs:
            _recursion_saved = sys.getrecursionlimit()
            if limit > _recursion_saved:
                sys.setrecursionlimit(limit)
        _recursion_runs += 1
    try:
        yield
    finally:
        with _recursion_lock:
            _recursion_runs -= 1
            if not _recursion_runs:
                sys.setrecursionlimit(_recursion_saved)
