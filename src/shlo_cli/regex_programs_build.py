"""Writes the table of regex programs `ir.regex_programs` reads (`make bytecode` runs it).

Run `python -m shlo_cli.regex_programs_build`. It imports every module of the package,
compiles each pattern declared with `lazy_regex` and builds the fast parser of every
registered op format (patterns made from formats), so the table holds every pattern a
launch compiles at import or on its fast paths. The file is replaced whole (written beside
it, then renamed), never left half-written.
"""

from __future__ import annotations

import gc
import importlib
import marshal
import os
import pkgutil
import sys
import tempfile

from shlo_cli.ir import regex_programs

_PACKAGE = os.path.dirname(os.path.abspath(__file__))  # shlo_cli's own folder


def _import_everything() -> None:
    for info in pkgutil.walk_packages([_PACKAGE], "shlo_cli."):
        if info.name.endswith("__main__") or info.name == __name__:
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue


def _compile_lazy_patterns() -> None:
    from shlo_cli.ir.lexer import _LazyPattern

    for obj in gc.get_objects():
        if isinstance(obj, _LazyPattern):
            obj.match  # noqa: B018 - the first attribute read compiles it


def _build_fast_parsers() -> None:
    from shlo_cli.dialects import load_all
    from shlo_cli.ir import registry

    load_all()
    for opdef in list(registry._REGISTRY.values()):
        build = getattr(opdef.syntax, "fast_parser", None)
        if build is not None:
            build()


def write_table(path: str) -> int:
    """Save the programs of every pattern compiled so far to `path`; returns their count."""
    programs = {key: regex_programs.program(*key) for key in sorted(regex_programs.requested())}
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".regex_programs.")
    try:
        with os.fdopen(fd, "wb") as f:
            marshal.dump((regex_programs.engine_key(), programs), f)
        os.chmod(temporary, 0o644)  # as compileall's files (mkstemp makes it 0600)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return len(programs)


def main() -> int:
    _import_everything()
    _compile_lazy_patterns()
    _build_fast_parsers()
    path = regex_programs.table_path()
    try:
        count = write_table(path)
    except OSError as e:
        print(f"regex programs not saved ({e.strerror}): patterns compile at each launch",
              file=sys.stderr)
        return 0
    print(f"{count} regex programs saved to {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
