"""The interpreter engine: turns each region into a plan of bound kernels once, then runs it.

Binding decodes every attribute an evaluator asks for a single time, so a `while` body runs
as a flat list of `kernel(*operands)` calls per iteration. All regions of one function
invocation share one environment dict (values are distinct objects, so they cannot clash);
`func.call` opens a new one.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..ir import limits, registry
from ..ir.context import Context
from ..ir.core import Block, Module, Operation, Region, Value
from ..ir.diagnostics import Diagnostic, EvaluationError, SourceFile
from ..ir.memory import bind_budget_check

# Re-exported: binding hooks and EvaluationError live below the dialects that use them.
from ..ir.registry import BIND_HOOKS, _bind_with, bind_after, bind_hooks  # noqa: F401
from .allocator import tune_allocator
from .codegen import CompiledBlock, captured_values, compile_block, region_reads
from .deadline import TimedOut
from .dedupe import merge_repeats
from .gathers import slice_gathers
from .hoist import hoist_slices
from .ifconvert import drop_unread, if_convert
from .inline import inline_calls
from .narrow_products import widened_products
from .scalar_predicates import scalar_predicates
from .sink import sunk_constants
from .unary_tables import fuse_chains
from .unit_values import unit_values

if TYPE_CHECKING:
    import threading

    from .licm import Invariants

RETURN_OPS = frozenset({"func.return", "stablehlo.return", "chlo.return", "builtin.return",
                        "shape.assuming_yield"})

class _Step:
    """One bound op. `operands` is read with a C-level itemgetter (`fetch(frame)`); `arity`
    picks the cheapest call shape in the hot loop."""

    __slots__ = ("fn", "operands", "results", "op", "single", "arity", "fetch", "result")

    def __init__(self, fn: Callable[..., Any], op: Operation) -> None:
        self.fn = fn
        self.operands = op.operands
        self.results = op.results
        self.op = op
        self.single = len(op.results) == 1
        self.result = op.results[0] if self.single else None
        self.arity = len(op.operands)
        # itemgetter of one key returns the value itself, of several a tuple.
        self.fetch = operator.itemgetter(*op.operands) if op.operands else None


class _BlockPlan:
    """A block's bound steps; `compiled` runs them as one generated function (codegen.py),
    the step loop of `_run_plan` is the fallback (e.g. a region called with the wrong
    number of arguments)."""

    __slots__ = ("arguments", "steps", "terminator", "compiled")

    def __init__(self, arguments: list[Value], steps: list[_Step], terminator: list[Value] | None,
                 compiled: CompiledBlock | None = None):
        self.arguments = arguments
        self.steps = steps
        self.terminator = terminator
        self.compiled = compiled


class Interpreter:
    """Runs functions of one module. One instance per process (thread) of a program."""

    def __init__(self, module: Module, stdout: Any = None, process: Any = None,
                 options: dict[str, Any] | None = None, line_offset: int = 0,
                 observer: Any = None) -> None:
        tune_allocator()
        self.module = module
        # `observer.wrap(op, kernel)` (interpreter/observe.py: --trace, --profile, ...) is
        # applied while planning, only when given: a plain run binds the bare kernels.
        self.observer = observer
        self.ctx = Context(self, stdout, process, options)
        self.frame: dict[Value, Any] = {}
        # Set by interpreter.run_parallel: once another process failed, this one stops at its
        # next region entry (e.g. the next loop iteration) instead of computing on.
        self.stop: threading.Event | None = None
        # Set when --timeout could not arm a timer (not the main thread): the monotonic
        # clock time at which the run ends, checked at every region entry.
        self.deadline: float | None = None
        self.time_limit: float = 0.0
        self._plans: dict[int, _BlockPlan] = {}
        self._symbols = {
            op.attr("sym_name").value: op
            for op in module.body.operations if op.attr("sym_name") is not None
        }
        # `line_offset`: lines before this module's chunk (-split-input-file), so run-time
        # diagnostics quote the right source line.
        self.source = SourceFile(module.filename, module.source, line_offset)

    # ---- public API --------------------------------------------------------------------

    def lookup_function(self, name: str) -> Operation:
        func = self._symbols.get(name)
        if func is None or func.name != "func.func":
            raise EvaluationError(f"function '@{name}' not found")
        return func

    def run_grid(self, programs: Sequence[Sequence[Operation]], inputs: Sequence[Any],
                 infeed: Sequence[str] = ()) -> list[list[Any]]:
        """`interpreter.run_parallel`: programs[r][p] as process (r, p), one thread each;
        each process's results, row-major."""
        from .parallel import run_grid_of  # parallel.py builds Interpreters: imported late

        return run_grid_of(self, programs, inputs, infeed)

    def call(self, func: Operation, args: Sequence[Any]) -> list[Any]:
        """Run `func` with `args` in a fresh frame."""
        if not func.regions or not func.regions[0].blocks:
            name = func.attr("sym_name")
            raise self.diagnostic(func, f"cannot call function '@{name.value if name else '?'}'"
                                        ": it has no body (an external declaration)")
        saved = self.frame
        self.frame = {}
        try:
            return self.run_region(func.regions[0], args)
        finally:
            self.frame = saved

    def run_region(self, region: Region, args: Sequence[Any]) -> list[Any]:
        """Run a single-block region with `args` bound to its entry block arguments."""
        plan = self._plans.get(id(region))
        if plan is None:
            plan = self._plan_block(region.entry)
            self._plans[id(region)] = plan
        return self._run_plan(plan, args)

    def _run_plan(self, plan: _BlockPlan, args: Sequence[Any]) -> list[Any]:
        if self.stop is not None and self.stop.is_set():
            raise _Abort("stopped: another process failed")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimedOut(self.time_limit)
        compiled = plan.compiled
        if compiled is not None and len(args) == compiled.arity:
            try:
                return compiled.run(self.frame, args)
            except (Diagnostic, _Abort):
                raise
            except (Exception, TimedOut) as e:
                raise self._located(compiled.step_at(e.__traceback__), e) from None
        frame = self.frame
        for arg, value in zip(plan.arguments, args, strict=False):
            frame[arg] = value
        step = None
        try:  # one handler for the whole block: entering `try` per op costs in the hot loop
            for step in plan.steps:
                arity = step.arity
                if arity == 1:
                    out = step.fn(step.fetch(frame))
                elif arity == 0:
                    out = step.fn()
                else:
                    out = step.fn(*step.fetch(frame))
                if step.single:
                    frame[step.result] = out
                elif step.results:
                    for r, v in zip(step.results, out, strict=False):
                        frame[r] = v
        except (Diagnostic, _Abort):
            raise
        except (Exception, TimedOut) as e:
            raise self._located(step, e) from None
        if plan.terminator is None:
            return []
        return [frame[v] for v in plan.terminator]

    def _located(self, step: _Step | None, e: BaseException) -> BaseException:
        """What to raise for `e`, raised while running `step`: a diagnostic at its op."""
        if step is None:
            return e
        op = step.op
        if isinstance(e, TimedOut):  # located at the innermost op running when time ran out
            return self.diagnostic(op, e.message(op.name))
        if isinstance(e, EvaluationError):
            message = str(e)
            if getattr(e, "name_op", False):  # e.g. a kernel's temporary over the budget
                message = f"'{op.name}': {message}"
            return self.diagnostic(op, message)
        if isinstance(e, MemoryError):  # an allocation the budget could not foresee
            return self.diagnostic(op, f"'{op.name}' ran out of memory"
                                   f"{': ' + str(e) if str(e) else ''}")
        if isinstance(e, RecursionError):
            return self.diagnostic(op, "regions or calls nest too deeply to evaluate")
        if isinstance(e, OSError):  # interpreter.print into a closed pipe, a full disk
            return self.diagnostic(op, f"'{op.name}' could not write its output: "
                                   f"{e.strerror or e}")
        # a kernel bug must not become a traceback
        return self.diagnostic(op, f"internal error while evaluating: {type(e).__name__}: {e}")

    def region_callable(self, region: Region) -> Callable[..., list[Any]]:
        """A callable running `region` in the current frame (for region-taking kernels)."""
        plan: _BlockPlan | None = None

        def run(*args: Any) -> list[Any]:
            nonlocal plan  # planned on first use, then reused without a lookup
            if plan is None:
                plan = self._plans.get(id(region))
                if plan is None:
                    plan = self._plans[id(region)] = self._plan_block(region.entry)
            return self._run_plan(plan, args)

        return run

    def _bind_call(self, callee: str, single: bool) -> Callable[..., Any]:
        """`func.call @callee`: the function and its plan are looked up on the first call
        (errors then, as before), then reused; a fresh frame per call."""
        plan: _BlockPlan | None = None

        def run(*args: Any) -> Any:
            nonlocal plan
            if plan is None:
                func = self.lookup_function(callee)
                if not func.regions or not func.regions[0].blocks:
                    return self.call(func, args)[0] if single else self.call(func, args)
                region = func.regions[0]
                plan = self._plans.get(id(region))
                if plan is None:
                    plan = self._plans[id(region)] = self._plan_block(region.entry)
            saved = self.frame
            self.frame = {}
            try:
                out = self._run_plan(plan, args)
            finally:
                self.frame = saved
            # a single result is stored bare, like kernels return it
            return out[0] if single else out

        return run

    def diagnostic(self, op: Operation, message: str) -> Diagnostic:
        """At the op: its place in the source text, else (a module read from bytecode, e.g.
        a portable artifact) the file position its `loc` records, as MLIR reports it,
        without a quoted line (we do not have that file)."""
        loc = op.location
        if loc.line and self.source.text:
            return Diagnostic(message, self.source, line=loc.line, col=loc.col)
        if loc.line and loc.filename:
            return Diagnostic(message, SourceFile(loc.filename, ""), line=loc.line,
                              col=loc.col)
        return Diagnostic(message)

    # ---- planning ----------------------------------------------------------------------

    def _block_ops(self, block: Block) -> tuple[list[Operation], list[Value] | None]:
        """The ops a block's plan runs (small callees inlined, small conditionals as their
        branches and selects, unless observed: a trace or profile shows the program's own
        ops) and its terminator's operands."""
        terminator = None
        ops: list[Operation] = []
        for op in block.operations:
            if op.name in RETURN_OPS:
                terminator = op.operands
                break
            ops.append(op)
        if self.observer is None:
            ops = slice_gathers(if_convert(inline_calls(ops, self._symbols.get)), terminator)
            if any(op.parent is not block for op in ops):  # copies: what they leave unread
                ops = drop_unread(ops, terminator or ())
            ops = widened_products(scalar_predicates(ops, terminator or ()))
            ops = unit_values(ops, terminator or ())
            ops = sunk_constants(block, ops, terminator) + ops
            ops = merge_repeats(ops, terminator)
            if any(op.name == "stablehlo.while" for op in ops):  # (else nothing to fuse)
                ops = fuse_loops(ops, self._symbols.get)
        return ops, terminator

    def _plan_block(self, block: Block, planned: list[Operation] | None = None,
                    compiled: bool = True) -> _BlockPlan:
        """The block's plan; `planned`: its ops as _block_ops gives them, some left out
        (their values are in the environment already); `compiled`: with its generated
        function (not for a loop's regions, which loopgen compiles together)."""
        steps = []
        ops, terminator = self._block_ops(block)
        if planned is not None:
            ops = planned
        if self.observer is None:
            ops = hoist_slices(ops, set(terminator or ()) | captured_values(block)
                               | region_reads(ops))
        for op in ops:
            kernel = self._bind(op)
            if self.observer is not None:
                kernel = self.observer.wrap(op, kernel)
            steps.append(_Step(kernel, op))
        if self.observer is None:
            steps = fuse_chains(steps, set(terminator or ()) | captured_values(block)
                                | region_reads(ops), _Step)
        code = compile_block(block.arguments, steps, terminator, block,
                             fold=self.observer is None,
                             plan_region=self.plan_branch if self.observer is None else None
                             ) if compiled else None
        return _BlockPlan(block.arguments, steps, terminator, code)

    def plan_branch(self, region: Region) -> _BlockPlan:
        """The plan of an if or case branch a generated function runs inline
        (branches.py): the steps the region's callable would run, not compiled apart."""
        return self._plan_block(region.entry, compiled=False)

    def _bind(self, op: Operation) -> Callable[..., Any]:
        if op.name == "func.call":
            return self._bind_call(op.attr("callee").value, len(op.results) == 1)
        opdef = op.opdef or registry.lookup(op.name)
        if opdef is None or opdef.evaluate is None:
            raise self.diagnostic(op, f"Unsupported op: {op.name}")
        if self.observer is None and op.name == "stablehlo.while" and len(op.regions) == 2:
            return self._bind_while(op, opdef)
        try:
            kwargs = self._kwargs(op, opdef)
        except (EvaluationError, ValueError, OverflowError, MemoryError) as e:
            # An attribute without a value (a resource with no data, a splat of more
            # elements than numpy indexes): the op fails when, and only if, it runs.
            refuse = bind_budget_check(op, opdef, {})  # most often over the memory budget
            return refuse if refuse is not None else _refusing(e)
        return _bind_with(bind_hooks(op.name), op, opdef, kwargs)

    def _bind_while(self, op: Operation, opdef: Any, compiled: bool = True
                    ) -> Callable[..., Any]:
        """A while loop whose body's loop-invariant ops (licm.py) run once per execution,
        before the body's first run; the body's plan skips them. Condition and body are
        planned on the loop's first run (as region_callable does) and, when both are single
        blocks of the loop's arity, compiled into one function (loopgen.py)."""
        if compiled and _compilable_loop(op):
            return self._bind_compiled_while(op)
        plan: _BlockPlan | None = None
        early: Callable[..., None] | None = None
        pending: list[list[Any]] = []  # per running execution: [operands or None]

        def body(*args: Any) -> list[Any]:
            nonlocal plan, early
            if plan is None:
                plan, early = self._plan_body(op)
            if early is not None:
                top = pending[-1]
                if top[0] is not None:
                    operands, top[0] = top[0], None
                    early(self.frame, operands)
            return self._run_plan(plan, args)

        kwargs = self._kwargs(op, opdef)
        kwargs["body"] = body
        inner = _bind_with(bind_hooks(op.name), op, opdef, kwargs)

        def kernel(*operands: Any) -> Any:
            pending.append([operands])
            try:
                return inner(*operands)
            finally:
                pending.pop()

        return kernel

    def _plan_body(self, op: Operation, compiled: bool = True
                   ) -> tuple[_BlockPlan, Callable[..., None] | None]:
        """The plan of a while op's body without its loop invariants, and the early
        evaluator of those (None when there are none)."""
        body_block = op.regions[1].entry
        ops, _ = self._block_ops(body_block)
        invariants = find_invariants(op, ops)
        early = None
        if invariants is not None:
            early = early_evaluator(invariants, self._bind)
            ops = invariants.body_ops(ops)
        # kept with the other plans (only this kernel runs the body region)
        plan = self._plans[id(op.regions[1])] = self._plan_block(body_block, ops, compiled)
        return plan, early

    def _bind_compiled_while(self, op: Operation) -> Callable[..., Any]:
        """The while op as one generated function (loopgen.py), built on its first run."""
        from .loopgen import Region as LoopRegion

        loop: CompiledBlock | None = None

        def build() -> CompiledBlock:
            cond_region = op.regions[0]
            cond = self._plans.get(id(cond_region))
            if cond is None:
                cond = self._plans[id(cond_region)] = self._plan_block(cond_region.entry,
                                                                       compiled=False)
            body, early = self._plan_body(op, compiled=False)
            assert cond.terminator is not None and body.terminator is not None
            return compile_loop(
                LoopRegion(cond_region.entry, cond.arguments, cond.steps, cond.terminator),
                LoopRegion(op.regions[1].entry, body.arguments, body.steps, body.terminator),
                early, self, self._tick, limits.max_iterations, _over_cap)

        fallback: Callable[..., Any] | None = None

        def kernel(*operands: Any) -> Any:
            nonlocal loop, fallback
            if loop is None:
                if fallback is not None:
                    return fallback(*operands)
                try:
                    loop = build()
                except Diagnostic:  # e.g. an unsupported op: an error once the body runs
                    self._plans.pop(id(op.regions[1]), None)
                    fallback = self._bind_while(op, op.opdef or registry.lookup(op.name),
                                                compiled=False)
                    return fallback(*operands)
            try:
                return loop.run(self.frame, operands)
            except (Diagnostic, _Abort):
                raise
            except (Exception, TimedOut) as e:
                step = loop.step_at(e.__traceback__)
                if step is None:  # the loop's own checks: the while op's errors
                    raise
                raise self._located(step, e) from None

        return kernel

    def _tick(self) -> None:
        """What `_run_plan` checks at each region entry: another process failed, or the
        time limit passed."""
        if self.stop is not None and self.stop.is_set():
            raise _Abort("stopped: another process failed")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimedOut(self.time_limit)

    def _kwargs(self, op: Operation, opdef: Any) -> dict[str, Any]:
        """The evaluator's keyword arguments for `op`: attributes, types, region runners."""
        kwargs: dict[str, Any] = {}
        for name in opdef.evaluate_params:
            if name == "result_type":
                kwargs[name] = op.results[0].type if op.results else None
            elif name == "result_types":
                kwargs[name] = [r.type for r in op.results]
            elif name == "op":
                kwargs[name] = op
            elif name == "ctx":
                kwargs[name] = self.ctx
            elif name in opdef.regions:
                index = opdef.regions.index(name)
                kwargs[name] = (self.region_callable(op.regions[index])
                                if index < len(op.regions) else None)
            elif name + "*" in opdef.regions:  # variadic regions: a list of callables
                index = opdef.regions.index(name + "*")
                kwargs[name] = [self.region_callable(r) for r in op.regions[index:]]
            else:
                attr = op.attr(name)
                kwargs[name] = attr.value if attr is not None else None
        return kwargs


