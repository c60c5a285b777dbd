"""Run-time limits of one interpreter run: a cap on `while` iterations and deep recursion.

A program that loops forever, or nests regions deeper than Python's default recursion limit,
must end with a diagnostic, never a hang or a RecursionError traceback.
"""

from __future__ import annotations

import contextlib
import sys
from _thread import allocate_lock  # threading.Lock, without importing threading
from collections.abc import Iterator

_max_iterations: int | None = None
RECURSION_LIMIT = 20000  # enough for programs nesting thousands of regions/calls


def max_iterations() -> int | None:
    """The cap on iterations of one `while` loop in the current run (None: no cap)."""
    return _max_iterations


@contextlib.contextmanager
def iteration_cap(cap: int | None) -> Iterator[None]:
    global _max_iterations
    saved = _max_iterations
    _max_iterations = cap if cap is not None else saved
    try:
        yield
    finally:
        _max_iterations = saved


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
