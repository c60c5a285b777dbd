"""`select` on numpy's integer and float types without branches (an engine binding hook).

The general evaluator's np.where branches per element: on an unpredictable predicate (jnp's
floor division picks `q - 1` where signs differ, `where(a > b, a, b)`) it runs several times
slower than a pass of arithmetic. Here the predicate becomes a mask of all-ones or zero bits
in the unsigned type of the operands' width, and on_false ^ ((on_true ^ on_false) & mask)
picks every element's bits exactly (NaN payloads and signed zeros included; ml_dtypes'
floats such as bfloat16 are selected as their bits too). A 0-d on_true or on_false (a
`where(mask, log(x), 0)`'s splat zero, as blocked chains pass a broadcast scalar) is
broadcast by the same bit operations, not sent to np.where. Arrays below `_SMALL` elements
keep its picks (no branch cost to speak of), made here directly as a copy of on_false and
`np.copyto(..., where=pred)` of on_true (a masked RNN step's state select on 32 elements:
1.2 us through the general evaluator's np.where, 0.75 here). Past them a predicate that
holds nowhere (everywhere) returns on_false (on_true) itself, the same bits without the
passes: the guards jnp writes around a value, where(isnan(x), nan, x) or where(x == 0, 0, x)
in every jnp.searchsorted step, pick one side on most data. A predicate broadcast over
leading axes (an attention's causal mask over heads: `where(mask, scores, -inf)`) becomes
its mask at its own size, and an operand that is a broadcast fill is masked at its size
(`_broadcast_pick`): two full-size passes instead of five (8x256x256 f32 under a 256x256
mask: 178 -> 128 us).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from .elementwise_numerics import NATIVE_FLOATS, NATIVE_INTS, is_float
from .specialize import _native_types

Kernel = Callable[..., Any]

_SMALL = 2048  # below this np.where's single call costs less than the mask's five passes


def _select(dtype: np.dtype, general: Kernel) -> Kernel:
    unsigned = np.dtype(f"u{dtype.itemsize}")
    array, boolean, where, copyto = np.ndarray, np.dtype(np.bool_), np.where, np.copyto

    def kernel(pred: Any, on_true: Any, on_false: Any) -> Any:
        if (pred.__class__ is not array or on_true.__class__ is not array
                or on_false.__class__ is not array or pred.dtype != boolean
                or on_true.dtype != dtype or on_false.dtype != dtype or pred.ndim == 0
                or (on_true.ndim and on_true.shape != pred.shape)
                or (on_false.ndim and on_false.shape != pred.shape)):
            return general(pred, on_true, on_false)
        if pred.size < _SMALL:  # np.where's picks, without the general path's wrappers
            if on_false.ndim:  # (copying bits: a quarter cheaper than np.where)
                out = on_false.copy()
                copyto(out, on_true, where=pred)
                return out
            return where(pred, on_true, on_false)
        # A uniform predicate picks a whole operand (numpy's any/all stop at the first
        # element that decides them: two reads of a mixed mask's first elements)
        core = collapsed(pred) if pred.size >= _BROADCAST_FROM and 0 in pred.strides else pred
        if on_false.ndim and not core.any():
            return on_false
        if on_true.ndim and core.all():
            return on_true
        if core is not pred and core.size * _SHARED <= pred.size:
            return _broadcast_pick(core, on_true.view(unsigned), on_false.view(unsigned),
                                   pred.shape).view(dtype)
        mask = pred.view(np.uint8).astype(unsigned, order="C")  # 1 where pred holds, else 0
        np.negative(mask, out=mask)  # all ones / zero (unsigned negation wraps)
        low = on_false.view(unsigned)
        mask &= on_true.view(unsigned) ^ low  # (a 0-d operand broadcasts)
        mask ^= low
        return mask.view(dtype)

    kernel.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
    # a 0-d pred picks a whole operand (the general evaluator's first case): codegen writes
    # that pick inline
    kernel.picks = True  # type: ignore[attr-defined]
    return kernel


_SHARED = 4
"""A predicate (or operand) whose distinct elements, its broadcast axes cut to one, number
at most 1/_SHARED of the result's is worked on at that size (an attention's causal or
padding mask broadcast over heads and batch)..."""
_BROADCAST_FROM = 1 << 16
"""...in selects of at least this many elements: below, the passes it saves run in the
cache and cost less than its ~10 numpy calls (time against the five-pass mask, f32 under
a causal mask: 1.2-1.7 at 4K-32K elements, 0.95-1.06 at 64K, 0.77-0.81 at 128K, 0.78 at
512K)."""


def collapsed(x: np.ndarray) -> np.ndarray:
    """x's values with each broadcast (zero-stride) axis cut to length 1: numpy broadcasts
    them back, and a pass over it reads each distinct element once."""
    return x[tuple(slice(0, 1) if stride == 0 else slice(None) for stride in x.strides)]


def _broadcast_pick(core: np.ndarray, on_true: np.ndarray, on_false: np.ndarray,
                    shape: tuple[int, ...]) -> np.ndarray:
    """The select's bits (operands viewed as unsigned words) where the predicate is a
    broadcast of its collapsed `core`: the all-ones/zero mask is made at the core's size,
    and an operand that is itself a broadcast (a mask's -inf fill, a 0-d value) is masked
    at its own size, so the whole result costs two passes (on_true & mask | fill) instead of
    the five of a full-size mask; three when both operands are full-size."""
    unsigned = on_true.dtype
    mask = core.view(np.uint8).astype(unsigned)
    np.negative(mask, out=mask)  # all ones where the predicate holds
    size = math.prod(shape)
    out = np.empty(shape, unsigned)
    if _small(on_false, core, size):
        np.bitwise_and(on_true, mask, out=out)
        out |= np.bitwise_and(collapsed(on_false), np.invert(mask))
    elif _small(on_true, core, size):
        np.bitwise_and(on_false, np.invert(mask), out=out)
        out |= np.bitwise_and(collapsed(on_true), mask)
    else:
        np.bitwise_xor(on_true, on_false, out=out)
        out &= mask
        out ^= on_false
    return out


def _small(operand: np.ndarray, core: np.ndarray, size: int) -> bool:
    """Whether `operand` masked by the core mask has at most 1/_SHARED of `size` elements."""
    if not operand.ndim:
        return core.size * _SHARED <= size
    if 0 not in operand.strides:
        return False
    cut = collapsed(operand).shape
    return math.prod(max(a, b) for a, b in zip(cut, core.shape, strict=True)) * _SHARED <= size


def bind_select(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A branchless select kernel, or None (the next hook / the general evaluator)."""
    if op.name != "stablehlo.select":
        return None
    dtypes = _native_types(op)
    if dtypes is None or len(dtypes) != 4 or dtypes[0] != np.bool_:
        return None
    dtype = dtypes[1]
    if any(d != dtype for d in dtypes[2:]) or (dtype not in NATIVE_INTS
                                               and dtype not in NATIVE_FLOATS
                                               and not is_float(dtype)):  # bf16, f8: bits
        return None
    return _select(dtype, bind_after(bind_select, op, opdef, kwargs))


register_bind_hook(bind_select, 55, ops=("stablehlo.select",))
