"""argmax / argmin: a two-input `reduce` over (values, indices) whose body keeps the larger
(smaller) value with its index, specialized once per op when the plan is built.

The general evaluator folds such a body once per reduced element (`acc = body(acc, x[k])`),
a dozen whole-array ops each time. The body is recognized by what it does, not by its
spelling: it may only compare its arguments (values with values, indices with indices),
combine the results with and/or/xor/not and `select` between its arguments. Such a body's
choice depends only on how the two values relate (less, equal, greater, either NaN) and how
the two indices relate, so running it symbolically on one representative of every case gives
its complete truth table (`body_policy`). When the table is that of an arg-extremum (the
better value wins with its index; equal values pick the first or last value and the first,
last, smallest or largest index; a NaN either wins first-come or is left to the general path),
the fold has a closed form (`arg_reduce`), computed with numpy's argmax/argmin:

* a NaN in a row (when NaN wins): the first NaN of [init, x...], its bits and its index;
* else G, the elements of [init, x...] numerically equal to the extremum M (+0 and -0 are
  equal): the value is G's first or last element (bit for bit), the index G's first, last,
  smallest or largest index.

That closed form is also what any in-order bracketing of the body gives (choosing "first",
"last", "min", "max" is associative), so it equals the general path's pairwise tree for long
reductions as well as its sequential fold. Each call first tries the few-numpy-calls form of
`specialize_argreduce_fast` (JAX's argmax/argmin and other ties to the first index), which
settles what it can from facts fixed when the op is bound.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...ir.core import Block, Operation, Region
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from ..quiet import switches
from .specialize import _native_types
from .specialize_argreduce_fast import fast_kernel
from .specialize_reduce import reduced_layout, scalar_inits

Kernel = Callable[..., Any]

# ---- the body's truth table ------------------------------------------------------------------

_NAN = float("nan")
# (lhs value, rhs value) representatives: every FLOAT/SIGNED/UNSIGNED compare of two values
# (or of a value with itself) gives the same answer for all pairs of one case.
VALUE_CASES = {"lt": (1.0, 2.0), "eq": (2.0, 2.0), "gt": (2.0, 1.0)}
NAN_CASES = {"lnan": (_NAN, 1.0), "rnan": (1.0, _NAN), "both": (_NAN, _NAN)}
INDEX_CASES = {"lt": (0, 1), "eq": (1, 1), "gt": (1, 0)}

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b, "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b,
}
_LOGIC: dict[str, Callable[[bool, bool], bool]] = {
    "stablehlo.and": lambda a, b: a and b, "stablehlo.or": lambda a, b: a or b,
    "stablehlo.xor": lambda a, b: a != b,
}
_RETURNS = frozenset({"stablehlo.return", "func.return"})


@dataclass(frozen=True)
class Token:
    """A block argument flowing through the body: its group (0 values, 1 indices) and side
    (0 the accumulator / earlier element, 1 the later one)."""

    group: int
    side: int


def _run_body(block: Block, values: tuple[float, float], indices: tuple[int, int],
              float_values: bool) -> tuple[int, int] | None:
    """The sides the body returns (value's, index's) for one case, or None when the body
    does anything outside compare / and / or / xor / not / select on its arguments."""
    args = block.arguments
    env: dict[int, Any] = {id(args[k]): Token(k % 2, k // 2) for k in range(4)}
    concrete = {(0, 0): values[0], (0, 1): values[1], (1, 0): indices[0], (1, 1): indices[1]}
    for op in block.operations:
        if op.regions or (op.name not in _RETURNS and len(op.results) != 1):
            return None
        try:
            ins = [env[id(v)] for v in op.operands]
        except KeyError:
            return None
        if op.name in _RETURNS:
            return _returned(ins)
        out = _step(op, ins, concrete, float_values)
        if out is None:
            return None
        env[id(op.results[0])] = out
    return None


def _returned(ins: list[Any]) -> tuple[int, int] | None:
    if (len(ins) == 2 and all(isinstance(t, Token) for t in ins)
            and ins[0].group == 0 and ins[1].group == 1):
        return ins[0].side, ins[1].side
    return None


def _step(op: Operation, ins: list[Any], concrete: dict[tuple[int, int], Any],
          float_values: bool) -> Any:
    """One body op on tokens and booleans; None when it is not one of the allowed forms."""
    name = op.name
    if name == "stablehlo.compare":
        a, b = ins
        if not (isinstance(a, Token) and isinstance(b, Token) and a.group == b.group):
            return None
        direction = op.attr("comparison_direction")
        kind = op.attr("compare_type")
        if direction is None or direction.value not in _COMPARE:
            return None
        if kind is not None and kind.value == "TOTALORDER" and (a.group == 1 or float_values):
            return None  # (indices are integers; TOTALORDER on them is their natural order)
        return _COMPARE[direction.value](concrete[a.group, a.side], concrete[b.group, b.side])
    if name in _LOGIC and all(isinstance(v, bool) for v in ins) and len(ins) == 2:
        return _LOGIC[name](ins[0], ins[1])
    if name == "stablehlo.not" and len(ins) == 1 and isinstance(ins[0], bool):
        return not ins[0]
    if name == "stablehlo.select" and len(ins) == 3:
        pred, yes, no = ins
        if (isinstance(pred, bool) and isinstance(yes, Token) and isinstance(no, Token)
                and yes.group == no.group):
            return yes if pred else no
    return None


@dataclass(frozen=True)
class ArgPolicy:
    """What the fold of an arg-extremum body computes (see the module docstring)."""

    largest: bool
    nan_first: bool  # False: rows or inits with a NaN take the general path
    tie_value: str   # "first" | "last"
    tie_index: str   # "first" | "last" | "min" | "max"


_TIE_INDEX = {(0, 0): "first", (1, 1): "last", (0, 1): "min", (1, 0): "max"}


def body_policy(region: Region, float_values: bool) -> ArgPolicy | None:
    """The arg-extremum the reducer body computes, or None if it is not one."""
    if len(region.blocks) != 1 or len(region.entry.arguments) != 4:
        return None
    block = region.entry
    table: dict[tuple[str, str], tuple[int, int]] = {}
    cases = {**VALUE_CASES, **NAN_CASES} if float_values else VALUE_CASES
    for vname, values in cases.items():
        for iname, indices in INDEX_CASES.items():
            sides = _run_body(block, values, indices, float_values)
            if sides is None:
                return None
            table[vname, iname] = sides
    return _policy_of(table, float_values)


def _constant(table: dict[tuple[str, str], tuple[int, int]], vname: str) -> tuple[int, int] | None:
    """The (value, index) sides of a value case when they do not depend on the indices."""
    found = {table[vname, iname] for iname in INDEX_CASES}
    return found.pop() if len(found) == 1 else None


def _policy_of(table: dict[tuple[str, str], tuple[int, int]],
               float_values: bool) -> ArgPolicy | None:
    greater = _constant(table, "gt")
    if greater not in ((0, 0), (1, 1)) or _constant(table, "lt") != (1 - greater[0],) * 2:
        return None  # the better value must win, with its own index
    largest = greater == (0, 0)
    tie_values = {table["eq", iname][0] for iname in INDEX_CASES}
    if len(tie_values) != 1:
        return None
    tie_value = "first" if tie_values.pop() == 0 else "last"
    tie_index = _TIE_INDEX[table["eq", "lt"][1], table["eq", "gt"][1]]
    nan_first = float_values and all(
        _constant(table, vname) == sides
        for vname, sides in (("lnan", (0, 0)), ("rnan", (1, 1)), ("both", (0, 0))))
    return ArgPolicy(largest, nan_first, tie_value, tie_index)


# ---- the closed form -------------------------------------------------------------------------


def _take(a: np.ndarray, k: np.ndarray) -> np.ndarray:
    return np.take_along_axis(a, k[..., None], axis=-1)[..., 0]


def _positions(k: np.ndarray, length: int) -> np.ndarray:
    """Flat C-order positions of each row's element k (rows of `length` elements)."""
    return k.reshape(-1) + np.arange(0, k.size * length, length, dtype=k.dtype)


