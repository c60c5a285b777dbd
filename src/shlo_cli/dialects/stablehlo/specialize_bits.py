"""Bitwise ops and shifts on numpy's own integer types (and i1 for and/or/xor/not),
specialized once per op when the plan is built (an engine binding hook).

The general evaluators go through 64-bit patterns (`to_bits` / `from_bits`) so that they also
serve sub-byte integers: a dozen numpy calls, where counter-based random bits (threefry:
rotations, xors and adds on uint32 arrays, every dropout mask) need one. numpy's shifts
already have the spec's meaning: its loops saturate (a shift by the width or more gives 0,
or copies of the sign bit for a right shift of a signed type), and viewing both operands as
unsigned makes a negative amount one of those. That is checked once on a probe before any
kernel is handed out; where numpy behaved otherwise the general evaluators stay.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from .elementwise_numerics import NATIVE_INTS
from .specialize import _native_types, dynamic_elementwise

Kernel = Callable[..., Any]

_BITWISE = {"stablehlo.and": "bitwise_and", "stablehlo.or": "bitwise_or",
            "stablehlo.xor": "bitwise_xor"}
_SHIFTS = ("stablehlo.shift_left", "stablehlo.shift_right_logical",
           "stablehlo.shift_right_arithmetic")


@functools.cache
def _numpy_shifts_saturate() -> bool:
    """Whether numpy's shifts give the spec's results past the width, for every width."""
    for bits in (8, 16, 32, 64):
        u, s = np.dtype(f"u{bits // 8}"), np.dtype(f"i{bits // 8}")
        far = np.array([bits, bits + 1, 2 ** bits - 1], u)
        ones = np.full(3, 2 ** bits - 1, u)
        if (np.left_shift(ones, far).any() or np.right_shift(ones, far).any()
                or not (np.right_shift(ones.view(s), far.view(s)) == -1).all()
                or np.right_shift(np.full(3, 1, s), far.view(s)).any()):
            return False
    return True


def _shift(ufunc: np.ufunc, dtype: np.dtype, view: np.dtype, general: Kernel) -> Kernel:
    """ufunc(lhs, rhs) on both operands viewed as `view` (same width as `dtype`)."""
    array = np.ndarray

    def kernel(lhs: Any, rhs: Any) -> Any:
        if lhs.__class__ is not array or rhs.__class__ is not array or lhs.dtype != dtype:
            return general(lhs, rhs)
        out = ufunc(lhs.view(view), rhs.view(view))
        return out.view(dtype)

    number = dtype.type

    def unsigned(lhs: Any, rhs: Any) -> Any:
        """`kernel` where `view` is the type itself (threefry's uint32 rotations: its
        three views cost a third of a 128x128 shift); one operand may be a 0-d value of
        the type beside an array (interpreter/splat.py: an amount broadcast from 0-d)."""
        if lhs.__class__ is array and rhs.__class__ is array and lhs.dtype == dtype:
            return ufunc(lhs, rhs)
        if (lhs.__class__ is array and lhs.dtype == dtype and lhs.ndim
                and (rhs.__class__ is number or rhs.__class__ is array and rhs.dtype == dtype
                     and not rhs.ndim)) or (
                rhs.__class__ is array and rhs.dtype == dtype and rhs.ndim
                and (lhs.__class__ is number or lhs.__class__ is array and lhs.dtype == dtype
                     and not lhs.ndim)):
            return ufunc(lhs, rhs)
        return general(lhs, rhs)

    if view == dtype:
        unsigned.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
        unsigned.takes_scalar = True  # type: ignore[attr-defined]
        return unsigned
    kernel.blockwise = True  # type: ignore[attr-defined]
    return kernel


def bind_bits(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A bitwise or shift kernel for native integer types, or None (the general evaluator)."""
    name = op.name
    if name not in _BITWISE and name not in _SHIFTS and name != "stablehlo.not":
        return None
    dtypes = _native_types(op)
    if dtypes is None:
        return dynamic_elementwise(op, lambda d: _bind_typed(op, opdef, kwargs, d),
                                   bind_after(bind_bits, op, opdef, kwargs))
    return _bind_typed(op, opdef, kwargs, dtypes)


def _bind_typed(op: Operation, opdef: Any, kwargs: dict[str, Any],
                dtypes: list[np.dtype]) -> Kernel | None:
    """bind_bits's kernel for `op` of element types `dtypes`."""
    name = op.name
    if any(d != dtypes[0] for d in dtypes):
        return None
    dtype = dtypes[0]
    boolean = dtype == np.bool_
    if not boolean and dtype not in NATIVE_INTS:
        return None
    if name == "stablehlo.not":
        return np.logical_not if boolean else np.invert
    if name in _BITWISE:
        return getattr(np, _BITWISE[name])
    if boolean or not _numpy_shifts_saturate():
        return None
    general = bind_after(bind_bits, op, opdef, kwargs)
    width = dtype.itemsize
    if name == "stablehlo.shift_right_arithmetic":  # the top bit is the sign, whatever type
        return _shift(np.right_shift, dtype, np.dtype(f"i{width}"), general)
    ufunc = np.left_shift if name == "stablehlo.shift_left" else np.right_shift
    return _shift(ufunc, dtype, np.dtype(f"u{width}"), general)


register_bind_hook(bind_bits, 60, ops=(*_BITWISE, *_SHIFTS, "stablehlo.not"))
