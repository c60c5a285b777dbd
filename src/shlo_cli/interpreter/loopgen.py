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

Condition steps that compute the same value on every test (they read only carried values
the body passes on unchanged, values of enclosing blocks and constants: a line search's
`f(x)` beside its `f(x + t*d)`) run once per execution of the loop, before its first
test; each later test reads their locals. Only pure ops are moved (dedupe.MERGED, and
reduces whose bodies read nothing else), so the results and any error are the same: the
first test runs them anyway.

0-d carried values every use of which takes one are Python scalars for the whole loop
(pyscalar.py: converted once on entry, back on exit), and so are the 0-d steps computing
from them; the function's globals are its keyword defaults (locals: cheaper to read).
A float converted so may have lost a signalling NaN's bit, so a carried float that the
body passes on as it is (a masked step's `where(i < n, f(h), h)`) or writes out is left a
numpy value; a second version of the loop, run when the carried floats are no NaN on
entry (exact as Python floats), holds them as Python floats too. A carried output vector
that the body only writes element by element is the loop's own copy
(scalar_writes.owned_stacks), and the step's select lines run only the side they pick
(lazy_selects.py). A versioned loop whose condition bounds a counter (ranges.py) is a
`for` statement over the counter's values (the rest of the condition, if any, tested
after each step: exit_tests.py), in two copies: one with the per-step checks,
one for runs that set none; the latter tests its carried floats for NaN at its end, not
per step, where a NaN that matters cannot vanish on the way (`_nan_carriers`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ..dialects.quiet import switches
from ..ir.core import Block, Operation, Value
from .codegen import (
    _MODULE,
    BlockCode,
    CompiledBlock,
    Source,
    block_code,
    captured_values,
    region_reads,
)
from .dedupe import MERGED
from .exit_tests import rest_of_condition
from .fused_writes import fuse_writes
from .lazy_selects import Lines, lazy_selects
from .pyscalar import Kind, kind_of
from .ranges import Bound, cond_bounds, entry_facts
from .scalar_writes import has_nan, item_view, owned_stacks
from .speculate import (
    EVERY,
    checkpoint,
    inline_guesses,
    repeatable,
    speculating,
    speculative_kernels,
    speculative_source,
)


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
    captured = (captured_values(cond.block) | captured_values(body.block)
                | region_reads(s.op for s in (*cond.steps, *body.steps)))
    owned = owned_stacks(cond.arguments, cond.steps, body.arguments, body.steps,
                         body.terminator, captured) if slots else set()
    bounded = cond_bounds(cond.arguments, cond.steps, cond.terminator[0])
    once, needed, cond = _condition_invariants(cond, body, names, ns)
    earlier = dict(zip(needed, once.returned, strict=True)) if once else {}
    general = _plan(cond, body, names, slots, bounded, ns, "", earlier, owned, False)
    exact: _Plan | None = None
    if any(kind_of(body.arguments[i]).is_float for i in slots):  # type: ignore[union-attr]
        exact = _plan(cond, body, names, slots, bounded, ns, "x", earlier, owned, True)
    floats = sorted(i for i in exact.slots if exact.kinds[i].is_float) if exact else []
    if exact is not None and (not floats or (exact.slots == general.slots and len(
            exact.step.scalar) == len(general.step.scalar))):
        exact = None  # (knowing the carried floats no NaN changes nothing)
    slots, test, out = general.slots, general.test, general.out

    def assemble(speculative: bool) -> Source:
        """The loop's source; `speculative`: with the kept guesses and checkpoint holder as
        parameters and a checkpoint every speculate.EVERY steps (speculate.py)."""
        src = Source("def loop(frame, args, G, S):" if speculative else "def loop(frame, args):")
        if n:
            src.add(f"{', '.join(names)}{',' if n == 1 else ''} = args", 1)
        for i in sorted(slots):
            src.add(f"{names[i]} = {general.kinds[i].to_py.__name__}({names[i]})", 1)
        # set before a run starts (run.py, parallel.py): read once per execution of the loop
        src.add("checked = I.stop is not None or I.deadline is not None", 1)
        src.add("if checked:", 1)
        src.add("TICK()", 2)
        if once is not None:  # the condition's invariants, once per execution
            for line in once.outer + once.entry:
                src.add(line, 1)
            for line, s in once.lines:
                src.add(line, 1, s)
        for line in test.outer:
            src.add(line, 1)
        # the operands themselves: a converted scalar may have lost a signalling NaN's bit
        first = ("args[0]" if n == 1 else "tuple(args)") if slots else _returned(out)
        _condition(src, test, 1, f"return {first}")
        if early is not None:
            src.add("EARLY(frame, args)", 1)
        # (after EARLY: invariants; the versioned condition's own reads of enclosing values)
        for version in (general, exact) if exact else (general,):
            for line in (version.test.outer if version is exact else []) + version.step.outer + (
                    version.fast[0].outer + version.fast[1].outer if version.fast else []):
                src.add(line, 1)
        src.add("cap = CAP()", 1)
        src.add("count = 0", 1)
        src.add("guarded = checked or cap is not None", 1)  # one test per iteration when not
        for k in sorted(owned):  # (the loop's own copy: its element writes assign items)
            ns["_OWN"], ns["_VIEW"], ns["_HASNAN"] = np.array, item_view, has_nan
            src.add(f"{names[k]} = _OWN({names[k]}); {names[k]}_m = _VIEW({names[k]})", 1)
        if exact is not None:  # the loop knowing its carried floats no NaN on entry
            src.add(f"if {' and '.join(f'{names[i]} == {names[i]}' for i in floats)}:", 1)
            for i in sorted(exact.slots - slots):
                src.add(f"{names[i]} = {exact.kinds[i].to_py.__name__}({names[i]})", 2)
            _loops(src, exact, names, 2, speculative, owned, ns)
        _loops(src, general, names, 1, speculative, owned, ns)
        return src

    quiet = unquiet(ns)
    compiled = assemble(False).compile(ns, "loop", n, local=True)
    if quiet:
        compiled.run = _quietly(compiled.run)
    guessed = speculative_kernels(ns)
    if guessed and repeatable(s.op for s in (*cond.steps, *body.steps)):
        src = assemble(True)
        steps = [src.lines.get(k) for k in range(2, len(src.src) + 1)]  # (line numbers)
        lines = inline_guesses(src.src[1:], steps, guessed, ns)
        src.src[1:] = speculative_source(lines, list(guessed))
        faster = src.compile({**ns, **guessed, "CHECKPOINT": checkpoint}, "loop", n,
                             local=True).run
        compiled.run = speculating(faster, compiled.run, interpreter, cap)
    return compiled


class _Plan:
    """One plan of the loop: the carried values held as Python scalars (`slots`, their
    kinds), the results as returned (`out`), the condition's and the body's code, and the
    versioned loop's (`fast`, run when the entry `tests` hold: ranges.entry_facts); a
    counted versioned loop (its condition bounds a counter) has the `counter`
    (index, step), which its `for` statement steps (its body's code leaves it as it is)."""

    __slots__ = ("slots", "kinds", "out", "test", "step", "fast", "tests", "alias", "trips",
                 "counter")

    def __init__(self, slots: set[int], kinds: dict[int, Kind], out: list[str],
                 codes: tuple[BlockCode, BlockCode],
                 fast: tuple[BlockCode, BlockCode] | None, tests: list[str],
                 alias: dict[int, int], trips: str | None,
                 counter: tuple[int, int] | None) -> None:
        self.slots, self.kinds, self.out = slots, kinds, out
        self.test, self.step = codes
        self.fast, self.tests, self.alias, self.trips = fast, tests, alias, trips
        self.counter = counter


def _plan(cond: Region, body: Region, names: list[str], slots: set[int],
          bounded: dict[int, Bound], ns: dict[str, Any], p: str, earlier: dict[Value, str],
          owned: Collection[int], exact: bool) -> _Plan:
    """The loop's plan (names prefixed by `p`); `exact`: its carried floats are known to
    be no NaN on entry (exact as Python floats: the loop tests them)."""
    n = len(names)
    floats: set[int] = set()
    while True:  # drop the carried values some use of which needs a numpy value
        if exact:
            floats = {i for i in slots if kind_of(body.arguments[i]).is_float}  # type: ignore[union-attr]
        codes = _codes(cond, body, names, body.terminator, slots, bounded, ns, p,
                       earlier=earlier, owned=owned, exact=floats)
        kept = {i for i in codes[0].scalar_args & codes[1].scalar_args
                if codes[1].clean_returned[i]}
        if kept == slots:
            break
        slots = kept
    out = list(names)  # the results: Python scalars converted back
    kinds = {i: kind for i in slots if (kind := kind_of(body.arguments[i])) is not None}
    for i, kind in kinds.items():
        ns[f"_N{kind.dtype.name}"] = kind.to_numpy
        out[i] = f"_N{kind.dtype.name}({names[i]})"
    # the versioned loop (ranges.py): carried values known equal share one name
    tests, known, alias, counting = entry_facts(body.arguments, body.steps, body.terminator,
                                                slots, bounded)
    trips = counting[0] if counting is not None else None
    fast = None
    counter = None
    if tests:
        same = [names[alias.get(i, i)] for i in range(n)]
        terminator = [body.terminator[alias.get(i, i)] for i in range(n)]
        unchanged = {v for k, v in enumerate(body.arguments) if body.terminator[k] is v
                     and k not in slots} if trips is not None else None

        def versioned(returned: list[Value], test: Region = cond
                      ) -> tuple[BlockCode, BlockCode] | None:
            codes = _codes(test, body, same, returned, slots, known, ns, p + "f", unchanged,
                           earlier, owned, floats)
            held = {i for i in codes[0].scalar_args & codes[1].scalar_args
                    if codes[1].clean_returned[i]}
            return codes if held == slots else None
        fast = versioned(terminator)
        rep = counting[1] if counting is not None else -1
        rest = rest_of_condition(cond.arguments, cond.steps, cond.terminator[0], {
            i for i in range(n) if alias.get(i, i) == rep}) if fast is not None else None
        if rest is not None and counting is not None:  # the `for` statement counts
            counted = versioned([body.arguments[rep] if alias.get(i, i) == rep else v
                                 for i, v in enumerate(terminator)],
                                Region(cond.block, cond.arguments, *rest))
            if counted is not None and not counted[0].entry:
                fast, counter = counted, (rep, counting[2])
    return _Plan(slots, kinds, out, codes, fast, tests, alias, trips, counter)


def _loops(src: Source, plan: _Plan, names: list[str], indent: int, speculative: bool,
           owned: Collection[int], ns: dict[str, Any]) -> None:
    """The plan's loops: the versioned one when its tests hold, then the general one."""
    n = len(names)
    fast, alias, trips = plan.fast, plan.alias, plan.trips
    if fast is not None:
        src.add(f"if {' and '.join(plan.tests)}:", indent)
        for x, name in fast[1].lists.items():  # (worth it when most elements are read)
            ns["_Items"] = _Items
            src.add(f"{name} = {x}.tolist() if 4 * ({trips}) >= {x}.size "
                    f"else _Items({x})", indent + 1)
        counted = None
        if plan.counter is not None and trips is not None:
            counted = trips, names[plan.counter[0]], plan.counter[1]
        _iterate(src, fast[0], fast[1], [names[alias.get(i, i)] for i in range(n)],
                 _returned([plan.out[alias.get(i, i)] for i in range(n)]), set(alias),
                 indent + 1, counted, speculative, owned, plan.kinds)
    _iterate(src, plan.test, plan.step, names, _returned(plan.out), set(), indent, None,
             speculative, owned)


def unquiet(ns: dict[str, Any]) -> bool:
    """The kernels of `ns` that have an `unquieted` form (dialects/quiet.py) replaced by
    it; whether there was one."""
    found = {name: fn.unquieted for name, fn in ns.items()
             if callable(getattr(fn, "unquieted", None))}
    ns.update(found)
    return bool(found)


def _quietly(run: Callable[..., Any]) -> Callable[..., Any]:
    """`run` with numpy's floating-point errors ignored (dialects/quiet.py) for the whole
    loop: its kernels' `unquieted` forms, which leave the error state as they find it, run
    in it (a float op's warnings are all they would give)."""
    quiet, loud = switches()

    def loop(frame: Any, args: Any) -> Any:
        token = quiet()
        try:
            return run(frame, args)
        finally:
            loud(token)
    return loop


def _codes(cond: Region, body: Region, names: list[str], terminator: Sequence[Value],
           slots: set[int], bounds: dict[int, Bound], ns: dict[str, Any], p: str,
           unchanged: set[Value] | None = None, earlier: dict[Value, str] | None = None,
           owned: Collection[int] = (), exact: Collection[int] = ()
           ) -> tuple[BlockCode, BlockCode]:
    """The condition's and the body's code, the carried values named `names`, knowing
    `bounds` of carried values at the body's entry; with `unchanged` (the carried values
    passed on as they are), vectors read element by element are read from lists;
    `earlier`: the condition's invariants, computed before the loop (their names);
    `owned`: the carried vectors the loop has copied (scalar_writes.owned_stacks); `exact`:
    the carried floats known to be no NaN on entry."""
    plan = getattr(ns["I"], "plan_branch", None)  # (branches inline: branches.py)
    test = block_code(cond.arguments, names, cond.steps, cond.terminator, cond.block,
                      True, ns, f"c{p}_", slots, range(len(cond.terminator)),
                      earlier=earlier, plan_region=plan)
    known = {body.arguments[i]: b for i, b in bounds.items() if i in slots}
    steady = {a for a, r in zip(body.arguments, body.terminator, strict=True) if a is r}
    step = block_code(body.arguments, names, body.steps, terminator, body.block,
                      True, ns, f"w{p}_", slots, slots, known, unchanged, plan_region=plan,
                      steady=steady, owned={body.arguments[k] for k in owned}, exact=exact)
    return test, step


class _Items:
    """A vector's `item` as indexing: the list's stand-in when few elements are read."""

    __slots__ = ("item",)

    def __init__(self, x: Any) -> None:
        self.item = x.item

    def __getitem__(self, i: int) -> Any:
        return self.item(i)


def _returned(out: list[str]) -> str:
    return out[0] if len(out) == 1 else f"({', '.join(out)})"


def _condition(src: Source, test: BlockCode, indent: int, leave: str) -> None:
    for line in test.entry:
        src.add(line, indent)
    for line, s in test.lines:
        src.add(line, indent, s)
    src.add(f"if not {test.returned[0]}:", indent)
    src.add(leave, indent + 1)


def _iterate(src: Source, test: BlockCode, step: BlockCode, names: list[str], result: str,
             skipped: set[int], indent: int, counted: tuple[str, str, int] | None = None,
             speculative: bool = False, owned: Collection[int] = (),
             held: Mapping[int, Kind] | None = None) -> None:
    """The loop itself: the checks, the body's lines, the carried values' update (but
    those `skipped`: another's name), the condition; `counted` (a condition that bounds
    a counter: ranges.entry_facts; the number of steps it makes, the counter's name
    and step), a `for` statement stepping the counter, `test` the rest of the condition
    (exit_tests.py: none, or tested after each step), and a copy with no
    checks for a run that sets none (testing for NaN at its end where it can:
    `_nan_carriers` of the `held` carried values, those held as Python scalars, by kind);
    `speculative`: a checkpoint every EVERY steps (speculate.py; run with no checks), of
    copies of the `owned` vectors."""
    if counted is None:
        src.add("while True:", indent)
        if not speculative:
            src.add("if guarded:", indent + 1)
            _checks(src, indent + 2)
        _step(src, step, names, skipped, indent + 1, speculative, owned)
        _condition(src, test, indent + 1, f"return {result}")
        return
    trips, counter, by = counted
    src.add(f"stop = {counter} + ({trips}) * {by}", indent)
    loop = f"for {counter} in range({counter}, stop{'' if by == 1 else f', {by}'}):"
    if speculative:
        src.add(loop, indent)
        _step(src, step, names, skipped, indent + 1, speculative, owned)
        _exit(src, test, counter, by, indent + 1)
    else:
        src.add("if guarded:", indent)
        src.add(loop, indent + 1)
        _checks(src, indent + 2)
        _step(src, step, names, skipped, indent + 2, speculative, owned)
        _exit(src, test, counter, by, indent + 2)
        src.add("else:", indent)
        floats = _nan_carriers(step, names, skipped, held or {}, owned)
        if len(test.scalar) < len(test.lines) or test.observed:  # (the exit test must not
            floats = []  # see NaN payloads: a kernel's, or a bitcast's of a Python float)
        if floats:  # the NaN tests once, at the end; NaN there: the steps again, tested
            changed = [counter] + [name for k, name in enumerate(names)
                                   if step.returned[k] != name and k not in skipped]
            state = ", ".join(dict.fromkeys(changed))
            src.add(f"entry = {state},", indent + 1)
            src.add(loop, indent + 1)
            _step(src, step, names, skipped, indent + 2, speculative, owned, tested=False)
            _exit(src, test, counter, by, indent + 2)
            src.add(f"if {' or '.join(floats)}:", indent + 1)  # (owned: written again)
            src.add(f"{state}, = entry", indent + 2)
            indent += 1
        src.add(loop, indent + 1)
        _step(src, step, names, skipped, indent + 2, speculative, owned)
        _exit(src, test, counter, by, indent + 2)
        indent -= 1 if floats else 0
    if not test.returned:
        src.add(f"{counter} = stop", indent)
    src.add(f"return {result}", indent)


def _exit(src: Source, test: BlockCode, counter: str, by: int, indent: int) -> None:
    """A counted loop's test of the rest of its condition (exit_tests.py) after the step
    (at `indent`): failing, the counter steps on and the loop ends; the `for` statement's
    `else` (no exit) leaves the counter at the end of its range."""
    if not test.returned:
        return
    for line, s in test.lines:
        src.add(line, indent, s)
    passes = test.returned[0] if len(test.returned) == 1 else " and ".join(test.returned)
    src.add(f"if not ({passes}):" if " " in passes else f"if not {passes}:", indent)
    src.add(f"{counter} += {by}", indent + 1)
    src.add("break", indent + 1)
    src.add("else:", indent - 1)
    src.add(f"{counter} = stop", indent)


def _nan_carriers(step: BlockCode, names: list[str], skipped: set[int],
                  held: Mapping[int, Kind], owned: Collection[int]) -> list[str]:
    """The tests (Python source) with which a loop of `step` may look for NaNs once, at
    its end, instead of once per step: the step's lines are all on Python scalars (or
    write an `owned` vector's items), every carried value it changes is a Python scalar
    (`held`: their kinds), and every value its per-step test reads (`observed`) is one of
    them or is written; the tests are of the carried floats and the owned vectors. Any
    NaN whose sign or payload can reach the loop's results then reaches them as a NaN
    (the ops on Python scalars that take a NaN and give no NaN, comparisons, conversions
    to integers, give what they give for any NaN); empty when not so."""
    body = _lines(step)
    changed = [k for k, name in enumerate(names)
               if k not in skipped and step.returned[k] != name]
    written = {name for k in body.stores for name in re.findall(r"\w+", body.lines[k][0])}
    if not (body.fixes and step.observed and not step.entry
            and len(body.scalar) + len(body.stores) == len(body.lines)
            and all(k in held for k in changed)
            and set(step.observed) <= {step.returned[k] for k in changed} | written):
        return []
    return [f"{names[k]} != {names[k]}" for k in changed if held[k].is_float] + [
        f"_HASNAN({names[k]})" for k in sorted(owned)]


def _lines(step: BlockCode) -> Lines:
    """The step's lines, its select lines running only the side they pick."""
    exported = {name for text in step.returned for name in re.findall(r"\w+", text)}
    return lazy_selects(Lines(step.lines, step.scalar, step.fixes, step.stores),
                        exported | set(step.observed))


def _checks(src: Source, indent: int) -> None:
    """A step's checks (where `guarded`): the iteration cap, the stop and deadline."""
    src.add("count += 1", indent)
    src.add("if cap is not None and count > cap:", indent)
    src.add("OVER(cap)", indent + 1)
    src.add("if checked:", indent)
    src.add("TICK()", indent + 1)


def _step(src: Source, step: BlockCode, names: list[str], skipped: set[int], indent: int,
          speculative: bool, owned: Collection[int], tested: bool = True) -> None:
    """One step's lines (at `indent`): the checkpoint of a speculative run, the body's
    lines, the carried values' update; not `tested`: the deferred NaN redos left out
    (`_nan_carriers`: the loop tests its end)."""
    start = len(src.src)
    if speculative:
        src.add("count += 1", indent)
        src.add(f"if not count & {EVERY - 1}:", indent)
        state = "".join(f"{name}.copy(), " if k in owned else f"{name}, "
                        for k, name in enumerate(names))  # (an owned vector changes)
        src.add(f"CHECKPOINT(G, S, ({state}))", indent + 1)
    for line in step.entry:
        src.add(line, indent)
    observed = list(dict.fromkeys(step.observed))
    body = _lines(step)
    lines = list(enumerate(body.lines))
    last = []  # an owned vector's element writes: after the redos (they read no line's name)
    redo = indent
    if (body.fixes and observed and not step.entry
            and len(body.scalar) + len(body.stores) == len(body.lines)):  # NaN redos deferred
        last = [body.lines[k] for k in sorted(body.stores)]
        lines = [(k, line) for k, line in lines if k not in body.stores]
        if not tested:  # (then no NaN redo lines: a write may take its value's expression)
            read_after = {w for text in step.returned for w in re.findall(r"\w+", text)}
            lines, last = fuse_writes([(k, line) for k, line in lines if k not in body.fixes],
                                      last, body.scalar, read_after)
        for k, (line, s) in lines:
            if k not in body.fixes:
                src.add(line, indent, s)
        if tested:
            src.add(f"if {' or '.join(f'{v} != {v}' for v in observed)}:", indent)
        redo += 1  # (then all the lines again, with their redos)
    for _, (line, s) in lines if redo == indent or tested else ():
        src.add(line, redo, s)
    for line, s in last:
        src.add(line, indent, s)
    changed = [k for k in range(len(names))
               if step.returned[k] != names[k] and k not in skipped]  # (not passed on)
    if changed:
        src.add(f"{', '.join(names[k] for k in changed)} = "
                f"{', '.join(step.returned[k] for k in changed)}", indent)
    # the body's names of the carried values go: a carried array is then held by its
    # loop variable alone (a kernel may update it in place at its last use)
    stale = [name for name in dict.fromkeys(step.returned) if name in step.locals]
    if stale:
        src.add(f"del {', '.join(stale)}", indent)
    if len(src.src) == start:  # (a loop that only counts)
        src.add("pass", indent)


def _scalar_slots(cond: Region, body: Region) -> set[int]:
    """The carried values that may be Python scalars (pyscalar.py): 0-d of a held kind in
    both regions, read by no nested region, not passed on unchanged by the body."""
    captured = (captured_values(cond.block) | captured_values(body.block)
                | region_reads(s.op for s in (*cond.steps, *body.steps)))
    slots = set()
    for i, (c, b) in enumerate(zip(cond.arguments, body.arguments, strict=True)):
        kind = kind_of(b)
        if (kind is not None and kind is kind_of(c) and c not in captured and b not in captured
                and body.terminator[i] is not b):  # (passed on as it is: left alone)
            slots.add(i)
    return slots


def _condition_invariants(cond: Region, body: Region, names: list[str], ns: dict[str, Any]
                          ) -> tuple[BlockCode | None, list[Value], Region]:
    """The code of the condition's steps that give the same values on every test (from
    the loop's entry values; with the constants they read), the values of theirs the
    tests read, and the condition without them; (None, [], cond) when there are none."""
    unchanged = {c for c, a, r in zip(cond.arguments, body.arguments, body.terminator,
                                      strict=True) if r is a}
    local = set(cond.arguments) | {r for step in cond.steps for r in step.op.results}
    captured = captured_values(cond.block) | region_reads(s.op for s in cond.steps)
    constant: set[Value] = set()
    same: set[Value] = set()
    moved: set[int] = set()
    for i, step in enumerate(cond.steps):
        op = step.op
        if op.name == "stablehlo.constant" or (op.operands and all(
                v in constant for v in op.operands)):
            constant.update(op.results)
            continue
        if not op.results or any(r in captured for r in op.results) or not _pure(op):
            continue
        reads = list(op.operands) + [v for v in region_reads([op]) if v in local]
        if all(v in unchanged or v in same or v in constant or v not in local for v in reads):
            same.update(op.results)
            moved.add(i)
    if not moved:
        return None, [], cond
    rest = [s for i, s in enumerate(cond.steps) if i not in moved]
    read = {v for s in rest for v in (*s.op.operands, *region_reads([s.op]))}
    needed = [r for i in sorted(moved) for r in cond.steps[i].op.results
              if r in read or r in cond.terminator]
    steps = [s for i, s in enumerate(cond.steps) if i in moved or not set(
        s.op.results) - constant]  # (constants: folded, where they are read)
    first = block_code(cond.arguments, names, steps, needed, cond.block, True, ns, "ci_")
    return first, needed, Region(cond.block, cond.arguments, rest, cond.terminator)


def _pure(op: Operation) -> bool:
    """An op whose results depend on its operands alone, or a reduce (its body reads
    only its own values: region reads of the condition's values are checked apart)."""
    if op.name in MERGED:
        return not op.regions
    return op.name == "stablehlo.reduce" and not op.successors
