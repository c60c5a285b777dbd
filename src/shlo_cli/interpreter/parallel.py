"""Running a grid of processes for `interpreter.run_parallel`: one Interpreter per process,
each in its own thread, over the shared parsed module (frames never mix). The first failing
process ends the run: its diagnostic is raised and every other process is released from its
waits at once. The op itself (dialects/interpreter_parallel.py) reaches this through
`Context.interpreter.run_grid`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from ..ir import limits, memory
from ..ir.context import Context, Process, ProcessId
from ..ir.core import Operation
from ..ir.diagnostics import Diagnostic, ShloError
from .deadline import TimedOut
from .engine import Interpreter, _Abort
from .processes import DEFAULT_TIMEOUT, ProcessGrid

FAILURE_GRACE = 1.0  # seconds a failed run waits for processes that are still computing


def run_grid_of(parent: Interpreter, programs: Sequence[Sequence[Operation]],
                inputs: Sequence[Any], infeed: Sequence[str]) -> list[list[Any]]:
    """programs[r][p] as process (r, p) on a fresh grid (timeout from the run's options)."""
    grid = ProcessGrid(len(programs), len(programs[0]), infeed, _timeout(parent.ctx))
    return run_grid(grid, parent, programs, inputs, parent.ctx)


def _timeout(ctx: Context) -> float:
    value = ctx.options.get("timeout")
    try:
        timeout = float(value) if value not in (None, "") else DEFAULT_TIMEOUT
    except (TypeError, ValueError):
        return DEFAULT_TIMEOUT
    return timeout if timeout > 0 else DEFAULT_TIMEOUT


def run_grid(grid: ProcessGrid, parent: Interpreter, programs: Sequence[Sequence[Operation]],
             inputs: Sequence[Any], ctx: Context) -> list[list[Any]]:
    """One thread per process; returns each process's results in row-major order, or raises
    the first failure (the other processes are released by `grid.abort`)."""
    results: list[list[Any]] = []
    threads: list[threading.Thread] = []
    position = 0
    for r, row in enumerate(programs):
        for p, func in enumerate(row):
            ftype = func.attr("function_type")  # func.func always has one (verified)
            count = len(ftype.value.inputs) if ftype is not None else 0
            args = list(inputs[position:position + count])
            position += count
            index = len(results)
            results.append([])
            process = Process(ProcessId(r, p), grid)
            thread = threading.Thread(
                target=_run_process,
                args=(parent, grid, process, func, args, results, index, ctx,
                      limits.max_iterations(), memory.run_limit()),
                name=f"shlo-process-{r}-{p}", daemon=True)
            threads.append(thread)
    for thread in threads:
        thread.start()
    grace_end = None
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.05)
                if grid.failure is None:
                    continue
                # A failed run ends now: processes still computing (not waiting, so not
                # released by the abort) get a moment to stop, then are left behind (daemons).
                grace_end = grace_end or time.monotonic() + FAILURE_GRACE
                if time.monotonic() > grace_end:
                    break
    except TimedOut:
        # The run's --timeout also bounds each process's waits, so a waiting process is
        # about to report what it waited for: its diagnostic says more than this one.
        grace_end = time.monotonic() + FAILURE_GRACE
        while grid.failure is None and time.monotonic() < grace_end:
            time.sleep(0.01)
        grid.stop.set()
        if grid.failure is not None:
            raise grid.failure[1] from None
        raise
    except BaseException:  # e.g. Ctrl-C in this thread: the processes stop too
        grid.stop.set()
        raise
    if grid.failure is not None:
        raise grid.failure[1]
    return results


def _run_process(parent: Interpreter, grid: ProcessGrid, process: Process, func: Operation,
                 args: list[Any], results: list[list[Any]], index: int, ctx: Context,
                 cap: int | None, budget: int | None) -> None:
    interpreter = Interpreter(parent.module, stdout=ctx.stdout, process=process,
                              options=ctx.options)
    interpreter.source = parent.source  # diagnostics quote the same file and lines
    interpreter.stop = grid.stop
    interpreter.deadline = parent.deadline
    interpreter.time_limit = parent.time_limit
    try:
        with limits.iteration_cap(cap), memory.memory_limit(budget):  # the run's, per thread
            results[index] = interpreter.call(func, args)
    except _Abort:  # released (ProcessAborted) or stopped after another process failed
        pass
    except (Diagnostic, ShloError) as e:
        grid.abort(process.id, e)
    except RecursionError:
        grid.abort(process.id, ShloError("program nests too deeply to interpret"))
    except BaseException as e:  # noqa: BLE001 - reported by the parent, never a traceback
        grid.abort(process.id, ShloError(
            f"internal error in process {process.id}: {type(e).__name__}: {e}"))
    finally:
        grid.finish(process.id)
