"""`stablehlo.sort`: sorts 1-D slices along `dimension` of all inputs together.

A comparator that is a single `compare LT/GT` of one input's pair sorts with numpy's stable
argsort (TOTALORDER floats through an order-preserving integer key). Any other comparator
drives a bottom-up merge sort whose merges place every element by a binary search in the
neighbouring run; each search step calls the comparator region once, on whole arrays of
candidate pairs. The result is always the stable order (valid for `is_stable = false` too).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...ir.core import Operation, Region
from ...ir.diagnostics import Diagnostic, EvaluationError
from ...ir.types import IntegerType, TensorType
from ..registry import define_op
from .elementwise_verify import check_inferred
from .reducer import cached_analysis
from .reducer import contiguous as _contiguous
from .sort_keys import comparator_key, key_comparator, lex_comparator, lex_keys

_RETURNS = frozenset({"stablehlo.return", "func.return"})


def simple_comparator(region: Region, count: int) -> tuple[int, bool, str] | None:
    """`(input index, descending, compare type)` when the comparator is one strict
    `compare` of an input's (lhs, rhs) pair; None otherwise."""
    if len(region.blocks) != 1:
        return None
    block = region.entry
    ops = block.operations
    args = block.arguments
    if len(args) != 2 * count or len(ops) != 2 or ops[1].name not in _RETURNS:
        return None
    compare, ret = ops
    if compare.name != "stablehlo.compare" or len(ret.operands) != 1:
        return None
    if ret.operands[0] is not compare.results[0] or len(compare.operands) != 2:
        return None
    direction = compare.attr("comparison_direction")
    if direction is None or direction.value not in ("LT", "GT"):
        return None
    try:
        first = next(i for i, a in enumerate(args) if a is compare.operands[0])
        second = next(i for i, a in enumerate(args) if a is compare.operands[1])
    except StopIteration:
        return None
    if first // 2 != second // 2 or first == second:
        return None
    descending = direction.value == "GT"
    if first % 2 == 1:  # compare(rhs, lhs): the order flips
        descending = not descending
    kind = compare.attr("compare_type")
    return first // 2, descending, kind.value if kind is not None else ""


def total_order_key(x: np.ndarray) -> np.ndarray:
    """Signed integers ordered like IEEE totalOrder on the floats `x`."""
    bits = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    raw = _contiguous(x).view(bits).astype(np.int64)
    width = x.dtype.itemsize * 8
    magnitude = raw & ((1 << (width - 1)) - 1)
    return np.where(raw < 0, -magnitude - 1, magnitude)


def _signaling_nans(x: np.ndarray) -> bool:
    """Whether a float narrower than f64 holds a signaling NaN: the comparator's TOTALORDER
    compare orders the float64 widening, whose conversion may quiet it (then it ties with
    or passes quiet NaNs its own bits order below), so its bits are no key for it."""
    if x.dtype.itemsize >= 8 or not np.isnan(x).any():
        return False
    width = 8 * x.dtype.itemsize
    mantissa = {16: 10 if x.dtype == np.float16 else 7, 32: 23}.get(width)
    if mantissa is None:
        return True  # (8-bit floats: be safe)
    bits = _contiguous(x).view({2: np.uint16, 4: np.uint32}[x.dtype.itemsize]).astype(np.uint32)
    quiet = np.uint32(1 << (mantissa - 1))
    return bool(np.any(np.isnan(x) & ((bits & quiet) == 0)))


def _sort_key(x: np.ndarray, kind: str) -> np.ndarray | None:
    """An array numpy orders exactly as the comparator does, or None (use the merge sort)."""
    if x.dtype == np.bool_ or x.dtype.kind in "iu":
        return x
    if x.dtype.kind == "c":
        return None
    if kind == "TOTALORDER":
        return None if _signaling_nans(x) else total_order_key(x)
    wide = x.astype(np.float64)
    if np.isnan(wide).any():
        return None  # FLOAT comparisons are not a strict weak order with NaNs
    return wide


