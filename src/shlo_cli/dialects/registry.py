"""Compatibility re-export: the op registry lives in `shlo_cli.ir.registry` (lowest layer)."""

from ..ir.registry import (  # noqa: F401
    OpContractError,
    OpDef,
    all_ops,
    canonicalization,
    constant_materializer,
    declare_op,
    define_op,
    ensure_loaded,
    folder,
    is_known_dialect,
    lookup,
    register,
)
