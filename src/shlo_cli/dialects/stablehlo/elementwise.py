"""Elementwise ops: each evaluator applies the spec's per-element semantics to whole arrays."""

from __future__ import annotations

import numpy as np

from ..asm import Format
from ..registry import define_op

BINARY = Format("$lhs `,` $rhs", operands=("lhs", "rhs"))


@define_op("stablehlo.add", syntax=BINARY)
def add(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Elementwise sum; integers wrap at the type's width, i1 is logical or."""
    if lhs.dtype == np.bool_:
        return np.logical_or(lhs, rhs)
    with np.errstate(over="ignore"):
        return np.add(lhs, rhs)
