"""Binary program forms: MLIR bytecode (`bytecode/`) and StableHLO portable artifacts
(`portable`: VHLO of a target version in bytecode)."""

from .bytecode import is_bytecode, read_bytecode, write_bytecode

__all__ = ["is_bytecode", "read_bytecode", "write_bytecode"]
