"""Splat constants (a folded `broadcast_in_dim` of one value) as 0-d operands of ufuncs.

jax writes `x * 2` as a multiply by a broadcast constant of x's full shape. Folded, that
constant is a whole array, and numpy's binary loop then reads two arrays where one and a
scalar would do (64x128 f32: 2.6 us against 1.2 us). With a 0-d array of the same value
and type each result element is computed by the same ufunc from the same two values, so
the bits are the same; the result's shape is the other operand's, which the op's static
types make the result's. Only the result's memory order could differ: numpy lays out a
result like its array operands, and with the scalar it follows the other operand alone.
So the 0-d form is taken only when that operand is C-contiguous (as the full constant
is: both then give a C-contiguous result), which the generated code tests per run (or
the code generator knows: interpreter/layouts.py).

The same holds for a runtime value broadcast from 0-d (jax's scalar operands: threefry
adds its key words and shifts by its rotation amounts, broadcast to the block, at every
round): when every reader of the broadcast is such a binary kernel, the broadcast is made
only where a reader's other operand is not C-contiguous, and the readers take the 0-d
value. Integer and i1 elements only: a NaN cannot be ruled out at plan time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ir.attributes import DenseElementsAttr
from ..ir.core import Operation, Value
from ..ir.types import TensorType, element_type, numpy_dtype

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


def splat_constant(value: Value) -> np.ndarray | None:
    """`splat_scalar` of a `stablehlo.constant` whose attribute is a splat (read from the
    attribute's one element, not from the broadcast tensor), else None."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name != "stablehlo.constant":
        return None
    attr = owner.attr("value")
    if not isinstance(attr, DenseElementsAttr) or not attr.splat or attr.data.size != 1:
        return None
    try:
        if attr.data.dtype != numpy_dtype(element_type(value.type)):
            return None
    except Exception:  # noqa: BLE001 - a type numpy cannot hold
        return None
    return splat_scalar(np.broadcast_to(attr.data, (2,)))


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


def _takes_scalar(step: Any, value: Value, shape: tuple[int, ...]) -> bool:
    """Whether `step` is a binary kernel reading `value` once, beside an operand of the
    result's static shape `shape`, that may read a 0-d value there instead: a ufunc, or a
    kernel marked `takes_scalar` (numpy scalars and 0-d arrays of its type)."""
    fn, op = step.fn, step.op
    if not (isinstance(fn, np.ufunc) and fn.nin == 2 and fn.nout == 1
            or getattr(fn, "takes_scalar", False)):
        return False
    if len(op.operands) != 2 or len(op.results) != 1 or op.operands.count(value) != 1:
        return False
    other = op.operands[1 - op.operands.index(value)]
    return _static_shape(other) == shape and _static_shape(op.results[0]) == shape


def runtime_splats(steps: Sequence[Any], excluded: set[int], kept: set[Value]) -> set[int]:
    """The broadcast_in_dim steps (none of `excluded`, results not in `kept`) of a 0-d
    integer or i1 value to a static shape of two or more elements whose every reader (none
    of `excluded`) takes the 0-d value instead (`_takes_scalar`)."""
    readers: dict[Value, list[int]] = {}
    for j, step in enumerate(steps):
        for v in step.op.operands:
            readers.setdefault(v, []).append(j)
    found = set()
    for i, step in enumerate(steps):
        op = step.op
        if (i in excluded or op.name != "stablehlo.broadcast_in_dim" or len(op.operands) != 1
                or len(op.results) != 1 or op.results[0] in kept
                or _static_shape(op.operands[0]) != ()):
            continue
        result = op.results[0]
        shape = _static_shape(result)
        if shape is None or math.prod(shape) < 2:
            continue
        try:
            kind = np.dtype(numpy_dtype(element_type(result.type))).kind
        except Exception:  # noqa: BLE001 - a type numpy cannot hold
            continue
        uses = readers.get(result, [])
        if kind in "iub" and uses and all(
                j not in excluded and _takes_scalar(steps[j], result, shape) for j in uses):
            found.add(i)
    return found


def runtime_splat_call(kernel: str, operands: list[str], position: int, scalar: str) -> str:
    """A reader's call with the 0-d `scalar` at `position` when the other operand is a
    C-contiguous array, else with the broadcast (`operands[position]`, its expression)."""
    with_scalar = list(operands)
    with_scalar[position] = scalar
    other = operands[1 - position]
    return (f"{kernel}({', '.join(with_scalar)}) if {other}.__class__ is _ndarray and "
            f"{other}.flags.c_contiguous else {kernel}({', '.join(operands)})")


def splat_call(step: Any, i: int, position: int, consts: dict[Value, Any],
               ref: Callable[[Value], str], ns: dict[str, Any], p: str,
               contiguous: bool = False, spare: str | None = None) -> str:
    """Step i's call with its splat constant operand (at `position`) as a 0-d array when
    the other operand is a C-contiguous array, else with the full constant;
    the 0-d form alone where that operand is known `contiguous` (codegen's layouts), then
    with the `spare` buffer (its out=) if given."""
    ns[f"{p}S{i}"] = splat_scalar(consts[step.op.operands[position]])
    ns["_ndarray"] = np.ndarray
    full = [ref(v) for v in step.op.operands]
    scalar = list(full)
    scalar[position] = f"{p}S{i}"
    other = full[1 - position]
    if contiguous:
        return f"{p}K{i}({', '.join(scalar + ([spare] if spare else []))})"
    return (f"{p}K{i}({', '.join(scalar)}) if {other}.__class__ is _ndarray and "
            f"{other}.flags.c_contiguous else {p}K{i}({', '.join(full)})")
