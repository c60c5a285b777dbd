"""`make bench`: shlo's performance numbers, each against a baseline run in the same process.

Usage: python benchmarks/run.py [CONFORMANCE_DIR] [--profile] [--only=SECTION,...]

Sections (small modules next to this file):
- parse_print: parser and printer throughput over conformance `testdata`,
- kernels: elementwise kernels on 1M-element tensors and a 10,000-iteration scalar `while`,
- overhead: interpreter overhead per executed op against numpy's own calls (400-op straight
  line, 1,000-step scalar `while`),
- models: JAX-exported models (benchmarks/models, ../shared/artifacts) against jax.jit's
  execute time when jax is installed (`pip install jax`), else our times only,
- suite: the whole interpretable `testdata` suite, in-process, with its slowest programs,
- fft_accuracy: max ULP of `stablehlo.fft` results from the exact transform, per dtype.
- small_math: exact exp, tanh, logistic, sqrt, rsqrt per call on small f32 arrays against
  numpy's own (inexact) f32 ufuncs.
- bytecode: bytecode read/write against text parse/print on the same modules.
- startup: whole `stablehlo-opt` / `stablehlo-translate` launches on a tiny program against
  `python -c pass` and `python -c "import numpy"` in the same run, plus an importtime summary.
CONFORMANCE_DIR defaults to ../shared/conformance (next to the repo); sections that need it
are skipped when it is absent. `--profile` adds cProfile listings of the hot paths.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bytecode  # noqa: E402
import common  # noqa: E402,F401  (puts src/ on the import path)
import fft_accuracy  # noqa: E402
import kernels  # noqa: E402
import models_bench  # noqa: E402
import overhead  # noqa: E402
import parse_print  # noqa: E402
import pass_pipeline  # noqa: E402
import small_math  # noqa: E402
import startup  # noqa: E402
import testdata_suite  # noqa: E402

DEFAULT_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
                            "conformance")
SECTIONS = ("parse_print", "kernels", "small_math", "overhead", "models", "suite",
            "fft_accuracy", "bytecode", "startup", "pass_pipeline")


def main(argv: list[str]) -> int:
    profile = "--profile" in argv
    only = next((a.split("=", 1)[1].split(",") for a in argv if a.startswith("--only=")),
                list(SECTIONS))
    unknown = sorted(set(only) - set(SECTIONS))
    if unknown:
        print(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
        return 2
    args = [a for a in argv if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else DEFAULT_ROOT)
    start = time.perf_counter()
    if "parse_print" in only:
        parse_print.run(root, profile)
    if "kernels" in only:
        kernels.run(profile)
    if "small_math" in only:
        small_math.run(profile)
    if "overhead" in only:
        overhead.run(profile)
    if "models" in only:
        models_bench.run(root, profile)
    if "suite" in only:
        testdata_suite.run(root, profile)
    if "fft_accuracy" in only:
        fft_accuracy.run(root, profile)
    if "bytecode" in only:
        bytecode.run(root, profile)
    if "startup" in only:
        startup.run(profile)
    if "pass_pipeline" in only:
        pass_pipeline.run(root, profile)
    print(f"bench wall time: {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
