"""`--timeout SECONDS`: a whole-run time limit for one interpreter run.

In the main thread a real-time interval timer (SIGALRM) raises `TimedOut` where Python code
runs next: between ops, inside a Python-level kernel, or as soon as a numpy call returns, so
no per-op clock read slows the hot loop. `TimedOut` is a BaseException, so kernels' `except
Exception` cannot swallow it; the engine turns it into a diagnostic at the op it interrupted.
Where signals cannot be used (another thread, no SIGALRM), the engine compares the clock
with the deadline at every region entry instead (each loop iteration, call, ...).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any


class TimedOut(BaseException):
    """The run's time limit ran out; `seconds` is the limit, for the message."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds

    def message(self, op_name: str | None = None) -> str:
        where = f" while evaluating '{op_name}'" if op_name else ""
        return f"timed out after {self.seconds:g} s{where}"


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[float | None]:
    """Raise `TimedOut` in this thread once `seconds` have passed (no limit when None).

    Yields the monotonic deadline to check by hand when no timer could be armed (None when
    the timer covers it or there is no limit)."""
    if not seconds or seconds <= 0:
        yield None
        return
    import signal  # (here: a run without a time limit imports neither)
    import threading

    usable = (threading.current_thread() is threading.main_thread()
              and hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM"))
    if not usable:
        yield time.monotonic() + seconds
        return

    def expired(signum: int, frame: Any) -> None:
        raise TimedOut(seconds)

    previous = signal.signal(signal.SIGALRM, expired)
    started = time.monotonic()
    outer = signal.setitimer(signal.ITIMER_REAL, seconds)[0]
    try:
        yield None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer > 0:  # an outer limit keeps running with what is left of it
            left = outer - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))
