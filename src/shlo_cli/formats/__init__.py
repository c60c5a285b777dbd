"""File formats other than MLIR text: MLIR bytecode (`bytecode/`)."""

from .bytecode import is_bytecode, read_bytecode, write_bytecode

__all__ = ["is_bytecode", "read_bytecode", "write_bytecode"]
