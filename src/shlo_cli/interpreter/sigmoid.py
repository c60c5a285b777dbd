"""A sigmoid written out as its four ops, 1 / (1 + exp(-x)), as one kernel call.

Keras's gates (and jax code that spells the sigmoid out) give a loop step a negate, an
exponential, an add of a splat 1 and a divide of a splat 1 by that sum, each result read
only by the next. As four steps they cost four generated lines: a negate ufunc, the
exponential's kernel (its double guess rounded to f32; in a speculating loop, the guess
kept for speculate.py's test), and two ufuncs behind splat.py's layout tests. As one
kernel (`chain_kernel`) the same values come from the same numpy calls with less around
them; its `speculative` form (what a speculating loop calls) also negates the double
copy of x instead of x (negation is exact in any width: the guess is bit for bit the one
the exponential's own speculative form makes of -x), and adds and divides into the
rounded exponential, a fresh array of the kernel's own that nothing else holds.

Where the code generator knows the operand C-contiguous (interpreter/layouts.py) it takes
the kernel's `contiguous` form, whose speculative work a speculating loop writes out as
the line's own calls (`written`: no call around them, no layout test).

Each f32 result is the four ops' own: the negate and the exponential are those steps'
kernels (a doubtful guess is redone by the exponential's kernel on -x: libm_f32.all_sure),
the add and the divide are those steps' ufuncs with the same 0-d splat operands splat.py
passes, in their operand order, on C-contiguous arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ..dialects.libm_f32 import SMALL
from ..dialects.quiet import quieted
from ..ir.core import Value
from ..ir.types import TensorType, element_type
from .splat import splat_scalar

Kernel = Callable[..., Any]


def sigmoid_chains(steps: Sequence[Any], fold: Callable[[Any, dict[Value, Any]], Any],
                   kept: Collection[Value], captured: Collection[Value],
                   skipped: Collection[int]) -> dict[int, tuple[Kernel, list[int]]]:
    """Negate steps that start a chain negate -> exponential -> add of a splat 1 ->
    divide of a splat 1 by the sum, on f32 tensors of a static nonempty shape: negate
    index -> (the chain's kernel, the other three's indices). Every link's result is read
    by the next step alone (and not `kept`), the last one's by no nested region
    (`captured`); the exponential's kernel has a speculative form; no step is `skipped`
    (another emitter's). `fold(step, known)`: the step's constant value
    (codegen._fold), found in step order."""
    if not any(step.op.name == "stablehlo.negate" for step in steps):
        return {}
    consts: dict[Value, Any] = {}
    for step in steps:
        value = fold(step, consts)
        if value is not None:
            consts[step.op.results[0]] = value
    uses: dict[Value, list[int]] = {}
    for i, step in enumerate(steps):
        for v in step.op.operands:
            uses.setdefault(v, []).append(i)

    def reader(i: int) -> int | None:
        """The one step reading step i's one result, None if not exactly one."""
        results = steps[i].op.results
        if len(results) != 1 or results[0] in kept:
            return None
        found = uses.get(results[0], [])
        return found[0] if len(found) == 1 and found[0] not in skipped else None

    found: dict[int, tuple[Kernel, list[int]]] = {}
    for i, step in enumerate(steps):
        if (step.op.name != "stablehlo.negate" or step.fn is not np.negative or i in skipped
                or not small_f32(step.op.results[0])):
            continue
        e = reader(i)
        if e is None or steps[e].op.name != "stablehlo.exponential" or not callable(
                getattr(getattr(steps[e].fn, "unquieted", None), "speculative", None)):
            continue
        a = reader(e)
        if a is None or steps[a].fn is not np.add:
            continue
        at = _one_at(steps[a], consts)
        d = reader(a) if at is not None else None
        if (d is not None and at is not None and steps[d].fn is np.divide
                and _one_at(steps[d], consts) == 0
                and steps[d].op.operands[1] is steps[a].op.results[0]
                and steps[d].op.results[0] not in captured):
            found[i] = (chain_kernel(steps[e].fn, at, consts[steps[a].op.operands[at]],
                                     consts[steps[d].op.operands[0]]), [e, a, d])
    return found


def small_f32(value: Value) -> bool:
    """A static f32 tensor of rank >= 1 with 1 to libm_f32.SMALL elements."""
    t = value.type
    return (isinstance(t, TensorType) and t.is_static and len(t.shape) > 0
            and 0 < t.num_elements <= SMALL and str(element_type(t)) == "f32")


def _one_at(step: Any, consts: Mapping[Value, Any]) -> int | None:
    """The operand position of a binary step's splat constant 1.0 (its other operand not
    a constant), else None."""
    operands = step.op.operands
    if len(operands) != 2:
        return None
    for at in (0, 1):
        one = splat_scalar(consts.get(operands[at]))
        if (one is not None and one.dtype == np.float32 and one == 1
                and operands[1 - at] not in consts):
            return at
    return None


def chain_kernel(exp: Kernel, add_at: int, added: np.ndarray, divided: np.ndarray) -> Kernel:
    """x -> 1 / (1 + exp(-x)) as the four steps compute it: `exp` the exponential's
    kernel, the add's splat constant `added` (at operand position `add_at`), the divide's
    `divided`; their 0-d 1 where the other operand is C-contiguous (splat.py)."""
    one = splat_scalar(added)
    assert one is not None  # (sigmoid_chains: a splat)
    exact = exp.unquieted  # type: ignore[attr-defined]
    speculative = exact.speculative
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    array, negative, add, divide = np.ndarray, np.negative, np.add, np.divide
    guess = speculative.plain  # (the exponential's double function)

    def redo(x: np.ndarray) -> np.ndarray:  # (libm_f32.all_sure: the exponential of -x)
        return exact(negative(x))  # type: ignore[no-any-return]

    def summed(e: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        if add_at == 0:
            return add(one, e, out)  # type: ignore[no-any-return]
        return add(e, one, out)  # type: ignore[no-any-return]

    def unquieted(x: Any) -> Any:
        """The four steps' kernels, numpy's errors ignored already."""
        e = exact(negative(x))
        if e.__class__ is not array or not e.flags.c_contiguous:  # (splat.py's test)
            e = add(added, e) if add_at == 0 else add(e, added)
        else:
            e = summed(e)
        if e.__class__ is not array or not e.flags.c_contiguous:
            return divide(divided, e)
        return divide(one, e)

    def chained(kept: list[Any], x: Any) -> Any:
        """`unquieted(x)` with the exponential's guess kept for speculate.py's test."""
        if (x.__class__ is not array or x.dtype != f32 or not 0 < x.size <= SMALL
                or not x.ndim or not x.flags.c_contiguous):  # (then so is e below)
            return unquieted(x)
        g = x.astype(f64)
        negative(g, g)
        guess(g, g)
        kept.append((redo, x, g))
        e = g.astype(f32)  # (C-contiguous: x's shape, fresh)
        return divide(one, summed(e, e), e)

    def written(indent: str, y: str, x: str, kernel: str, ns: dict[str, Any]) -> str:
        """`y = chained(G, x)` for a C-contiguous x as a generated line: its calls on the
        path such an x takes (the static type's dtype and size), no call around them."""
        ns[f"{kernel}N"], ns[f"{kernel}P"], ns[f"{kernel}A"] = negative, guess, add
        ns[f"{kernel}D"], ns[f"{kernel}R"], ns[f"{kernel}O"] = divide, redo, one
        ns["_F32"], ns["_F64"] = f32, f64
        summed = (f"{kernel}A({kernel}O, {y}, {y})" if add_at == 0
                  else f"{kernel}A({y}, {kernel}O, {y})")
        return (f"{indent}_g = {x}.astype(_F64); {kernel}N(_g, _g); {kernel}P(_g, _g); "
                f"G.append(({kernel}R, {x}, _g)); {y} = _g.astype(_F32); {summed}; "
                f"{kernel}D({kernel}O, {y}, {y})")

    def contiguous(x: Any) -> Any:
        """`unquieted` for a C-contiguous operand (interpreter/layouts.py knows it one)."""
        return unquieted(x)

    def contiguous_chained(kept: list[Any], x: Any) -> Any:
        """`chained`, whose work a speculating loop may write out (`written`)."""
        return chained(kept, x)

    unquieted.speculative = chained  # type: ignore[attr-defined]
    contiguous.speculative = contiguous_chained  # type: ignore[attr-defined]
    contiguous_chained.written = written  # type: ignore[attr-defined]
    kernel = quieted(unquieted)
    kernel.contiguous = quieted(contiguous)  # type: ignore[attr-defined]
    return kernel
