"""`shlo interpret FILE|-` and the `--interpret` mode of `stablehlo-translate`: one implementation.

Each `// -----` chunk (with `--split-input-file`) is parsed and run on its own; a failing chunk
reports its diagnostic on stderr and the remaining chunks still run; the exit code is 1 if any
chunk failed. Results go to stdout, separated by a blank line between chunks as upstream does,
or to `-o FILE`, written atomically at the end and only when every chunk succeeded.
`interpreter.print` output always goes to stdout.

Arguments come from `--args` (upstream), `--inputs FILE.npz`, `--input` (repeated) or
`--random-inputs`; `--save-results`/`--expected-output` replace printing the results;
`--trace`/`--profile`/`--dump-intermediates` observe the run (commands/interpret_io.py).
A binary program file (`.jax`, MLIR bytecode) goes through its loader (loaders.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from ..interpreter.engine import EvaluationError
from ..interpreter.io import DataFileError, InputError
from ..interpreter.run import ArgsError, InterpretOptions, evaluate, format_results
from ..ir.core import Module
from ..ir.diagnostics import Diagnostic, ShloError, SourceFile
from ..ir.memory import parse_size
from ..loaders import file_kind, is_binary, load_program, read_runnable_bytecode
from . import interrupt
from .common import (
    Chunk,
    discard_output,
    parse_chunk,
    read_source,
    split_chunks,
    write_output,
)
from .interpret_io import DataOptions, data_options
from .terminal import color_diagnostic, spinner

CHUNK_SEPARATOR = "\n"
TIME_LIMIT_ENV = "SHLO_TIME_LIMIT"  # seconds of CPU time per process (set by conformance)


class TimeLimitExceeded(BaseException):
    """The CPU time limit from $SHLO_TIME_LIMIT ran out (a BaseException, so kernels'
    error handling cannot swallow it)."""


def _apply_time_limit() -> None:
    """Bound CPU time when $SHLO_TIME_LIMIT asks for it, so a runaway program ends with a
    diagnostic instead of hanging a test run."""
    text = os.environ.get(TIME_LIMIT_ENV, "")
    if not text.isdigit() or int(text) <= 0:
        return
    import signal  # (only with a limit: a launch without one does not import it)

    if not hasattr(signal, "SIGXCPU"):
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
    import click

    return click.option(f"-{name}", f"--{name}", is_flag=True, help=help)


def interpret_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The options `stablehlo-translate --interpret` and `shlo interpret` share (click is
    imported here: a plain `stablehlo-translate --interpret` launch never needs it)."""
    import click

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
                      help="End the run with an error after this many seconds (also how "
                           "long a process of interpreter.run_parallel may wait for the "
                           "others; default 30 for that).")(fn)
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
    return data_options(fn)


