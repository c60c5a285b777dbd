"""`shlo interpret FILE|-` and the `--interpret` mode of `stablehlo-translate`: one implementation.

Each `// -----` chunk (with `--split-input-file`) is parsed and run on its own; a failing chunk
reports its diagnostic on stderr and the remaining chunks still run; the exit code is 1 if any
chunk failed. Results go to stdout, separated by a blank line between chunks as upstream does,
or to `-o FILE`, written atomically at the end and only when every chunk succeeded.
`interpreter.print` output always goes to stdout.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import click

from ..interpreter.memory import parse_size
from ..interpreter.run import ArgsError, InterpretOptions, evaluate, format_results
from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.expected_diagnostics import DiagnosticVerifier
from . import interrupt
from .common import parse_chunk, read_input, report, split_chunks, write_output

CHUNK_SEPARATOR = "\n"
TIME_LIMIT_ENV = "SHLO_TIME_LIMIT"  # seconds of CPU time per process (set by conformance)


class TimeLimitExceeded(BaseException):
    """The CPU time limit from $SHLO_TIME_LIMIT ran out (a BaseException, so kernels'
    error handling cannot swallow it)."""


def _apply_time_limit() -> None:
    """Bound CPU time when $SHLO_TIME_LIMIT asks for it, so a runaway program ends with a
    diagnostic instead of hanging a test run."""
    text = os.environ.get(TIME_LIMIT_ENV, "")
    if not text.isdigit() or int(text) <= 0 or not hasattr(signal, "SIGXCPU"):
        return
    import resource

    def expired(signum: int, frame: Any) -> None:
        raise TimeLimitExceeded(f"CPU time limit of {text}s exceeded (${TIME_LIMIT_ENV})")

    signal.signal(signal.SIGXCPU, expired)
    soft = int(text)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 10))
    except (ValueError, OSError):
        pass


def _flag(name: str, help: str) -> Callable[[Any], Any]:
    return click.option(f"-{name}", f"--{name}", is_flag=True, help=help)


def interpret_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The options `stablehlo-translate --interpret` and `shlo interpret` share."""
    fn = click.argument("input", default="-", required=False)(fn)
    fn = click.option("-o", "output", default=None, help="Output file (written atomically).")(fn)
    fn = _flag("split-input-file", "Run each `// -----` chunk separately.")(fn)
    fn = click.option("-args", "--args", "args", default=None, metavar="'[dense<...> : T, ...]'",
                      help="Inputs of the entry function, as an array of dense attributes.")(fn)
    fn = _flag("interpreter-print-dense", "Print results as `dense<...> : type`.")(fn)
    fn = click.option("-probe-output-dir", "--probe-output-dir", "probe_output_dir",
                      default=None, help="Directory for tensors written by interpreter.probe.")(fn)
    fn = _flag("allow-unregistered-dialect", "Accept ops of unknown dialects.")(fn)
    fn = click.option("-timeout", "--timeout", "timeout",
                      type=click.FloatRange(min=0, min_open=True), default=None,
                      metavar="SECONDS",
                      help="How long a process of interpreter.run_parallel may wait for the "
                           "others (send/recv, collectives) before failing; default 30.")(fn)
    fn = click.option("-memory-limit", "--memory-limit", "memory_limit", default=None,
                      metavar="BYTES", callback=_parse_memory_limit,
                      help="Refuse ops whose results or temporaries would exceed this many "
                           "bytes (e.g. 4G, 512M); default: 3/4 of physical memory, within "
                           "the process's address-space and cgroup limits.")(fn)
    fn = click.option("-max-iterations", "--max-iterations", "max_iterations",
                      type=click.IntRange(min=0), default=None, metavar="N",
                      help="Fail a `while` loop that runs more than N iterations.")(fn)
    fn = _flag("verify-diagnostics", "Check `expected-error` annotations instead of "
               "reporting diagnostics.")(fn)
    return fn


def _parse_memory_limit(ctx: Any, param: Any, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return parse_size(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def run_interpret(input: str, *, output: str | None = None, split_input_file: bool = False,
                  args: str | None = None, interpreter_print_dense: bool = False,
                  probe_output_dir: str | None = None,
                  allow_unregistered_dialect: bool = False,
                  timeout: float | None = None, verify_diagnostics: bool = False,
                  memory_limit: int | None = None, max_iterations: int | None = None) -> int:
    """Interpret every chunk of `input`; returns the process exit code."""
    interrupt.install()
    _apply_time_limit()
    try:
        name, text = read_input(input)
    except ShloError as e:
        report(e)
        return 1
    options = InterpretOptions(args, interpreter_print_dense, probe_output_dir,
                               timeout=timeout, memory_limit=memory_limit,
                               max_iterations=max_iterations)
    to_stdout = output is None or output == "-"
    collected: list[str] = []
    failed = False
    for index, chunk in enumerate(split_chunks(text, split_input_file)):
        if index:
            _emit(CHUNK_SEPARATOR, to_stdout, collected)
        checker = (DiagnosticVerifier(SourceFile(name, chunk.text, chunk.line_offset))
                   if verify_diagnostics else None)
        try:
            module = parse_chunk(chunk, name, allow_unregistered_dialect)
            results = evaluate(module, options=options, stdout=sys.stdout,
                               line_offset=chunk.line_offset)
            _emit(format_results(results, interpreter_print_dense), to_stdout, collected)
        except ArgsError as e:
            failed = True
            for diagnostic in e.diagnostics:
                _report(diagnostic)
        except Diagnostic as e:
            if checker is None:
                failed = True
                _report(e)
            else:
                checker.process(e)
        except ShloError as e:
            failed = True
            _report(e)
        except RecursionError:
            failed = True
            _report(ShloError("program nests too deeply to interpret"))
        except TimeLimitExceeded as e:
            _report(ShloError(str(e)))
            return 1
        except Exception as e:  # noqa: BLE001 - a bug must not become a traceback
            failed = True
            _report(ShloError(f"internal error: {type(e).__name__}: {e}"))
        if checker is not None:  # -verify-diagnostics: only mismatches fail
            for problem in checker.finish():
                failed = True
                _report(problem)
    if not to_stdout and not failed:  # like upstream, a failed run leaves no output file
        try:
            write_output("".join(collected), output)
        except ShloError as e:
            _report(e)
            return 1
    return 1 if failed else 0


def _emit(text: str, to_stdout: bool, collected: list[str]) -> None:
    if to_stdout:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        collected.append(text)


def _report(error: Diagnostic | ShloError) -> None:
    sys.stdout.flush()
    report(error)


@click.command("interpret")
@interpret_options
def interpret_command(input: str, **options: Any) -> None:
    """Run a StableHLO program's entry function (`main`, or the only function) and print its
    results exactly like `stablehlo-translate --interpret`."""
    sys.exit(run_interpret(input, **options))
