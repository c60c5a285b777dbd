"""A `while` loop as one generated Python function (codegen.py's plans, one level up).

Run through its region callables, each iteration of a loop calls the condition's plan and
the body's plan: two closures, two `_run_plan` entries with their checks, two generated
functions each unpacking its arguments and building a result list, and the evaluator's own
loop around them, about a microsecond per iteration; a scalar RNN step's kernels cost little
more. Here the condition's and the body's steps are lines of one function: the loop-carried
values are its local variables (the body's results assigned to them), the condition is a
local test, values of enclosing blocks are read from the environment once per execution of
the loop. What the region callables did per iteration stays: the stop and deadline checks
(`tick`, before each run of the body: one test per iteration covers them and the cap when
neither is set), the iteration cap (read once per execution, as the evaluator reads it), the
loop-invariant ops (licm.py) evaluated once per execution right after the condition first
holds. Every step is on its own line, so a failing one is found from the traceback
(`CompiledBlock.step_at`); the loop's own checks are on lines of no step, so their errors
stay the while op's.

0-d carried values every use of which takes one are Python scalars for the whole loop
(pyscalar.py: converted once on entry, back on exit), and so are the 0-d steps computing
from them; the function's globals are its keyword defaults (locals: cheaper to read).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..ir.core import Block, Value
from .codegen import _MODULE, CompiledBlock, Source, block_code, captured_values
from .pyscalar import kind_of


class Region:
    """What a planned single-block region gives the loop: its block, block arguments,
    bound steps and terminator operands."""

    __slots__ = ("block", "arguments", "steps", "terminator")

    def __init__(self, block: Block, arguments: Sequence[Value], steps: Sequence[Any],
                 terminator: Sequence[Value]) -> None:
        self.block = block
        self.arguments = arguments
        self.steps = steps
        self.terminator = terminator


def compile_loop(cond: Region, body: Region, early: Callable[..., None] | None,
                 interpreter: Any, tick: Callable[[], None], cap: Callable[[], int | None],
                 over: Callable[[int], None]) -> CompiledBlock:
    """`run(frame, operands)` -> the loop's results (one bare, several as a tuple, as the
    while evaluator returns them). `early(frame, operands)` evaluates the loop invariants;
    `tick()` raises when the run must stop (checked when `interpreter.stop` or
    `interpreter.deadline` is set); `cap()` is the iteration cap, `over(cap)` raises the
    cap's error."""
    ns: dict[str, Any] = {"__name__": _MODULE, "I": interpreter, "TICK": tick, "CAP": cap,
                          "OVER": over, "EARLY": early}
    n = len(body.arguments)
    names = [f"a{i}" for i in range(n)]
    slots = _scalar_slots(cond, body)
    while True:  # drop the carried values some use of which needs a numpy value
        test = block_code(cond.arguments, names, cond.steps, cond.terminator, cond.block,
                          True, ns, "c_", slots, (0,))
        step = block_code(body.arguments, names, body.steps, body.terminator, body.block,
                          True, ns, "w_", slots, slots)
        kept = {i for i in test.scalar_args & step.scalar_args if step.clean_returned[i]}
        if kept == slots:
            break
        slots = kept
    carried = ", ".join(names)
    out = list(names)  # the results: Python scalars converted back
    kinds = {i: kind for i in slots if (kind := kind_of(body.arguments[i])) is not None}
    for i, kind in kinds.items():
        ns[f"_N{kind.dtype.name}"] = kind.to_numpy
        out[i] = f"_N{kind.dtype.name}({names[i]})"
    result = out[0] if n == 1 else f"({', '.join(out)})"
    src = Source("def loop(frame, args):")
    if n:
        src.add(f"{carried}{',' if n == 1 else ''} = args", 1)
    for i in sorted(slots):
        to_py = kinds[i].to_py.__name__
        src.add(f"{names[i]} = {to_py}({names[i]})", 1)
    # set before a run starts (run.py, parallel.py): read once per execution of the loop
    src.add("checked = I.stop is not None or I.deadline is not None", 1)
    src.add("if checked:", 1)
    src.add("TICK()", 2)
    for line in test.outer:
        src.add(line, 1)

    def condition(indent: int, first: bool = False) -> None:
        for line in test.entry:
            src.add(line, indent)
        for line, s in test.lines:
            src.add(line, indent, s)
        src.add(f"if not {test.returned[0]}:", indent)
        # the operands themselves: a converted scalar may have lost a signalling NaN's bit
        src.add(f"return {'args[0]' if n == 1 else 'tuple(args)'}" if first and slots
                else f"return {result}", indent + 1)

    condition(1, True)
    if early is not None:
        src.add("EARLY(frame, args)", 1)
    for line in step.outer:  # after EARLY: the invariants it stores are among them
        src.add(line, 1)
    src.add("cap = CAP()", 1)
    src.add("count = 0", 1)
    src.add("guarded = checked or cap is not None", 1)  # one test per iteration when not
    src.add("while True:", 1)
    src.add("if guarded:", 2)
    src.add("count += 1", 3)
    src.add("if cap is not None and count > cap:", 3)
    src.add("OVER(cap)", 4)
    src.add("if checked:", 3)
    src.add("TICK()", 4)
    for line in step.entry:
        src.add(line, 2)
    for line, s in step.lines:
        src.add(line, 2, s)
    if n:
        changed = [k for k in range(n) if step.returned[k] != names[k]]  # (not passed on)
        if changed:
            src.add(f"{', '.join(names[k] for k in changed)} = "
                    f"{', '.join(step.returned[k] for k in changed)}", 2)
        # the body's names of the carried values go: a carried array is then held by its
        # loop variable alone (a kernel may update it in place at its last use)
        stale = [name for name in dict.fromkeys(step.returned) if name in step.locals]
        if stale:
            src.add(f"del {', '.join(stale)}", 2)
    condition(2)
    return src.compile(ns, "loop", n, local=True)


def _scalar_slots(cond: Region, body: Region) -> set[int]:
    """The carried values that may be Python scalars (pyscalar.py): 0-d of a held kind in
    both regions, read by no nested region, not passed on unchanged by the body."""
    captured = captured_values(cond.block) | captured_values(body.block)
    slots = set()
    for i, (c, b) in enumerate(zip(cond.arguments, body.arguments, strict=True)):
        kind = kind_of(b)
        if (kind is not None and kind is kind_of(c) and c not in captured and b not in captured
                and body.terminator[i] is not b):  # (passed on as it is: left alone)
            slots.add(i)
    return slots
