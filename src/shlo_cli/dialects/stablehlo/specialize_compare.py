"""`compare` of float tensors on exact f32 copies or on their bit patterns (an engine
binding hook).

numpy compares f16 with scalar code and ml_dtypes compares its narrow types element by
element through a conversion (65,536 elements: f16 0.38 ms, f8 0.41 ms); TOTALORDER's
general evaluator widens both operands to double and builds an integer key of each in
five passes (bf16 0.56 ms, f8 1.2 ms, f32 0.05 ms). Here:

- The IEEE comparisons (FLOAT, or no type) of floats narrower than f32 compare exact f32
  copies: they order exactly as the values, NaN unordered and -0 equal to +0. bf16's copy
  is ml_dtypes' conversion (a shift); the other types take each element's value from a
  table of all their bit patterns' values (a gather; numpy's f16 conversion is slower).
- TOTALORDER of floats of up to 16 bits compares each bit pattern's rank among the
  general evaluator's own keys of all patterns (a table made by its key function): every
  input, NaN payloads included, compares as the general evaluator compares it.
- TOTALORDER of f32 and f64 without NaN is the IEEE comparison with equal values ordered
  by their signed bits (only -0 and +0 are equal with different bits, and -0's are the
  smaller); EQ and NE are bit equality. One max per operand finds a NaN: f64 then compares
  keys of its own bits (a double is its own widening), f32 goes to the general evaluator
  (its widening quiets a signaling NaN, which moves it in the order).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from .elementwise_numerics import is_float, widen
from .elementwise_select import total_order_key
from .specialize import _native_types

Kernel = Callable[..., Any]

_DIRECT_UP_TO = 256  # elements: an IEEE compare of f16 or f8 this small is numpy's own
_UFUNCS = {"EQ": "equal", "NE": "not_equal", "GE": "greater_equal", "GT": "greater",
           "LE": "less_equal", "LT": "less"}


def _patterns(dtype: np.dtype) -> np.ndarray:
    """Every bit pattern of a type of up to 16 bits, as that type."""
    return np.arange(1 << (8 * dtype.itemsize), dtype=f"u{dtype.itemsize}").view(dtype)


@functools.cache
def _values(dtype: np.dtype) -> np.ndarray:
    """Each bit pattern's value as an exact f32 (every float of up to 16 bits has one)."""
    return _patterns(dtype).astype(np.float32)


@functools.cache
def _ranks(dtype: np.dtype) -> np.ndarray:
    """Each bit pattern's rank among the general evaluator's TOTALORDER keys of all
    patterns (equal keys, equal ranks), as unsigned integers of the type's width."""
    keys = total_order_key(widen(_patterns(dtype)))
    _, rank = np.unique(keys, return_inverse=True)
    return rank.reshape(-1).astype(f"u{dtype.itemsize}")


def _by_table(ufunc: np.ufunc, dtype: np.dtype, table: np.ndarray, general: Kernel,
              direct: bool = False) -> Kernel:
    """`ufunc` of each operand's entries in `table`, looked up by bit pattern."""
    bits, take = np.dtype(f"u{dtype.itemsize}"), table.take
    return _on_copies(ufunc, dtype, lambda x: take(x.view(bits)), general, direct)


def _on_copies(ufunc: np.ufunc, dtype: np.dtype, copy: Callable[[np.ndarray], np.ndarray],
               general: Kernel, direct: bool) -> Kernel:
    """`ufunc` of `copy` of each operand; with `direct`, of the operands themselves up to
    `_DIRECT_UP_TO` elements (where the copies cost more than numpy's or ml_dtypes' own
    loop: a recurrent step's gates)."""
    array = np.ndarray
    up_to = _DIRECT_UP_TO if direct else -1

    def kernel(a: Any, b: Any) -> Any:
        if (a.__class__ is not array or b.__class__ is not array or a.dtype != dtype
                or b.dtype != dtype or not a.ndim):
            return general(a, b)
        if a.size <= up_to:
            return ufunc(a, b)
        return ufunc(copy(a), copy(b))
    kernel.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
    return kernel


def _total_order_wide(direction: str, dtype: np.dtype, general: Kernel) -> Kernel:
    """TOTALORDER of f32 or f64 (see the module's docstring)."""
    signed = np.dtype(f"i{dtype.itemsize}")
    shift = signed.type(8 * dtype.itemsize - 1)
    low = signed.type(np.iinfo(signed).max)  # every bit but the sign
    keyed = getattr(np, _UFUNCS[direction])
    exact_nans = dtype == np.float64
    swapped = direction in ("GT", "LE")  # a > b is b < a; a <= b is not b < a
    negated = direction in ("GE", "LE")
    bitwise = direction in ("EQ", "NE")
    array = np.ndarray

    def own_key(x: np.ndarray) -> np.ndarray:
        raw = x.view(signed)
        return raw ^ ((raw >> shift) & low)

    def kernel(a: Any, b: Any) -> Any:
        if (a.__class__ is not array or b.__class__ is not array or a.dtype != dtype
                or b.dtype != dtype or not a.ndim or not a.size or not b.size):
            return general(a, b)
        x, y = a.max(), b.max()
        if x != x or y != y:  # a NaN
            return keyed(own_key(a), own_key(b)) if exact_nans else general(a, b)
        if bitwise:
            return keyed(a.view(signed), b.view(signed))
        if swapped:
            a, b = b, a
        less = np.equal(a, b)  # equal values: the smaller signed bits (-0 < +0) first
        less &= np.less(a.view(signed), b.view(signed))
        less |= np.less(a, b)
        if negated:
            np.logical_not(less, out=less)
        return less
    kernel.blockwise = True  # type: ignore[attr-defined]
    return kernel


def bind_compare(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A kernel for a float `compare`, or None (the next hook / the general evaluator)."""
    if op.name != "stablehlo.compare":
        return None
    direction = kwargs.get("comparison_direction")
    dtypes = _native_types(op)
    if dtypes is None or direction not in _UFUNCS or not is_float(dtypes[0]):
        return None
    operand = dtypes[0]
    total = kwargs.get("compare_type") == "TOTALORDER"
    ufunc = getattr(np, _UFUNCS[direction])
    general = bind_after(bind_compare, op, opdef, kwargs)
    if operand.itemsize <= 2:
        if total:
            return _by_table(ufunc, operand, _ranks(operand), general)
        if operand.name == "bfloat16":  # (ml_dtypes' conversion: a shift)
            f32 = np.dtype(np.float32)
            return _on_copies(ufunc, operand, lambda x: x.astype(f32), general, True)
        return _by_table(ufunc, operand, _values(operand), general, direct=True)
    if total and operand.itemsize in (4, 8):
        return _total_order_wide(direction, operand, general)
    return None


register_bind_hook(bind_compare, 56, ops=("stablehlo.compare",))
