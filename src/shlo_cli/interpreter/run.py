"""Running a parsed module the way `stablehlo-translate --interpret` does.

Shared by `stablehlo-translate --interpret`, `shlo interpret` and the Python API: choose the
entry function, check the inputs against its signature, evaluate, and format the results.
Every problem surfaces as a `Diagnostic` (located when possible), never a traceback.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ir import limits, memory
from ..ir.attributes import ArrayAttr, DenseElementsAttr
from ..ir.core import Module, Operation
from ..ir.diagnostics import Diagnostic, SourceFile
from ..ir.record import Struct
from ..ir.types import FunctionType, QuantizedType, TensorType, Type, UnrankedTensorType
from ..ir.value_text import lowered_element
from ..ir.verifier import verify_module
from . import dynamic_guard  # noqa: F401 - binding hooks
from .deadline import TimedOut, time_limit
from .engine import EvaluationError, Interpreter, entry_function
from .printing import format_value

ARGS_USAGE = "--args=[dense<1> : tensor<2xi32>, ...]"

# `refine(module, argument types)`: the module refined to those types, else None (run the
# module itself). Given by the front ends (passes/refine_to_inputs.py: the layer rule keeps
# passes out of the interpreter).
Refiner = Callable[[Module, Sequence[Type]], "Module | None"]


class InterpretOptions(Struct):
    """Options of one interpreter run (the flags of `stablehlo-translate --interpret`).

    `timeout`: seconds the whole run may take (also how long a process of run_parallel may
    wait for the others); None: no limit on the run, 30 s for such waits. `memory_limit`:
    bytes, None = memory.default_limit(). `max_iterations`: cap on the iterations of one
    `while` loop."""

    def __init__(self, args: str | None = None, print_dense: bool = False,
                 probe_output_dir: str | None = None, timeout: float | None = None,
                 memory_limit: int | None = None, max_iterations: int | None = None) -> None:
        self.args = args
        self.print_dense = print_dense
        self.probe_output_dir = probe_output_dir
        self.timeout = timeout
        self.memory_limit = memory_limit
        self.max_iterations = max_iterations


class Argument(Struct):
    """One entry-function input: its value and the tensor type it was given as."""

    def __init__(self, value: np.ndarray, type: Type) -> None:
        self.value = value
        self.type = type


class ArgsError(Exception):
    """`--args` could not be used; carries the diagnostics to report, in order."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[-1].message)
        self.diagnostics = diagnostics


def parse_args_option(text: str) -> list[Argument]:
    """`--args="[dense<1> : tensor<2xi32>, ...]"` -> arguments (upstream's messages)."""
    from ..ir.parser import Parser

    if not text:
        return []
    parsed: Any = None
    diagnostics: list[Diagnostic] = []
    try:
        parser = Parser(SourceFile(text, text))
        parsed = parser.parse_attribute()
        if parser.tok.kind != "eof":
            raise parser.error("unexpected trailing characters in attribute")
    except Diagnostic as d:
        diagnostics.append(d)
        parsed = None
    if not isinstance(parsed, ArrayAttr):
        diagnostics.append(Diagnostic(
            f"expectected array attribute string for args, i.e. {ARGS_USAGE}"))
        raise ArgsError(diagnostics)
    arguments = []
    for attr in parsed.elements:
        if not isinstance(attr, DenseElementsAttr):
            raise ArgsError([Diagnostic(
                f"expected dense elements attribute for args elements, i.e. {ARGS_USAGE}")])
        arguments.append(Argument(np.array(attr.value), attr.type))
    return arguments


def arrays_as_arguments(func: Operation, arrays: Sequence[Any]) -> list[Argument]:
    """Numpy inputs (arrays, nested lists, scalars) checked against the entry function's
    arguments: same rank and static sizes, dtype converted only when no value changes.
    Problems raise EvaluationError naming the argument, expected type and what was given."""
    from .io import InputError, coerce_input, signature_of

    signature = signature_of(func)
    if len(arrays) != len(signature.args):
        raise EvaluationError(
            "incorrect number of arguments specified, provided "
            f"{len(arrays)} inputs but function expected {len(signature.args)}")
    arguments = []
    for array, spec in zip(arrays, signature.args, strict=True):
        if not isinstance(spec.type, TensorType):
            arguments.append(Argument(array, spec.type))
            continue
        try:
            value = coerce_input(array, spec)
        except InputError as e:
            raise EvaluationError(str(e)) from None
        arguments.append(Argument(value, spec.type.with_shape(value.shape)))
    return arguments


