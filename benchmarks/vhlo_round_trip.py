"""The lossless VHLO round trip over the conformance programs (issue 10).

Every testdata file's RUN lines serialize the program (`--serialize --target=current`),
deserialize it and `diff` the printed result against `stablehlo-opt` of the source. This
checks the text half of that: for each program (after the passes its serialize line runs
first, e.g. `--chlo-pre-serialization-pipeline`) it prints the module, then legalizes it to
VHLO, converts it to the current version and back to StableHLO, verifies it and prints it
again; the two texts must be equal. Bytecode is not involved.

Usage: python benchmarks/vhlo_round_trip.py [FOLDER] [-v]   (FOLDER: shared testdata)
"""

from __future__ import annotations

import glob
import os
import re
import sys
import time

from shlo_cli.commands.common import split_chunks
from shlo_cli.dialects.vhlo.version import CURRENT
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import PASSES, run_passes
from shlo_cli.passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo
from shlo_cli.passes.vhlo_legalize_to_stablehlo import legalize_to_stablehlo
from shlo_cli.passes.vhlo_to_version import vhlo_to_version

DEFAULT_FOLDER = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "conformance",
                              "testdata")
_RUN = re.compile(r"^//\s*RUN:(.*)$", re.M)


def serializes(text: str) -> bool:
    return any("--serialize" in m.group(1) for m in _RUN.finditer(text))


def pre_passes(text: str) -> list[str]:
    """The stablehlo-opt passes a file's serialize RUN line applies before serializing."""
    for match in _RUN.finditer(text):
        line = match.group(1)
        if "--serialize" not in line:
            continue
        passes: list[str] = []
        for stage in line.split("|"):
            words = stage.split()
            if words and words[0] == "stablehlo-opt":
                passes += [w.lstrip("-") for w in words[1:] if w.lstrip("-") in PASSES]
        return passes
    return []


def round_trip(text: str, name: str, passes: list[str], allow_other: bool = False
               ) -> str | None:
    """None when the program prints the same after the VHLO round trip, else why not.
    ``allow_other`` keeps ops of other dialects (the `check` ops of interpreter-only files)
    as `--stablehlo-legalize-to-vhlo=allow-other-dialects` does."""
    split = any("split-input-file" in m.group(1) for m in _RUN.finditer(text))
    for chunk in split_chunks(text, split):
        try:
            module = parse_source(chunk.text, name, line_offset=chunk.line_offset)
            run_passes(module, passes)
            before = print_module(module)
            legalize_to_vhlo(module, allow_other)
            vhlo_to_version(module, CURRENT)
            legalize_to_stablehlo(module)
            verify_module(module, chunk.line_offset)
            after = print_module(module)
        except Diagnostic as d:
            return d.render(show_source=False).splitlines()[0]
        if before != after:
            diff = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(),
                                           strict=False) if a != b]
            return "printed text differs" + (f": {diff[0][0].strip()[:80]} | "
                                             f"{diff[0][1].strip()[:80]}" if diff else "")
    return None


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    folder = args[0] if args else DEFAULT_FOLDER
    paths = sorted(glob.glob(os.path.join(folder, "**", "*.mlir"), recursive=True))
    start = time.time()
    failures = []
    serialized = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        upstream_checks = serializes(text)
        serialized += upstream_checks
        problem = round_trip(text, path, pre_passes(text), allow_other=not upstream_checks)
        if problem is not None:
            failures.append((path, problem))
            if verbose:
                print(f"FAIL {os.path.relpath(path, folder)}: {problem}")
    passed = len(paths) - len(failures)
    print(f"{len(paths)} programs ({serialized} with a serialize RUN line; the others keep "
          "their check ops as allow-other-dialects does)")
    print(f"{passed} passed, {len(failures)} failed ({time.time() - start:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
