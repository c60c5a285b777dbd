"""Binary program forms: MLIR bytecode (`bytecode/`) and StableHLO portable artifacts
(`portable`: VHLO of a target version in bytecode)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .bytecode import is_bytecode, read_bytecode, write_bytecode

__all__ = ["is_bytecode", "read_bytecode", "write_bytecode"]


def __getattr__(name: str) -> Any:
    """The bytecode reader and writer load on first use: a text-only tool launch skips them."""
    if name in __all__:
        from . import bytecode

        return getattr(bytecode, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
