"""The Python API: load or parse a program, call its functions with numpy arrays, register
evaluators for custom calls.

    import numpy as np, shlo_cli
    program = shlo_cli.load("model.mlir")          # or shlo_cli.parse(text)
    [y] = program.main(np.ones((2, 3), np.float32))
    [y] = shlo_cli.interpret("model.mlir", x)     # one-shot

Errors raise `shlo_cli.Diagnostic` (`str()` is what the command line prints) and never leave
half-finished results.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .interpreter.engine import Interpreter, entry_function
from .interpreter.io import InputError, Signature, coerce_input, signature_of
from .interpreter.run import (
    InterpretOptions,
    KeptRuns,
    Refiner,
    arrays_as_arguments,
    evaluate,
)
from .ir.core import Module, Operation
from .ir.diagnostics import Diagnostic, EvaluationError, ShloError
from .loaders import load_program

PROGRAM_SUFFIXES = (".mlir", ".mlirbc", ".jax")


class Function:
    """A callable function of a Program: `fn(*arrays) -> list[np.ndarray]`."""

    def __init__(self, program: Program, func: Operation) -> None:
        self.program = program
        self.op = func
        self.name: str = func.symbol_name

    @property
    def signature(self) -> Signature:
        return signature_of(self.op)

    def __call__(self, *inputs: Any, probe_output_dir: str | None = None) -> list[np.ndarray]:
        return self.program.run(self.name, inputs, probe_output_dir=probe_output_dir)

    def __repr__(self) -> str:
        args = ", ".join(f"{a.name}: {a.type}" for a in self.signature.args)
        return f"<shlo function @{self.name}({args})>"


class Program:
    """A parsed (and verified on first run) module; its functions are attributes:
    `program.main(x, y)`, `program["f.name"](x)`, or `program(x)` for the entry function."""

    def __init__(self, module: Module, signature: Signature | None = None) -> None:
        self.module = module
        self.recorded_signature = signature  # from the file (e.g. a .jax artifact), if any
        self._refined: Any = None  # passes.refine_to_inputs.RefinedModules, on first need
        self._kept = KeptRuns()  # the entry's interpreters (plans) between calls

    @property
    def functions(self) -> list[str]:
        return [f.symbol_name for f in self.module.functions()]

    def function(self, name: str) -> Function:
        for f in self.module.functions():
            if f.symbol_name == name:
                return Function(self, f)
        raise AttributeError(f"program has no function '@{name}' (functions: "
                             + ", ".join("@" + n for n in self.functions) + ")")

    def __getattr__(self, name: str) -> Function:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.function(name)

    def __getitem__(self, name: str) -> Function:
        return self.function(name)

    def __call__(self, *inputs: Any, probe_output_dir: str | None = None) -> list[np.ndarray]:
        return self.run(None, inputs, probe_output_dir=probe_output_dir)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self.functions))

    def __str__(self) -> str:
        from .ir.printer import print_module

        return print_module(self.module)

    def run(self, name: str | None, inputs: Sequence[Any],
            probe_output_dir: str | None = None,
            platforms: Sequence[str] | None = None, memory_limit: int | None = None,
            max_iterations: int | None = None,
            timeout: float | None = None) -> list[np.ndarray]:
        """Run `@name` (None: the entry function) on `inputs`; one array per result."""
        entry = self._entry()
        if name is None or (entry is not None and name == entry.symbol_name):
            recorded = self.recorded_signature
            if recorded is not None and platforms is None:
                platforms = recorded.platforms  # a .jax artifact's platforms
            if recorded is not None:
                if len(inputs) not in (recorded.inputs, len(recorded.args)):
                    raise _diagnostic(self.module, (
                        f"incorrect number of arguments specified, provided {len(inputs)} "
                        f"inputs but the entry function takes {recorded.inputs} (or the "
                        f"module's {len(recorded.args)})"), entry)
                inputs = recorded.select(inputs)  # all of jax's inputs: the module's ones
            if recorded is not None and recorded.check is not None \
                    and len(inputs) == len(recorded.args):
                try:  # shape symbols (jax's `b`) must agree across the inputs
                    recorded.check([np.asarray(v) for v in inputs])
                except InputError as e:
                    raise _diagnostic(self.module, str(e), entry) from None
            options = InterpretOptions(probe_output_dir=probe_output_dir,
                                       memory_limit=memory_limit, max_iterations=max_iterations,
                                       timeout=timeout)
            return _run_entry(self.module, inputs, options, platforms, self._refine, self._kept)
        func = self.function(name).op
        return _run_function(self.module, func, inputs)

    def _refine(self, module: Module, types: Sequence[Any]) -> Module | None:
        """The entry's module refined to the argument types of a call (symbolic-shape jax
        exports then run static kernels), remembered per shape signature; None: run it
        as is. Imported only for an entry with a dynamically shaped argument. The cache
        belongs to `self.module`: assigning another module starts a new one (a module
        rewritten in place keeps the old refinements)."""
        from .passes.refine_to_inputs import RefinedModules

        if self._refined is None or self._refined.module is not module:
            self._refined = RefinedModules(module)
        refined: Module | None = self._refined.get(module, types)
        return refined

    def _entry(self) -> Operation | None:
        try:
            return entry_function(self.module)
        except EvaluationError:
            return None


def parse(text: str, filename: str = "<string>") -> Program:
    """Parse StableHLO program text into a Program (syntax errors raise Diagnostic)."""
    from .ir.parser import parse_source

    return Program(parse_source(text, filename))


def load(path: str | os.PathLike[str]) -> Program:
    """Load a program file. The file type picks the loader (loaders.py): text `.mlir` now;
    MLIR bytecode and `.jax` artifacts once their loaders are registered."""
    try:
        loaded = load_program(os.fspath(path))
    except ShloError as e:
        raise Diagnostic(str(e)) from None
    return Program(loaded.module, loaded.signature)


def as_program(source: Program | Module | str | os.PathLike[str]) -> Program:
    """The rule for what a source is: a Program or Module as is; an `os.PathLike` is a file;
    a `str` is a file path when a file of that name exists, otherwise program text; a
    one-line str ending in a program suffix (`.mlir`, `.mlirbc`, `.jax`) that names no file
    is an error rather than text that would not parse."""
    if isinstance(source, Program):
        return source
    if isinstance(source, Module):
        return Program(source)
    if isinstance(source, os.PathLike):
        return load(source)
    if isinstance(source, str):
        one_line = "\n" not in source and len(source) < 4096
        if one_line and os.path.isfile(source):
            return load(source)
        if one_line and source.strip().endswith(PROGRAM_SUFFIXES):
            raise Diagnostic(f"cannot open input file '{source.strip()}': No such file")
        return parse(source)
    raise TypeError(f"expected a Program, Module, path or program text, got "
                    f"{type(source).__name__}")


def interpret(source: Program | Module | str | os.PathLike[str], *inputs: Any,
              probe_output_dir: str | None = None,
              platforms: Sequence[str] | None = None, memory_limit: int | None = None,
              max_iterations: int | None = None,
              timeout: float | None = None) -> list[np.ndarray]:
    """Run the entry function (`main`, or the only function) of a program.

    `source` follows `as_program`'s rule (a str naming an existing file is loaded, any other
    str is program text). `inputs` are numpy arrays (or anything `np.asarray` accepts), one
    per argument, checked against the signature: a wrong shape or dtype, or an integer that
    does not fit (2**40 for an i32), raises a Diagnostic naming the argument.

    jax.export modules may be given only their arrays: the platform index (the position of
    "cpu" in `platforms`, else 0) and effect tokens are filled in, and the token results
    are dropped (see `interpreter.jax_convention`).

    `memory_limit` (bytes) refuses ops whose results or temporaries would exceed it (default:
    `ir.memory.default_limit()`); `max_iterations` caps every `while` loop; `timeout`
    (seconds) ends the run with a Diagnostic at the op running when the time ran out.
    """
    return as_program(source).run(None, inputs, probe_output_dir=probe_output_dir,
                                  platforms=platforms, memory_limit=memory_limit,
                                  max_iterations=max_iterations, timeout=timeout)


def _run_entry(module: Module, inputs: Sequence[Any], options: InterpretOptions,
               platforms: Sequence[str] | None = None,
               refine: Refiner | None = None, kept: KeptRuns | None = None
               ) -> list[np.ndarray]:
    from .interpreter.jax_convention import array_results, complete_inputs

    arguments = None
    drop_tokens = False
    if module.functions():
        try:
            entry = entry_function(module)
        except EvaluationError as e:
            raise _diagnostic(module, str(e)) from None
        try:
            completed = complete_inputs(entry, inputs, platforms=platforms)
            drop_tokens = len(completed) != len(inputs)
            arguments = arrays_as_arguments(entry, completed)
        except EvaluationError as e:
            raise _diagnostic(module, str(e), entry) from None
    results = evaluate(module, arguments, options, refine=refine, kept=kept)
    values = [np.asarray(value) for value, _ in results]
    return array_results(entry, values) if drop_tokens else values


def _run_function(module: Module, func: Operation, inputs: Sequence[Any]) -> list[np.ndarray]:
    """A non-entry function: verified like the entry, then called directly."""
    from .ir.verifier import verify_module

    verify_module(module)
    signature = signature_of(func)
    if len(inputs) != len(signature.args):
        raise _diagnostic(module, f"@{func.symbol_name} takes "
                                  f"{len(signature.args)} arguments, got {len(inputs)}", func)
    try:
        values = [coerce_input(v, spec) for v, spec in zip(inputs, signature.args, strict=True)]
    except InputError as e:
        raise _diagnostic(module, str(e), func) from None
    interpreter = Interpreter(module)
    with np.errstate(all="ignore"):
        results = interpreter.call(func, values)
    return [np.asarray(v) for v in results]


def _diagnostic(module: Module, message: str, op: Operation | None = None) -> Diagnostic:
    """At `op` (the function whose argument is wrong) when it has a position."""
    from .interpreter.run import module_diagnostic
    from .ir.diagnostics import SourceFile

    if op is not None and op.location.line and module.source:
        return Diagnostic(message, SourceFile(module.filename, module.source),
                          line=op.location.line, col=op.location.col)
    return module_diagnostic(module, message)


# ---- custom calls --------------------------------------------------------------------------

def register_custom_call(name: str, fn: Callable[..., Any]) -> None:
    """Evaluate `stablehlo.custom_call @name` with `fn(*operands)`: numpy arrays in, an array
    (one result), a sequence of arrays, or None (no results) out. Results are converted to the
    op's result types; a wrong count or shape, or an exception in `fn`, fails the run with a
    diagnostic at the custom call. Registering a name again replaces the previous `fn`."""
    from .check_dialect.custom_call_targets import register_custom_call_target

    def target(*operands: Any, op: Any, ctx: Any) -> list[Any]:
        try:
            out = fn(*operands)
        except (Diagnostic, ShloError, EvaluationError):
            raise
        except Exception as e:  # noqa: BLE001 - the user's error, reported at the op
            raise EvaluationError(f"custom call @{name} raised {type(e).__name__}: {e}") \
                from None
        return _custom_call_results(name, out, op)

    register_custom_call_target(name, target)


def _custom_call_results(name: str, out: Any, op: Any) -> list[Any]:
    from .ir.types import TensorType, numpy_dtype

    types = [r.type for r in op.results] if op is not None else []
    if out is None:
        values: list[Any] = []
    elif isinstance(out, (list, tuple)):
        values = list(out)
    else:
        values = [out]
    if op is None:
        return values
    if len(values) != len(types):
        raise EvaluationError(f"custom call @{name} returned {len(values)} values, the op "
                              f"has {len(types)} results")
    converted = []
    for i, (value, type) in enumerate(zip(values, types, strict=True)):
        if not isinstance(type, TensorType):
            converted.append(value)
            continue
        array = np.asarray(value).astype(numpy_dtype(type.element))
        if array.ndim != len(type.shape) or any(d >= 0 and d != s for d, s
                                                in zip(type.shape, array.shape, strict=False)):
            raise EvaluationError(f"custom call @{name} result #{i}: expected {type}, got "
                                  f"shape {array.shape}")
        converted.append(array)
    return converted
