"""What a block's generated lines know of their values' memory layout, decided once.

A recurrent step is a score of numpy calls on a few dozen elements each, where a call
costs some 200 ns whatever its size and every Python test around it 20-60 ns more. Several
of those tests ask, per step, what the code generator can tell once:

- a slice's view is what `_fresh` returns when it is C-contiguous and writeable (the
  generated line tests both flags); it is, for a C-contiguous writeable source, exactly
  when the window keeps the source's strides contiguous, which the static shapes decide;
- a splat constant goes to a ufunc as a 0-d array when the other operand is C-contiguous
  (splat.py tests it per run);
- a sigmoid's guess is written out when its operand is C-contiguous (sigmoid.py);
- a ufunc's result may go into the buffer of a temporary that dies at that step (out=:
  no allocation), when that buffer is the temporary's own and nothing else can read it.

`contiguous` values are C-contiguous, writeable arrays whatever the operands: a slice
line's result (the view when it is so, else `_fresh`'s copy), a row read's (the row
kernel's view of a C-strided sequence, else its copy), and a ufunc's, sigmoid's or
owned temporary's result of at most one dimension longer than 1 (numpy allocates a
result contiguously in some order of the dimensions, and with one non-unit dimension
every order is C-contiguous). `owned` values are such ufunc results: a fresh buffer only
their name refers to. A buffer is reused only when every read of its value is by a
generated ufunc line (which keeps no reference: no view of it, no speculative kernel
keeping its operand for a later test) and the value is not kept past the block.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from ..ir.core import Value
from ..ir.types import TensorType, element_type, is_float


def row_like(value: Value) -> bool:
    """A static nonempty tensor of rank >= 1 with at most one dimension longer than 1."""
    t = value.type
    return (isinstance(t, TensorType) and t.is_static and len(t.shape) > 0
            and 0 not in t.shape and sum(1 for d in t.shape if d > 1) <= 1)


def window_keeps_contiguous(shape: Sequence[int], window: Sequence[slice],
                            result: Sequence[int]) -> bool:
    """Whether `x[window]` of a C-contiguous x of `shape` is C-contiguous (numpy's flag:
    strides of unit dimensions do not count): the view's strides, in elements, are the
    source's C strides times the window's steps, tested as numpy tests them."""
    if 0 in result:
        return True
    strides, size = [], 1
    for d in reversed(shape):
        strides.append(size)
        size *= d
    strides.reverse()
    expected = 1
    for d in reversed(range(len(result))):
        if result[d] != 1:
            if strides[d] * (window[d].step or 1) != expected:
                return False
            expected *= result[d]
    return True


class Layouts:
    """The layout facts of one block's lines, gathered as they are generated."""

    __slots__ = ("reads", "kept", "contiguous", "owned", "ufunc_reads")

    def __init__(self, steps: Sequence[Any], kept: Collection[Value]) -> None:
        self.reads: Counter[Value] = Counter(v for step in steps for v in step.op.operands)
        self.kept = kept
        self.contiguous: set[Value] = set()
        self.owned: set[Value] = set()
        self.ufunc_reads: Counter[Value] = Counter()

    def slice_line(self, step: Any, kernel: str, ref: Callable[[Value], str],
                   ns: dict[str, Any]) -> str | None:
        """For a slice step (whose result is contiguous: the view where it is so, else
        the kernel's copy), of an operand known contiguous: its expression, the view
        itself or the `kernel`'s call as the static window decides; else None."""
        window = getattr(step.fn, "window", None)
        if window is None or len(step.op.operands) != 1 or len(step.op.results) != 1:
            return None
        operand, result = step.op.operands[0], step.op.results[0]
        self.contiguous.add(result)
        if operand not in self.contiguous:
            return None
        x = ref(operand)
        if not window_keeps_contiguous(operand.type.shape, window, result.type.shape):
            return f"{kernel}({x})"
        ns[f"{kernel}W"] = window
        return f"{x}[{kernel}W]"

    def ufunc_line(self, step: Any, names: dict[Value, str], locals_: Collection[str],
                   aliased: Collection[str]) -> str | None:
        """Record a step computed by its kernel called on its operands (steps are
        recorded in order), if that is a bare ufunc; the name of an operand whose buffer
        takes the result (out=), if one may: an owned float temporary of the result's
        type, not kept, every read of which is by a ufunc line and none after this one,
        under a name of the block's `locals_` no other value shares."""
        op = step.op
        if not bare_ufunc(step.fn) or len(op.results) != 1:
            return None
        self.ufunc_reads.update(op.operands)
        result = op.results[0]
        if not row_like(result):
            return None
        self.contiguous.add(result)
        self.owned.add(result)
        t = result.type
        if not is_float(element_type(t)) or any(
                element_type(v.type) != element_type(t) for v in op.operands):
            return None
        for v in op.operands:
            if (v in self.owned and v not in self.kept and v.type == t
                    and names.get(v) in locals_ and names[v] not in aliased
                    and self.ufunc_reads[v] == self.reads[v]):
                return names[v]
        return None


def bare_ufunc(fn: Any) -> bool:
    """A numpy ufunc of one output (its call with out= writes that buffer)."""
    return isinstance(fn, np.ufunc) and fn.nout == 1
