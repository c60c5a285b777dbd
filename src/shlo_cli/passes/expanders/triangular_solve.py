"""`triangular_solve_expander`: `stablehlo.triangular_solve` as plain StableHLO, computing
what XLA's TriangularSolveExpander (default block size 128, direct solves enabled) computes.

XLA's algorithm, in short:
- empty `b`: the result is `b`; 1x1 `a`: `b` (unit diagonal) or `b / a` (conjugated for
  ADJOINT);
- more than 128/16 = 8 batch matrices of size below 128/4 = 32: a direct substitution,
  unrolled over the rows (columns for a right-side solve) of the result, each step
  subtracting the product of the already-solved part and dividing by the diagonal;
- otherwise (MAGMA's method): mask `a` to its triangle (a unit diagonal replaces the
  diagonal by ones), cut its diagonal into blocks of min(128, n) (the last one padded with
  an identity), invert all blocks at once by a row-by-row loop on the unit-scaled blocks, then
  walk the block rows forward or backward: x_j = inv(a_jj) (b_j - a_j,solved @ x_solved).
Every product runs at HIGHEST precision. TRANSPOSE and ADJOINT transpose the products'
operands instead of `a`; ADJOINT also conjugates the blocks used.
"""

from __future__ import annotations

from ...ir.attributes import IntegerAttr
from ...ir.core import Module, Operation, Value
from ...ir.types import DYNAMIC, I32, I64, ComplexType, FloatType, TensorType
from ...ir.verifier import op_error
from ..chlo_legalize import Rewriter
from . import register_expander
from .matrix import (
    batch_dot,
    binary,
    broadcast_to,
    concatenate,
    conjugate,
    counted_loop,
    dot_general,
    expand_degenerate,
    expand_ops,
    full,
    i64_array,
    identity,
    index,
    matrix_diagonal,
    require_static,
    reshape,
    reshaped,
    select,
    slice_minor,
    triangle,
    triangle_mask,
    ttype,
    unary,
    update_minor,
)

FLAG = "triangular_solve_expander"
BLOCK_SIZE = 128  # XLA's TriangularSolveExpander default


def build_triangular_solve(rw: Rewriter, a: Value, b: Value, *, left_side: bool, lower: bool,
                           transpose_a: bool, conjugate_a: bool, unit_diagonal: bool,
                           block_size: int = BLOCK_SIZE) -> Value:
    """x with op(a) x = b (left side) or x op(a) = b, op(a) = a, a^T (transpose_a) or a^H
    (transpose_a and conjugate_a), reading only `a`'s lower or upper triangle. Static
    shapes only. The cholesky expander calls this for its panel solves."""
    at, bt = ttype(a), ttype(b)
    n = at.shape[-1]
    if bt.num_elements == 0:
        return b
    if n == 1:
        if unit_diagonal:
            return b
        return binary(rw, "divide", b, expand_degenerate(rw, conjugate(rw, a, conjugate_a),
                                                          bt.shape))
    batch = 1
    for size in at.shape[:-2]:
        batch *= size
    if batch > block_size // 16 and n < block_size // 4:
        return _solve_directly(rw, a, b, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal)
    return _solve_by_inverted_blocks(rw, a, b, left_side, lower, transpose_a, conjugate_a,
                                     unit_diagonal, min(block_size, n))


# ---- direct substitution -----------------------------------------------------------------


def _solve_directly(rw: Rewriter, a: Value, b: Value, left_side: bool, lower: bool,
                    transpose_a: bool, conjugate_a: bool, unit_diagonal: bool) -> Value:
    """One result row (left) or column (right) per step, in dependency order."""
    m, k = ttype(b).shape[-2:]
    n = ttype(a).shape[-1]
    a = conjugate(rw, a, conjugate_a)
    # op(a) is lower triangular exactly when this holds: solve from the first index up.
    forward = transpose_a ^ lower ^ (not left_side)
    for step in range(n):
        j = step if forward else n - 1 - step
        solved = (0, j) if forward else (j + 1, n)  # the indices already solved
        row_start, row_limit = ((j, 0), (j + 1, k)) if left_side else ((0, j), (m, j + 1))
        row = slice_minor(rw, b, row_start, row_limit)
        if solved[0] < solved[1]:
            # The coefficients of op(a)'s row j on the solved indices: a row of `a`, or a
            # column when exactly one of (transposed, right side) holds.
            coeff_start, coeff_limit = (j, solved[0]), (j + 1, solved[1])
            if transpose_a != (not left_side):
                coeff_start, coeff_limit = coeff_start[::-1], coeff_limit[::-1]
            coeffs = slice_minor(rw, a, coeff_start, coeff_limit)
            if left_side:
                known = slice_minor(rw, b, (solved[0], 0), (solved[1], k))
                product = batch_dot(rw, coeffs, transpose_a, known, False)
            else:
                known = slice_minor(rw, b, (0, solved[0]), (m, solved[1]))
                product = batch_dot(rw, known, False, coeffs, transpose_a)
            row = binary(rw, "subtract", row, product)
        if not unit_diagonal:
            pivot = slice_minor(rw, a, (j, j), (j + 1, j + 1))
            row = binary(rw, "divide", row, expand_degenerate(rw, pivot, ttype(row).shape))
        b = update_minor(rw, b, row, row_start)
    return b


