"""One-element values made from a 0-d one computed on as 0-d values.

`jnp.sum(h[None] * w)`, `h.reshape(1)`, `jnp.atleast_1d(h)`: a 0-d value broadcast or
reshaped to one element, elementwise ops on such values, then a reshape back to 0-d or a
reduce of its one element. Each is a numpy call on a one-element array, and in a scalar
loop (loopgen.py) each leaves the Python-scalar path (pyscalar.py holds 0-d values only):
a microsecond a step, ten times the step's own arithmetic. A one-element value holds its
0-d source's element, so the elementwise op computes from the 0-d operands what it
computes from the one-element ones (the kernels are the same math at every shape), a
reshape back to 0-d is the 0-d value, and a reduce of the one element with a one-op body
`op(acc, x)` (a commutative op: add, multiply, maximum, ...) is that op of the init value
and the element, in the order the reduce kernel applies it, `op(init, x)` (which NaN a
NaN pair gives depends on it). Here those ops read the 0-d values (another one-element
operand of such an op, a recurrent state kept as one element, read through a reshape to
0-d): each elementwise op becomes its 0-d form (a reshape to one element defines its own
result for the readers left), a reshape back an identity (an `optimization_barrier`, as
inline.py defines an alias), a reduce its body's op; the one-element values nothing
reads any more are left out. The module is not changed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..dialects.stablehlo.reducer import COMMUTATIVE_OPS
from ..ir import registry
from ..ir.core import Operation, Value
from ..ir.types import TensorType, element_type, numpy_dtype
from .codegen import region_reads
from .inline import IDENTITY

_BROADCAST, _RESHAPE, _REDUCE = ("stablehlo.broadcast_in_dim", "stablehlo.reshape",
                                 "stablehlo.reduce")
_RETURNS = frozenset(("stablehlo.return", "func.return"))
_PLAIN = frozenset(("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float16", "bfloat16", "float32", "float64"))
# Ops computing each element from the elements at its position alone (attributes aside).
ELEMENTWISE = frozenset("stablehlo." + name for name in (
    "abs add and atan2 cbrt ceil clamp compare convert cosine count_leading_zeros divide "
    "exponential exponential_minus_one floor is_finite log log_plus_one logistic maximum "
    "minimum multiply negate not or popcnt power remainder round_nearest_afz "
    "round_nearest_even rsqrt select shift_left shift_right_arithmetic "
    "shift_right_logical sign sine sqrt subtract tan tanh xor").split())


def _shape(value: Value) -> tuple[int, ...] | None:
    t = value.type
    return tuple(t.shape) if isinstance(t, TensorType) and t.is_static else None


def _one_element(value: Value) -> bool:
    """A static one-element value of a plain element type (those tested so: no complex,
    quantized or 8-bit float types)."""
    shape = _shape(value)
    if shape is None or not shape or math.prod(shape) != 1:
        return False
    try:
        dtype = np.dtype(numpy_dtype(element_type(value.type)))  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - a type numpy cannot hold
        return False
    return dtype.name in _PLAIN


def _zero_d(value: Value) -> bool:
    return _shape(value) == ()


def unit_values(ops: list[Operation], kept: Iterable[Value]) -> list[Operation]:
    """`ops` with elementwise ops, reshapes back to 0-d and one-op reduces of one-element
    values made from 0-d ones (broadcast_in_dim, reshape) computing on the 0-d values;
    makers nothing else (`kept`, a region) reads are left out."""
    if not any(op.name in (_BROADCAST, _RESHAPE) and op.operands and _zero_d(op.operands[0])
               and _one_element(op.results[0]) for op in ops):
        return ops  # (before the lookups: they import the ops' modules)
    reshape_def, identity_def = registry.lookup(_RESHAPE), registry.lookup(IDENTITY)
    if reshape_def is None or identity_def is None:
        return ops
    units: dict[Value, Value] = {}  # a one-element value -> the 0-d value it holds
    makers: set[Value] = set()  # one-element values made by a reshape or broadcast
    out: list[Operation] = []
    for op in ops:
        name = op.name
        if len(op.results) != 1 or op.regions and name != _REDUCE:
            out.append(op)
            continue
        result = op.results[0]
        sources = [units.get(v) for v in op.operands]
        if name in (_BROADCAST, _RESHAPE) and len(op.operands) == 1 \
                and _zero_d(op.operands[0]) and _one_element(result):
            units[result] = op.operands[0]
            makers.add(result)
            out.append(op)
        elif name in (_BROADCAST, _RESHAPE) and sources == [sources[0]] and sources[0] \
                is not None and _zero_d(result):
            out.append(_defining(IDENTITY, [sources[0]], result, op, identity_def))
        elif name in ELEMENTWISE and any(s is not None for s in sources) \
                and all(_one_element(v) for v in op.operands) and _one_element(result) \
                and (opdef := registry.lookup(name)) is not None:
            for k, v in enumerate(op.operands):  # (a carried one-element state: read as 0-d)
                if sources[k] is None:
                    zero_d = Operation(_RESHAPE, [v], [TensorType((), v.type.element)],  # type: ignore[attr-defined]
                                       location=op.location, opdef=reshape_def)
                    out.append(zero_d)
                    sources[k] = units[v] = zero_d.results[0]
            scalar = Operation(name, list(sources), [TensorType((), result.type.element)],  # type: ignore[arg-type,attr-defined]
                               properties=dict(op.properties),
                               attributes=dict(op.attributes), location=op.location,
                               opdef=opdef)
            out.append(scalar)
            units[result] = scalar.results[0]
            makers.add(result)
            out.append(_defining(_RESHAPE, [scalar.results[0]], result, op, reshape_def))
        elif name == _REDUCE and (reduced := _reduce_of_one(op, units)) is not None:
            out.append(reduced)
        else:
            out.append(op)
    read = set(kept) | region_reads(out)
    for op in out:
        read.update(op.operands)
    return [op for op in out if not (op.results and op.results[0] in makers
                                     and op.results[0] not in read)] if makers else out


def _defining(name: str, operands: list[Value], result: Value, op: Operation,
              opdef: object) -> Operation:
    """An op `name` of `operands` that defines `result` (another op's: its readers
    read it as they did)."""
    new = Operation(name, operands, [result.type], location=op.location,
                    opdef=opdef)  # type: ignore[arg-type]
    new.results = [result]
    return new


def _reduce_of_one(op: Operation, units: dict[Value, Value]) -> Operation | None:
    """The reduce's body op, a commutative one, applied to its init value and the
    element of its one input, a one-element value made from a 0-d one (`op(init, x)`, as
    the reduce kernel applies it whatever the order of the body's operands), defining
    the reduce's 0-d result; else None."""
    if len(op.operands) != 2 or not _zero_d(op.results[0]) or len(op.regions) != 1:
        return None
    source, init = units.get(op.operands[0]), op.operands[1]
    blocks = op.regions[0].blocks
    if source is None or len(blocks) != 1 or len(blocks[0].arguments) != 2:
        return None
    body = blocks[0].operations
    if len(body) != 2 or body[1].name not in _RETURNS or body[0].name not in COMMUTATIVE_OPS:
        return None
    inner = body[0]
    acc, element = blocks[0].arguments
    if len(inner.results) != 1 or list(body[1].operands) != [inner.results[0]] \
            or inner.regions or len(inner.operands) != 2 \
            or not all(v is acc or v is element for v in inner.operands) \
            or inner.results[0].type != op.results[0].type:
        return None
    opdef = registry.lookup(inner.name)
    if opdef is None:
        return None
    operands = [init, source]  # (the reduce kernel's order, whichever the body names)
    new = Operation(inner.name, operands, [op.results[0].type],
                    properties=dict(inner.properties), attributes=dict(inner.attributes),
                    location=op.location, opdef=opdef)
    new.results = [op.results[0]]
    return new
