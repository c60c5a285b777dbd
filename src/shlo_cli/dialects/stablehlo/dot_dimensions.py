"""dot_general's dimension-number checks (upstream `hlo::checkDotGeneralConstraints`),
shared by `stablehlo.dot_general` and `chlo.ragged_dot`."""

from __future__ import annotations

from collections.abc import Sequence

from ...ir.core import Operation
from ...ir.diagnostics import Diagnostic
from ...ir.types import DYNAMIC


def _error(op: Operation, message: str) -> Diagnostic:
    """An error at the op without the `'name' op` prefix (upstream emitOptionalError)."""
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


def check_dot_dimensions(op: Operation, lhs_shape: Sequence[int] | None,
                         rhs_shape: Sequence[int] | None, lb: list[int], rb: list[int],
                         lc: list[int], rc: list[int]) -> None:
    """Upstream checkDotGeneralConstraints on batching (b) and contracting (c) dimensions,
    shared with chlo.ragged_dot: equal counts, distinct, in range, sizes that match (a
    side of unknown shape skips the last two)."""
    if len(lb) != len(rb):
        raise _error(op, "lhs and rhs should have the same number of batching dimensions")
    if len(lc) != len(rc):
        raise _error(op, "lhs and rhs should have the same number of contracting dimensions")
    for side, batch, contract in (("lhs", lb, lc), ("rhs", rb, rc)):
        seen: set[int] = set()
        for d in batch + contract:
            if d in seen:
                raise _error(op, f"has duplicated dimension from {side}_batching_dimensions "
                                      f"and {side}_contracting_dimensions: {d}")
            seen.add(d)
    shapes = {"lhs": lhs_shape, "rhs": rhs_shape}
    for name, values in (("lhs_batching_dimensions", lb), ("lhs_contracting_dimensions", lc),
                         ("rhs_batching_dimensions", rb), ("rhs_contracting_dimensions", rc)):
        shape = shapes[name[:3]]
        if shape is None:
            continue
        for d in values:
            if d < 0 or d >= len(shape):
                raise _error(op, f"{name} value: {d} is out of range: [0, {len(shape)})")
    if lhs_shape is not None and rhs_shape is not None:
        for kind, ls, rs in (("batching", lb, rb), ("contracting", lc, rc)):
            for a, b in zip(ls, rs, strict=True):
                x, y = lhs_shape[a], rhs_shape[b]
                if x != y and DYNAMIC not in (x, y):
                    raise _error(op, f"{kind} dimension sizes must match for lhs/rhs")
