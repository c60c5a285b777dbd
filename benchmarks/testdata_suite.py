"""Time of the conformance `testdata` suite run in-process (issue 4).

For every file whose first `--interpret` RUN line is enabled, this does what that line's
pipeline does, minus the processes and the text round trip: parse, run the `stablehlo-opt`
passes it names (e.g. `-inline`, `--chlo-pre-serialization-pipeline`) in order, and
interpret each chunk (`-split-input-file` honoured). A chunk passes when it runs without a
diagnostic (a failed `check.expect_*` is one).
"""

from __future__ import annotations

import cProfile
import glob
import io
import os
import pstats
import re
import time
from dataclasses import dataclass

from shlo_cli.commands.common import split_chunks
from shlo_cli.interpreter.run import evaluate
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.passes import PASSES, run_passes

REFERENCE_SECONDS = 30.0  # upstream's C++ interpreter, full testdata set
REFERENCE_PROGRAMS = 2426
_RUN = re.compile(r"^//\s*RUN:(.*)$", re.M)


@dataclass
class Program:
    """One interpretable testdata file: what its RUN line asks for."""

    path: str
    text: str
    passes: list[str]
    split: bool


@dataclass
class Outcome:
    path: str
    seconds: float  # whole program
    front_seconds: float  # of which parse + passes
    error: str | None


def interpret_line(text: str) -> str | None:
    """The first enabled RUN line that runs the interpreter, else None."""
    for match in _RUN.finditer(text):
        if "--interpret" in match.group(1):
            return match.group(1)
    return None


def load_programs(folder: str) -> list[Program]:
    """Every interpretable program under `folder`, with the passes its RUN line names."""
    programs = []
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.mlir"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        line = interpret_line(text)
        if line is None:
            continue
        passes, split = [], False
        for stage in line.split("|"):
            words = stage.split()
            if words and words[0] == "stablehlo-opt":
                passes += [w.lstrip("-") for w in words[1:] if w.lstrip("-") in PASSES]
            split = split or any(w.lstrip("-") == "split-input-file" for w in words)
        programs.append(Program(path, text, passes, split))
    return programs


def run_program(program: Program) -> tuple[str | None, float]:
    """Parse, transform and interpret `program`: the first diagnostic's message (or None),
    and the CPU time spent parsing and transforming."""
    front = 0.0
    for chunk in split_chunks(program.text, program.split):
        try:
            start = time.process_time()
            module = parse_source(chunk.text, program.path, line_offset=chunk.line_offset)
            run_passes(module, program.passes)
            front += time.process_time() - start
            evaluate(module, stdout=io.StringIO(), line_offset=chunk.line_offset)
        except Diagnostic as d:
            return str(d).splitlines()[0], front
    return None, front


def run_all(programs: list[Program], rounds: int = 2) -> list[Outcome]:
    """Each program's outcome and best CPU time (this process) over `rounds` whole-suite
    rounds (the first also pays for lazy imports and caches)."""
    outcomes = [Outcome(p.path, float("inf"), 0.0, None) for p in programs]
    for _ in range(rounds):
        for program, outcome in zip(programs, outcomes, strict=True):
            start = time.process_time()
            error, front = run_program(program)
            seconds = time.process_time() - start
            outcome.error = error
            if seconds < outcome.seconds:
                outcome.seconds, outcome.front_seconds = seconds, front
    return outcomes


def report(outcomes: list[Outcome], folder: str, slowest: int = 10) -> None:
    total = sum(o.seconds for o in outcomes)
    failed = [o for o in outcomes if o.error is not None]
    n = len(outcomes)
    print(f"testdata suite (in-process parse + passes + interpret, best CPU time of 2 rounds): "
          f"{n} programs, "
          f"{n - len(failed)} passed, {len(failed)} failed")
    front = sum(o.front_seconds for o in outcomes)
    print(f"  total {total:.2f} s (parse + passes {front:.2f} s, interpret {total - front:.2f} s),"
          f" mean {total / max(n, 1) * 1e3:.2f} ms/program")
    ref_mean = REFERENCE_SECONDS / REFERENCE_PROGRAMS
    print(f"  upstream's C++ interpreter (QUOTED, NOT MEASURED HERE; a process per program, "
          f"not in-process): about {REFERENCE_SECONDS:.0f} s for {REFERENCE_PROGRAMS:,} "
          f"programs, {ref_mean * 1e3:.1f} ms/program. Not comparable like for like, so no "
          f"ratio is printed.")
    print(f"  {slowest} slowest:")
    for o in sorted(outcomes, key=lambda o: -o.seconds)[:slowest]:
        status = "ok" if o.error is None else "FAIL"
        print(f"    {o.seconds:7.3f} s  {status:<4} {os.path.relpath(o.path, folder)}")
    for o in failed[:10]:
        print(f"  failed: {os.path.relpath(o.path, folder)}: {o.error}")


def profile_slowest(programs: list[Program], outcomes: list[Outcome], count: int = 10) -> None:
    """cProfile of the `count` slowest programs together, by own time."""
    slow = {o.path for o in sorted(outcomes, key=lambda o: -o.seconds)[:count]}
    profiler = cProfile.Profile()
    for program in programs:
        if program.path in slow:
            profiler.runcall(run_program, program)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def run(root: str, profile: bool = False) -> None:
    folder = os.path.join(root, "testdata")
    if not os.path.isdir(folder):
        print(f"testdata suite: skipped (no {folder})")
        return
    programs = load_programs(folder)
    outcomes = run_all(programs)
    report(outcomes, folder)
    if profile:
        profile_slowest(programs, outcomes)
