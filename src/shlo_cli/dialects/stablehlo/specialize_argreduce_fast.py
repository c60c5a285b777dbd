"""The argmax/argmin kernel's per-call path: a few numpy calls, with everything that does
not change between calls settled when the op is bound.

`arg_reduce` (specialize_argreduce) handles every policy and layout but pays ~25 us of
fixed cost per call (transposes, three gathers, tie analysis): most of a Viterbi step's
32x32 argmax. Here, per op: the reduced axis of the unflattened input (no transpose for
one reduced axis), the flat positions of each kept element's first reduced element and
the reduced axis' stride (one `take` gathers the extremum), whether the indices are an
iota along that axis (the index is then the argmax itself), and the init value that can
never win or matter (-inf for argmax). Per call: argmax, one gather, a zero / NaN check
and the init test. numpy's argmax/argmin return the first NaN of a row holding one, or
else the first extremum, which is the fold's answer when the index ties go to the first
element (or the smallest index of an increasing iota) and the value is bit-equal to the
one the policy picks; equal values differ in bits only as +0 and -0, so where the last
equal value is kept, rows whose extremum is zero take the last zero (an argmax of the
reversed rows). Other tie rules, and NaN the policy leaves to the general path, return
None: the caller uses `arg_reduce`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # (annotations only: importing this module must not load numpy)
    from .specialize_argreduce import ArgPolicy

    Pair = tuple[Any, Any]
    Fast = Callable[[np.ndarray, np.ndarray, Any, Any], Pair | None]


def fast_kernel(policy: ArgPolicy, shape: tuple[int, ...], perm: tuple[int, ...],
                flat_shape: tuple[int, ...], vtype: np.dtype, itype: np.dtype,
                iota: bool) -> Fast | None:
    """The per-call closed form for `policy` on inputs of `shape`, or None when the policy
    needs the row work of `arg_reduce` (ties settled by the last or largest index, or the
    smallest of indices that are not known to increase)."""
    if not (policy.tie_index == "first" or (iota and policy.tie_index == "min")):
        return None
    if len(flat_shape) == len(shape):
        axis, work = perm[-1], shape  # one reduced axis: argmax along it, no transpose
    else:
        axis, work = len(flat_shape) - 1, flat_shape
    outer = work[:axis] + work[axis + 1:]
    if 0 in work:
        return _filled(outer, vtype, itype)
    flatten = _flattener(shape, perm, work)
    take = _taker(work, axis)
    inert = _inert_init(policy, vtype, iota)
    narrow = vtype.kind == "V"
    floats = vtype.kind in "fV"
    scalar = not outer
    if scalar and not narrow:
        return _one_row(policy, shape, flatten, vtype, itype, iota, inert)

    def fast(x: np.ndarray, idx: np.ndarray, v0: Any, i0: Any) -> Pair | None:
        if x.shape != shape:
            return None
        v0, i0 = np.asarray(v0, vtype), np.asarray(i0, itype)
        key0 = v0.astype(np.float32) if narrow else v0
        init = key0.item()  # (Python scalars: cheap tests)
        if init != init:  # the init is the first NaN, or the general path's
            return (np.full(outer, v0, vtype), np.full(outer, i0, itype)) \
                if policy.nan_first else None
        xs = flatten(x)
        keys = xs.astype(np.float32) if narrow else xs
        k = keys.argmax(axis) if policy.largest else keys.argmin(axis)
        value = take(xs, k)
        index = k.astype(itype) if iota else take(flatten(idx), k)
        if floats:
            value = _float_value(policy, keys, xs, value, axis, take)
            if value is None:
                return None
        if not inert(init, i0.item()):
            value, index = _with_init(policy, value, index, key0, v0, i0, narrow)
        if scalar:
            return np.asarray(value), np.asarray(index)
        return value, index
    return fast


def _one_row(policy: ArgPolicy, shape: tuple[int, ...],
             flatten: Callable[[np.ndarray], np.ndarray], vtype: np.dtype, itype: np.dtype,
             iota: bool, inert: Callable[[Any, Any], bool]) -> Fast:
    """`fast_kernel` for one result (a decode step's argmax over its logits): the same
    steps on numpy scalars and Python tests, without the array-wide counts and conversions
    that cost more than the argmax of a few hundred elements."""
    asarray, floats = np.asarray, vtype.kind == "f"
    index_of = itype.type

    def fast(x: np.ndarray, idx: np.ndarray, v0: Any, i0: Any) -> Pair | None:
        if x.shape != shape:
            return None
        v0, i0 = asarray(v0, vtype), asarray(i0, itype)
        init = v0.item()
        if init != init:  # the init is the first NaN, or the general path's
            return (v0.copy(), i0.copy()) if policy.nan_first else None
        xs = flatten(x)
        k = xs.argmax() if policy.largest else xs.argmin()
        value = xs[k]
        index = index_of(k) if iota else flatten(idx)[k]
        if floats and value != value:
            if not policy.nan_first:
                return None
        elif floats and policy.tie_value == "last" and value == 0:
            found = xs[::-1].argmax() if policy.largest else xs[::-1].argmin()
            value = xs[(xs.shape[0] - 1) - found]
        if not inert(init, i0.item()):
            value, index = _with_init(policy, value, index, v0, v0, i0, False)
        return asarray(value), asarray(index)
    return fast


def _filled(outer: tuple[int, ...], vtype: np.dtype, itype: np.dtype) -> Fast:
    """An empty reduced axis (every result is the init) or an empty result."""
    def fill(x: np.ndarray, idx: np.ndarray, v0: Any, i0: Any) -> Pair:
        return np.full(outer, np.asarray(v0, vtype), vtype), \
            np.full(outer, np.asarray(i0, itype), itype)
    return fill


def _flattener(shape: tuple[int, ...], perm: tuple[int, ...],
               work: tuple[int, ...]) -> Callable[[np.ndarray], np.ndarray]:
    """The input as the kernel reduces it: as is for one reduced axis, else the general
    path's (kept..., reduced) flattening."""
    if work == shape:
        return lambda a: a
    if perm == tuple(range(len(perm))):
        return lambda a: a.reshape(work)
    return lambda a: a.transpose(perm).reshape(work)


def _taker(work: tuple[int, ...], axis: int) -> Callable[[np.ndarray, Any], Any]:
    """a's element at each row's position k along `axis`: one flat `take` on C-contiguous
    inputs (positions = base + k * stride, base fixed per op)."""
    if len(work) == 1:
        return _take_one
    stride = np.intp(math.prod(work[axis + 1:]))
    base = np.array(np.arange(math.prod(work), dtype=np.intp).reshape(work).take(0, axis=axis),
                    order="C")

    def take(a: np.ndarray, k: np.ndarray) -> np.ndarray:
        if not a.flags.c_contiguous:
            return _take_along(a, k, axis)
        return a.reshape(-1).take(k * stride + base if stride != 1 else k + base)
    return take


def _take_one(a: np.ndarray, k: Any) -> Any:
    """Element k of a single row (a numpy scalar)."""
    return a[k]


def _take_along(a: np.ndarray, k: np.ndarray, axis: int) -> np.ndarray:
    """a's element k along `axis` (strided inputs: no contiguous copy of a large array)."""
    return np.take_along_axis(a, np.expand_dims(k, axis), axis=axis).squeeze(axis)


def _float_value(policy: ArgPolicy, keys: np.ndarray, xs: np.ndarray, value: Any,
                 axis: int, take: Callable[[np.ndarray, Any], Any]) -> Any:
    """The rows' value of floats: None at a NaN the policy leaves to the general path; a
    zero extremum's sign from the last zero when the last equal value is kept."""
    if not policy.nan_first and np.count_nonzero(value != value):
        return None
    if policy.tie_value == "last" and np.count_nonzero(value) != np.size(value):
        return _last_zeros(policy, keys, xs, value, axis, take)
    return value


def _last_zeros(policy: ArgPolicy, keys: np.ndarray, xs: np.ndarray, value: Any, axis: int,
                take: Callable[[np.ndarray, Any], Any]) -> Any:
    """`value` with each zero extremum replaced by the row's last zero, whose sign the
    policy keeps (the last of equal values): the first extremum of the reversed row."""
    flipped = np.flip(keys, axis)
    found = flipped.argmax(axis) if policy.largest else flipped.argmin(axis)
    return np.where(value == 0, take(xs, (keys.shape[axis] - 1) - found), value)


def _inert_init(policy: ArgPolicy, vtype: np.dtype, iota: bool
                ) -> Callable[[Any, Any], bool]:
    """A test of whether the init leaves every row's result as it is: it must be the
    order's identity (-inf / the type's minimum for argmax), so it never wins and ties only
    with rows of that value, which start at index 0 (of bit-identical values); there the
    smallest index must not be the init's, nor the first index differ from an iota's 0."""
    if vtype.kind in "iu":
        info = np.iinfo(vtype)
        identity: Any = int(info.min if policy.largest else info.max)
    elif vtype.kind == "b":
        identity = not policy.largest
    else:
        identity = -math.inf if policy.largest else math.inf
    if policy.tie_index == "min":
        return lambda init, i0: init == identity and i0 >= 0
    if iota:
        return lambda init, i0: init == identity and i0 == 0
    return lambda init, i0: False


def _with_init(policy: ArgPolicy, value: Any, index: Any, key0: Any, v0: np.ndarray,
               i0: np.ndarray, narrow: bool) -> Pair:
    """Fold the init value (the first element of every row) into the rows' results."""
    m = value.astype(np.float32) if narrow else value
    wins = (key0 > m) if policy.largest else (key0 < m)
    ties = key0 == m  # (never in a NaN row)
    if policy.tie_value == "first":
        value = np.where(ties, v0, value)
    if policy.tie_index == "first":
        index = np.where(ties, i0, index)
    else:
        index = np.where(ties, np.minimum(index, i0), index)
    return np.where(wins, v0, value), np.where(wins, i0, index)
