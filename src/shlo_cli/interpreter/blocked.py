"""Chains of elementwise ops over large tensors, run a block of rows at a time.

A chain such as jax.random's threefry rounds (add, shift, shift, or, xor, ... on 1M uint32)
or an activation (negate, exp, add, divide, multiply) run op by op streams every
intermediate tensor through memory: each op reads and writes megabytes that no cache holds.
Run on `BLOCK` elements at a time, the intermediates of a block stay in the cache and only
the chain's inputs and the results used after it touch memory (measured: twenty uint32 ops
over 1M elements 3x faster; jax.random.uniform over 1M, 98 -> ~60 ms).

Every op of a chain is elementwise and its kernel works on any slice (numpy ufuncs, or
kernels marked `blockwise`), so each element is computed by the same kernel from the same
operand elements: the results are the op-by-op results, bit for bit. A chain is a run of
consecutive steps whose results all have one static shape of at least `CHAIN_MIN` elements,
whose operands are results of the chain, values of that same shape, or 0-d values; blocks
split the leading axis. `chain_lines` writes a chain's generated code (codegen.py).
A ufunc step reads a splat constant of the chain's shape (jax's erf polynomial has a dozen
coefficients, each folded to a whole tensor) as its 0-d element beside a block, as splat.py
argues for single ops: no block of the constant is sliced out and read (erf-GELU over
256x512 f32: ~1.6 -> ~1.5 ms).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ir.core import Value
from ..ir.types import TensorType, numpy_dtype
from .splat import splat_constant

CHAIN_MIN = 1 << 17  # elements: below, one op's tensors stay in the cache anyway
BLOCK = 1 << 14  # elements per block (rows of the leading axis rounded down, at least one)


def blockable(fn: Any) -> bool:
    """Whether a kernel computes each element from the same elements of its operands,
    whatever their shape: numpy's ufuncs and kernels marked `blockwise`."""
    return isinstance(fn, np.ufunc) or getattr(fn, "blockwise", False)


# Pure ops whose small results may be computed before a chain they sit in (a rotation's
# `32 - r`, a key word sliced out): moving them changes nothing a program can observe.
_SCALAR_PURE = frozenset("stablehlo." + name for name in (
    "constant", "slice", "reshape", "convert", "add", "subtract", "multiply", "and", "or",
    "xor", "negate", "broadcast_in_dim", "maximum", "minimum", "compare", "select"))

ELEMENTWISE, SCALAR_BROADCAST, SCALAR = "elementwise", "broadcast", "scalar"
_SMALL = 16  # elements: results this small (scalars, a key word sliced out) count as scalar


def _shape(value: Value) -> tuple[int, ...] | None:
    t = value.type
    if isinstance(t, TensorType) and t.is_static:
        return tuple(t.shape)
    return None


def _large_shape(step: Any) -> tuple[int, ...] | None:
    """The result shape of a single-result step, when it is large enough for a chain."""
    op = step.op
    if len(op.results) != 1 or op.regions:
        return None
    shape = _shape(op.results[0])
    if shape is None or len(shape) == 0 or shape[0] < 2 or math.prod(shape) < CHAIN_MIN:
        return None
    try:
        numpy_dtype(op.results[0].type.element)  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 - a type numpy cannot hold: no chain
        return None
    return shape


def _kind(step: Any, shape: tuple[int, ...] | None, inside: set[Value]) -> str | None:
    """How a step can take part in a chain over `shape` (None: it ends the chain)."""
    op = step.op
    small = _shape(op.results[0]) if len(op.results) == 1 and not op.regions else None
    if small is not None and math.prod(small) <= _SMALL:
        if op.name in _SCALAR_PURE and not any(v in inside for v in op.operands):
            return SCALAR
        return None
    if shape is None or _large_shape(step) != shape:
        return None
    if op.name == "stablehlo.broadcast_in_dim" and _shape(op.operands[0]) == ():
        return SCALAR_BROADCAST
    if blockable(step.fn) and all(v in inside or _shape(v) in (shape, ())
                                  for v in op.operands):
        return ELEMENTWISE
    return None


def find_chains(steps: Sequence[Any]) -> dict[int, tuple[int, list[str]]]:
    """{first step index: (one past the last, each step's kind)} for every chain with at
    least two elementwise steps."""
    chains: dict[int, tuple[int, list[str]]] = {}
    i = 0
    while i < len(steps):
        shape = _large_shape(steps[i])
        if shape is None or _kind(steps[i], shape, set()) != ELEMENTWISE:
            i += 1
            continue
        inside: set[Value] = set()
        kinds: list[str] = []
        end = i
        while end < len(steps):
            kind = _kind(steps[end], shape, inside)
            if kind is None:
                break
            kinds.append(kind)
            if kind != SCALAR:
                inside.add(steps[end].op.results[0])
            end += 1
        while kinds and kinds[-1] != ELEMENTWISE:  # (trailing scalars stay outside)
            kinds.pop()
            end -= 1
        if kinds.count(ELEMENTWISE) >= 2:
            chains[i] = (end, kinds)
        i = max(end, i + 1)
    return chains


