"""`make opt-sweep`: do the stablehlo-opt simplifications keep the conformance testdata
programs passing? (issue 12)

Every interpretable testdata program runs twice in-process: as its RUN line says (the
baseline), and with `--chlo-legalize-to-stablehlo --canonicalize --cse
--stablehlo-aggressive-simplification` (and optionally the folder) applied after its own
passes. A program passes when it interprets without a diagnostic (its `check.expect_*` ops
hold). The counts printed: programs, baseline passes, optimized passes, regressions (baseline
passes but the optimized one fails) with their first messages.
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import os
import signal
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(__file__))

from testdata_suite import Program, load_programs  # noqa: E402

from shlo_cli.commands.common import split_chunks  # noqa: E402
from shlo_cli.interpreter.run import evaluate  # noqa: E402
from shlo_cli.ir.diagnostics import Diagnostic, ShloError  # noqa: E402
from shlo_cli.ir.parser import parse_source  # noqa: E402
from shlo_cli.passes import run_passes  # noqa: E402

PIPELINE = ["chlo-legalize-to-stablehlo", "canonicalize", "cse",
            "stablehlo-aggressive-simplification"]
TIMEOUT_SECONDS = 120


@dataclass
class Result:
    path: str
    baseline: str | None  # first error, None = passed
    optimized: str | None


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def run(program: Program, extra: list[str]) -> str | None:
    """Parse, run the program's passes then `extra`, interpret: the first error or None."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_SECONDS)
    try:
        for chunk in split_chunks(program.text, program.split):
            module = parse_source(chunk.text, program.path, line_offset=chunk.line_offset)
            run_passes(module, program.passes + extra)
            evaluate(module, stdout=io.StringIO(), line_offset=chunk.line_offset)
        return None
    except (Diagnostic, ShloError) as e:
        return str(e).splitlines()[0] if str(e) else type(e).__name__
    except _Timeout:
        return f"timeout after {TIMEOUT_SECONDS} s"
    except Exception as e:  # noqa: BLE001 - a crash is a finding, reported not raised
        return f"crash: {type(e).__name__}: {e}"
    finally:
        signal.alarm(0)


def sweep_one(job: tuple[Program, list[str]]) -> Result:
    program, extra = job
    return Result(program.path, run(program, []), run(program, extra))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("conformance", help="the conformance folder (holds testdata/)")
    parser.add_argument("--folder", action="store_true",
                        help="also run --stablehlo-aggressive-folder at the end")
    parser.add_argument("--filter", default="", help="only files whose path contains this")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    folder = os.path.join(args.conformance, "testdata")
    programs = [p for p in load_programs(folder) if args.filter in p.path]
    extra = PIPELINE + (["stablehlo-aggressive-folder"] if args.folder else [])
    with multiprocessing.Pool(args.jobs, maxtasksperchild=50) as pool:
        results = list(pool.imap_unordered(sweep_one, [(p, extra) for p in programs],
                                           chunksize=4))
    results.sort(key=lambda r: r.path)
    base = sum(r.baseline is None for r in results)
    opt = sum(r.optimized is None for r in results)
    regressions = [r for r in results if r.baseline is None and r.optimized is not None]
    fixed = [r for r in results if r.baseline is not None and r.optimized is None]
    print(f"opt sweep: --{' --'.join(extra)}")
    print(f"  programs {len(results)}, baseline passed {base}, optimized passed {opt}, "
          f"regressions {len(regressions)}, newly passing {len(fixed)}")
    for r in regressions:
        print(f"  REGRESSION {os.path.relpath(r.path, folder)}: {r.optimized}")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
