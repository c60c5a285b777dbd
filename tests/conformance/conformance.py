"""`make conformance`: run upstream's lit tests (read in place, never copied) through our tools.

For each suite this writes `build/conformance/<suite>/lit.site.cfg.py`, which points
`config.test_source_root` at the shared folder, loads the repo's `lit.cfg.py` and installs
`ConformanceFormat`. The upstream suites (interpret, math, testdata, verify, vhlo) run
unchanged: lit reads each file's own RUN lines and runs every one of them (FileCheck, `diff`,
pipes, the `--serialize`/`--deserialize` round trips). Two extra suites go beyond upstream and
are reported apart, with what they measure in their label:
- `disabled` (testdata files whose interpret line upstream turned into
  `// RUN-DISABLED(reason)`) runs that disabled command anyway;
- `dynamic` (testdata/dynamic: no expected values, no interpret line) runs each program in
  the lit worker's process on inputs made from its signature (conformance_dynamic.py); it
  counts programs that ran without error, not checked values.
Tests listed in `tests/conformance_xfail.txt` are expected failures (lit's XFAIL), so a
known failure stays green and a test that starts passing reports XPASS and fails. Entries are
`<suite>/<path in the suite>`; for the upstream suites that is also the path under the
conformance root.


Usage: python tests/conformance/conformance.py [ROOT] [--suite NAME]... [-j N] [--update-xfail]
                                     [--dynamic-size N]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:  # lit is a test dependency; only the lit configs and `main` need it
    import lit.Test
    import lit.TestRunner
    from lit.formats import ShTest
except ImportError:  # pragma: no cover
    lit = None  # type: ignore[assignment]
    ShTest = object  # type: ignore[assignment,misc]

HARNESS = Path(__file__).resolve().parent
REPO = HARNESS.parents[1]
sys.path.insert(0, str(REPO / "tests"))
from filecheck_tool import find_filecheck  # noqa: E402

XFAIL_FILE = REPO / "tests" / "conformance_xfail.txt"
BUILD = REPO / "build" / "conformance"
DEFAULT_ROOT = REPO.parent / "shared" / "conformance"
XFAIL_ENV = "SHLO_XFAIL_FILE"  # another xfail list (used by the unit tests)
TIME_LIMIT_ENV = "SHLO_TIME_LIMIT"
DYNAMIC_SIZE_ENV = "SHLO_DYNAMIC_SIZE"  # the size of `?` dimensions in the dynamic suite
DEFAULT_TIME_LIMIT = 120


@dataclass(frozen=True)
class Suite:
    name: str
    mode: str = "all"  # "all" RUN lines (upstream's own), "disabled", "dynamic" (in-process
    #                    run on inputs from the signature)
    folder: str = ""  # source folder under the conformance root; empty = the suite's name
    label: str = "passed"  # what a PASS of this suite measures
    upstream: str = ""  # the same folder in an openxla/stablehlo checkout (`--stablehlo`)
    upstream_files: tuple[str, ...] = ()  # there, the top-level files it takes (globs)

    @property
    def source(self) -> str:
        return self.folder or self.name

    def source_in(self, upstream_layout: bool) -> str:
        return self.upstream if upstream_layout else self.source


SUITES = (
    Suite("interpret", upstream="stablehlo/tests/interpret"),
    Suite("math", upstream="stablehlo/tests/math"),
    Suite("testdata", upstream="stablehlo/testdata"),
    Suite("verify", upstream="stablehlo/tests",
          upstream_files=("ops_*.mlir", "verify_*.mlir", "print_*.mlir", "infer_stablehlo.mlir",
                          "replica_groups_mesh_axes.mlir")),
    Suite("vhlo", upstream="stablehlo/tests/vhlo"),
    Suite("passes", upstream="stablehlo/tests",
          upstream_files=("transforms/*.mlir", "chlo/*.mlir", "canonicalize.mlir",
                          "future_type.mlir", "infer_chlo.mlir", "ops_broadcasting.mlir",
                          "ops_speculatability.mlir", "stablehlo_complex_math_expander.mlir",
                          "transform_*.mlir")),
    Suite("dynamic", mode="dynamic", folder="testdata/dynamic", label="ran without error",
          upstream="stablehlo/testdata/dynamic"),
    Suite("disabled", mode="disabled", folder="testdata", label="passed (RUN-DISABLED upstream)",
          upstream="stablehlo/testdata"),
)
# `// RUN-DISABLED(reason): command` (the colon is optional upstream).
DISABLED_RUN = re.compile(r"//\s*RUN-DISABLED(?:\(([^)]*)\))?:?\s*(.*\S)")
FAILING_CODES = {"FAIL", "XFAIL", "UNRESOLVED", "TIMEOUT"}


# ---- the xfail list ------------------------------------------------------------------------


def _entries(path: Path) -> list[tuple[str, str]]:
    """(path, condition) per entry line: `path [lit feature expression]  # why`; the
    condition is `*` (always) when no brackets are given."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        entry = line.split("#", 1)[0].strip()
        if entry:
            test, _, condition = entry.partition("[")
            out.append((test.strip(), condition.rstrip("]").strip() or "*"))
    return out