# ---- blocked solve with inverted diagonal blocks -------------------------------------------


def _solve_by_inverted_blocks(rw: Rewriter, a: Value, b: Value, left_side: bool, lower: bool,
                              transpose_a: bool, conjugate_a: bool, unit_diagonal: bool,
                              block_size: int) -> Value:
    at = ttype(a)
    if unit_diagonal:
        # Keep the strict triangle and put ones on the diagonal.
        zeros = full(rw, 0, at)
        if lower:
            a = select(rw, triangle_mask(rw, at.shape, -1), a, zeros)
        else:
            a = select(rw, triangle_mask(rw, at.shape, 0), zeros, a)
        n = at.shape[-1]
        eye = broadcast_to(rw, identity(rw, n, n, at.element), at.shape,
                           (at.rank - 2, at.rank - 1))
        a = binary(rw, "add", a, eye)
    else:
        a = triangle(rw, a, lower)
    blocks = _diagonal_blocks(rw, a, block_size)
    inverses = invert_diagonal_blocks(rw, blocks, lower)
    return _solve_with_inverses(rw, a, b, inverses, left_side, lower, transpose_a,
                                conjugate_a)


def _diagonal_blocks(rw: Rewriter, a: Value, block_size: int) -> Value:
    """[..., num_blocks, block, block]: the diagonal blocks of `a`, the last one (when the
    size is not a multiple of the block) padded to [[a_last, 0], [0, I]]."""
    at = ttype(a)
    n, major = at.shape[-1], at.shape[:-2]
    stacked = (*major, 1, block_size, block_size)
    pieces = []
    for start in range(0, n - n % block_size, block_size):
        block = slice_minor(rw, a, (start, start), (start + block_size, start + block_size))
        pieces.append(reshape(rw, block, stacked))
    rest = n % block_size
    if rest:
        last = slice_minor(rw, a, (n - rest, n - rest), (n, n))
        padding = block_size - rest
        zero = rw.scalar(0, at.element)
        low = (0,) * at.rank
        high = (0,) * (at.rank - 2) + (padding, 0)
        last = rw.create("stablehlo.pad", [last, zero], reshaped(at, (*major, block_size, rest)),
                         {"edge_padding_low": i64_array(low), "edge_padding_high": i64_array(high),
                          "interior_padding": i64_array(low)})
        eye = identity(rw, block_size, padding, at.element, row_offset=rest)
        eye = broadcast_to(rw, eye, (*major, block_size, padding), (at.rank - 2, at.rank - 1))
        last = concatenate(rw, [last, eye], at.rank - 1)
        pieces.append(reshape(rw, last, stacked))
    return concatenate(rw, pieces, at.rank - 2)


def invert_diagonal_blocks(rw: Rewriter, blocks: Value, lower: bool) -> Value:
    """The inverses of a batch [..., block, block] of triangular blocks.

    Each block T is scaled to unit diagonal (S = T D^-1, columns divided), S^-1 is built one
    row at a time starting from diag(1, -1, -1, ...) (row j <- -S[j, :] @ current, which
    leaves e_j minus the solved rows' combination), and T^-1 = D^-1 S^-1 (rows divided)."""
    bt = ttype(blocks)
    size = bt.shape[-1]
    count = bt.num_elements // (size * size)
    flat_type = reshaped(bt, (count, size, size))
    flat = triangle(rw, reshape(rw, blocks, flat_type.shape), lower)
    diagonal = matrix_diagonal(rw, flat)  # [count, size]
    scaled = binary(rw, "divide", flat, broadcast_to(rw, diagonal, flat_type.shape, (0, 2)))
    first = 0 if lower else size - 1
    # -I with a 1 at the first-solved diagonal entry (that row is never updated).
    one_at_first = unary(rw, "negate", identity(rw, size, size, bt.element))
    one = reshape(rw, full(rw, 1, reshaped(bt, ())), (1, 1))
    one_at_first = update_minor(rw, one_at_first, one, (first, first))
    initial = broadcast_to(rw, one_at_first, flat_type.shape, (1, 2))
    row_type = reshaped(bt, (count, 1, size))

    def step(bb: Rewriter, i: Value, values: list[Value]) -> list[Value]:
        current, source = values
        j = i if lower else binary(bb, "subtract", index(bb, size - 1), i)
        zero = index(bb, 0)
        row = bb.create("stablehlo.dynamic_slice", [source, zero, j, zero], row_type,
                        {"slice_sizes": i64_array((count, 1, size))})
        product = dot_general(bb, row, current, (0,), ((2,), (1,)), row_type)
        update = unary(bb, "negate", product)
        current = bb.create("stablehlo.dynamic_update_slice", [current, update, zero, j, zero],
                            flat_type)
        return [current, source]

    inverse, _ = counted_loop(rw, 1, size, [initial, scaled], step)
    inverse = binary(rw, "divide", inverse, broadcast_to(rw, diagonal, flat_type.shape, (0, 1)))
    return reshape(rw, inverse, bt.shape)


