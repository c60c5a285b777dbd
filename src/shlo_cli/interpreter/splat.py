"""Splat constants (a folded `broadcast_in_dim` of one value) as 0-d operands of ufuncs.

jax writes `x * 2` as a multiply by a broadcast constant of x's full shape. Folded, that
constant is a whole array, and numpy's binary loop then reads two arrays where one and a
scalar would do (64x128 f32: 2.6 us against 1.2 us). With a 0-d array of the same value
and type each result element is computed by the same ufunc from the same two values, so
the bits are the same; the result's shape is the other operand's, which the op's static
types make the result's. Only the result's memory order could differ: numpy lays out a
result like its array operands, and with the scalar it follows the other operand alone.
So the 0-d form is taken only when that operand is C-contiguous (as the full constant
is: both then give a C-contiguous result), which the generated code tests per run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.core import Value
from ..ir.types import TensorType

_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def splat_scalar(value: Any) -> np.ndarray | None:
    """A frozen 0-d array of the one value every element of `value` holds (compared bit
    for bit: signed zeros count), or None. Not for a NaN: with NaN operands on both sides
    which payload a float op returns depends on operand order, and numpy's loops for a
    scalar operand may swap the two."""
    if not isinstance(value, np.ndarray) or value.ndim == 0 or value.size < 2:
        return None
    bits = _BITS.get(value.dtype.itemsize)
    if bits is None or value.dtype.kind not in "fiub":
        return None
    words = value.reshape(-1).view(bits)
    if not (words == words[0]).all() or value.reshape(-1)[0] != value.reshape(-1)[0]:
        return None
    scalar = np.array(value.reshape(-1)[0])
    scalar.flags.writeable = False
    return scalar


def _static_shape(value: Value) -> tuple[int, ...] | None:
    t = value.type
    if isinstance(t, TensorType) and t.is_static:
        return tuple(t.shape)
    return None


def splat_position(step: Any, consts: dict[Value, Any]) -> int | None:
    """The operand position of a binary ufunc step whose operand there is a folded splat
    constant and whose other operand (not a constant) has the result's static shape;
    None when the step is not of that form."""
    fn, op = step.fn, step.op
    if not isinstance(fn, np.ufunc) or fn.nin != 2 or fn.nout != 1:
        return None
    if len(op.operands) != 2 or len(op.results) != 1:
        return None
    shape = _static_shape(op.results[0])
    if shape is None:
        return None
    found = None
    for position, v in enumerate(op.operands):
        if v in consts:
            if found is not None:
                return None
            found = position
    if found is None:
        return None
    constant, other = op.operands[found], op.operands[1 - found]
    value = consts[constant]
    if _static_shape(other) != shape or getattr(value, "shape", None) != shape:
        return None
    return found if splat_scalar(value) is not None else None
