"""Regular expressions compiled once per installation instead of once per tool launch.

`re.compile` parses a pattern and generates its matcher program in Python code: the parser's
patterns cost 4-6 ms of a tiny `stablehlo-opt` launch, a fifth of its time over Python's own
start-up. `make bytecode` (`python -m shlo_cli.regex_programs_build`) saves every pattern's
program, as `re` generated it, next to the compiled sources, as `compileall` saves the
modules' bytecode; `compile` then builds a pattern straight from its saved program.

The table is used only when the running Python wrote it (same `sys.version` and `_sre`
engine magic); otherwise, for a pattern missing from it, or if the engine refuses a program,
`compile` is `re.compile`. Either way the pattern is the one `re.compile` makes.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's engine (built in, loaded at start-up)
import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import array
    import re
    from typing import Any

# `re`'s flag values (its RegexFlag members are these ints), so a pattern's module names its
# flags without importing `re`: with `enum`, `functools` and `collections` that import costs
# ~4 ms of a launch that compiles nothing (tests/unit check the values against `re`'s).
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16
VERBOSE = 64
# The characters `re.escape` puts a backslash before.
_SPECIAL = {c: "\\" + chr(c) for c in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}

# pattern text and flags -> (flags, program, groups, group index, index group): the
# arguments `re._compiler.compile` hands to `_sre.compile`, the program as the bytes of an
# array of code words (marshal reads bytes at once, a list of ints item by item).
Program = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]
_TABLE: dict[tuple[str, int], Program] | None = None
_REQUESTED: set[tuple[str, int]] = set()  # every pattern asked for (what the table saves)


def table_path() -> str:
    """Where `make bytecode` saves the table: this folder's `__pycache__`, per Python."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "__pycache__",
                        f"regex_programs.{sys.implementation.cache_tag}.marshal")


def _code_array() -> array.array[int]:
    """An empty array whose items are the engine's code words."""
    import array

    return array.array("I" if array.array("I").itemsize == _sre.CODESIZE else "L")


def _code_words(code: bytes) -> list[int]:
    """The code words saved as `code` (native byte order, `_sre.CODESIZE` bytes each)."""
    return memoryview(code).cast("I" if _sre.CODESIZE == 4 else "L").tolist()


def escape(text: str) -> str:
    """`re.escape(text)`: the same text, without importing `re`."""
    return text.translate(_SPECIAL)


def engine_key() -> tuple[str, int, int]:
    """What a saved program depends on: the Python build and its regex engine."""
    return sys.version, _sre.MAGIC, _sre.CODESIZE


def _load() -> dict[tuple[str, int], Program]:
    try:
        with open(table_path(), "rb") as f:
            saved = marshal.loads(f.read())  # (`marshal.load(f)` reads item by item: 25x slower)
        if saved[0] == engine_key():
            return saved[1]  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - no table, an unreadable or foreign one: compile anew
        pass
    return {}


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, from the saved program when there is one."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _load()
    key = (pattern, int(flags))
    _REQUESTED.add(key)
    saved = _TABLE.get(key)
    if saved is not None:
        try:
            final_flags, code, groups, groupindex, indexgroup = saved
            return _sre.compile(  # type: ignore[no-any-return]
                pattern, final_flags, _code_words(code), groups, groupindex, indexgroup)
        except Exception:  # noqa: BLE001 - the engine refused the program: compile anew
            pass
    import re

    return re.compile(pattern, flags)


def requested() -> set[tuple[str, int]]:
    """Every (pattern, flags) `compile` was asked for in this process."""
    return set(_REQUESTED)


def program(pattern: str, flags: int = 0) -> Program:
    """The arguments `re.compile` passes to the regex engine for `pattern` (for the table)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    words = _code_array()
    words.extend(int(c) for c in _compiler._code(parsed, flags))
    state: Any = parsed.state
    groupindex = dict(state.groupdict)
    indexgroup: list[str | None] = [None] * state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (flags | state.flags, words.tobytes(), state.groups - 1, groupindex,
            tuple(indexgroup))