def _take_at(a: np.ndarray, flat: np.ndarray, k: np.ndarray) -> np.ndarray:
    """_take(a, k) through flat positions (`_positions(k, ...)`): one gather instead of
    take_along_axis's index grids (a 2x2 max-unpool's 131k rows of 4: 3x faster)."""
    if not a.flags.c_contiguous:
        return _take(a, k)
    return a.reshape(-1).take(flat).reshape(k.shape)


def _last_true(mask: np.ndarray) -> np.ndarray:
    """The position of each row's last True (rows hold at least one)."""
    return mask.shape[-1] - 1 - np.argmax(mask[..., ::-1], axis=-1)


def _comparable(a: Any) -> Any:
    """Values numpy compares natively: ml_dtypes' narrow floats widened to float32 (exact,
    order, zeros and NaN kept)."""
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype.kind == "V" else a


def arg_reduce(policy: ArgPolicy, x: np.ndarray, idx: np.ndarray, v0: Any, i0: Any,
               increasing: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
    """The fold of [init, x...] along the last axis under `policy`, or None when a NaN is
    met that the policy leaves to the general path. `increasing`: every row of `idx` is known
    to increase (an iota), so the smallest index of equal elements is the first one's."""
    outer = x.shape[:-1]
    v0, i0 = np.asarray(v0, x.dtype), np.asarray(i0, idx.dtype)
    keys, key0 = _comparable(x), _comparable(v0)
    floats = keys.dtype.kind == "f"
    if not outer and x.shape[0]:
        row = _one_row(policy, x, idx, keys, v0, i0, key0, floats, increasing)
        if row is not None:
            return row
    init_nan = floats and bool(np.isnan(key0))
    if x.shape[-1] == 0 or 0 in outer or (init_nan and policy.nan_first):
        # (nothing folded, or the init value is the first NaN)
        return np.full(outer, v0, x.dtype), np.full(outer, i0, idx.dtype)
    k = np.argmax(keys, axis=-1) if policy.largest else np.argmin(keys, axis=-1)
    flat = _positions(k, x.shape[-1])
    m = _take_at(keys, flat, k)  # the first extremum, or the first NaN of a row holding one
    value, index = _take_at(x, flat, k), _take_at(idx, flat, k)
    nan_rows = np.isnan(m) if floats else np.zeros(outer, bool)
    if (init_nan or nan_rows.any()) and not policy.nan_first:
        return None
    init_wins = (key0 > m) if policy.largest else (key0 < m)
    init_ties = (key0 == m) & ~nan_rows
    first_index = policy.tie_index == "first" or (increasing and policy.tie_index == "min")
    tied = _tied_rows(policy, first_index, keys, m, nan_rows, init_ties, floats)
    if tied is not None:
        _resolve_ties(policy, x, idx, keys, m, tied, value, index, v0, i0, init_ties)
    else:
        if policy.tie_value == "first":
            value = np.where(init_ties, v0, value)
        if policy.tie_index == "first":
            index = np.where(init_ties, i0, index)
        elif first_index:
            index = np.where(init_ties, np.minimum(index, i0), index)
    value = np.where(init_wins, v0, value)
    index = np.where(init_wins, i0, index)
    return np.asarray(value, order="C"), np.asarray(index, order="C")


def _one_row(policy: ArgPolicy, x: np.ndarray, idx: np.ndarray, keys: np.ndarray,
             v0: np.ndarray, i0: np.ndarray, key0: np.ndarray, floats: bool,
             increasing: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """The fold of one non-empty row (a 0-d result: `jnp.argmax` of a vector, often in a
    loop) on numpy scalars, where no tie between equal extrema can matter; None for a NaN,
    or where a tie would need `arg_reduce`'s row work."""
    if not (policy.tie_index == "first" or (increasing and policy.tie_index == "min")):
        return None
    k = int(keys.argmax() if policy.largest else keys.argmin())
    m = keys[k]
    if floats and (m != m or key0 != key0 or (policy.tie_value == "last" and m == 0)):
        return None  # (a NaN, or which of the equal zeros is taken decides the sign)
    value, index = x[k], idx[k]
    if key0 == m:
        if policy.tie_value == "first":
            value = v0
        if policy.tie_index == "first":
            index = i0
        else:
            index = min(index, i0)
    elif (key0 > m) if policy.largest else (key0 < m):
        value, index = v0, i0
    return np.asarray(value, x.dtype), np.asarray(index, idx.dtype)


def _tied_rows(policy: ArgPolicy, first_index: bool, keys: np.ndarray, m: np.ndarray,
               nan_rows: np.ndarray, init_ties: np.ndarray, floats: bool) -> np.ndarray | None:
    """The rows whose result depends on which of several equal extrema is chosen (None: no
    row does beyond the init value, which the caller settles). `first_index`: the index is
    the first equal element's (or the init's), so only a zero's sign can need the rows."""
    zero_value = policy.tie_value == "last" and floats and bool(np.any(m == 0))
    if first_index and not zero_value:
        return None
    several = np.count_nonzero(keys == m[..., None], axis=-1) > 1
    rows = (several | init_ties) & ~nan_rows
    return rows if rows.any() else None


def _resolve_ties(policy: ArgPolicy, x: np.ndarray, idx: np.ndarray, keys: np.ndarray,
                  m: np.ndarray, rows: np.ndarray, value: np.ndarray, index: np.ndarray,
                  v0: np.ndarray, i0: np.ndarray, init_ties: np.ndarray) -> None:
    """Set value/index of the tied `rows` (in place) from G: the row's elements equal to
    its extremum, after the init value when that is equal too."""
    mask = keys[rows] == m[rows][..., None]
    with_init = init_ties[rows]
    xs, ids = x[rows], idx[rows]
    last = _last_true(mask)
    if policy.tie_value == "first":
        value[rows] = np.where(with_init, v0, value[rows])
    else:
        value[rows] = _take(xs, last)
    if policy.tie_index == "first":
        index[rows] = np.where(with_init, i0, index[rows])
    elif policy.tie_index == "last":
        index[rows] = _take(ids, last)
    else:
        info = np.iinfo(idx.dtype)
        smallest = policy.tie_index == "min"
        pick = np.min if smallest else np.max
        fill = info.max if smallest else info.min
        chosen = pick(np.where(mask, ids, idx.dtype.type(fill)), axis=-1)
        both = np.minimum(chosen, i0) if smallest else np.maximum(chosen, i0)
        index[rows] = np.where(with_init, both, chosen)


# ---- the binding hook -------------------------------------------------------------------------


def bind_argreduce(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A specialized argmax/argmin reduce kernel, or None (the later hooks / general path)."""
    if (op.name != "stablehlo.reduce" or len(op.operands) != 4 or len(op.results) != 2
            or len(op.regions) != 1 or not scalar_inits(op)):
        return None
    dtypes = _native_types(op)
    if dtypes is None:
        return None
    vtype, itype = dtypes[0], dtypes[1]
    if dtypes != [vtype, itype, vtype, itype, vtype, itype]:
        return None  # (no promotion of inputs to wider accumulators)
    if vtype.kind not in "fiuVb" or itype.kind not in "iu" or not _orderable(vtype):
        return None
    layout = _layout(op, kwargs)
    if layout is None:
        return None
    policy = body_policy(op.regions[0], vtype.kind in "fV")
    if policy is None:
        return None
    increasing = _iota_along(op, *layout, itype)
    source = op.operand_types[0]
    assert isinstance(source, TensorType)
    return _kernel(policy, tuple(source.shape), layout, (vtype, itype), increasing,
                   bind_after(bind_argreduce, op, opdef, kwargs))


def _iota_along(op: Operation, perm: tuple[int, ...], flat_shape: tuple[int, ...],
                itype: np.dtype) -> bool:
    """Whether the indices are an iota along the one reduced axis whose values do not wrap
    around in their type (JAX's argmax), so they increase along every reduced row."""
    producer = op.operands[1].owner
    if (len(perm) - len(flat_shape) != 0 or not isinstance(producer, Operation)
            or producer.name != "stablehlo.iota"):
        return False  # (one reduced axis: the flat shape has one entry per axis)
    dim = producer.attr("iota_dimension")
    try:
        along = int(dim.value) if dim is not None else -1
    except (TypeError, ValueError):
        return False
    return along == perm[-1] and flat_shape[-1] - 1 <= np.iinfo(itype).max


def _orderable(dtype: np.dtype) -> bool:
    """Native bools, ints and floats, and ml_dtypes' narrow floats (bf16, f8: widened to
    float32 exactly for comparing)."""
    return dtype.kind in "biuf" or (dtype.kind == "V" and "float" in dtype.name
                                    and dtype.itemsize <= 2)


def _layout(op: Operation, kwargs: dict[str, Any]
            ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The general path's flattening (`specialize_reduce.reduced_layout`), when both
    results have the kept axes' shape."""
    source, result, second = op.operand_types[0], op.result_types[0], op.result_types[1]
    assert isinstance(source, TensorType) and isinstance(result, TensorType)
    assert isinstance(second, TensorType)
    layout = reduced_layout(tuple(source.shape), kwargs.get("dimensions"))
    if layout is None:
        return None
    outer = layout[1][:-1]
    return layout if tuple(result.shape) == outer and tuple(second.shape) == outer else None


def _kernel(policy: ArgPolicy, shape: tuple[int, ...], layout: tuple[tuple[int, ...], ...],
            dtypes: tuple[np.dtype, np.dtype], increasing: bool, general: Kernel) -> Kernel:
    """The op's kernel: `fast_kernel`'s few numpy calls where they settle the fold, else
    `arg_reduce` on the general path's flattening, else the general path itself."""
    perm, flat_shape = layout
    vtype, itype = dtypes
    identity = perm == tuple(range(len(perm)))
    array = np.ndarray
    quiet, loud = switches()
    fast = fast_kernel(policy, shape, perm, flat_shape, vtype, itype, increasing)

    def slow(x: np.ndarray, idx: np.ndarray, v0: Any, i0: Any) -> Any:
        flat_x = (x if identity else x.transpose(perm)).reshape(flat_shape)
        flat_i = (idx if identity else idx.transpose(perm)).reshape(flat_shape)
        token = quiet()
        try:
            out = arg_reduce(policy, flat_x, flat_i, v0, i0, increasing)
        finally:
            loud(token)
        return general(x, idx, v0, i0) if out is None else out

    def kernel(x: Any, idx: Any, v0: Any, i0: Any) -> Any:
        if (x.__class__ is not array or idx.__class__ is not array or x.dtype != vtype
                or idx.dtype != itype or getattr(v0, "ndim", 0) or getattr(i0, "ndim", 0)):
            return general(x, idx, v0, i0)
        if fast is not None:
            out = fast(x, idx, v0, i0)
            if out is not None:
                return out
        return slow(x, idx, v0, i0)
    return kernel


register_bind_hook(bind_argreduce, 75, ops=("stablehlo.reduce",))
