"""MLIR bytecode, read and written as upstream MLIR does (byte for byte).

- ``is_bytecode(data)``: the data starts with the magic `ML\\xefR`.
- ``read_bytecode(data, filename, allow_unregistered=False) -> Module``: any version
  0..6; bad input raises a located ``Diagnostic``.
- ``write_bytecode(module, version=6, producer=DEFAULT_PRODUCER) -> bytes``.

Modules: ``encoding`` (varints, sections, strings), ``numbering`` (what gets which
number), ``writer``, ``reader`` with ``tables`` (attribute/type entries), ``builtin``
(builtin dialect encodings), ``hooks`` (per-dialect encodings), ``properties`` (op
properties), ``uselists``.
"""

from .encoding import CURRENT_VERSION, MIN_VERSION
from .reader import is_bytecode, read_bytecode
from .writer import DEFAULT_PRODUCER, write_bytecode

__all__ = ["CURRENT_VERSION", "DEFAULT_PRODUCER", "MIN_VERSION", "is_bytecode",
           "read_bytecode", "write_bytecode"]
