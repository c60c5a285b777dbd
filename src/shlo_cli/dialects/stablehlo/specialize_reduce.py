"""`reduce` of one input by one elementwise op, specialized once per op when the plan is
built (an engine binding hook).

The general evaluator re-derives per call what a transformer's layer norm and softmax
reductions (a 32x64 -> 32 sum, a max over the last axis) never change: the promoted types,
the body analysis, the axis permutation and the flat shape, then packs its results. That
is several times the reduction's own cost at these sizes. When the input, init value and
result are static tensors of one native numpy type and the body is a single commutative
op of its two arguments, the kernel here does only the permutation (none when the reduced
axes are already last) and calls the same `fast_reduce_last` the general path calls, so
the results are the general path's bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import register_bind_hook
from ...ir.types import TensorType
from ..quiet import quieted
from .reducer import (
    _OUTER_SEQUENTIAL,
    OUTER_FROM,
    _signed_zero_extremum,
    _ufunc_for,
    binary_body_ops,
    fast_reduce_last,
)
from .sequential_sum import blocked_pays, blocked_row_sums
from .specialize import _native_types
from .transposed_copy import transposed_copy, transposer

Kernel = Callable[..., Any]


def reduced_layout(shape: tuple[int, ...], dimensions: Any
                   ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The general path's flattening of a reduce over `dimensions` of `shape`: the axis
    permutation (kept axes, then the reduced ones in the attribute's order) and the
    (kept..., reduced count) shape; None for repeated or out-of-range dimensions."""
    try:
        dims = tuple(int(d) for d in dimensions or ())
    except (TypeError, ValueError):
        return None
    rank = len(shape)
    if len(set(dims)) != len(dims) or any(d < 0 or d >= rank for d in dims):
        return None
    kept = [d for d in range(rank) if d not in dims]
    outer = tuple(shape[d] for d in kept)
    return tuple(kept + list(dims)), outer + (math.prod(shape[d] for d in dims),)


