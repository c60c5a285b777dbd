"""What the fuzzers share: run one program through a stage, classify how it ended.

Outcomes: `pass` (no error), `diagnostic` (a Diagnostic/ShloError whose text is not an
internal error), `internal` (any other exception, or a diagnostic saying "internal error"),
`hang` (over the per-case time limit), `oom` (MemoryError). Each case runs in-process under a
CPU-time timer (SIGPROF: other processes sharing the cores do not eat into it, so a busy
machine does not turn slow cases into hangs) and a wall-clock timer WALL_FACTOR times as long
(a case blocked outside the CPU), so a hang is cut short and counted.
"""

from __future__ import annotations

import collections
import signal
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shlo_cli.ir.diagnostics import Diagnostic, ShloError

# Wall time may run this many times the CPU time: 2 cores shared by a dozen busy processes.
WALL_FACTOR = 15
OUTCOMES = ("pass", "diagnostic", "internal", "hang", "oom")


class Hang(BaseException):
    """The per-case time limit ran out (BaseException: kernels' handlers must not eat it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


@dataclass
class Tally:
    """Counts per outcome, and the first examples of each failure kind."""

    counts: collections.Counter = field(default_factory=collections.Counter)
    examples: dict[str, list[str]] = field(default_factory=lambda: collections.defaultdict(list))
    signatures: collections.Counter = field(default_factory=collections.Counter)

    def add(self, outcome: str, detail: str = "", signature: str = "") -> None:
        self.counts["cases"] += 1
        self.counts[outcome] += 1
        if outcome in ("internal", "hang", "oom"):
            key = signature or detail.splitlines()[0][:160] if detail else outcome
            self.signatures[(outcome, key)] += 1
            if len(self.examples[outcome]) < 20:
                self.examples[outcome].append(detail)

    def failures(self) -> int:
        return self.counts["internal"] + self.counts["hang"] + self.counts["oom"]

    def summary(self, name: str) -> str:
        c = self.counts
        line = (f"{name}: cases={c['cases']} diagnostics={c['diagnostic']} passes={c['pass']} "
                f"internal_errors={c['internal']} hangs={c['hang']} out_of_memory={c['oom']}")
        extra = [f"  {outcome}: {count}x {key}"
                 for (outcome, key), count in self.signatures.most_common(30)]
        return "\n".join([line, *extra])


def run_case(fn: Callable[[], Any], seconds: float) -> tuple[str, str, Any]:
    """Run `fn()` under a limit of `seconds` CPU time (and WALL_FACTOR x that of wall time);
    returns (outcome, detail, value)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    previous_prof = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, seconds * WALL_FACTOR)
    try:
        value = fn()
        return "pass", "", value
    except Hang:
        return "hang", "time limit exceeded", None
    except MemoryError as e:
        return "oom", f"MemoryError: {e}", None
    except (Diagnostic, ShloError) as e:
        text = str(e)
        if "internal error" in text:
            return "internal", text, None
        return "diagnostic", text, None
    except RecursionError as e:
        return "internal", f"RecursionError: {e}", None
    except Exception as e:  # noqa: BLE001 - what the fuzzers look for
        tb = traceback.extract_tb(e.__traceback__)
        where = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else "?"
        return "internal", f"{type(e).__name__} at {where}: {e}", None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, previous)
        signal.signal(signal.SIGPROF, previous_prof)
