"""The package layers point down only, and packages import each other without cycles.

The contract (also pictured in ARCHITECTURE.md), lowest layer first:

    0  ir                                     text IR, types, attributes, op registry
    1  dialects, check_dialect, custom_calls  op definitions: syntax, verifier, evaluator
    2  interpreter, passes, formats           running, rewriting, binary encodings
    3  loaders, api                           reading any source form; the Python API
    4  commands                               click front ends
    5  shlo_cli (package root)                lazy re-exports of the API

A module may import its own package, any lower layer, and the sideways pairs in `SIDEWAYS`
(formats use passes for portable artifacts: VHLO legalization is a pass pipeline; api uses
loaders). Anything else upward must be listed in `EXCEPTIONS` with the reason it is still
there; the list only shrinks. The import graph is read with `ast`, so imports inside functions
count too (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = "shlo_cli"

LAYERS: dict[str, int] = {
    "ir": 0, "lazy_imports": 0,
    "dialects": 1, "check_dialect": 1, "custom_calls": 1,
    "interpreter": 2, "passes": 2, "formats": 2,
    "loaders": 3, "api": 3,
    "commands": 4, "regex_programs_build": 4,  # (the build step imports every module)
    "<root>": 5,
}

# Same-layer imports between different packages that are part of the design.
SIDEWAYS: set[tuple[str, str]] = {
    ("formats", "passes"),          # portable artifacts = VHLO legalization passes + bytecode
    ("api", "loaders"),             # the Python API loads programs through loaders
    ("dialects", "check_dialect"),  # stablehlo.custom_call dispatches to registered targets
    ("check_dialect", "dialects"),  # check ops are declared with the dialect registry/syntax
    ("check_dialect", "custom_calls"),
    ("custom_calls", "dialects"),   # jax targets reuse dialect kernels (top_k, sort, rng)
}

# Known cycles between packages (each a frozenset of package names). All sit inside the op layer:
# an op's evaluator dispatches custom-call targets, and targets reuse op kernels.
KNOWN_CYCLES: set[frozenset[str]] = {
    frozenset({"dialects", "check_dialect", "custom_calls"}),
}

# Upward imports still allowed, by (importing module prefix, imported module prefix), with why
# and what would remove them. The list only shrinks (a test fails when an entry is unused).
EXCEPTIONS: dict[tuple[str, str], str] = {
}


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name for a file under SRC, and whether it is a package __init__."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def imports_of(source: str, module: str, is_package: bool) -> set[str]:
    """Every shlo_cli module `source` imports (absolute names; `from x import y` adds x.y too,
    since y may be a submodule)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target != ROOT:  # `from .. import x` depends on x, not on the root package
                found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name == ROOT or name.startswith(ROOT + ".")}


def read_graph() -> dict[str, set[str]]:
    """module -> imported shlo_cli names, for every module under src/shlo_cli."""
    graph: dict[str, set[str]] = {}
    for path in sorted((SRC / ROOT).rglob("*.py")):
        module, is_package = module_name(path)
        graph[module] = imports_of(path.read_text(), module, is_package)
    return graph


def package_of(module: str, known: Iterable[str]) -> str | None:
    """The layer package owning `module` (`shlo_cli` alone is the root); None if unknown
    (a name imported from a module, e.g. `shlo_cli.ir.core.Operation`, resolves by prefix)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "<root>"
    return parts[1] if parts[1] in known else None


def _excepted(importer: str, imported: str, exceptions: Mapping[tuple[str, str], str]) -> bool:
    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".")

    return any(under(importer, a) and under(imported, b) for a, b in exceptions)


def violations(graph: Mapping[str, set[str]],
               exceptions: Mapping[tuple[str, str], str] = EXCEPTIONS) -> list[str]:
    """Imports that break the layer contract, as `importer -> imported` lines."""
    bad = []
    for importer, targets in sorted(graph.items()):
        src = package_of(importer, LAYERS)
        if src is None:
            bad.append(f"{importer}: module outside every layer (add it to LAYERS)")
            continue
        for target in sorted(targets):
            dst = package_of(target, LAYERS)
            if dst is None or dst == src or dst == "<root>" and target != ROOT:
                continue
            if LAYERS[dst] < LAYERS[src] or (src, dst) in SIDEWAYS:
                continue
            if not _excepted(importer, target, exceptions):
                bad.append(f"{importer} -> {target}")
    return bad


def package_cycles(graph: Mapping[str, set[str]],
                   exceptions: Mapping[tuple[str, str], str] = EXCEPTIONS,
                   ) -> set[frozenset[str]]:
    """Strongly connected groups (size > 1) of the package-level import graph, leaving out the
    excepted upward imports (each of those closes a cycle by definition; they are listed)."""
    edges: dict[str, set[str]] = {}
    for importer, targets in graph.items():
        src = package_of(importer, LAYERS)
        for target in targets:
            if _excepted(importer, target, exceptions):
                continue
            dst = package_of(target, LAYERS)
            if src and dst and dst != src and not (dst == "<root>" and target != ROOT):
                edges.setdefault(src, set()).add(dst)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: set[frozenset[str]] = set()

    def visit(node: str) -> None:  # Tarjan's algorithm; the graph has a dozen nodes
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.add(frozenset(group))

    for node in list(edges):
        if node not in index:
            visit(node)
    return groups


def test_every_import_points_down() -> None:
    assert violations(read_graph()) == []


def test_no_new_package_cycles() -> None:
    assert package_cycles(read_graph()) <= KNOWN_CYCLES


def test_every_exception_is_still_needed() -> None:
    graph = read_graph()
    for pair in EXCEPTIONS:
        others = {k: v for k, v in EXCEPTIONS.items() if k != pair}
        assert violations(graph, others), f"exception {pair} no longer needed: remove it"


@pytest.mark.parametrize("importer, target", [
    ("shlo_cli.ir.types", "shlo_cli.passes.inline"),
    ("shlo_cli.dialects.stablehlo.fft", "shlo_cli.commands.common"),
    ("shlo_cli.passes.inline", "shlo_cli.api"),
    ("shlo_cli.interpreter.run", "shlo_cli.loaders"),
    ("shlo_cli.formats.portable", "shlo_cli.interpreter.engine"),
])
def test_an_upward_import_fails(importer: str, target: str) -> None:
    assert violations({importer: {target}}) == [f"{importer} -> {target}"]


def test_downward_and_sideways_imports_pass() -> None:
    graph = {"shlo_cli.commands.opt": {"shlo_cli.passes", "shlo_cli.ir.core"},
             "shlo_cli.formats.portable": {"shlo_cli.passes.inline"},
             "shlo_cli.passes.inline": {"shlo_cli.dialects.func", "shlo_cli.passes.pipeline"}}
    assert violations(graph) == []


def test_unknown_package_fails() -> None:
    assert violations({"shlo_cli.newpkg.mod": {"shlo_cli.ir"}}) != []


def test_cycle_check_finds_a_fake_cycle() -> None:
    graph = {"shlo_cli.passes.a": {"shlo_cli.formats.b"},
             "shlo_cli.formats.b": {"shlo_cli.passes.a"},
             "shlo_cli.ir.x": {"shlo_cli.ir.y"}}
    assert package_cycles(graph) == {frozenset({"passes", "formats"})}
