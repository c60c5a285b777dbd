"""A loop whose libm kernels skip their sureness test per step, tested in batches.

The correctly rounded f32 kernel of a small array (dialects/libm_f32.py) costs seven
numpy calls: a double guess, then a test that the C library's result rounds as the guess
does (two more roundings and a subtraction), some 2 us whatever the size; rounding the
guess is three calls. A recurrent step computes a handful of these (an RNN's tanh, an
LSTM's gates), so the test is most of its time. Here the loop runs first with each such
kernel's `speculative` form, which rounds the guess once and keeps it; every `EVERY`
steps and at the end, the kept guesses are tested in one pass (`libm_f32.all_sure`).
Where all are sure, each result is the kernel's bit for bit, and the loop's state at that
step becomes the checkpoint. Where one is not, the loop runs again, exactly (the plain
generated loop), from the last checkpoint: the state the exact run has there, since every
result before it was the kernel's. A speculative run that raises runs again exactly from
the loop's operands, so errors (and their places) are the exact run's.

Only loops whose ops are free of effects are run so (a run may be repeated), and only
when no stop, deadline or iteration cap is set (the exact loop checks them as it counts);
a loop whose runs keep only a few guesses runs exactly most of the time (`FEW`).
A checkpoint's arrays are held by the checkpoint, so no kernel writes into them in place
(dialects/stablehlo/in_place.py counts references).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..dialects.libm_f32 import all_sure
from ..dialects.quiet import switches
from ..ir.core import Operation
from .dedupe import MERGED
from .sigmoid import small_f32

EVERY = 128  # steps between tests of the kept guesses (a power of two: `count & mask`)
# A run that kept fewer guesses than FEW saved less than the test costs (an inner loop of
# one or two steps): the next PAUSE runs of that loop are exact ones, then it tries again.
FEW, PAUSE = 4, 15

# ops a repeated run does again with no effect but their results (MERGED: no regions)
_REPEATABLE = MERGED | frozenset("stablehlo." + name for name in (
    "constant return while case if reduce reduce_window dynamic_update_slice scatter "
    "select_and_scatter sort map optimization_barrier rng_bit_generator tuple "
    "get_tuple_element batch_norm_inference convolution fft cholesky triangular_solve "
    "dynamic_iota dynamic_broadcast_in_dim dynamic_pad dynamic_gather dynamic_reshape "
    "real_dynamic_slice get_dimension_size").split())


class _Doubt(Exception):
    """A kept guess was not sure: run again from the checkpoint."""


def repeatable(ops: Iterable[Operation]) -> bool:
    """Whether every op of `ops` (and of their regions, at any depth) may run again."""
    for op in ops:
        if op.name not in _REPEATABLE:
            return False
        for region in op.regions:
            for block in region.blocks:
                if not repeatable(block.operations):
                    return False
    return True


def speculative_kernels(ns: dict[str, Any]) -> dict[str, Callable[..., Any]]:
    """The `speculative` forms of the kernels in `ns` that have one, by name."""
    return {name: fn.speculative for name, fn in ns.items()
            if not name.startswith("_") and callable(getattr(fn, "speculative", None))}


def speculative_source(lines: list[str], names: list[str]) -> list[str]:
    """`lines` with each call of a kernel named in `names` passing the kept guesses `G`
    first (`K3(x)` -> `K3(G, x)`)."""
    if not names:
        return lines
    call = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\(")
    return [call.sub(r"\1(G, ", line) for line in lines]


_CALL = re.compile(r"(\s*)(\w+) = (\w+)\((\w+)\)")


def inline_guesses(lines: list[str], steps: list[Any], guessed: dict[str, Any],
                   ns: dict[str, Any]) -> list[str]:
    """`lines` (each run by `steps`' step, or None) with each line `y = K(x)` of a kernel
    whose speculative form guesses with a double ufunc (`plain`: libm_f32's) written out
    where its step's operand is a small f32 tensor of a static shape: the speculative
    form's own calls on the path such an operand takes (the class, type and size it tests
    are the static type's), the kept guess appended as it appends it; no call around
    them (a recurrent cell's tanh). Their names join `ns`, which holds the kernels'
    exact forms (the kept guesses' kernel)."""
    out = []
    for line, step in zip(lines, steps, strict=True):
        found = _CALL.fullmatch(line)
        form = guessed.get(found.group(3)) if found else None
        plain, written = getattr(form, "plain", None), getattr(form, "written", None)
        if (found is None or (plain is None and written is None) or step is None
                or len(step.op.operands) != 1 or not small_f32(step.op.operands[0])
                or not small_f32(step.op.results[0])):
            out.append(line)
            continue
        indent, y, kernel, x = found.groups()
        if written is not None:  # (its own line: sigmoid.py's of a C-contiguous operand)
            out.append(written(indent, y, x, kernel, ns))
            continue
        ns[f"{kernel}P"], ns[f"{kernel}U"] = plain, ns[kernel]
        ns["_F32"], ns["_F64"] = np.dtype(np.float32), np.dtype(np.float64)
        out.append(f"{indent}_g = {x}.astype(_F64); {kernel}P(_g, _g); "
                   f"G.append(({kernel}U, {x}, _g)); {y} = _g.astype(_F32)")
    return out


def checkpoint(guesses: list[Any], held: list[Any], state: tuple[Any, ...]) -> None:
    """The loop's state at a step's start becomes the checkpoint when every guess kept
    since the last one is sure; else the run stops (`_Doubt`)."""
    if guesses:
        if not all_sure(guesses):
            raise _Doubt
        guesses.clear()
    held[0] = state


def speculating(speculative: Callable[..., Any], exact: Callable[..., Any],
                interpreter: Any, cap: Callable[[], int | None]) -> Callable[..., Any]:
    """`exact(frame, operands)`'s results through `speculative(frame, operands, G, S)`
    (the loop with speculative kernels, kept guesses `G`, checkpoint holder `S`) where no
    check is set (see the module doc)."""
    quiet, loud = switches()
    paused = 0  # exact runs still to do (a loop of few steps; a race only costs time)

    def run(frame: Any, args: Any) -> Any:
        nonlocal paused
        if paused or interpreter.stop is not None or interpreter.deadline is not None or (
                cap() is not None):
            paused = max(paused - 1, 0)
            return exact(frame, args)
        guesses: list[Any] = []
        held: list[Any] = [args]
        token = quiet()
        try:
            out = speculative(frame, args, guesses, held)
            if len(guesses) < FEW and held[0] is args:
                paused = PAUSE
            if not guesses or all_sure(guesses):
                return out
        except _Doubt:
            pass
        except Exception:  # noqa: BLE001 - the exact run raises it again, at its step
            held[0] = args
        finally:
            loud(token)
        return exact(frame, held[0])
    return run