def _parse_memory_limit(ctx: Any, param: Any, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return parse_size(value)
    except ValueError as e:
        import click

        raise click.BadParameter(str(e)) from None


def run_interpret(input: str, *, output: str | None = None, split_input_file: bool = False,
                  args: str | None = None, interpreter_print_dense: bool = False,
                  probe_output_dir: str | None = None,
                  allow_unregistered_dialect: bool = False,
                  timeout: float | None = None, verify_diagnostics: bool = False,
                  memory_limit: int | None = None, max_iterations: int | None = None,
                  **data_options: Any) -> int:
    """Interpret every chunk of `input`; returns the process exit code."""
    interrupt.install()
    _apply_time_limit()
    data = DataOptions.pop_from(data_options)
    if data_options:
        raise TypeError(f"unknown options: {sorted(data_options)}")
    try:
        data.check(args)
        programs = _programs(input, split_input_file, allow_unregistered_dialect)
    except (ShloError, InputError, Diagnostic) as e:
        _report(e)
        return 1
    if data.writes_files and len(programs) > 1:
        _report(ShloError("--save-results, --expected-output and --dump-intermediates need "
                          "a single program; drop -split-input-file or split the file"))
        return 1
    options = InterpretOptions(args, interpreter_print_dense, probe_output_dir,
                               timeout=timeout, memory_limit=memory_limit,
                               max_iterations=max_iterations)
    code = _run_programs(programs, options, data, verify_diagnostics, output)
    if code:  # like upstream, a failed run leaves no output file
        discard_output(output)
    return code


def _run_programs(programs: list[Program], options: InterpretOptions, data: DataOptions,
                  verify_diagnostics: bool, output: str | None) -> int:
    """Run each program, printing or collecting its results; returns the exit code."""
    to_stdout = output is None or output == "-"
    collected: list[str] = []
    failed = False
    for index, (name, chunk, load) in enumerate(programs):
        if index and not _emit(CHUNK_SEPARATOR, to_stdout, collected):
            return 1
        if verify_diagnostics:  # its module (regexes, ~1 ms) only for -verify-diagnostics
            from ..ir.expected_diagnostics import DiagnosticVerifier
        checker = (DiagnosticVerifier(SourceFile(name, chunk.text, chunk.line_offset))
                   if verify_diagnostics else None)
        try:
            module, signature = load()
            with spinner(f"interpreting {name}", enabled=not data.trace):
                text = _run_one(module, signature, chunk.line_offset, options, data)
            if text is None:
                failed = True
            elif not _emit(text, to_stdout, collected):
                return 1
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
        except (ShloError, InputError) as e:
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
    if not to_stdout and not failed:
        try:
            write_output("".join(collected), output)
        except ShloError as e:
            _report(e)
            return 1
    return 1 if failed else 0


Program = tuple[str, Chunk, Callable[[], tuple[Module, Any]]]


def _programs(input: str, split: bool, allow_unregistered: bool) -> list[Program]:
    """(display name, chunk, loader) per program to run: the `// -----` chunks of a text
    file, the module of MLIR bytecode (file or stdin), or the one module of another binary
    file (`.jax`) through its loader."""
    if is_binary(input) and file_kind(input) != ".mlirbc":
        def load_binary() -> tuple[Module, Any]:
            loaded = load_program(input, allow_unregistered)
            return loaded.module, loaded.signature

        return [(input, Chunk("", 0), load_binary)]
    name, text = read_source(input)
    programs: list[Program] = []
    for chunk in split_chunks(text, split):
        def load_text(chunk: Chunk = chunk) -> tuple[Module, Any]:
            if chunk.data is not None:  # bytecode: a portable artifact runs deserialized
                return read_runnable_bytecode(chunk.data, name, allow_unregistered), None
            return parse_chunk(chunk, name, allow_unregistered), None

        programs.append((name, chunk, load_text))
    return programs


def _run_one(module: Module, signature: Any, line_offset: int, options: InterpretOptions,
             data: DataOptions) -> str | None:
    """Run one module; the text to print, or None when --expected-output did not match."""
    arguments = None
    if data.gives_inputs and module.functions():
        from ..interpreter.run import module_diagnostic
        from .interpret_io import entry_of

        try:
            func = entry_of(module)
        except EvaluationError as e:
            raise module_diagnostic(module, str(e), line_offset) from None
        try:
            arguments = data.arguments(func, signature)
        except DataFileError:
            raise
        except InputError as e:
            raise _at(module, func, str(e), line_offset) from None
    observer = data.observer(sys.stderr)
    succeeded = False
    try:
        results = evaluate(module, arguments, options=options, stdout=sys.stdout,
                           line_offset=line_offset, observer=observer)
        succeeded = True
    finally:
        if observer is not None:
            sys.stdout.flush()
            data.finish_observers(sys.stderr, succeeded)
    if data.save_results or data.expected_output:
        values = [value for value, _ in results]
        if data.filled and module.functions():
            from ..interpreter.jax_convention import array_results
            from .interpret_io import entry_of

            values = array_results(entry_of(module), values)  # without jax's effect tokens
        ok = data.handle_results(values, sys.stdout)
        return "" if ok else None
    return format_results(results, options.print_dense)


def _at(module: Module, func: Any, message: str, line_offset: int) -> Diagnostic:
    """An input problem reported at the entry function's position."""
    loc = func.location
    if loc.line and module.source:
        return Diagnostic(message, SourceFile(module.filename, module.source, line_offset),
                          line=loc.line, col=loc.col)
    return Diagnostic(message)


def _emit(text: str, to_stdout: bool, collected: list[str]) -> bool:
    """Results to stdout now (or kept for the -o file); False, reported, when stdout
    cannot take them (a closed pipe): nothing after them can be shown either."""
    if not to_stdout:
        collected.append(text)
        return True
    try:
        write_output(text, None)
    except ShloError as e:
        _report(e)
        return False
    return True


def _report(error: Diagnostic | ShloError | InputError) -> None:
    """Like common.report, with coloured labels when stderr is a terminal."""
    sys.stdout.flush()
    text = error.render() if isinstance(error, Diagnostic) else str(error)
    if not isinstance(error, Diagnostic) and not text.startswith("error:"):
        text = "error: " + text
    sys.stderr.write(color_diagnostic(text, sys.stderr) + "\n")
    sys.stderr.flush()


def _interpret_command(input: str, **options: Any) -> None:
    """Run a StableHLO program's entry function (`main`, or the only function) and print its
    results exactly like `stablehlo-translate --interpret`."""
    sys.exit(run_interpret(input, **options))


def __getattr__(name: str) -> Any:
    """`interpret_command`, the click command of `shlo interpret`, built on first use."""
    if name == "interpret_command":
        import click

        command = click.command("interpret")(interpret_options(_interpret_command))
        globals()["interpret_command"] = command
        return command
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