def _solve_with_inverses(rw: Rewriter, a: Value, b: Value, inverses: Value, left_side: bool,
                         lower: bool, transpose_a: bool, conjugate_a: bool) -> Value:
    """Block substitution: x_j = inv(a_jj) (b_j - a_j,solved x_solved), block rows of x
    (columns for a right-side solve) in dependency order."""
    at, bt = ttype(a), ttype(b)
    rank, n = at.rank, at.shape[-1]
    block_size = ttype(inverses).shape[-1]
    num_blocks = -(-n // block_size)
    m = bt.shape[-1] if left_side else bt.shape[-2]
    block_dim = rank - 2 if left_side else rank - 1
    backward = left_side ^ lower ^ transpose_a
    x: Value | None = None
    for i in range(num_blocks):
        j = num_blocks - 1 - i if backward else i
        lo, hi = j * block_size, min((j + 1) * block_size, n)
        size = hi - lo
        inv = slice_minor(rw, inverses, (j, 0, 0), (j + 1, size, size))
        inv = conjugate(rw, reshape(rw, inv, (*at.shape[:-2], size, size)), conjugate_a)
        start, limit = ((lo, 0), (hi, m)) if left_side else ((0, lo), (m, hi))
        remainder = slice_minor(rw, b, start, limit)
        if x is not None:
            # The coupling block of `a` between block j and the blocks solved so far.
            solved = (max(0, (num_blocks - i) * block_size), n) if backward else \
                (0, min(i * block_size, n))
            a_start, a_limit = (lo, solved[0]), (hi, solved[1])
            if (not left_side) != transpose_a:
                a_start, a_limit = a_start[::-1], a_limit[::-1]
            coupling = conjugate(rw, slice_minor(rw, a, a_start, a_limit), conjugate_a)
            if left_side:
                known = batch_dot(rw, coupling, transpose_a, x, False)
            else:
                known = batch_dot(rw, x, False, coupling, transpose_a)
            remainder = binary(rw, "subtract", remainder, known)
        if left_side:
            update = batch_dot(rw, inv, transpose_a, remainder, False)
        else:
            update = batch_dot(rw, remainder, False, inv, transpose_a)
        if x is None:
            x = update
        else:
            x = concatenate(rw, [update, x] if backward else [x, update], block_dim)
    assert x is not None
    return x


# ---- the expander --------------------------------------------------------------------------


def _flag(rw: Rewriter, name: str) -> bool:
    attr = rw.op.attr(name)
    return bool(getattr(attr, "value", False))


def _expand(rw: Rewriter) -> list[Value]:
    op = rw.op
    dynamic_batch = _only_batch_dynamic(op)
    if not dynamic_batch:
        require_static(op, FLAG)
    mode = op.attr("transpose_a")
    word = str(getattr(mode, "body", "transpose NO_TRANSPOSE")).split()[-1]
    if word not in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
        raise op_error(op, f"cannot be expanded by {FLAG}: transpose_a {word}")
    options = {"left_side": _flag(rw, "left_side"), "lower": _flag(rw, "lower"),
               "transpose_a": word != "NO_TRANSPOSE", "conjugate_a": word == "ADJOINT",
               "unit_diagonal": _flag(rw, "unit_diagonal")}
    a, b = op.operands
    if dynamic_batch:
        return [_solve_each_matrix(rw, a, b, ttype(op.results[0]), options)]
    return [build_triangular_solve(rw, a, b, **options)]


# ---- dynamic batch dimensions ----------------------------------------------------------------


def _only_batch_dynamic(op: Operation) -> bool:
    """Whether some batch dimension is dynamic while every matrix dimension (the last two
    of `a`, `b` and the result) is static; a dynamic matrix dimension is an error here."""
    types = [v.type for v in (*op.operands, *op.results)
             if isinstance(v.type, TensorType) and v.type.rank >= 2]
    if len(types) != len(op.operands) + len(op.results):
        return False  # unranked: require_static reports it
    if all(t.is_static for t in types):
        return False
    for t in types:
        if any(d == DYNAMIC for d in t.shape[-2:]):
            raise op_error(op, f"cannot be expanded by {FLAG}: the matrix dimensions of "
                               f"'{t}' are dynamic (only batch dimensions may be)")
        if not isinstance(t.element, (FloatType, ComplexType)):
            raise op_error(op, f"cannot be expanded by {FLAG}: element type '{t.element}' "
                               f"is not floating-point or complex")
    return True


def _solve_each_matrix(rw: Rewriter, a: Value, b: Value, result: TensorType,
                       options: dict[str, bool]) -> Value:
    """A run-time number of matrices: flatten the batch dimensions into one (a
    dynamic_reshape when there are several), then a while loop solves one matrix per
    iteration, sliced out with dynamic_slice and written back with dynamic_update_slice."""
    at, bt = ttype(a), ttype(b)
    batch_rank = at.rank - 2
    n = at.shape[-1]
    m, k = bt.shape[-2:]
    count = _batch_count(rw, a, batch_rank)
    flat_a = _flatten_batch(rw, a, count, batch_rank)
    flat_b = _flatten_batch(rw, b, count, batch_rank)
    one_a = reshaped(at, (1, n, n))
    one_b = reshaped(bt, (1, m, k))

    def step(bb: Rewriter, i: Value, values: list[Value]) -> list[Value]:
        [x] = values
        zero = index(bb, 0)
        a_i = bb.create("stablehlo.dynamic_slice", [flat_a, i, zero, zero], one_a,
                        {"slice_sizes": i64_array((1, n, n))})
        b_i = bb.create("stablehlo.dynamic_slice", [flat_b, i, zero, zero], one_b,
                        {"slice_sizes": i64_array((1, m, k))})
        x_i = build_triangular_solve(bb, a_i, b_i, **options)
        return [bb.create("stablehlo.dynamic_update_slice", [x, x_i, i, zero, zero],
                          ttype(x))]

    [x] = counted_loop(rw, 0, count, [flat_b], step)
    if batch_rank == 1:
        return x
    shape = _shape_of(rw, b, result.rank)
    return rw.create("stablehlo.dynamic_reshape", [x, shape], result)


def _dimension(rw: Rewriter, x: Value, dim: int) -> Value:
    """The size of `x`'s dimension as a tensor<i32> (a constant when static)."""
    size = ttype(x).shape[dim]
    if size != DYNAMIC:
        return index(rw, size)
    return rw.create("stablehlo.get_dimension_size", [x], TensorType((), I32),
                     {"dimension": IntegerAttr(dim, I64)})


def _batch_count(rw: Rewriter, x: Value, batch_rank: int) -> Value:
    count = _dimension(rw, x, 0)
    for dim in range(1, batch_rank):
        count = binary(rw, "multiply", count, _dimension(rw, x, dim))
    return count


def _shape_of(rw: Rewriter, x: Value, rank: int, sizes: list[Value] | None = None) -> Value:
    """A tensor<rank x i32> of `x`'s dimension sizes (or of `sizes`)."""
    pieces = [reshape(rw, s, (1,)) for s in (sizes or [_dimension(rw, x, d)
                                                       for d in range(rank)])]
    return concatenate(rw, pieces, 0)


def _flatten_batch(rw: Rewriter, x: Value, count: Value, batch_rank: int) -> Value:
    """[b0, b1, ..., r, c] -> [b0 * b1 * ..., r, c] (nothing to do for one batch dim)."""
    t = ttype(x)
    if batch_rank == 1:
        return x
    rows, cols = t.shape[-2:]
    shape = _shape_of(rw, x, 3, [count, index(rw, rows), index(rw, cols)])
    return rw.create("stablehlo.dynamic_reshape", [x, shape],
                     reshaped(t, (DYNAMIC, rows, cols)))


@register_expander(FLAG, "Expand stablehlo.triangular_solve into StableHLO ops, as XLA's "
                         "TriangularSolveExpander does (blocked, block size 128).")
def expand_triangular_solve(module: Module) -> None:
    expand_ops(module, "stablehlo.triangular_solve", _expand)