# The loop machinery (loopgen, licm, loopfuse and what they import) loads with a program's
# first while op, not with every launch.
def fuse_loops(ops: list[Operation], lookup: Callable[[str], Operation | None]
               ) -> list[Operation]:
    """`loopfuse.fuse_loops`."""
    from .loopfuse import fuse_loops as fuse

    return fuse(ops, lookup)


def find_invariants(op: Operation, ops: list[Operation]) -> Invariants | None:
    """`licm.find_invariants`."""
    from .licm import find_invariants as find

    return find(op, ops)


def early_evaluator(invariants: Invariants, bind: Callable[[Operation], Callable[..., Any]]
                    ) -> Callable[..., None]:
    """`licm.early_evaluator`."""
    from .licm import early_evaluator as evaluator

    return evaluator(invariants, bind)


def compile_loop(*args: Any) -> CompiledBlock:
    """`loopgen.compile_loop`."""
    from .loopgen import compile_loop as compile

    return compile(*args)


def _refusing(error: BaseException) -> Callable[..., Any]:
    """A kernel raising `error` (the engine reports it at the op)."""

    def refuse(*args: Any) -> Any:
        raise error

    return refuse


def _compilable_loop(op: Operation) -> bool:
    """A while op loopgen can compile: single-block regions ending in a return, the
    condition returning one value, as many block arguments and body results as operands
    (anything else keeps the evaluator, which reports it)."""
    n = len(op.operands)
    for index, returned in ((0, 1), (1, n)):
        blocks = op.regions[index].blocks
        if len(blocks) != 1:
            return False
        block = blocks[0]
        last = block.operations[-1] if block.operations else None
        if (len(block.arguments) != n or last is None or last.name not in RETURN_OPS
                or len(last.operands) != returned):
            return False
    return True


def _over_cap(cap: int) -> None:
    raise EvaluationError(f"while loop exceeded {cap} iterations (--max-iterations)")


class _Abort(Exception):
    """Internal: stop the whole run (e.g. a failed check in a parallel process)."""


def entry_function(module: Module) -> Operation:
    """`@main`, else the module's only function; otherwise the upstream error."""
    funcs = module.functions()
    for f in funcs:
        if f.attr("sym_name").value == "main":
            return f
    if len(funcs) == 1:
        return funcs[0]
    raise EvaluationError("module must have entry func with name main")