def validate_entry_signature(func: Operation, arguments: Sequence[Argument]) -> None:
    """Upstream's checks of the inputs against the entry function's signature."""
    ftype: FunctionType = func.attr("function_type").value
    if len(arguments) != len(ftype.inputs):
        raise EvaluationError(
            "incorrect number of arguments specified, provided "
            f"{len(arguments)} inputs but function expected {len(ftype.inputs)}")
    for index, (argument, expected) in enumerate(zip(arguments, ftype.inputs, strict=True)):
        if not _accepts(expected, argument.type):
            if isinstance(expected, TensorType) and isinstance(expected.element, QuantizedType):
                expected = expected.with_element(lowered_element(expected.element))
            raise EvaluationError(
                f"invalid input argument type at index {index}, input type was "
                f"{argument.type} but entry function expected {expected}")


def _accepts(expected: Type, given: Type) -> bool:
    if expected == given:
        return True
    if isinstance(expected, TensorType) and isinstance(expected.element, QuantizedType):
        # upstream checks the inputs against the entry function with its quantized types
        # lowered to their storage types (Api.cpp lowerQuantization before
        # validateEntrySignature): `--args=[dense<..> : tensor<2xi8>]` for a quantized i8
        expected = expected.with_element(lowered_element(expected.element))
        if expected == given:
            return True
    if isinstance(expected, TensorType) and isinstance(given, TensorType):
        return expected.element == given.element and len(expected.shape) == len(given.shape) \
            and all(e < 0 or e == g for e, g in zip(expected.shape, given.shape, strict=True))
    return False


def module_diagnostic(module: Module, message: str, line_offset: int = 0) -> Diagnostic:
    """An error about the module as a whole, located at the `module` keyword when the text
    has one, else at the first function (upstream says 0:0 for an implicit module, which
    points nowhere); 0:0 only when nothing in the module has a location."""
    source = SourceFile(module.filename, module.source, line_offset)
    if module.source:
        loc = module.op.location
        if loc.line and _explicit_module(source, loc.line, loc.col):
            return Diagnostic(message, source, line=loc.line, col=loc.col)
        for op in module.body.operations:
            if op.location.line:
                return Diagnostic(message, source, line=op.location.line, col=op.location.col)
    return Diagnostic(message, source, line=0, col=0)


def _explicit_module(source: SourceFile, line: int, col: int) -> bool:
    text = source.line_text(line)
    return text[max(col - 1, 0):].startswith("module")


class KeptRuns:
    """The interpreters a program (api.Program) keeps between its calls: a call after the
    first skips verifying and planning the module, the whole cold cost of a model (a
    ResNet's plan costs ten times its run). One per module run (the program's, or its
    refinement to a shape signature) and the settings a plan holds (stdout, timeout, line
    offset), the last few kept. A run that raises drops its interpreter; a call while
    another thread runs the program gets a fresh one."""

    LIMIT = 8

    def __init__(self) -> None:
        import threading  # (the API's programs only: no tool launch imports it)

        self.lock = threading.Lock()
        self.verified: Module | None = None
        self.interpreters: dict[int, tuple[Module, tuple[Any, ...], Interpreter]] = {}

    def get(self, run: Module, settings: tuple[Any, ...]) -> Interpreter | None:
        found = self.interpreters.get(id(run))
        if found is None or found[0] is not run or found[1] != settings:
            return None
        return found[2]

    def keep(self, run: Module, settings: tuple[Any, ...], interpreter: Interpreter) -> None:
        if len(self.interpreters) >= self.LIMIT:
            self.interpreters.pop(next(iter(self.interpreters)))
        self.interpreters[id(run)] = (run, settings, interpreter)


def evaluate(module: Module, arguments: Sequence[Argument] | None = None,
             options: InterpretOptions | None = None, stdout: Any = None,
             line_offset: int = 0, observer: Any = None,
             refine: Refiner | None = None, kept: KeptRuns | None = None
             ) -> list[tuple[Any, Type]]:
    """Run the module's entry function; returns (value, declared type) per result.

    A module without functions has nothing to run and returns no results (like upstream).
    `line_offset` is the number of lines before the module's chunk in its file. `observer`
    (interpreter/observe.py) wraps every kernel while planning: --trace, --profile, ...
    `refine`: when the entry function has a dynamically shaped argument, the module run
    instead, refined to the given arguments' types (not with an observer or probes: they
    show the program as written); None keeps the module. `kept`: interpreters kept from
    earlier calls of this module (not with an observer or probes either).
    """
    options = options or InterpretOptions()
    if kept is not None and (observer is not None or options.probe_output_dir
                             or not kept.lock.acquire(blocking=False)):
        kept = None
    try:
        return _evaluate(module, arguments, options, stdout, line_offset, observer, refine,
                         kept)
    finally:
        if kept is not None:
            kept.lock.release()