def scalar_inits(op: Operation) -> bool:
    """Whether a reduce's init values (its second half of operands) are 0-d, as the spec
    has them; upstream's verifier also lets non-scalar ones through, which the general
    evaluator refuses with a diagnostic."""
    types = op.operand_types
    return all(isinstance(t, TensorType) and t.rank == 0 for t in types[len(types) // 2:])


def bind_reduce(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A specialized single-input reduce kernel, or None (the general evaluator)."""
    if op.name != "stablehlo.reduce" or len(op.operands) != 2 or len(op.results) != 1:
        return None
    if len(op.regions) != 1 or not scalar_inits(op):
        return None
    dtypes = _native_types(op)
    if dtypes is None or len(set(dtypes)) != 1:
        return None
    names = binary_body_ops(op.regions[0], 1)
    if names is None or _ufunc_for(names[0], dtypes[0]) is None:
        return None
    name = names[0]
    source, result = op.operand_types[0], op.result_types[0]
    assert isinstance(source, TensorType) and isinstance(result, TensorType)
    shape = tuple(source.shape)
    layout = reduced_layout(shape, kwargs.get("dimensions"))
    if layout is None or tuple(result.shape) != layout[1][:-1]:
        return None
    perm, flat_shape = layout
    identity = perm == tuple(range(len(perm)))

    def kernel(x: Any, init: Any) -> Any:
        flat = (x if identity else x.transpose(perm)).reshape(flat_shape)
        return fast_reduce_last(name, flat, init)

    dtype = dtypes[0]
    results = math.prod(flat_shape[:-1])
    if (name == "stablehlo.add" and dtype in _OUTER_SEQUENTIAL and flat_shape[-1] > 0
            and results >= 2 and (results >= OUTER_FROM or math.prod(flat_shape) <= SMALL_SUM)):
        return _sum_rows(kernel, perm, flat_shape, dtype, shape)
    if (name == "stablehlo.add" and dtype in _OUTER_SEQUENTIAL and dtype.kind == "f"
            and results == 1 and flat_shape[-1] > 0):
        return _sum_one_row(kernel, perm, identity, flat_shape, dtype)
    if (name in ("stablehlo.maximum", "stablehlo.minimum") and dtype.kind in "fiu"
            and flat_shape[-1] > 0):
        return _extremum(kernel, perm, identity, flat_shape, dtype, name == "stablehlo.maximum",
                         shape)
    if (name in ("stablehlo.maximum", "stablehlo.minimum") and dtype.name == "bfloat16"
            and flat_shape[-1] > 0):
        return _bfloat16_extremum(dtype, kernel, _extremum(
            _no_result, perm, identity, flat_shape, np.dtype(np.float32),
            name == "stablehlo.maximum", shape))
    if dtype.kind in "biu" and flat_shape[-1] > 0:
        return _exact(kernel, perm, identity, flat_shape, dtype, name)
    return kernel


def _exact(general: Kernel, perm: tuple[int, ...], identity: bool,
           flat_shape: tuple[int, ...], dtype: np.dtype, name: str) -> Kernel:
    """Bool and integer reductions (a masked RNN step's `all` of its mask, a count):
    `fast_reduce_last`'s steps without the floating-point error state it sets up (about
    2 us, more than reducing a small input costs), which no bool or integer op touches:
    the same numpy reduction along the last axis, then the same combination with the
    init value, so the same bits. A reduced extent of one element skips the reduction
    (it is that element)."""
    ufunc = _ufunc_for(name, dtype)
    assert ufunc is not None  # (bind_reduce checked)
    typed = dtype.kind in "iu" and ufunc in (np.add, np.multiply)  # (as fast_reduce_last)
    single = flat_shape[-1] == 1
    shape = flat_shape[:-1] if single else flat_shape
    array, scalar = np.ndarray, dtype.type

    def kernel(x: Any, init: Any) -> Any:
        if x.__class__ is not array or x.dtype != dtype or not (
                init.__class__ is scalar
                or init.__class__ is array and init.dtype == dtype and not init.ndim):
            return general(x, init)
        flat = (x if identity else x.transpose(perm)).reshape(shape)
        if not single:
            flat = ufunc.reduce(flat, axis=-1, dtype=dtype) if typed else ufunc.reduce(
                flat, axis=-1)
        return np.asarray(ufunc(init, flat), dtype=dtype)

    return kernel


def _no_result(x: Any, init: Any) -> None:
    return None


def _bfloat16_extremum(bfloat16: np.dtype, general: Kernel, in_f32: Kernel) -> Kernel:
    """bfloat16 maxima and minima (a bf16 attention's row max) as f32 ones: widening is
    exact and keeps the order, the sign of zero and NaN payloads, and the extremum is one
    of the elements (or the init value), so it narrows back exactly. ml_dtypes' own
    reduction runs element by element (~8x slower). Where the f32 kernel would go the
    general way (a NaN in a result), the bf16 general path runs."""
    array, f32 = np.ndarray, np.dtype(np.float32)

    def kernel(x: Any, init: Any) -> Any:
        if init.__class__ is array and init.dtype == bfloat16 and not init.ndim:
            init = init[()]
        if (x.__class__ is not array or x.dtype != bfloat16
                or init.__class__ is not bfloat16.type):
            return general(x, init)
        out = in_f32(x.astype(f32), f32.type(init))
        if out is None:
            return general(x, init)
        return np.asarray(out).astype(bfloat16)
    return kernel


LONG_ROW = 256
"""Extremum rows at least this long are reduced in place (numpy's reduction of a contiguous
last axis costs less than the transposed copy from here: 0.54 vs 1.04 ms for 4096 x 256 f32,
0.33 vs 3.0 ms for 256 x 8192)."""

COPY_ROWS_FROM, COPY_ROWS_BELOW = 128, 128
"""Extrema whose rows must be copied to lie in place take that copy only with at least
COPY_ROWS_FROM and four times their length results, rows shorter than COPY_ROWS_BELOW:
the copy and the extra calls cost ~5 us, more than numpy's reduction of fewer rows
(time copy / in place, f32: 1.5-2.0 at 16-32 rows of 4-32 elements, 0.8-0.9 at 128 rows,
0.2-0.5 at 1024; at 64 elements 1.04 at 256 rows, 0.85 at 512; at 128 elements 1.07-1.3
up to 8192 rows)."""

SMALL_SUM = 1 << 16
"""Float sums of at most this many elements take the row copy even with fewer than
OUTER_FROM results (an RNN step's 4x32 -> 4): at least two results keep numpy's
reduction of the copy's leading axis an elementwise add per row (with one result the
axes would merge into one and numpy would sum it pairwise), so it is sequential, as
fast_reduce_last's accumulate is."""


def _row_layout(perm: tuple[int, ...], flat_shape: tuple[int, ...]
                ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The permutation and shape that put the reduced elements of x in the rows of a
    (reduced count, kept dims...) array (`perm` lists the kept axes, then the reduced)."""
    kept = len(flat_shape) - 1
    return (*perm[kept:], *perm[:kept]), (flat_shape[-1], *flat_shape[:-1])


def _rows_copy(x: np.ndarray, rows: tuple[int, ...], shape: tuple[int, ...]) -> np.ndarray:
    """The reduced elements as the rows of a C-contiguous array (x itself, reshaped, when
    they already are: a column reduction's rows need no copy)."""
    copy = x.transpose(rows).reshape(shape)
    if copy.flags.c_contiguous:
        return copy
    return transposed_copy(x, rows).reshape(shape)


def _rows_copier(rows: tuple[int, ...], source: tuple[int, ...], shape: tuple[int, ...]
                 ) -> Callable[[np.ndarray], np.ndarray]:
    """`_rows_copy(x, rows, shape)` with its decisions taken once for inputs of the static
    `source` shape (an attention step's 4x32 -> 32x4 copy: the per-call checks and the
    tiling decision cost more than the copy); other shapes go to `_rows_copy`."""
    in_place = rows == tuple(range(len(rows)))
    copy = transposer(rows, source)
    same = tuple(source[d] for d in rows) == shape

    def rows_of(x: np.ndarray) -> np.ndarray:
        if x.shape != source:
            return _rows_copy(x, rows, shape)
        if in_place and x.flags.c_contiguous:
            return x if same else x.reshape(shape)
        out = copy(x)
        return out if same else out.reshape(shape)
    return rows_of


SEGMENTS_FROM = 64
"""Rows at least this long that lie contiguous are reduced as segments (reduceat) even
where their transposed copy would pay: time of reduceat / copy and reduction of the leading
axis, f32: 0.67 at 512 x 64, 0.55 at 2048 x 127; 1.0 at 32 columns, 3-9 at 2 to 8."""

SEGMENT_ROWS_FROM = 16
"""Fewer rows keep numpy's reduction of the last axis: what reduceat saves per row does not
pay for its NaN test (f32 4x32: 1.9 us against 2.4; 16x16 2.7 either way; 64x64 6.4 against
4.8)."""

FEW_RESULTS = 64
"""Extremum results up to this many are searched for a zero as a Python list (0.1 us for
a handful, a third of numpy's compare and count)."""


def _extremum(general: Kernel, perm: tuple[int, ...], identity: bool,
              flat_shape: tuple[int, ...], dtype: Any, largest: bool,
              source: tuple[int, ...]) -> Kernel:
    """fast_reduce_last's maximum/minimum: numpy's reduction over the last axis, then the
    init value, then (floats, only when a result is zero) the IEEE sign of zero; the same
    calls without their per-call setup. With many short rows (a softmax's max over 32
    keys) numpy's reduction of the last axis costs ~0.1 us per row; the rows are then
    reduced as the leading axis of a transposed copy (one vectorized maximum per reduced
    element). The extremum of numbers is the same in any order (a zero's sign is fixed from
    all elements after), so that gives the same bits unless a NaN is involved, whose
    payload may depend on the order: such results are recomputed the general way. Rows of
    `LONG_ROW` elements or more (a softmax over a vocabulary) keep numpy's reduction of the
    last axis: there the copy would cost up to ten times the reduction; so do fewer rows
    than pay for their copy (`COPY_ROWS_FROM`: a 32x32 softmax's max in a loop). Rows lying
    contiguous in x are reduced as the segments of its flat view (`reduceat`): numpy's
    reduction of a last axis costs ~80 ns per row beyond its elements, reduceat's ~30
    (time reduceat / reduce, f32/f64/i32: 0.33-0.58 for 8 to 256 columns, 0.7 at 1024,
    0.85-1.0 from 8192; an attention's 8x256x256 max: 179 -> 89 us); a NaN result is
    recomputed the general way there too."""
    rows, rows_shape = _row_layout(perm, flat_shape)
    results, length = math.prod(flat_shape[:-1]), flat_shape[-1]
    if rows == tuple(range(len(rows))):  # the rows in place (a column maximum): no copy
        by_rows = results >= OUTER_FROM and length < LONG_ROW
    else:
        by_rows = length < COPY_ROWS_BELOW and results >= max(COPY_ROWS_FROM, 4 * length)
    rows_of = _rows_copier(rows, source, rows_shape)
    segmented = length >= SEGMENTS_FROM  # (contiguous rows: reduceat rather than the copy)
    many = results >= SEGMENT_ROWS_FROM
    ufunc = np.maximum if largest else np.minimum
    reduce, segments = ufunc.reduce, ufunc.reduceat
    starts, kept = np.arange(0, results * length, length), flat_shape[:-1]
    array, scalar = np.ndarray, dtype.type
    floats = dtype.kind == "f"
    zero = np.array(0, dtype)
    few = len(flat_shape) == 2 and results <= FEW_RESULTS  # (1-D results)
    asarray = np.asarray

    def has_zero(out: np.ndarray) -> bool:
        return 0 in out.tolist() if few else bool(np.count_nonzero(out == zero))

    def unquieted(x: Any, init: Any) -> Any:
        if init.__class__ is array and init.dtype == dtype and not init.ndim:
            init = init[()]
        if x.__class__ is not array or x.dtype != dtype or init.__class__ is not scalar:
            return general(x, init)
        if identity and x.shape == flat_shape:
            flat = x
        else:
            flat = (x if identity else x.transpose(perm)).reshape(flat_shape)
        if by_rows and not (segmented and flat.flags.c_contiguous):
            out = asarray(ufunc(init, reduce(rows_of(x), 0)), dtype)
            if floats and np.count_nonzero(out != out):
                return general(x, init)
        elif many and flat.flags.c_contiguous:
            out = asarray(ufunc(init, segments(flat.reshape(-1), starts).reshape(kept)), dtype)
            if floats and np.count_nonzero(out != out):
                return general(x, init)
        else:
            out = asarray(ufunc(init, reduce(flat, -1)), dtype)
        if floats and has_zero(out):
            out = _signed_zero_extremum(out, flat, asarray(init, dtype), largest)
        return out
    return quieted(unquieted)


def _sum_rows(general: Kernel, perm: tuple[int, ...], flat_shape: tuple[int, ...],
              dtype: Any, source: tuple[int, ...]) -> Kernel:
    """fast_reduce_last's sequential float sum (the reduced elements as the rows of one
    C-contiguous copy, added row after row from the init value) with the row layout worked
    out once: the same copy, the same numpy reduction, so the same bits."""
    rows, rows_shape = _row_layout(perm, flat_shape)
    rows_of = _rows_copier(rows, source, rows_shape)
    array, scalar = np.ndarray, dtype.type
    add = np.add.reduce
    results = math.prod(flat_shape[:-1])
    # reduced axes last (a layer norm's mean): sums of the rows of x, a block at a time
    blocked = (perm == tuple(range(len(perm)))
               and blocked_pays(results, flat_shape[-1], dtype.itemsize))
    matrix = (results, flat_shape[-1])

    def unquieted(x: Any, init: Any) -> Any:
        if init.__class__ is array and init.dtype == dtype and not init.ndim:
            init = init[()]
        if x.__class__ is not array or x.dtype != dtype or init.__class__ is not scalar:
            return general(x, init)
        if blocked and x.flags.c_contiguous:
            return blocked_row_sums(x.reshape(matrix), init).reshape(flat_shape[:-1])
        # (positional: dtype, out, keepdims, initial; a fresh C-ordered result)
        return add(rows_of(x), 0, dtype, None, False, init)  # type: ignore[call-overload]
    return quieted(unquieted)


def _sum_one_row(general: Kernel, perm: tuple[int, ...], identity: bool,
                 flat_shape: tuple[int, ...], dtype: Any) -> Kernel:
    """A float sum with one result (a softmax's denominator over a vector, a loss):
    fast_reduce_last's sequential accumulate of the one row, its case decided per call.
    From an init value of either zero the running sums from x0 are those from the init
    value but for the sign of zero sums before the first nonzero term, which no later term
    sees: adding the init value last gives the sequential sum's sign (+0 + -0 is +0,
    -0 + -0 is -0), so only other init values need the copy that prepends them."""
    array, scalar = np.ndarray, dtype.type
    length, out_shape = flat_shape[-1], flat_shape[:-1]
    row_shape = (length,)
    accumulate, concatenate = np.add.accumulate, np.concatenate

    def unquieted(x: Any, init: Any) -> Any:
        if init.__class__ is array and init.dtype == dtype and not init.ndim:
            init = init[()]
        if x.__class__ is not array or x.dtype != dtype or init.__class__ is not scalar:
            return general(x, init)
        if x.shape == row_shape:
            row = x
        else:
            row = (x if identity else x.transpose(perm)).reshape(length)
        if init == 0:
            total = accumulate(row, 0, dtype)[-1] + init
        else:
            total = accumulate(concatenate(([init], row)), 0, dtype)[-1]
        return total if not out_shape else np.full(out_shape, total, dtype)
    return quieted(unquieted)


register_bind_hook(bind_reduce, 80, ops=("stablehlo.reduce",))
