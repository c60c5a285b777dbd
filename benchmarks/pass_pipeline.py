"""stablehlo-opt pass throughput over the conformance `testdata` folder (in-process).

Times issue 12's pipeline (`--chlo-legalize-to-stablehlo --canonicalize --cse
--stablehlo-aggressive-simplification`) on freshly parsed modules and reports input ops per
second (ops counted as in parse_print: every op under the module, the module itself not),
next to the parser's rate on the same chunks measured in the same rounds (the baseline).
Chunks a pass rejects with a diagnostic are counted and still timed.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import time

from parse_print import load_chunks, parseable

from shlo_cli.ir.diagnostics import Diagnostic, ShloError
from shlo_cli.ir.parser import parse_source
from shlo_cli.passes import run_passes

PIPELINE = ["chlo-legalize-to-stablehlo", "canonicalize", "cse",
            "stablehlo-aggressive-simplification"]
GOAL_OPS_PER_SECOND = 20_000
ROUNDS = 3


def run(root: str, profile: bool = False) -> None:
    folder = os.path.join(root, "testdata")
    if not os.path.isdir(folder):
        print(f"pass pipeline: skipped (no {folder})")
        return
    chunks, modules, _ = parseable(load_chunks(folder))
    ops = sum(sum(1 for _ in m.op.walk()) - 1 for m in modules)

    def parse_all() -> list:
        return [parse_source(text, name, line_offset=offset) for name, text, offset in chunks]

    def passes_on(fresh: list) -> int:
        refused = 0
        for module in fresh:
            try:
                run_passes(module, list(PIPELINE))
            except (Diagnostic, ShloError):
                refused += 1
        return refused

    if profile:
        fresh = parse_all()
        cProfile.runctx("passes_on(fresh)", globals(), locals(), "/tmp/shlo-passes.prof")
        pstats.Stats("/tmp/shlo-passes.prof").sort_stats("tottime").print_stats(25)
    best_parse = best_passes = float("inf")
    refused = 0
    for _ in range(ROUNDS):  # interleaved: a busy machine disturbs both alike
        start = time.process_time()
        fresh = parse_all()
        best_parse = min(best_parse, time.process_time() - start)
        start = time.process_time()
        refused = passes_on(fresh)
        best_passes = min(best_passes, time.process_time() - start)
    rate = ops / best_passes
    verdict = "met" if rate >= GOAL_OPS_PER_SECOND else "NOT met"
    print(f"pass pipeline ({' '.join('--' + p for p in PIPELINE)}) over {len(chunks)} "
          f"testdata chunks, {ops} ops ({refused} refused with a diagnostic):")
    print(f"  passes: {best_passes:.2f} s CPU, {rate:,.0f} ops/s "
          f"(goal {GOAL_OPS_PER_SECOND:,} ops/s: {verdict}); "
          f"{best_passes / best_parse:.2f}x the parse time of the same chunks "
          f"({ops / best_parse:,.0f} ops/s), best of {ROUNDS} interleaved rounds")
