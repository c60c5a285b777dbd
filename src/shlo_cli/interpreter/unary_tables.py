"""Chains of elementwise steps on one 16-bit float value planned as one table lookup.

A bf16 or f16 GRU or LSTM step computes each gate's logistic as negate, exp, `1 + e` and
`1 / s` (jax.nn.sigmoid's export), each rounded to the narrow type: four numpy calls of
about a microsecond on 32-128 elements. Every intermediate value is a function of the
chain's one 16-bit input element (the other operands are splat constants), so the whole
chain is a function of 65536 bit patterns: once asked for often enough (libm.tabulated's
policy), the chain's own kernels are run on every pattern and each later call is one
`take` from that table. The table is made by the same kernels, element by element the
same operations (they are elementwise: an element's result does not depend on the
array it is computed in, as hoist.py relies on too), so results are bit for bit those of
the steps one after the other, NaN payloads included.

A chain is a run of steps, each reading the previous one's result (which nothing else
reads) and otherwise only splat constants of the block; the first reads a bf16 or f16
array, of fewer elements than blocked.py's chains take. The fused step stands where the
chain's last step stood and defines its result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..dialects.quiet import switches
from ..ir.core import Operation, Value
from ..ir.types import TensorType, is_float, numpy_dtype
from .blocked import CHAIN_MIN
from .hoist import BINARY, UNARY

Kernel = Callable[..., Any]

TABLE_CHAIN = "interpreter.table_chain"  # the fused steps' op name (detached, never bound)
# Elementwise ops whose result at an element is the operation on that element alone.
_UNARY = UNARY | {"stablehlo.logistic", "stablehlo.convert"}
_BINARY = BINARY | {"stablehlo.maximum", "stablehlo.minimum"}
# Pure ops whose values on constants are computed at plan time (a splat's broadcast).
_FOLDED = frozenset({"stablehlo.constant", "stablehlo.broadcast_in_dim",
                     "stablehlo.reshape"})
_FOLD_LIMIT = 1 << 16  # elements of a constant folded here (a gate's splat: a few hundred)
# A single step costs about what the lookup costs (0.8 us on 32 elements: `take` converts
# its 16-bit indices first; a lone conversion's two casts cost 0.6 us and run vectorized
# on large arrays); but a bf16 logistic is exp and four more numpy calls
# (specialize_narrow._logistic).
_MIN_STEPS = 2
_LONE = frozenset({"stablehlo.logistic"})
# Elements or calls before a table is made (it costs 1-12 ms: libm.tabulated's policy).
TABLE_AFTER, TABLE_CALLS = 1 << 16, 256


def _float_shape(value: Value) -> tuple[int, ...] | None:
    """The static, non-empty shape of a float tensor value, else None."""
    t = value.type
    if not isinstance(t, TensorType) or not t.is_static or not t.shape \
            or not is_float(t.element):
        return None
    return tuple(t.shape)


def _narrow(value: Value) -> bool:
    """A bf16/f16 tensor (65536 bit patterns) that numpy holds in two bytes."""
    t = value.type
    if not isinstance(t, TensorType) or not is_float(t.element):
        return False
    try:
        dtype = numpy_dtype(t.element)
    except Exception:  # noqa: BLE001 - a type numpy cannot hold
        return False
    return dtype.itemsize == 2


def _constants(steps: Sequence[Any]) -> dict[Value, np.ndarray]:
    """Values of the constant steps and of broadcasts and reshapes of them."""
    known: dict[Value, np.ndarray] = {}
    quiet, loud = switches()
    for step in steps:
        op = step.op
        if (op.name not in _FOLDED or op.regions or len(op.results) != 1
                or any(v not in known for v in op.operands)):
            continue
        t = op.results[0].type
        if not isinstance(t, TensorType) or not t.is_static or math.prod(t.shape) > _FOLD_LIMIT:
            continue
        token = quiet()
        try:
            value = step.fn(*[known[v] for v in op.operands])
        except Exception:  # noqa: BLE001 - it fails at run time instead, and is reported
            continue
        finally:
            loud(token)
        if isinstance(value, np.ndarray):
            known[op.results[0]] = value
    return known


def _splat(value: np.ndarray | None, shape: tuple[int, ...]) -> bool:
    """`value` has `shape` and holds one non-NaN value everywhere, bit for bit."""
    if (value is None or value.shape != shape or not value.size
            or value.dtype.itemsize not in (1, 2, 4, 8)):
        return False
    flat = value.reshape(-1)
    words = flat.view(np.dtype(f"u{value.dtype.itemsize}"))
    return bool((words == words[0]).all()) and bool(flat[0] == flat[0])


def _link(step: Any, known: dict[Value, np.ndarray]) -> tuple[Value, int | None] | None:
    """(the variable operand, the splat constant's position or None) of a step that may
    be part of a chain, else None."""
    op = step.op
    if op.regions or len(op.results) != 1 or op.successors:
        return None
    shape = _float_shape(op.results[0])
    if shape is None or math.prod(shape) >= CHAIN_MIN:  # (blocked.py runs those by blocks)
        return None
    operands = op.operands
    if op.name in _UNARY and len(operands) == 1:
        return (operands[0], None) if _float_shape(operands[0]) == shape else None
    if op.name not in _BINARY or len(operands) != 2:
        return None
    for position in (0, 1):
        other = operands[1 - position]
        if (other not in known and _float_shape(other) == shape
                and _splat(known.get(operands[position]), shape)):
            return other, position
    return None


def fuse_chains(steps: Sequence[Any], kept: set[Value],
                make_step: Callable[[Kernel, Operation], Any]) -> list[Any]:
    """`steps` with each chain (module docstring) of at least _MIN_STEPS steps replaced by
    one step (`make_step(kernel, op)`) at its last step's place; values in `kept` (read
    after the block or by its regions) end a chain."""
    known = _constants(steps)
    readers: dict[Value, int] = {}
    for step in steps:
        for v in step.op.operands:
            readers[v] = readers.get(v, 0) + 1
    chain_of: dict[Value, list[int]] = {}  # a chain's last result -> its steps
    links: dict[int, tuple[Value, int | None]] = {}
    for i, step in enumerate(steps):
        found = _link(step, known)
        if found is None:
            continue
        x = found[0]
        chain = chain_of.get(x)
        if chain is not None and readers.get(x) == 1 and x not in kept:
            del chain_of[x]
            chain.append(i)
        elif _narrow(x):
            chain = [i]
        else:
            continue
        links[i] = found
        chain_of[step.op.results[0]] = chain
    chains = {c[-1]: c for c in chain_of.values()
              if len(c) >= _MIN_STEPS or steps[c[0]].op.name in _LONE}
    if not chains:
        return list(steps)
    inner = {i for c in chains.values() for i in c[:-1]}
    out: list[Any] = []
    for i, step in enumerate(steps):
        if i in inner:
            continue
        chain = chains.get(i)
        if chain is None:
            out.append(step)
            continue
        parts = []
        for k in chain:
            position = links[k][1]
            constant = None if position is None else known[steps[k].op.operands[position]]
            parts.append((steps[k].fn, position, constant))
        last = step.op
        x = links[chain[0]][0]
        dtype = numpy_dtype(x.type.element)  # type: ignore[attr-defined]
        op = Operation(TABLE_CHAIN, [x], [last.results[0].type], location=last.location)
        op.results = [last.results[0]]
        out.append(make_step(tabulated_chain(_run_chain(parts), dtype), op))
    return out


def tabulated_chain(chain: Kernel, dtype: np.dtype) -> Kernel:
    """`chain` on arrays of the 16-bit `dtype`, from a table of its results on all 65536
    bit patterns once asked for that many elements or TABLE_CALLS times. The table is
    checked against the call that makes it (the chain's own result on that call's
    operand); a chain that fails on the table's array, or differs, is never tabulated."""
    table: np.ndarray | None = None
    seen = calls = 0
    array, u16 = np.ndarray, np.dtype(np.uint16)

    def kernel(x: Any) -> Any:
        nonlocal table, seen, calls
        if table is not None and x.__class__ is array and x.dtype == dtype:
            return table.take(x.view(u16))
        result = chain(x)
        if table is None and x.__class__ is array and x.dtype == dtype and x.ndim:
            seen += x.size
            calls += 1
            if seen >= TABLE_AFTER or calls >= TABLE_CALLS:
                table = _table(chain, dtype, x, result)
                if table is None:
                    seen = calls = -(1 << 62)  # never again
        return result
    return kernel


