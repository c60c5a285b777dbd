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
in every jnp.searchsorted step, pick one side on most data.
"""

from __future__ import annotations

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
        if on_false.ndim and not pred.any():
            return on_false
        if on_true.ndim and pred.all():
            return on_true
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