def _evaluate(module: Module, arguments: Sequence[Argument] | None, options: InterpretOptions,
              stdout: Any, line_offset: int, observer: Any, refine: Refiner | None,
              kept: KeptRuns | None) -> list[tuple[Any, Type]]:
    """`evaluate`, with `kept` locked for this call (or None)."""
    if kept is None or kept.verified is not module:
        verify_module(module, line_offset)  # upstream verifies the parsed module first
        if kept is not None:
            kept.verified = module
    if arguments is None:
        arguments = parse_args_option(options.args or "")
    if not module.functions():
        _refuse_vhlo(module, line_offset)
        return []
    try:
        func = entry_function(module)
    except EvaluationError as e:
        raise module_diagnostic(module, str(e), line_offset) from None
    out = stdout or sys.stdout
    settings = (out, options.timeout, line_offset)

    def interpreter_of(run: Module) -> Interpreter:
        process = single_device_process(run, options.timeout)  # (a fresh grid each call)
        found = kept.get(run, settings) if kept is not None else None
        if found is not None:
            found.ctx.process = process
            return found
        made = Interpreter(run, stdout=out,
                           options={"probe_output_dir": options.probe_output_dir or "",
                                    "timeout": options.timeout},
                           line_offset=line_offset, observer=observer, process=process)
        if kept is not None:
            kept.keep(run, settings, made)
        return made

    interpreter = interpreter_of(module)
    try:
        validate_entry_signature(func, arguments)
    except EvaluationError as e:
        raise interpreter.diagnostic(func, str(e)) from None
    ftype: FunctionType = func.attr("function_type").value  # the results' declared types
    if refine is not None and observer is None and not options.probe_output_dir \
            and dynamic_arguments(func):
        refined = refine(module, [a.type for a in arguments])
        if refined is not None:
            interpreter = interpreter_of(refined)
            func = entry_function(refined)
    if options.probe_output_dir:
        _reset_probe_index(options.probe_output_dir)
    # Overflow, NaN and inexact casts are defined results in StableHLO, not warnings.
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings(), \
                memory.memory_limit(options.memory_limit), \
                limits.iteration_cap(options.max_iterations), limits.deep_recursion(), \
                time_limit(options.timeout) as deadline:
            warnings.simplefilter("ignore", RuntimeWarning)
            interpreter.deadline = deadline
            interpreter.time_limit = options.timeout or 0.0
            results = interpreter.call(func, [a.value for a in arguments])
    except TimedOut as e:  # ran out outside any op (entering the function, cleaning up)
        _forget(kept, interpreter)
        raise interpreter.diagnostic(func, e.message()) from None
    except BaseException:
        _forget(kept, interpreter)
        raise
    return list(zip(results, ftype.results, strict=False))


def _refuse_vhlo(module: Module, line_offset: int) -> None:
    """A VHLO module (a portable artifact given as text, or a VHLO `Module`) has no
    functions to run, yet is not empty: say so rather than print no results. Upstream's
    interpreter does not register VHLO and fails to parse it."""
    for op in module.body.operations:
        if op.dialect == "vhlo":
            raise module_diagnostic(module, f"'{op.name}' is VHLO, which is not run: "
                                    "deserialize the portable artifact first "
                                    "(stablehlo-translate --deserialize)", line_offset)


def _forget(kept: KeptRuns | None, interpreter: Interpreter) -> None:
    """A run that raised may have left its interpreter mid-way: the next call plans anew."""
    if kept is not None:
        kept.interpreters.pop(id(interpreter.module), None)


def dynamic_arguments(func: Operation) -> bool:
    """Whether an argument of `func` is a tensor with a `?` dimension (or no rank)."""
    ftype: FunctionType = func.attr("function_type").value
    return any(isinstance(t, UnrankedTensorType) or isinstance(t, TensorType)
               and not t.is_static for t in ftype.inputs)


def single_device_process(module: Module, timeout: float | None) -> Any:
    """Process (0, 0) of a 1 x 1 grid for a module that declares one device
    (`mhlo.num_replicas = 1` and `mhlo.num_partitions = 1`, as every single-device jax export
    does), so its collectives (a `psum` in a `shard_map`) run over that one process as XLA
    runs them; None for any other module (its collectives need `interpreter.run_parallel`)."""
    attrs = module.op.attributes
    counts = [getattr(attrs.get(name), "value", None)
              for name in ("mhlo.num_replicas", "mhlo.num_partitions")]
    if counts != [1, 1]:
        return None
    from ..ir.context import Process, ProcessId
    from .processes import DEFAULT_TIMEOUT, ProcessGrid

    grid = ProcessGrid(1, 1, timeout=timeout if timeout and timeout > 0 else DEFAULT_TIMEOUT)
    return Process(ProcessId(0, 0), grid)


def _reset_probe_index(directory: str) -> None:
    """Each run starts a fresh probe index (upstream removes `<dir>/index.csv` first)."""
    try:
        os.remove(os.path.join(directory, "index.csv"))
    except OSError:
        pass


def format_results(results: Sequence[tuple[Any, Type]], dense: bool = False) -> str:
    """Each result on its own line(s), as upstream prints them."""
    return "".join(format_value(value, type, dense) + "\n" for value, type in results)
