"""Compatibility re-export: the op registry lives in `shlo_cli.ir.registry` (lowest layer)."""

from ..ir.registry import (  # noqa: F401
    OpDef,
    Syntax,
    all_ops,
    declare_op,
    define_op,
    ensure_loaded,
    is_known_dialect,
    lookup,
    register,
)
