"""Run-time limits of one interpreter run: a cap on `while` iterations and deep recursion.

A program that loops forever, or nests regions deeper than Python's default recursion limit,
must end with a diagnostic, never a hang or a RecursionError traceback.
"""

from __future__ import annotations

import contextlib
import sys
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


@contextlib.contextmanager
def deep_recursion(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    """Raise Python's recursion limit for the duration (never lowers it)."""
    saved = sys.getrecursionlimit()
    if limit > saved:
        sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)
