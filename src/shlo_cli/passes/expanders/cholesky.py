"""`cholesky_expander`: `stablehlo.cholesky` as plain StableHLO, computing what XLA's
CholeskyExpander computes (and what its TriangularSolveExpander then makes of the panel
solves it emits).

XLA's algorithm, in short: an upper factor is the transpose (not adjoint) of the lower
factor of the transposed input. The lower factor is blocked left-looking Cholesky (Haidar et
al. 2017, algorithm 1) with block size 128: for each block column i,
    panel = a[i:, i:i+k] - l[i:, :i] @ l[i:i+k, :i]^H
    l[i:i+k, i:i+k] = unblocked(panel[:k])   (a plain sqrt when k == 1)
    l[i+k:, i:i+k] = panel[k:] @ inv(l[i:i+k, i:i+k])^H   (a right-side ADJOINT solve)
The unblocked factorisation is a while loop over the columns j that recomputes
a - l @ l^H each step and fills column j (rows >= j) with it divided by the square root of
its diagonal entry (of its real part, for complex). Every square root that is NaN (a
negative, or NaN, pivot) marks the batch matrix; a marked matrix's whole result is NaN.
Products run at HIGHEST precision. Only the lower triangle of the (transposed) input is read;
the other triangle of the result is zero.
"""

from __future__ import annotations

import math

from ...ir.core import Module, Value
from ...ir.types import BOOL, ComplexType
from ..chlo_legalize import Rewriter
from . import register_expander
from .matrix import (
    batch_dot,
    binary,
    broadcast_to,
    conjugate,
    counted_loop,
    expand_degenerate,
    expand_ops,
    full,
    i64_array,
    index,
    iota,
    is_nan,
    real_part,
    require_static,
    reshaped,
    select,
    slice_minor,
    transpose_minor,
    ttype,
    unary,
    update_minor,
)
from .triangular_solve import build_triangular_solve

FLAG = "cholesky_expander"
BLOCK_SIZE = 128  # what XLA's CholeskyExpander passes to its blocked factorisation


def build_cholesky(rw: Rewriter, a: Value, lower: bool, block_size: int = BLOCK_SIZE) -> Value:
    """The lower (a = L L^H) or upper (a = U^H U) factor of each matrix of `a`
    ([..., n, n], static), NaN-filled where a pivot's square root is NaN."""
    if ttype(a).num_elements == 0:
        return a
    if lower:
        return _blocked_lower(rw, a, block_size)
    return transpose_minor(rw, _blocked_lower(rw, transpose_minor(rw, a), block_size))


def _blocked_lower(rw: Rewriter, a: Value, block_size: int) -> Value:
    t = ttype(a)
    n, major = t.shape[-1], t.shape[:-2]
    flag_type = reshaped(t, (*major, 1, 1), BOOL)
    factor = full(rw, 0, t)
    failed = full(rw, False, flag_type)
    for i in range(0, n, block_size):
        k = min(block_size, n - i)
        panel = slice_minor(rw, a, (i, i), (n, i + k))
        if i > 0:
            left = slice_minor(rw, factor, (i, 0), (n, i))
            right = conjugate(rw, slice_minor(rw, factor, (i, 0), (i + k, i)))
            panel = binary(rw, "subtract", panel, batch_dot(rw, left, False, right, True))
        diagonal_block = slice_minor(rw, panel, (0, 0), (k, k))
        if k == 1:
            block_factor, block_failed = _pivot_root(rw, diagonal_block)
        else:
            block_factor, block_failed = _unblocked(rw, diagonal_block)
        failed = binary(rw, "or", failed, block_failed)
        factor = update_minor(rw, factor, block_factor, (i, i))
        if i + k < n:
            below = slice_minor(rw, panel, (k, 0), (n - i, k))
            solved = build_triangular_solve(rw, block_factor, below, left_side=False,
                                            lower=True, transpose_a=True, conjugate_a=True,
                                            unit_diagonal=False)
            factor = update_minor(rw, factor, solved, (i + k, i))
    nan = full(rw, math.nan, t)
    return select(rw, broadcast_to(rw, failed, t.shape, range(t.rank)), nan, factor)


def _pivot_root(rw: Rewriter, pivot: Value) -> tuple[Value, Value]:
    """(sqrt(pivot), isnan(sqrt)) for [..., 1, 1] pivots; complex pivots use their real part
    and give a real root."""
    t = ttype(pivot)
    if isinstance(t.element, ComplexType):
        root = unary(rw, "sqrt", real_part(rw, pivot))
        zero = full(rw, 0, ttype(root))
        return rw.create("stablehlo.complex", [root, zero], t), is_nan(rw, root)
    root = unary(rw, "sqrt", pivot)
    return root, is_nan(rw, root)


def _unblocked(rw: Rewriter, a: Value) -> tuple[Value, Value]:
    """Cholesky-Banachiewicz on [..., k, k] blocks, one column per while-loop step; returns
    (factor, failed) with failed [..., 1, 1]."""
    t = ttype(a)
    rank, k = t.rank, t.shape[-1]
    flag_type = reshaped(t, (*t.shape[:-2], 1, 1), BOOL)
    pred_type = reshaped(t, t.shape, BOOL)

    def column(bb: Rewriter, j: Value, values: list[Value]) -> list[Value]:
        source, factor, failed = values
        rows = broadcast_to(bb, iota(bb, (k, k), 0), t.shape, (rank - 2, rank - 1))
        cols = broadcast_to(bb, iota(bb, (k, k), 1), t.shape, (rank - 2, rank - 1))
        j_full = broadcast_to(bb, j, t.shape, ())
        in_column = binary(bb, "and", bb.compare("GE", rows, cols, pred_type),
                           bb.compare("EQ", cols, j_full, pred_type))
        residual = binary(bb, "subtract", source,
                          batch_dot(bb, factor, False, conjugate(bb, factor), True))
        starts = [index(bb, 0) for _ in range(rank - 2)] + [j, j]
        pivot = bb.create("stablehlo.dynamic_slice", [residual, *starts],
                          reshaped(t, (*t.shape[:-2], 1, 1)),
                          {"slice_sizes": i64_array((*t.shape[:-2], 1, 1))})
        root, bad = _pivot_root(bb, pivot)
        failed = binary(bb, "or", failed, bad)
        scaled = binary(bb, "divide", residual, expand_degenerate(bb, root, t.shape))
        factor = binary(bb, "add", select(bb, in_column, scaled, full(bb, 0, t)), factor)
        return [source, factor, failed]

    _, factor, failed = counted_loop(rw, 0, k, [a, full(rw, 0, t), full(rw, False, flag_type)],
                                     column)
    return factor, failed


def _expand(rw: Rewriter) -> list[Value]:
    op = rw.op
    require_static(op, FLAG)
    lower = bool(getattr(op.attr("lower"), "value", False))
    return [build_cholesky(rw, op.operands[0], lower)]


@register_expander(FLAG, "Expand stablehlo.cholesky into StableHLO ops, as XLA's "
                         "CholeskyExpander does (blocked, block size 128; NaN where a pivot "
                         "is not positive).")
def expand_cholesky(module: Module) -> None:
    expand_ops(module, "stablehlo.cholesky", _expand)