def _table(chain: Kernel, dtype: np.dtype, x: np.ndarray, result: Any) -> np.ndarray | None:
    """`chain`'s results on every bit pattern of `dtype`, if they agree with `result`
    (chain(x)) bit for bit; else None."""
    quiet, loud = switches()
    token = quiet()
    try:
        table = chain(np.arange(1 << 16, dtype=np.uint16).view(dtype))
        if (not isinstance(table, np.ndarray) or table.shape != (1 << 16,)
                or not isinstance(result, np.ndarray) or table.dtype != result.dtype):
            return None
        again = table.take(x.view(np.uint16))
    except Exception:  # noqa: BLE001 - a kernel of fixed shapes: the chain stays as it is
        return None
    finally:
        loud(token)
    if again.shape != result.shape or again.tobytes() != result.tobytes():
        return None
    table.flags.writeable = False
    return table


def _run_chain(parts: list[tuple[Kernel, int | None, np.ndarray | None]]) -> Kernel:
    """The chain's steps one after the other on `x`; a splat constant is passed as the
    step received it, or (for the table's array of every bit pattern) as that many
    copies of its value."""

    def chain(x: Any) -> Any:
        for fn, position, constant in parts:
            if position is None:
                x = fn(x)
                continue
            assert constant is not None
            if getattr(x, "shape", None) != constant.shape:
                constant = np.repeat(constant.reshape(-1)[:1], np.size(x)).reshape(np.shape(x))
            x = fn(constant, x) if position == 0 else fn(x, constant)
        return x
    return chain
