"""Helpers shared by the benchmark sections: CPU-time measurement and the import path."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

# As the package does (see shlo_cli/__init__.py), before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)


def cpu_time(fn: Callable[[], object]) -> float:
    """CPU seconds of one call of `fn` (least disturbed by other work on the machine)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """The fastest of `repeat` runs in CPU time of this process."""
    return min(cpu_time(fn) for _ in range(repeat))


def interleaved(fns: list[Callable[[], object]], rounds: int) -> list[float]:
    """Best CPU time of each function over `rounds` interleaved rounds: a busy machine
    disturbs all of them alike, so their ratios stay meaningful."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], cpu_time(fn))
    return best
