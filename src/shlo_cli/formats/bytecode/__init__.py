"""MLIR bytecode, read and written as upstream MLIR does (byte for byte).

- ``is_bytecode(data)``: the data starts with the magic `ML\\xefR`.
- ``read_bytecode(data, filename, allow_unregistered=False) -> Module``: any version
  0..6; bad input raises a located ``Diagnostic``.
- ``write_bytecode(module, version=6, producer=DEFAULT_PRODUCER) -> bytes``.

Modules: ``encoding`` (varints, sections, strings), ``numbering`` (what gets which
number), ``recipes`` (attribute and type encodings recorded while numbering, replayed
once numbers are final), ``writer``, ``reader`` with ``ir_reader`` (ops, regions, blocks)
and ``tables`` (attribute/type entries; the common builtin ones decoded by ``entries``),
``builtin`` (builtin dialect encodings), ``hooks`` (per-dialect encodings), ``properties``
(op properties), ``uselists``.
"""

from __future__ import annotations

from .encoding import CURRENT_VERSION, MIN_VERSION, is_bytecode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .reader import read_bytecode
    from .writer import DEFAULT_PRODUCER, write_bytecode

__all__ = ["CURRENT_VERSION", "DEFAULT_PRODUCER", "MIN_VERSION", "is_bytecode",
           "read_bytecode", "write_bytecode"]

# The reader and writer (with the dialect tables they pull in) load on first use, so a launch
# that only reads text, or only checks the magic number, does not import them.
_LAZY = {"read_bytecode": "reader", "DEFAULT_PRODUCER": "writer", "write_bytecode": "writer"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
