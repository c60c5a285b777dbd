"""Matrix building blocks for the linear-algebra expanders (cholesky, triangular_solve): the
minor-dimension slices, batched products, triangle masks and counted loops that XLA's
builder library (matrix.h, slicing.h, loops.h) offers, emitted as StableHLO ops through the
CHLO legalizer's `Rewriter`. Every helper takes and returns statically shaped values; the
expanders refuse dynamic shapes before building anything.

Matrices are the two minor dimensions of a value; all leading dimensions are batch
dimensions and pass through unchanged."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...ir import registry
from ...ir.attributes import ArrayAttr, DenseArrayAttr, DialectAttr, IntegerAttr
from ...ir.clone import replace_uses
from ...ir.core import Block, Module, Operation, Region, Value
from ...ir.types import BOOL, I32, I64, ComplexType, FloatType, TensorType, Type
from ...ir.verifier import op_error
from ..chlo_legalize import Rewriter, legalize_block
from ..chlo_structured import _BlockBuilder, _dot_attr, _return

# XLA builds its linear-algebra expansions with PrecisionConfig::HIGHEST on every product.
HIGHEST = ArrayAttr((DialectAttr("stablehlo", "", "precision HIGHEST"),) * 2)


def ttype(value: Value) -> TensorType:
    t = value.type
    assert isinstance(t, TensorType)
    return t


def reshaped(t: TensorType, shape: Sequence[int], element: Type | None = None) -> TensorType:
    return TensorType(tuple(shape), t.element if element is None else element)


def i64_array(values: Sequence[int]) -> DenseArrayAttr:
    return DenseArrayAttr(I64, tuple(values))


# ---- running an expander over a module ---------------------------------------------------


Build = Callable[[Rewriter], "list[Value] | None"]


def expand_ops(module: Module, op_name: str, build: Build) -> None:
    """Replace every `op_name` op in `module` (nested regions included) by what `build`
    emits in front of it; `build` raises a Diagnostic for an op it cannot expand."""
    replacements: dict[Value, Value] = {}
    for region in module.op.regions:
        for block in region.blocks:
            legalize_block(block, replacements, {op_name: [build]})
    replace_uses(module.op, replacements)


def require_static(op: Operation, flag: str) -> None:
    """The expansions slice and loop over static sizes (as XLA's do): a dynamic or
    unranked operand or result, or a non-float element type, is an error at the op."""
    for value in (*op.operands, *op.results):
        t = value.type
        if not isinstance(t, TensorType) or not t.is_static:
            raise op_error(op, f"cannot be expanded by {flag}: '{t}' is not a statically "
                               f"shaped tensor")
        if not isinstance(t.element, (FloatType, ComplexType)):
            raise op_error(op, f"cannot be expanded by {flag}: element type '{t.element}' is "
                               f"not floating-point or complex")


# ---- constants, elementwise ops -----------------------------------------------------------


def full(rw: Rewriter, value: complex, t: TensorType) -> Value:
    """A splat constant (XLA's FullLike / ZerosLike)."""
    return rw.constant(value, t)  # type: ignore[arg-type]


def index(rw: Rewriter, value: int) -> Value:
    """A tensor<i32> index constant (XLA's loops and slices count in S32)."""
    return rw.scalar(value, I32)


def binary(rw: Rewriter, name: str, lhs: Value, rhs: Value) -> Value:
    """`stablehlo.<name>` of two values of one type."""
    return rw.create(f"stablehlo.{name}", [lhs, rhs], lhs.type)


def unary(rw: Rewriter, name: str, x: Value, result: Type | None = None) -> Value:
    return rw.create(f"stablehlo.{name}", [x], x.type if result is None else result)


def select(rw: Rewriter, pred: Value, on_true: Value, on_false: Value) -> Value:
    return rw.create("stablehlo.select", [pred, on_true, on_false], on_true.type)


def is_nan(rw: Rewriter, x: Value) -> Value:
    """x != x, elementwise (XLA's IsNan)."""
    return rw.compare("NE", x, x, reshaped(ttype(x), ttype(x).shape, BOOL))


def real_part(rw: Rewriter, x: Value) -> Value:
    t = ttype(x)
    assert isinstance(t.element, ComplexType)
    return unary(rw, "real", x, reshaped(t, t.shape, t.element.element))


def conjugate(rw: Rewriter, x: Value, flag: bool = True) -> Value:
    """conj(x) for complex elements when `flag` (XLA's MaybeConjugate); real values and
    `flag` false return `x`."""
    t = ttype(x)
    if not flag or not isinstance(t.element, ComplexType):
        return x
    part = reshaped(t, t.shape, t.element.element)
    re = unary(rw, "real", x, part)
    im = unary(rw, "negate", unary(rw, "imag", x, part))
    return rw.create("stablehlo.complex", [re, im], t)


def broadcast_to(rw: Rewriter, x: Value, shape: Sequence[int], dims: Sequence[int]) -> Value:
    """broadcast_in_dim of `x` to `shape`, `x`'s dimension d landing on dims[d]."""
    t = ttype(x)
    target = reshaped(t, shape)
    if t == target and tuple(dims) == tuple(range(t.rank)):
        return x
    return rw.broadcast(x, target, tuple(dims))


def expand_degenerate(rw: Rewriter, x: Value, shape: Sequence[int]) -> Value:
    """XLA's implicit broadcast of same-rank size-1 dimensions (e.g. [..., 1, 1] against a
    [..., m, n] matrix)."""
    return broadcast_to(rw, x, shape, range(len(shape)))


def reshape(rw: Rewriter, x: Value, shape: Sequence[int]) -> Value:
    t = ttype(x)
    if tuple(shape) == t.shape:
        return x
    return rw.create("stablehlo.reshape", [x], reshaped(t, shape))


# ---- slicing in the minor dimensions ------------------------------------------------------


def slice_minor(rw: Rewriter, x: Value, starts: Sequence[int],
                limits: Sequence[int]) -> Value:
    """x[..., starts[0]:limits[0], starts[1]:limits[1], ...] over the len(starts) minor
    dimensions (XLA's SliceInMinorDims)."""
    t = ttype(x)
    major = t.shape[:t.rank - len(starts)]
    begin = (0,) * len(major) + tuple(starts)
    end = tuple(major) + tuple(limits)
    shape = tuple(e - b for b, e in zip(begin, end, strict=True))
    if begin == (0,) * t.rank and end == t.shape:
        return x
    return rw.create("stablehlo.slice", [x], reshaped(t, shape), {
        "start_indices": i64_array(begin), "limit_indices": i64_array(end),
        "strides": i64_array((1,) * t.rank)})


def update_minor(rw: Rewriter, x: Value, update: Value, starts: Sequence[int]) -> Value:
    """x with `update` written at `starts` of the minor dimensions (XLA's
    UpdateSliceInMinorDims: a dynamic_update_slice at constant indices)."""
    t = ttype(x)
    major = t.rank - len(starts)
    indices = [index(rw, 0) for _ in range(major)] + [index(rw, s) for s in starts]
    return rw.create("stablehlo.dynamic_update_slice", [x, update, *indices], t)


def concatenate(rw: Rewriter, values: list[Value], dim: int) -> Value:
    if len(values) == 1:
        return values[0]
    shape = list(ttype(values[0]).shape)
    shape[dim] = sum(ttype(v).shape[dim] for v in values)
    return rw.create("stablehlo.concatenate", values, reshaped(ttype(values[0]), shape),
                     {"dimension": IntegerAttr(dim, I64)})


def transpose_minor(rw: Rewriter, x: Value) -> Value:
    """Swap the two minor dimensions (XLA's TransposeInMinorDims)."""
    t = ttype(x)
    perm = (*range(t.rank - 2), t.rank - 1, t.rank - 2)
    return rw.create("stablehlo.transpose", [x], reshaped(t, [t.shape[p] for p in perm]),
                     {"permutation": i64_array(perm)})


# ---- products ----------------------------------------------------------------------------


def batch_dot(rw: Rewriter, x: Value, transpose_x: bool, y: Value, transpose_y: bool) -> Value:
    """op(x) @ op(y) over the leading batch dimensions, op a plain (unconjugated) transpose
    of the minor dimensions when asked; HIGHEST precision (XLA's BatchDot)."""
    xt, yt = ttype(x), ttype(y)
    rank = xt.rank
    batch = tuple(range(rank - 2))
    x_contract = rank - 2 if transpose_x else rank - 1
    y_contract = rank - 1 if transpose_y else rank - 2
    rows = xt.shape[rank - 1] if transpose_x else xt.shape[rank - 2]
    cols = yt.shape[rank - 2] if transpose_y else yt.shape[rank - 1]
    result = reshaped(xt, (*xt.shape[:rank - 2], rows, cols))
    return rw.create("stablehlo.dot_general", [x, y], result, {
        "dot_dimension_numbers": _dot_attr(batch, batch, (x_contract,), (y_contract,)),
        "precision_config": HIGHEST})


def dot_general(rw: Rewriter, x: Value, y: Value, batch: tuple[int, ...],
                contract: tuple[tuple[int, ...], tuple[int, ...]], result: TensorType) -> Value:
    return rw.create("stablehlo.dot_general", [x, y], result, {
        "dot_dimension_numbers": _dot_attr(batch, batch, contract[0], contract[1]),
        "precision_config": HIGHEST})


# ---- masks -------------------------------------------------------------------------------


def iota(rw: Rewriter, shape: Sequence[int], dim: int) -> Value:
    return rw.create("stablehlo.iota", [], TensorType(tuple(shape), I32),
                     {"iota_dimension": IntegerAttr(dim, I64)})


def triangle_mask(rw: Rewriter, shape: Sequence[int], diagonal: int) -> Value:
    """pred[..., m, n], true where row + diagonal >= column (XLA's TriangleMask)."""
    m, n = shape[-2], shape[-1]
    rows = iota(rw, (m, n), 0)
    if diagonal:
        rows = binary(rw, "add", rows, full(rw, diagonal, ttype(rows)))
    cols = iota(rw, (m, n), 1)
    mask = rw.compare("GE", rows, cols, TensorType((m, n), BOOL))
    return broadcast_to(rw, mask, shape, (len(shape) - 2, len(shape) - 1))


def triangle(rw: Rewriter, x: Value, lower: bool) -> Value:
    """The lower (row >= col) or upper (row <= col) triangle of x, zeros elsewhere."""
    t = ttype(x)
    zeros = full(rw, 0, t)
    if lower:
        return select(rw, triangle_mask(rw, t.shape, 0), x, zeros)
    return select(rw, triangle_mask(rw, t.shape, -1), zeros, x)


def identity(rw: Rewriter, rows: int, cols: int, element: Type, row_offset: int = 0) -> Value:
    """A [rows, cols] matrix with ones where row == col + row_offset (XLA's IdentityMatrix,
    padded down by `row_offset` rows when nonzero)."""
    t = TensorType((rows, cols), element)
    r, c = iota(rw, (rows, cols), 0), iota(rw, (rows, cols), 1)
    if row_offset:
        c = binary(rw, "add", c, full(rw, row_offset, ttype(c)))
    on_diagonal = rw.compare("EQ", r, c, TensorType((rows, cols), BOOL))
    return select(rw, on_diagonal, full(rw, 1, t), full(rw, 0, t))


def matrix_diagonal(rw: Rewriter, x: Value) -> Value:
    """The main diagonal [..., n] of square matrices [..., n, n]: the off-diagonal entries
    zeroed and the rows summed (XLA's GetMatrixDiagonal)."""
    t = ttype(x)
    m, n = t.shape[-2], t.shape[-1]
    r, c = iota(rw, (m, n), 0), iota(rw, (m, n), 1)
    mask = broadcast_to(rw, rw.compare("EQ", r, c, TensorType((m, n), BOOL)), t.shape,
                        (t.rank - 2, t.rank - 1))
    masked = select(rw, mask, x, full(rw, 0, t))
    return reduce_sum(rw, masked, t.rank - 2)


def reduce_sum(rw: Rewriter, x: Value, dim: int) -> Value:
    t = ttype(x)
    scalar = TensorType((), t.element)
    block = Block([scalar, scalar])
    total = Operation("stablehlo.add", list(block.arguments), [scalar], {}, {},
                      location=rw.op.location, opdef=registry.lookup("stablehlo.add"))
    block.append(total)
    block.append(_return(rw.op, [total.results[0]]))
    shape = tuple(s for d, s in enumerate(t.shape) if d != dim)
    op = Operation("stablehlo.reduce", [x, rw.scalar(0, t.element)], [reshaped(t, shape)],
                   {"dimensions": i64_array((dim,))}, {}, [Region([block])],
                   location=rw.op.location, opdef=registry.lookup("stablehlo.reduce"))
    rw.ops.append(op)
    return op.results[0]


# ---- loops -------------------------------------------------------------------------------


LoopBody = Callable[[Rewriter, Value, list[Value]], list[Value]]


def counted_loop(rw: Rewriter, start: int, stop: int | Value, carried: list[Value],
                 body: LoopBody) -> list[Value]:
    """for i in range(start, stop): carried = body(i, carried), as a stablehlo.while over
    (i: tensor<i32>, *carried) (XLA's ForEachIndex); returns the final carried values.
    `stop` may be a tensor<i32> value defined outside the loop (a run-time count)."""
    counter = TensorType((), I32)
    init = [index(rw, start), *carried]
    types = [v.type for v in init]
    cond_block = Block(list(types))
    cb = _BlockBuilder(rw.op, cond_block)
    limit = stop if isinstance(stop, Value) else index(cb, stop)
    running = cb.compare("LT", cond_block.arguments[0], limit, TensorType((), BOOL))
    cond_block.append(_return(rw.op, [running]))
    body_block = Block(list(types))
    bb = _BlockBuilder(rw.op, body_block)
    i, *values = body_block.arguments
    updated = body(bb, i, list(values))
    next_i = bb.create("stablehlo.add", [i, index(bb, 1)], counter)
    body_block.append(_return(rw.op, [next_i, *updated]))
    loop = Operation("stablehlo.while", init, types, {}, {},
                     [Region([cond_block]), Region([body_block])], location=rw.op.location,
                     opdef=registry.lookup("stablehlo.while"))
    rw.ops.append(loop)
    return list(loop.results[1:])