def rows_per_block(shape: tuple[int, ...]) -> int:
    """Rows of the leading axis in one block (at least one)."""
    return max(1, BLOCK // max(1, math.prod(shape[1:])))


def _splat_operands(step: Any, inner: dict[Value, str]) -> dict[int, np.ndarray]:
    """{operand position: its 0-d element} for a ufunc step's splat constants of the
    chain's shape (a polynomial's coefficients, jax's `x * 0.5`), when another operand
    is a block: the ufunc computes every element from the same two values, the block's
    shape is the result's, and the constant's block is not sliced out and read."""
    if not isinstance(step.fn, np.ufunc):
        return {}
    operands = step.op.operands
    splats = {k: s for k, v in enumerate(operands)
              if v not in inner and v.type.rank and (s := splat_constant(v)) is not None}
    if not any(k not in splats and (v in inner or v.type.rank)
               for k, v in enumerate(operands)):
        return {}
    return splats


def result_dtype(step: Any) -> np.dtype:
    """The numpy type of a chain step's result (the array its blocks are written into)."""
    return numpy_dtype(step.op.results[0].type.element)


DEL_LIMIT = 1 << 12
"""Elements from which generated code deletes a step's local once it is dead (memory)."""


def large_value(value: Value) -> bool:
    """A static tensor of at least DEL_LIMIT elements."""
    t = value.type
    return isinstance(t, TensorType) and t.is_static and math.prod(t.shape) >= DEL_LIMIT


def chain_lines(steps: Sequence[Any], start: int, end: int, kinds: list[str],
                 names: dict[Value, str], ref: Callable[[Value], str], ns: dict[str, Any],
                 last: dict[Value, int], kept: set[Value], captured: set[Value],
                 p: str, step_names: set[str]) -> list[tuple[str, Any]]:
    """Steps start..end-1 as one loop over blocks of rows (blocked.py). Scalar steps run
    first; a broadcast of a scalar is the scalar itself inside the loop; results used after
    the chain are written block by block into arrays allocated first, the others live one
    block at a time. `p` prefixes every name the block's code defines."""
    chain = list(enumerate(steps[start:end], start))
    shape = tuple(steps[start].op.results[0].type.shape)
    rows = rows_per_block(shape)
    inner: dict[Value, str] = {}  # chain values as the loop names them
    lines: list[tuple[str, Any]] = []
    outputs = []

    def call(i: int, step: Any, args: list[str]) -> str:
        ns[f"{p}K{i}"] = step.fn
        return f"{p}K{i}({', '.join(args)})"

    for (i, step), kind in zip(chain, kinds, strict=True):
        result = step.op.results[0]
        live = result in kept or last.get(result, -1) >= end
        if kind == SCALAR or (kind == SCALAR_BROADCAST and live):
            names[result] = f"{p}v{i}"
            step_names.add(names[result])
            lines.append((f"{p}v{i} = {call(i, step, [ref(v) for v in step.op.operands])}",
                          step))
        if kind == SCALAR_BROADCAST:  # a 0-d array, as kernels get a broadcast view
            lines.append((f"{p}b{i} = _asarray({ref(step.op.operands[0])})", step))
            inner[result] = f"{p}b{i}"
        elif kind == ELEMENTWISE:
            inner[result] = f"{p}t{i}"
            if live:
                outputs.append(i)
                ns[f"{p}D{i}"] = result_dtype(step)
                lines.append((f"{p}v{i} = _empty({shape!r}, {p}D{i})", step))
    ns["_empty"], ns["_asarray"] = np.empty, np.asarray
    lines.append((f"for _s in range(0, {shape[0]}, {rows}):", steps[start]))
    for (i, step), kind in zip(chain, kinds, strict=True):
        if kind != ELEMENTWISE:
            continue
        args = []
        splats = _splat_operands(step, inner)
        for k, v in enumerate(step.op.operands):
            if v in inner:
                args.append(inner[v])
            elif v.type.rank == 0:  # type: ignore[attr-defined]
                args.append(ref(v))
            elif k in splats:
                ns[f"{p}z{i}_{k}"] = splats[k]
                args.append(f"{p}z{i}_{k}")
            else:
                args.append(f"{ref(v)}[_s:_s + {rows}]")
        target = f"{p}t{i} = {p}v{i}[_s:_s + {rows}]" if i in outputs else f"{p}t{i}"
        lines.append((f"    {target} = {call(i, step, args)}", step))
    after = []
    for i in outputs:
        result = steps[i].op.results[0]
        names[result] = f"{p}v{i}"
        step_names.add(names[result])
    for i, step in chain:
        result = step.op.results[0]
        if result in captured and result in names:
            ns[f"{p}R{i}"] = result
            after.append(f"frame[{p}R{i}] = {names[result]}")
    dead = {names[v] for _, step in chain for v in step.op.operands
            if start <= last.get(v, -1) < end and v not in kept and large_value(v)
            and v in names and names[v] in step_names}
    if dead:
        after.append(f"del {', '.join(sorted(dead))}")
    if after:
        lines.append(("; ".join(after), steps[end - 1]))
    return lines
