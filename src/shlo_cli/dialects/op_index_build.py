"""Builds `op_index.py`, which lets a tool launch import only the op modules its program uses.

Run `python -m shlo_cli.dialects.op_index_build` (in a fresh interpreter: what a module
registers is read off its first import) to rewrite `op_index.py`; a unit test fails when the
checked-in index and this walk disagree.

The walk imports the op modules in `load_all`'s order and, around each top-level import,
compares every table of every `shlo_cli` module imported before it (module-level dicts, lists
and sets, by length) and every registered op. A module is *on demand* only when all it did was
register new ops and entries keyed by those ops (fast parsers, symbol-use verifiers), and new
dialect attributes with their own grammar; its ops and attributes are then indexed to it. A
module that (also) registers binding hooks is listed in `BIND` when one of its hooks may bind
any op, else in `BIND_OPS` under each op its hooks name (`register_bind_hook(..., ops=)`), for
the interpreter to import before it binds such an op (each hook carries its order, so import
order does not matter). Any other
module is *core*: imported, in the walk's order, at the first op lookup, as every module was
before. That covers modules that register hooks, verifiers of every op, constant
materializers, attribute hooks or anything else not keyed by their own ops, that redefine an
op or add a folder or pattern to another module's op (whose owner becomes core too, so it
exists first), and packages. A module that changes no table at all (a
helper such as `asm.py`) is neither: whoever needs it imports it. Tables read only after every
module is imported (`_AFTER_ALL`: custom-call targets, the list of parser caches, the
patterns compiled so far) do not count.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Iterator
from typing import Any

# Tables keyed by op name: a module's new keys there that name its own new ops are allowed.
_OP_KEYED = {("shlo_cli.ir.registry", "_REGISTRY"), ("shlo_cli.ir.parse_fast", "FAST_PARSERS"),
             ("shlo_cli.ir.parse_fast", "FAST_OP_PARSERS"),
             ("shlo_cli.ir.verifier", "SYMBOL_USE_VERIFIERS")}
# The table of dialect attributes with their own grammar, keyed by (dialect, name): a module's
# new keys there are indexed to it (`ATTRIBUTES`), as its new ops are.
_ATTRIBUTE_PARSERS = ("shlo_cli.ir.parse_attributes", "DIALECT_ATTR_PARSERS")
# Tables only read after everything is imported: custom-call targets are looked up through
# `custom_calls.registry._ensure_loaded`, which runs `registry.all_ops()` first.
_AFTER_ALL = {("shlo_cli.custom_calls.registry", "_TARGETS"),
              # parser caches registering themselves: a cache not created yet holds nothing
              # `clear_parse_caches` would have to empty
              ("shlo_cli.ir.parse_caches", "_CACHES"),
              # the patterns compiled so far, read only by `regex_programs_build`
              ("shlo_cli.ir.regex_programs", "_REQUESTED")}
# Binding-hook tables: read when the interpreter first binds an op (`registry.bind_hooks`),
# which imports the modules that fill them (`BIND`); each hook carries its own order.
_BIND = {("shlo_cli.ir.registry", "BIND_HOOKS"), ("shlo_cli.ir.registry", "_BIND_ORDER"),
         ("shlo_cli.ir.registry", "_HOOK_OPS")}


def _walk(path: Any, prefix: str, skip: set[str]) -> Iterator[tuple[str, bool]]:
    """(module name, is package) below `prefix`, depth first, in `load_all`'s order (a
    package's own modules are listed after it, imported with it)."""
    for info in pkgutil.iter_modules(path, prefix + "."):
        if info.name in skip:
            continue
        yield info.name, info.ispkg
        if info.ispkg:
            module = importlib.import_module(info.name)
            yield from _walk(module.__path__, info.name, skip)