def read_xfails(path: Path = XFAIL_FILE) -> list[str]:
    """Paths relative to the conformance root, one per line (`#` starts a comment)."""
    return [test for test, _ in _entries(path)]


def xfail_conditions(path: Path = XFAIL_FILE) -> dict[str, str]:
    """Per path, when it is expected to fail: a lit feature expression (e.g.
    `python-filecheck`: only when the Python FileCheck clone runs), `*` for always."""
    return dict(_entries(path))


def xfail_reasons(path: Path = XFAIL_FILE) -> dict[str, str]:
    """The `# why` comment at the end of each entry's line, so a rewrite keeps it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    reasons = {}
    for line in lines:
        entry, _, comment = line.partition("#")
        if entry.strip() and comment.strip():
            reasons[entry.split("[", 1)[0].strip()] = comment.strip()
    return reasons


def write_xfails(paths: Iterable[str], path: Path = XFAIL_FILE) -> None:
    header = ("# Conformance tests known to fail: `<suite>/<path in the suite>` (for interpret,\n"
              "# vhlo, math, testdata and verify also the path under the conformance root), each\n"
              "# optionally followed by `[lit feature expression]` (expected to fail only then,\n"
              "# e.g. `[python-filecheck]`) and `# why`. Applied as lit XFAIL by\n"
              "# `make conformance`;\n"
              "# regenerate with (keeps the reasons of entries that stay)\n"
              "#   python tests/conformance/conformance.py --update-xfail\n")
    reasons = xfail_reasons(path)
    conditions = xfail_conditions(path)
    lines = []
    for p in sorted(set(paths)):
        entry = p if conditions.get(p, "*") == "*" else f"{p} [{conditions[p]}]"
        lines.append(f"{entry}  # {reasons[p]}" if p in reasons else entry)
    path.write_text(header + "".join(line + "\n" for line in lines), encoding="utf-8")


# ---- the lit test format -------------------------------------------------------------------


class ConformanceFormat(ShTest):  # type: ignore[misc,valid-type]
    """lit's ShTest, restricted to one suite's files, with its xfail list applied."""

    def __init__(self, suite: Suite, xfails: dict[str, str],
                 upstream_layout: bool = False) -> None:
        super().__init__(execute_external=False)
        self.suite = suite
        self.only = suite.upstream_files if upstream_layout else ()
        prefix = suite.name + "/"
        self.expected_failures = {x[len(prefix):]: condition for x, condition in xfails.items()
                                  if x.startswith(prefix)}

    def getTestsInDirectory(self, testSuite: Any, path_in_suite: Any, litConfig: Any,
                            localConfig: Any) -> Any:
        for test in super().getTestsInDirectory(testSuite, path_in_suite, litConfig,
                                                localConfig):
            relative = "/".join(test.path_in_suite)
            if self.only and not _taken(relative, self.only):
                continue  # a checkout's stablehlo/tests holds other suites' folders too
            if self.suite.mode == "disabled" and not _disabled_commands(test):
                continue
            if relative in self.expected_failures:
                test.xfails = [*test.xfails, self.expected_failures[relative]]
            yield test

    def execute(self, test: Any, litConfig: Any) -> Any:
        if self.suite.mode == "disabled":
            return _execute_disabled_line(test, litConfig)
        if self.suite.mode == "dynamic":
            return _execute_dynamic(test, litConfig)
        return super().execute(test, litConfig)


def _taken(relative: str, globs: Sequence[str]) -> bool:
    """Whether a glob names the file: `transforms/*.mlir` takes that folder's files, and a
    glob without a folder only top-level ones (not those of another suite's folder)."""
    depth = relative.count("/")
    return any(glob.count("/") == depth and fnmatch.fnmatch(relative, glob) for glob in globs)


def _run_script(test: Any, litConfig: Any, script: list[Any]) -> Any:
    """Substitute `%s`, `%t`... into RUN commands and run them with lit's internal shell."""
    tmp_dir, tmp_base = lit.TestRunner.getTempPaths(test)
    substitutions = lit.TestRunner.getDefaultSubstitutions(test, tmp_dir, tmp_base)
    conditions = {feature: True for feature in test.config.available_features}
    script = lit.TestRunner.applySubstitutions(
        script, substitutions, conditions, recursion_limit=test.config.recursiveExpansionLimit)
    return lit.TestRunner._runShTest(test, litConfig, False, script, tmp_base)


def _disabled_commands(test: Any) -> list[tuple[str, str]]:
    """(reason, command) of each `// RUN-DISABLED(reason): command` line that interprets."""
    try:
        text = Path(test.getSourcePath()).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [(m.group(1) or "", m.group(2)) for m in DISABLED_RUN.finditer(text)
            if "--interpret" in m.group(2)]


def _execute_disabled_line(test: Any, litConfig: Any) -> Any:
    """Run the first disabled interpret command, as upstream would if it were a RUN line."""
    commands = _disabled_commands(test)
    if not commands:
        return lit.Test.Result(lit.Test.UNSUPPORTED, "no RUN-DISABLED line with --interpret")
    if litConfig.noExecute:
        return lit.Test.Result(lit.Test.PASS)
    reason, command = commands[0]
    result = _run_script(test, litConfig, [command])
    result.output = f"# disabled upstream: {reason}\n{result.output}"
    return result


def _execute_dynamic(test: Any, litConfig: Any) -> Any:
    """Run a testdata/dynamic program in this process; PASS if it finishes cleanly."""
    from conformance_dynamic import DYNAMIC_SIZE, run_program

    if litConfig.noExecute:
        return lit.Test.Result(lit.Test.PASS)
    limit = test.config.environment.get(TIME_LIMIT_ENV, "")
    seconds = float(limit) if limit.isdigit() else DEFAULT_TIME_LIMIT
    start = time.monotonic()
    size = test.config.environment.get(DYNAMIC_SIZE_ENV, "")
    problem = run_program(test.getSourcePath(), int(size) if size.isdigit() else DYNAMIC_SIZE,
                          seconds)
    return lit.Test.Result(lit.Test.PASS if problem is None else lit.Test.FAIL,
                           problem or "", time.monotonic() - start)


def configure(config: Any, suite_name: str, upstream_layout: bool = False) -> None:
    """Called from a generated lit.site.cfg.py after it loaded the repo's lit.cfg.py."""
    suite = next(s for s in SUITES if s.name == suite_name)
    xfail_file = Path(os.environ.get(XFAIL_ENV) or XFAIL_FILE)
    config.test_format = ConformanceFormat(suite, xfail_conditions(xfail_file), upstream_layout)
    config.environment.setdefault(
        TIME_LIMIT_ENV, os.environ.get(TIME_LIMIT_ENV, str(DEFAULT_TIME_LIMIT)))
    if os.environ.get(DYNAMIC_SIZE_ENV):
        config.environment.setdefault(DYNAMIC_SIZE_ENV, os.environ[DYNAMIC_SIZE_ENV])


SITE_CONFIG = '''# Generated by `python tests/conformance/conformance.py`; do not edit.
import sys

sys.path.insert(0, {harness!r})  # the harness lives in tests/conformance, not in the package
import conformance

config.name = {name!r}
config.test_source_root = {source!r}
config.test_exec_root = {exec_root!r}
lit_config.load_config(config, {lit_cfg!r})
conformance.configure(config, {name!r}, {upstream_layout!r})
'''


def write_site_config(suite: Suite, root: Path, upstream_layout: bool = False) -> Path:
    exec_root = BUILD / suite.name
    exec_root.mkdir(parents=True, exist_ok=True)
    site = exec_root / "lit.site.cfg.py"
    site.write_text(SITE_CONFIG.format(name=suite.name,
                                       source=str(root / suite.source_in(upstream_layout)),
                                       exec_root=str(exec_root), harness=str(HARNESS),
                                       lit_cfg=str(REPO / "lit.cfg.py"),
                                       upstream_layout=upstream_layout), encoding="utf-8")
    return exec_root


# ---- running and reporting -----------------------------------------------------------------


DEVIATIONS_FILE = REPO / "tests" / "conformance_deviations.txt"


def read_deviations(path: Path = DEVIATIONS_FILE) -> tuple[dict[str, str], dict[str, str]]:
    """({D<n>: description}, {test path: D<n>}) from the deviations list."""
    described: dict[str, str] = {}
    tests: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        if re.match(r"D\d+:", line):
            key, _, text = line.partition(":")
            described[key] = text.strip()
            continue
        fields = line.split("#", 1)[0].split()
        if len(fields) == 2:
            tests[fields[0]] = fields[1]
    return described, tests


def snapshot_line(root: Path) -> str:
    """Which upstream snapshot ran: the commit and date its README records, if any."""
    try:
        text = (root / "README.md").read_text(encoding="utf-8")
    except OSError:
        return f"upstream files: {root} (no README naming a snapshot)"
    commit = re.search(r"commit ([0-9a-f]{40})", text)
    date = re.search(r"snapshot of (\d{4}-\d{2}-\d{2})", text)
    return (f"upstream files: {root}, openxla/stablehlo "
            f"{'commit ' + commit.group(1) if commit else '(commit not recorded)'}"
            f"{', snapshot of ' + date.group(1) if date else ''}")


def summarize(results: Sequence[dict[str, Any]], suites: Sequence[Suite],
              deviations: dict[str, str] | None = None) -> str:
    """Per-suite counts: PASS under the suite's label (those resting on a documented
    deviation counted apart), then every lit result code."""
    by_suite: dict[str, Counter[str]] = {s.name: Counter() for s in suites}
    seconds: Counter[str] = Counter()
    for result in results:
        suite_name = result["name"].split(" :: ", 1)[0]
        by_suite.setdefault(suite_name, Counter())[result["code"]] += 1
        seconds[suite_name] += float(result.get("elapsed") or 0.0)
        key = (deviations or {}).get(_path(result))
        if key and result["code"] == "PASS":
            by_suite[suite_name][f"with deviation {key}"] += 1
    lines = []
    for name, counts in by_suite.items():
        total = sum(n for code, n in counts.items() if not code.startswith("with "))
        detail = ", ".join(f"{code} {n}" for code, n in sorted(counts.items()))
        label = next((s.label for s in suites if s.name == name), "passed")
        lines.append(f"{name:10s} {label} {counts['PASS']:5d} / {total:5d}   ({detail}; "
                     f"{seconds[name]:.0f} s of test time)")
    return "\n".join(lines)


def _path(result: dict[str, Any]) -> str:
    """`interpret :: add.mlir` -> `interpret/add.mlir` (relative to the conformance root)."""
    suite_name, path = result["name"].split(" :: ", 1)
    return f"{suite_name}/{path}"


def failing_paths(results: Sequence[dict[str, Any]]) -> list[str]:
    """Conformance-root-relative paths of the tests that currently fail."""
    return [_path(result) for result in results if result["code"] in FAILING_CODES]


def updated_xfails(old: Iterable[str], results: Sequence[dict[str, Any]],
                   conditions: dict[str, str] | None = None,
                   features: Iterable[str] = ()) -> list[str]:
    """The xfail list after a run: this run's failures, plus old entries it did not run or
    could not judge (expected to fail only under a lit feature this run lacked, e.g. a
    `[python-filecheck]` entry in a run with LLVM's FileCheck)."""
    ran = {_path(result) for result in results}
    conditions = conditions or {}
    active = set(features)
    unjudged = {p for p in old if conditions.get(p, "*") not in ("*", *active)}
    return sorted({p for p in old if p not in ran} | unjudged | set(failing_paths(results)))


def run(root: Path, suites: Sequence[Suite], jobs: int, update_xfail: bool,
        extra_lit_args: Sequence[str], dynamic_size: int | None = None,
        upstream_layout: bool = False) -> int:
    exec_roots = [str(write_site_config(s, root, upstream_layout)) for s in suites]
    # A per-run file: several developers' runs may share this build folder.
    output = BUILD / f"results.{os.getpid()}.json"
    lit_bin = Path(sys.executable).with_name("lit")
    command = [str(lit_bin) if lit_bin.exists() else "lit", f"-j{jobs}", "-s",
               "-o", str(output), *extra_lit_args, *exec_roots]
    env = dict(os.environ)
    if update_xfail:
        env.pop("LIT_XFAIL", None)
    if dynamic_size is not None:
        env[DYNAMIC_SIZE_ENV] = str(dynamic_size)
    start = time.monotonic()
    completed = subprocess.run(command, env=env, cwd=REPO, check=False)
    wall = time.monotonic() - start
    try:
        results = json.loads(output.read_text(encoding="utf-8"))["tests"]
        names = [s.name for s in suites]
        kept_as = "results.json" if len(names) == len(SUITES) else \
            f"results-{'-'.join(names)}.json"
        os.replace(output, BUILD / kept_as)
    except (OSError, ValueError, KeyError):
        print(f"conformance: lit produced no results (exit {completed.returncode})",
              file=sys.stderr)
        return completed.returncode or 1
    described, deviations = read_deviations()
    print()
    print(snapshot_line(root))
    filecheck, kind = find_filecheck(str(Path(sys.executable).parent))
    print(f"FileCheck: {filecheck} (lit feature {kind})")
    print(summarize(results, suites, deviations))
    used = sorted({key for path, key in deviations.items()
                   if any(_path(r) == path and r["code"] == "PASS" for r in results)})
    for key in used:
        ours, _, theirs = described.get(key, "").partition("|")
        print(f"  {key}: {ours.strip()} (upstream: {theirs.strip()})")
    print(f"wall time {wall:.1f}s with lit -j{jobs} (each suite's 'test time' is the sum of "
          "its tests' own durations, which lit's workers run side by side)")
    if update_xfail:
        write_xfails(updated_xfails(read_xfails(), results, xfail_conditions(), [kind]))
        print(f"rewrote {XFAIL_FILE.relative_to(REPO)}")
        return 0
    return completed.returncode


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/conformance/conformance.py",
                                     description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("root", nargs="?", default=str(DEFAULT_ROOT),
                        help="folder holding interpret/, math/, testdata/, verify/")
    parser.add_argument("--suite", action="append", choices=[s.name for s in SUITES],
                        help="run only this suite (repeatable)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2,
                        help="lit workers (default: one per CPU)")
    parser.add_argument("--num-shards", type=int, default=None, metavar="N",
                        help="split the tests into N shards (lit's --num-shards), e.g. one "
                             "per CI machine")
    parser.add_argument("--run-shard", type=int, default=None, metavar="K",
                        help="run shard K of N (1-based; lit's --run-shard)")
    parser.add_argument("--update-xfail", action="store_true",
                        help="rewrite tests/conformance_xfail.txt from this run's results")
    parser.add_argument("--filter", default=None, help="lit --filter regex over test names")
    parser.add_argument("--stablehlo", default=None, metavar="CHECKOUT",
                        help="run the suites of an openxla/stablehlo checkout in upstream's "
                             "own layout (stablehlo/tests, stablehlo/testdata) instead of ROOT")
    parser.add_argument("--dynamic-size", type=int, default=None, metavar="N",
                        help="size of every `?` dimension (and i64 dimension variable) in the "
                             "dynamic suite; default 3")
    options = parser.parse_args(argv)
    if lit is None:
        print("conformance: lit is not installed (pip install -e '.[test]')", file=sys.stderr)
        return 2
    upstream_layout = options.stablehlo is not None
    root = Path(options.stablehlo if upstream_layout else options.root).resolve()
    suites = [s for s in SUITES if not options.suite or s.name in options.suite]
    missing = [s.source_in(upstream_layout) for s in suites
               if not (root / s.source_in(upstream_layout)).is_dir()]
    if missing:
        print(f"conformance: {root} has no {', '.join(missing)} folder", file=sys.stderr)
        return 2
    extra = ["--filter", options.filter] if options.filter else []
    if (options.num_shards is None) != (options.run_shard is None):
        print("conformance: --num-shards and --run-shard go together", file=sys.stderr)
        return 2
    if options.num_shards is not None:
        extra += ["--num-shards", str(options.num_shards), "--run-shard", str(options.run_shard)]
    return run(root, suites, options.jobs, options.update_xfail, extra, options.dynamic_size,
               upstream_layout)


if __name__ == "__main__":
    sys.exit(main())