def _stable_argsort(key: np.ndarray, descending: bool) -> np.ndarray:
    if not descending:
        return np.argsort(key, axis=-1, kind="stable")
    n = key.shape[-1]
    flipped = np.argsort(key[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return n - 1 - flipped


def _descending_key(key: np.ndarray) -> np.ndarray:
    """A key whose ascending order is `key`'s descending one (ties stay ties)."""
    if key.dtype.kind in "iub":
        return ~key  # (exact for every integer; bools: not)
    return -key  # float64 without NaN (-0 and +0 stay equal)


def _lex_permutation(op: Operation, count: int, flat: list[np.ndarray],
                     ctx: Any) -> np.ndarray | None:
    """The stable order of a lexicographic comparator from numpy's lexsort on one key per
    level (see sort_keys.lex_comparator), or None (the merge sort decides). Each level's
    `eq_i` holds exactly when neither side is `lt_i`, as the level's key is an exact order
    (integers, NaN-free floats, TOTALORDER keys), so the comparator is the lexicographic
    order of the keys, and a stable sort by it is unique."""
    spec = cached_analysis(op, "sort_lex", lambda: lex_comparator(op.regions[0], count))
    if spec is None:
        return None
    run = ctx.interpreter.region_callable(spec.region)
    raw = lex_keys(spec, run, flat)
    if raw is None:
        return None
    keys = []
    for values, (descending, kind) in zip(raw, spec.levels, strict=True):
        key = _sort_key(values, kind)
        if key is None:
            return None
        keys.append(_descending_key(key) if descending else key)
    return np.lexsort(keys[::-1], axis=-1)


def merge_sort_permutation(comparator: Callable[..., Any],
                           keys: Sequence[np.ndarray]) -> np.ndarray:
    """Stable permutation of each row of `keys` (shape (rows, n)) under `comparator`."""
    rows, n = keys[0].shape
    perm = np.broadcast_to(np.arange(n, dtype=np.int64), (rows, n)).copy()
    row = np.arange(rows)[:, None]
    pos = np.arange(n, dtype=np.int64)
    width = 1
    while width < n:
        run_start = (pos // width) * width
        own = pos - run_start
        is_left = (pos // width) % 2 == 0
        partner = np.where(is_left, run_start + width, run_start - width)
        partner_len = np.clip(np.minimum(partner + width, n) - partner, 0, None)
        current = [np.take_along_axis(k, perm, axis=1) for k in keys]
        lo = np.zeros((rows, n), dtype=np.int64)
        hi = np.broadcast_to(partner_len, (rows, n)).copy()
        while True:
            active = lo < hi
            if not active.any():
                break
            mid = (lo + hi) // 2
            index = np.where(active, partner + mid, pos)
            other = [c[row, index] for c in current]
            args: list[np.ndarray] = []
            for o, m in zip(other, current, strict=False):
                args.append(np.where(is_left, o, m))
                args.append(np.where(is_left, m, o))
            less = np.broadcast_to(np.asarray(comparator(*args)[0], dtype=bool), (rows, n))
            # Left elements go after strictly smaller right ones; right elements after
            # left ones that are not greater (stability).
            before = np.where(is_left, less, ~less)
            lo = np.where(active & before, mid + 1, lo)
            hi = np.where(active & ~before, mid, hi)
        target = np.minimum(run_start, partner) + own + lo
        merged = np.full_like(perm, -1)
        merged[row, target] = perm
        if (merged < 0).any():
            # Two elements got one place: the comparator is no strict weak order (FLOAT
            # LT on NaN). Any order is then the spec's; this one is a permutation.
            merged = np.take_along_axis(perm, np.argsort(target, axis=1, kind="stable"), 1)
        perm = merged
        width *= 2
    return perm


def _scalar_permutation(comparator: Callable[..., Any], keys: Sequence[np.ndarray]) -> np.ndarray:
    """Fallback for comparators that only accept scalars."""
    rows, n = keys[0].shape
    perm = np.empty((rows, n), dtype=np.int64)
    for r in range(rows):
        def cmp(i: int, j: int, r: int = r) -> int:
            args: list[np.ndarray] = []
            for k in keys:
                args += [np.asarray(k[r, i]), np.asarray(k[r, j])]
            if bool(np.asarray(comparator(*args)[0])):
                return -1
            args = []
            for k in keys:
                args += [np.asarray(k[r, j]), np.asarray(k[r, i])]
            return 1 if bool(np.asarray(comparator(*args)[0])) else 0
        perm[r] = sorted(range(n), key=functools.cmp_to_key(cmp))
    return perm


def verify_sort(op: Operation) -> None:
    """Upstream's verifySortOp, then its inferred results: the inputs' types (InferTensorType;
    another result element type was accepted)."""
    _verify_sort_op(op)
    check_inferred(op, op.operand_types)


def _verify_sort_op(op: Operation) -> None:
    """Upstream verifySortOp: dimension in range, comparator signature."""
    types = op.operand_types
    dim_attr = op.attr("dimension")
    dimension = int(dim_attr.value) if dim_attr is not None else -1
    for t in types:
        if isinstance(t, TensorType):
            rank = len(t.shape)
            if dimension < -rank or dimension >= rank:
                raise _error(op, f"dimension attribute value must be in range [-{rank}, {rank}), "
                                 f"but found {dimension}")
            break
    if not op.regions or not op.regions[0].blocks:
        return
    block = op.regions[0].entry
    if len(block.arguments) != 2 * len(types):
        raise _error(op, f"comparator block should have {2 * len(types)} arguments")
    for index, t in enumerate(types):
        if not isinstance(t, TensorType):
            continue
        scalar = TensorType((), t.element)
        for i in (2 * index, 2 * index + 1):
            got = block.arguments[i].type
            if got != scalar:
                raise _error(op, f"comparator block argument #{i} should be of type "
                                 f"'{scalar}' but got '{got}'")
    returned = list(block.operations[-1].operands) if block.operations else []
    if len(returned) != 1:
        raise _error(op, f"comparator must return single output but got {len(returned)}")
    if returned[0].type != TensorType((), IntegerType(1)):
        raise _error(op, f"comparator must return tensor<i1> but got '{returned[0].type}'")


def _error(op: Operation, message: str) -> Diagnostic:
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


@define_op("stablehlo.sort", operands=("*inputs",), results="*",
           attributes=("dimension?", "is_stable?"), regions=("comparator",), verify=verify_sort)
def sort(*inputs: np.ndarray, dimension: int | None = None, is_stable: bool | None = None,
         comparator: Callable[..., Any], op: Operation | None = None, ctx: Any = None) -> Any:
    """results = inputs with each slice along `dimension` reordered by `comparator`."""
    rank = inputs[0].ndim
    axis = -1 if dimension is None else int(dimension)
    if axis < -rank or axis >= max(rank, 1):
        raise EvaluationError(f"sort dimension {axis} out of range for rank {rank}")
    if rank == 0 or inputs[0].size == 0:
        return inputs[0] if len(inputs) == 1 else tuple(inputs)
    axis %= rank
    moved = [np.moveaxis(x, axis, -1) for x in inputs]
    shape = moved[0].shape
    n = shape[-1]
    flat = [_contiguous(x).reshape(-1, n) for x in moved]
    simple = None
    if op is not None and op.regions:
        simple = cached_analysis(op, "sort", lambda: simple_comparator(op.regions[0], len(inputs)))
    perm = None
    if simple is not None:
        index, descending, kind = simple
        key = _sort_key(flat[index], kind)
        if key is not None:
            perm = _stable_argsort(key, descending)
    if perm is None and op is not None and op.regions and ctx is not None:
        keyed = cached_analysis(op, "sort_key",
                                lambda: key_comparator(op.regions[0], len(inputs)))
        if keyed is not None:
            run = ctx.interpreter.region_callable(keyed.region)
            key = comparator_key(keyed, run, flat)
            key = _sort_key(key, keyed.kind) if key is not None else None
            if key is not None:
                perm = _stable_argsort(key, keyed.descending)
    if perm is None and op is not None and op.regions and ctx is not None:
        perm = _lex_permutation(op, len(inputs), flat, ctx)
    if perm is None:
        try:
            perm = merge_sort_permutation(comparator, flat)
        except Diagnostic:
            perm = _scalar_permutation(comparator, flat)
    results = [np.moveaxis(np.take_along_axis(x, perm, axis=1).reshape(shape), -1, axis)
               for x in flat]
    results = [_contiguous(r) for r in results]
    return results[0] if len(results) == 1 else tuple(results)
