"""Tool start-up (issue 13 item 4): every upstream test file launches `stablehlo-opt` /
`stablehlo-translate` 5-6 times, so launch time decides how long `make conformance` takes.

Whole processes on a tiny program, interleaved with the baselines measured in the same run
(`python -c pass`, `python -c "import numpy"`): median wall time of ROUNDS launches each,
and the difference to its baseline (the issue's targets: `stablehlo-opt` within `pass` + 30 ms,
`--interpret` within numpy + 25 ms). Median CPU time (user + sys of the child) is printed too:
on a loaded machine it varies less than wall time. Then a `python -X importtime` summary of
the modules a tiny `stablehlo-opt` run imports: the largest cumulative entries. Last, per
command, the import check of `python -X importtime`: how many modules it imports and whether
numpy / ml_dtypes / click / rich are among them (the commands that do not compute must import
none of numpy, ml_dtypes and click).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = 9
TINY = """func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %0, %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""


def _tool(name: str) -> str:
    """The console script next to this interpreter (the venv's), else the one on PATH."""
    path = os.path.join(os.path.dirname(sys.executable), name)
    return path if os.path.exists(path) else name


def _launch(argv: list[str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one process run to completion, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def commands(tiny: str, out: str) -> dict[str, tuple[str, list[str]]]:
    """Name -> (baseline name or "", argv)."""
    py = sys.executable
    return {
        "python -c pass": ("", [py, "-c", "pass"]),
        "python -c 'import numpy'": ("", [py, "-c", "import numpy"]),
        "stablehlo-opt tiny": ("python -c pass", [_tool("stablehlo-opt"), tiny]),
        "stablehlo-translate --serialize": (
            "python -c pass",
            [_tool("stablehlo-translate"), "--serialize", "--target=current", tiny, "-o", out]),
        "stablehlo-translate --deserialize": (
            "python -c pass", [_tool("stablehlo-translate"), "--deserialize", out]),
        "stablehlo-translate --interpret": (
            "python -c 'import numpy'", [_tool("stablehlo-translate"), "--interpret", tiny]),
    }


def importtime_summary(tiny: str, top: int = 12) -> list[tuple[int, str]]:
    """The `top` largest cumulative import times (us) of a tiny `stablehlo-opt` run."""
    code = (f"import sys; sys.argv = ['stablehlo-opt', {tiny!r}]\n"
            "from shlo_cli.commands.opt import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          capture_output=True, text=True, check=False)
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    rows.sort(reverse=True)
    return rows[:top]


WATCHED = ("numpy", "ml_dtypes", "click", "rich")


def imported_modules(argv: list[str]) -> list[str]:
    """Every module whose code a launch of `argv` runs, from `python -X importtime` (numpy
    made lazy by the tools counts only once its code runs: then its submodules appear)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                          text=True, check=False)
    names = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            names.append(parts[2].strip())
    return names


def import_check(table: dict[str, tuple[str, list[str]]]) -> dict[str, list[str]]:
    """Command -> which of WATCHED its launch imports (printed with the module count)."""
    print("  python -X importtime: modules imported, and which of "
          + "/".join(WATCHED) + " (numpy counts once its code runs)")
    found: dict[str, list[str]] = {}
    for name, (base, argv) in table.items():
        if not base:
            continue
        modules = imported_modules([shutil.which(argv[0]) or argv[0], *argv[1:]])
        heavy = [w for w in WATCHED if any(m == w or m.startswith(w + ".") for m in modules)]
        found[name] = heavy
        print(f"    {name:36s} {len(modules):4d} modules  {', '.join(heavy) or '-'}")
    return found


def run(profile: bool = False, rounds: int = ROUNDS) -> dict[str, float]:
    """Print the start-up table and importtime summary; return median wall ms per command."""
    del profile  # start-up has no in-process hot path to profile
    print(f"\n== start-up: whole processes, median of {rounds} interleaved launches ==")
    with tempfile.TemporaryDirectory() as tmp:
        tiny = os.path.join(tmp, "tiny.mlir")
        with open(tiny, "w") as f:
            f.write(TINY)
        out = os.path.join(tmp, "tiny.mlirbc")
        table = commands(tiny, out)
        walls: dict[str, list[float]] = {name: [] for name in table}
        cpus: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(rounds):
            for name, (_, argv) in table.items():
                wall, cpu = _launch(argv)
                walls[name].append(wall)
                cpus[name].append(cpu)
        median = {name: statistics.median(v) * 1000 for name, v in walls.items()}
        cpu = {name: statistics.median(v) * 1000 for name, v in cpus.items()}
        print(f"  {'command':36s} {'wall ms':>9s} {'cpu ms':>8s}  vs baseline (wall)")
        for name, (base, _) in table.items():
            extra = ""
            if base:
                extra = (f"  {median[name] / median[base]:5.2f}x {base}, "
                         f"{median[name] - median[base]:+.0f} ms")
            print(f"  {name:36s} {median[name]:9.1f} {cpu[name]:8.1f}{extra}")
        print("  python -X importtime, tiny stablehlo-opt run, largest cumulative (ms):")
        for us, module in importtime_summary(tiny):
            print(f"    {us / 1000:8.1f}  {module}")
        import_check(table)
    return median


if __name__ == "__main__":
    run()