def _dependencies_first(walk: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """The walk reordered so that each module comes after the walked modules it imports at
    its top level: what a module registers is then seen at its own import, not credited to
    the first module that imports it."""
    ispkg = dict(walk)
    done: dict[str, bool] = {}

    def visit(name: str) -> None:
        if name in done:
            return
        done[name] = False  # in progress: an import cycle is left in walk order
        for dep in _top_level_imports(name):
            if dep in ispkg:
                visit(dep)
        del done[name]
        done[name] = ispkg[name]

    for name, _ in walk:
        visit(name)
    return list(done.items())


def _top_level_imports(name: str) -> list[str]:
    """The modules (and packages) `name`'s top-level import statements name, absolute."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return []
    with open(spec.origin, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    package = name if spec.submodule_search_locations is not None else name.rpartition(".")[0]
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""),
                                               package) if node.level else node.module or ""
            parts = base.split(".")
            found += [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
            found += [f"{base}.{alias.name}" for alias in node.names]
    return found


def _tables() -> dict[int, tuple[str, int]]:
    """id -> (a name, size) of every module-level dict, list and set in shlo_cli (one entry
    per object, however many modules import it)."""
    found: dict[int, tuple[str, int]] = {}
    for mod_name, module in list(sys.modules.items()):
        if not mod_name.startswith("shlo_cli") or module is None:
            continue
        for name, value in list(vars(module).items()):
            if type(value) in (dict, list, set) and id(value) not in found:
                found[id(value)] = (f"{mod_name}.{name}", len(value))
    return found


def _ops() -> dict[str, tuple[int, int, int]]:
    from ..ir import registry

    return {name: (id(d), id(d.fold), len(d.canonicalizations))
            for name, d in registry._REGISTRY.items()}


def _ids(names: set[tuple[str, str]]) -> set[int]:
    """ids of the named module-level tables that exist."""
    return {id(vars(sys.modules[m])[n]) for m, n in names if m in sys.modules}


def _op_keyed() -> dict[int, dict[Any, int]]:
    """id of each op- or attribute-keyed table that exists -> its key -> id of its value."""
    found = {}
    for mod_name, name in _OP_KEYED | {_ATTRIBUTE_PARSERS}:
        module = sys.modules.get(mod_name)
        if module is not None:
            table = vars(module)[name]
            found[id(table)] = {k: id(v) for k, v in table.items()}
    return found


REASONS: dict[str, list[str]] = {}  # core module -> why (filled by `build`)


Index = tuple[tuple[str, ...], tuple[str, ...], dict[str, tuple[str, ...]], dict[str, str],
              dict[str, str]]


def _hooks() -> dict[str, frozenset[str] | None]:
    """Every registered binding hook (module.qualname) -> the ops it names (None: any)."""
    from ..ir import registry

    return {f"{h.__module__}.{h.__qualname__}": registry._HOOK_OPS.get(h)
            for h in registry.BIND_HOOKS}


def build() -> Index:
    """(core modules in import order, modules of hooks binding any op, op name -> modules of
    hooks binding it, on-demand op name -> its module, on-demand `dialect.attribute` -> its
    module)."""
    from .. import check_dialect, dialects, ir

    # Every `ir` module first: what they register (ir.memory's binding hook, say) is theirs,
    # not that of the first op module that happens to import them.
    for info in pkgutil.iter_modules(ir.__path__, f"{ir.__name__}."):
        importlib.import_module(info.name)

    lazy = set(dialects.LAZY.values()) | dialects.NOT_OP_MODULES
    order: list[str] = []
    core: set[str] = set()
    binds: set[str] = set()
    bind_any: set[str] = set()
    bind_ops: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    attribute_owner: dict[str, str] = {}
    walk = [entry for package in (dialects, check_dialect)
            for entry in _walk(package.__path__, package.__name__, lazy)]
    for name, ispkg in _dependencies_first(walk):
        if name in sys.modules:  # imported by an earlier module: nothing left to see
            if ispkg:  # listing the walk imported it; a package is core all the same
                order.append(name)
                core.add(name)
            continue
        tables, ops, keyed = _tables(), _ops(), _op_keyed()
        attributes = set(_ids({_ATTRIBUTE_PARSERS}))
        hooks = _hooks()
        importlib.import_module(name)
        for hook, hook_ops in _hooks().items():
            if hook in hooks:
                continue
            if hook_ops is None:
                bind_any.add(name)
            for op in sorted(hook_ops or ()):
                if name not in bind_ops.setdefault(op, []):
                    bind_ops[op].append(name)
        order.append(name)
        now_ops = _ops()
        new = set(now_ops) - set(ops)
        for op in new:
            owner[op] = name
        is_core = ispkg
        for op, state in ops.items():
            if now_ops.get(op) != state:  # redefined, or a folder / pattern added
                is_core = True
                core.add(owner.get(op, name))
                REASONS.setdefault(name, []).append(f"touches op {op}")
        now_tables, now_keyed = _tables(), _op_keyed()
        after_all, bind_tables = _ids(_AFTER_ALL), _ids(_BIND)
        for ident, before in tables.items():
            if now_tables.get(ident) == before or ident in after_all:
                continue
            if ident in bind_tables:
                binds.add(name)
                continue
            if ident in keyed:
                was, is_now = keyed[ident], now_keyed[ident]
                added = set(is_now) - set(was)
                unchanged = all(is_now.get(k) == v for k, v in was.items())
                if unchanged and ident in attributes:
                    for dialect, attribute in added:  # only new attributes: its own
                        attribute_owner[f"{dialect}.{attribute}"] = name
                    continue
                if unchanged and added <= new:
                    continue  # only entries of its own new ops
            is_core = True
            REASONS.setdefault(name, []).append(f"table {before[0]}")
        if is_core:
            core.add(name)
    ops_index = {op: mod for op, mod in sorted(owner.items()) if mod not in core}
    attributes_index = {attribute: mod for attribute, mod in sorted(attribute_owner.items())
                        if mod not in core}
    bind_index = {op: tuple(m for m in mods if m not in core and m not in bind_any)
                  for op, mods in sorted(bind_ops.items())}
    return (tuple(m for m in order if m in core),
            tuple(m for m in order if m in binds and m not in core
                  and (m in bind_any or not any(m in ms for ms in bind_index.values()))),
            {op: mods for op, mods in bind_index.items() if mods}, ops_index,
            attributes_index)


def render(core: tuple[str, ...], binds: tuple[str, ...], bind_ops: dict[str, tuple[str, ...]],
           ops: dict[str, str], attributes: dict[str, str]) -> str:
    lines = ['"""Generated by `python -m shlo_cli.dialects.op_index_build`: do not edit.',
             "",
             "CORE: op modules imported at the first op lookup, in this order. BIND: the other",
             "modules that register binding hooks for any op, imported when the interpreter",
             "first binds an op. BIND_OPS: the modules whose binding hooks apply to one op only,",
             "imported when the interpreter first binds that op. OPS: every other op and the",
             "module that defines it, imported when the op is",
             "first looked up. ATTRIBUTES: the same for dialect attributes with their own",
             'grammar (`#stablehlo.conv<...>`), imported when the parser first meets one."""',
             "",
             "CORE = ("]
    lines += [f'    "{m}",' for m in core]
    lines += [")", "", "BIND = ("]
    lines += [f'    "{m}",' for m in binds]
    lines += [")", "", "BIND_OPS = {"]
    for op, mods in bind_ops.items():
        lines.append(f'    "{op}": (')
        lines += [f'        "{m}",' for m in mods]
        lines.append("    ),")
    lines += ["}", "", "OPS = {"]
    lines += [f'    "{op}": "{mod}",' for op, mod in ops.items()]
    lines += ["}", "", "ATTRIBUTES = {"]
    lines += [f'    "{attribute}": "{mod}",' for attribute, mod in attributes.items()]
    lines += ["}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    import os

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "op_index.py")
    with open(path, "w") as f:
        f.write(render(*build()))
    print(f"wrote {path}")
    for module, why in REASONS.items():
        print(f"  core: {module}: {'; '.join(sorted(set(why)))}")
