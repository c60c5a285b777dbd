"""The data-file side of `shlo interpret` / `stablehlo-translate --interpret`: where the
inputs come from (`--inputs`, `--input`, `--random-inputs`), where results go
(`--save-results`, `--expected-output`), and the observers (`--trace`, `--profile`,
`--dump-intermediates`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from ..interpreter.io import (
    ArgSpec,
    InputError,
    Signature,
    coerce_input,
    from_bits,
    input_from_option,
    inputs_from_npz,
    parse_dims,
    positional_keys,
    random_inputs,
    read_array_file,
    results_dict,
    save_arrays,
    signature_of,
)
from ..interpreter.run import Argument
from ..ir.core import Module, Operation
from ..ir.record import Struct
from .terminal import paint, use_color

if TYPE_CHECKING:  # both modules load only for the options that use them
    from ..interpreter.compare import Comparison
    from ..interpreter.observe import Observer, Profiler


def data_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options for numpy inputs/outputs and observers (added to `interpret_options`)."""
    import click

    opts = [
        click.option("--inputs", "inputs", default=None, metavar="FILE.npz",
                     help="Arguments from a .npz file: keys arg0, arg1, ..., the "
                          "arguments' names, or arr_0, arr_1, ... (np.savez)."),
        click.option("--input", "input_values", multiple=True, metavar="@FILE.npy|LITERAL",
                     help="One argument, in order: @FILE.npy or an IREE-style literal such "
                          "as '2x3xf32=1 2 3 4 5 6'. Repeat for each argument."),
        click.option("--random-inputs", is_flag=True,
                     help="Random arguments from the entry function's signature."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seed for --random-inputs."),
        click.option("--dim", "dims", multiple=True, metavar="NAME=SIZE|SIZE",
                     help="Size of dynamic dimensions / dimension variables for "
                          "--random-inputs (SIZE alone: every other `?`; default 4)."),
        click.option("--save-results", default=None, metavar="FILE.npz|FILE.npy",
                     help="Save results (result0, result1, ...) instead of printing them."),
        click.option("--expected-output", default=None, metavar="@FILE.npz",
                     help="Compare results with a .npz/.npy file (keys result0, ... "
                          "or arr_0, ...); exit 1 on mismatch."),
        click.option("--rtol", type=float, default=None, help="Relative tolerance "
                     "(default per dtype: f64 1e-9, f32 1e-4, f16/bf16 1e-2, f8 0.125)."),
        click.option("--atol", type=float, default=None, help="Absolute tolerance "
                     "(default per dtype: f64 1e-12, f32 1e-5, f16/bf16 1e-3, f8 0.01)."),
        click.option("--ulp", type=float, default=None,
                     help="Compare floats by ULP distance instead of rtol/atol."),
        click.option("--trace", is_flag=True,
                     help="Print every executed op (location, shape, dtype, summary) "
                          "to stderr."),
        click.option("--profile", is_flag=True,
                     help="Print time and call counts per op kind and per source location "
                          "to stderr."),
        click.option("--dump-intermediates", default=None, metavar="DIR|FILE.npz",
                     help="Save every op result (keyed by execution order and op name)."),
    ]
    for option in reversed(opts):
        fn = option(fn)
    return fn


class DataOptions(Struct):
    """The data-file flags of one run (named as their click parameters)."""

    FLAGS = ("inputs", "input_values", "random_inputs", "seed", "dims", "save_results",
             "expected_output", "rtol", "atol", "ulp", "trace", "profile",
             "dump_intermediates")

    def __init__(self, inputs: str | None = None, input_values: Sequence[str] = (),
                 random_inputs: bool = False, seed: int = 0, dims: Sequence[str] = (),
                 save_results: str | None = None, expected_output: str | None = None,
                 rtol: float | None = None, atol: float | None = None,
                 ulp: float | None = None, trace: bool = False, profile: bool = False,
                 dump_intermediates: str | None = None) -> None:
        self.inputs = inputs
        self.input_values = input_values
        self.random_inputs = random_inputs
        self.seed = seed
        self.dims = dims
        self.save_results = save_results
        self.expected_output = expected_output
        self.rtol = rtol
        self.atol = atol
        self.ulp = ulp
        self.trace = trace
        self.profile = profile
        self.dump_intermediates = dump_intermediates
        self.observers: list[Observer] = []
        self.filled = False  # jax's platform index / effect tokens were filled in

    @classmethod
    def pop_from(cls, options: dict[str, Any]) -> DataOptions:
        return cls(**{n: options.pop(n) for n in cls.FLAGS if n in options})

    @property
    def gives_inputs(self) -> bool:
        return bool(self.inputs or self.input_values or self.random_inputs)

    @property
    def writes_files(self) -> bool:
        return bool(self.save_results or self.expected_output or self.dump_intermediates)

    def check(self, args: str | None) -> None:
        """Flags that cannot go together."""
        sources = [name for name, on in (("--args", bool(args)), ("--inputs", self.inputs),
                                         ("--input", self.input_values),
                                         ("--random-inputs", self.random_inputs)) if on]
        if len(sources) > 1:
            raise InputError(f"{' and '.join(sources)} cannot be combined: give the "
                             "arguments one way")
        if self.save_results and not self.save_results.endswith((".npz", ".npy")):
            raise InputError(f"--save-results '{self.save_results}': expected a .npz or "
                             ".npy file name")
        parse_dims(self.dims)

    # ---- inputs -----------------------------------------------------------------------

    def arguments(self, func: Operation, signature: Signature | None = None) -> list[Argument]:
        """The entry function's arguments from --inputs / --input / --random-inputs."""
        signature = signature or signature_of(func)
        arrays_only = _jax_arrays(func, signature)  # text of a jax export: just its arrays?
        fill = signature.platforms is not None
        if self.inputs:
            try:
                values = inputs_from_npz(self.inputs.removeprefix("@"), signature)
            except InputError:
                if arrays_only is None:
                    raise
                values = inputs_from_npz(self.inputs.removeprefix("@"), arrays_only)
                signature, fill = arrays_only, True
        elif self.input_values:
            given = [input_from_option(t) for t in self.input_values]
            if arrays_only is not None and len(given) == len(arrays_only.args):
                signature, fill = arrays_only, True
            values = signature.select(given)
            if len(values) != len(signature.args):
                counts = f"{len(signature.args)}" if signature.inputs == len(signature.args) \
                    else f"{signature.inputs} (or the module's {len(signature.args)})"
                raise InputError(f"{len(values)} --input values given but the entry "
                                 f"function takes {counts} arguments")
        else:
            if arrays_only is not None:
                signature, fill = arrays_only, True
            values = random_inputs(signature, self.seed, parse_dims(self.dims))
        arrays = [coerce_input(value, spec)
                  for value, spec in zip(values, signature.args, strict=True)]
        if signature.check is not None:
            signature.check(arrays)
        arguments = [Argument(array, spec.type.with_shape(array.shape))  # type: ignore[attr-defined]
                     for array, spec in zip(arrays, signature.args, strict=True)]
        if fill:
            arguments = _jax_implicit(func, arrays, signature.platforms) + arguments
            if signature.platforms is None and _has_platform_index(func):
                import sys

                sys.stderr.write("note: platform index 0 (the export's first platform): the "
                                 "text does not say which platforms it was exported for; "
                                 "give the module's argument #0 to pick another\n")
        self.filled = fill
        return arguments

    # ---- observers ---------------------------------------------------------------------

    def observer(self, stderr: TextIO) -> Observer | None:
        self.observers = []
        if not (self.profile or self.dump_intermediates or self.trace):
            return None
        from ..interpreter.observe import IntermediateDumper, Observers, Profiler, Tracer

        if self.profile:  # innermost: times the kernels, not the other observers
            self.observers.append(Profiler())
        if self.dump_intermediates:
            self.observers.append(IntermediateDumper())
        if self.trace:
            self.observers.append(Tracer(stderr))
        if not self.observers:
            return None
        return self.observers[0] if len(self.observers) == 1 else Observers(self.observers)

    def finish_observers(self, stderr: TextIO, succeeded: bool) -> None:
        """Print the profile (also of a failed run); write intermediates only when the run
        succeeded (no partial output files)."""
        if not self.observers:
            return
        from ..interpreter.observe import IntermediateDumper, Profiler

        for observer in self.observers:
            if isinstance(observer, Profiler):
                stderr.write(format_profile(observer, stderr))
            elif isinstance(observer, IntermediateDumper) and self.dump_intermediates \
                    and succeeded:
                dump_arrays(self.dump_intermediates, observer.arrays)

    # ---- results -----------------------------------------------------------------------

    def handle_results(self, values: list[Any], stdout: TextIO) -> bool:
        """Save and/or compare; returns False when the comparison failed."""
        arrays = results_dict(values)
        if self.save_results:
            save_arrays(self.save_results, arrays)
        if not self.expected_output:
            return True
        path = self.expected_output.removeprefix("@")
        expected = positional_keys(read_array_file(path), "result")
        if "" in expected:
            expected = {"result0": expected.pop("")}
        for key, value in arrays.items():  # raw bits of bf16, f8, ... saved by other tools
            if key in expected:
                expected[key] = from_bits(expected[key], value.dtype)
        from ..interpreter.compare import Tolerance, compare_sets

        comparisons = compare_sets(arrays, expected,
                                   Tolerance(self.rtol, self.atol, self.ulp))
        stdout.write(format_comparisons(comparisons, stdout))
        return all(c.ok for c in comparisons)


def dump_arrays(target: str, arrays: dict[str, np.ndarray]) -> None:
    """`.npz` file, or one `.npy` (`.npz` for non-numpy dtypes) per op in a directory."""
    if target.endswith(".npz"):
        save_arrays(target, arrays)
        return
    try:
        os.makedirs(target, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create directory '{target}': {e.strerror}") from None
    from ..interpreter.io import is_native

    for key, array in arrays.items():
        suffix = ".npy" if is_native(array.dtype) else ".npz"
        save_arrays(os.path.join(target, key + suffix), {key: array})


def format_comparisons(comparisons: list[Comparison], stream: TextIO) -> str:
    lines = []
    for c in comparisons:
        text = c.summary()
        status = "ok" if c.ok else "MISMATCH"
        text = text.replace(status, paint(status, "ok" if c.ok else "bad", stream), 1)
        lines.append(text)
    return "\n".join(lines) + "\n"


def format_profile(profiler: Profiler, stream: TextIO, limit: int = 30) -> str:
    """Two tables (per op kind, per source location), slowest first; rich on a TTY."""
    total = profiler.total() or 1e-12
    tables = [("op", profiler.rows(profiler.by_kind)),
              ("location", profiler.rows(profiler.by_location, limit))]
    if use_color(stream):
        return _rich_profile(tables, total, stream)
    out = []
    for title, rows in tables:
        width = max([len(title)] + [len(k) for k, _ in rows])
        out.append(f"{title:<{width}}  {'calls':>8}  {'seconds':>10}  {'%':>6}")
        for key, stat in rows:
            out.append(f"{key:<{width}}  {stat.calls:>8}  {stat.seconds:>10.6f}  "
                       f"{100 * stat.seconds / total:>6.2f}")
        out.append("")
    out.append(f"total {total:.6f} s in {sum(s.calls for s in profiler.by_kind.values())} "
               "op executions")
    return "\n".join(out) + "\n"


def _rich_profile(tables: list[tuple[str, list[Any]]], total: float, stream: TextIO) -> str:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=stream, force_terminal=True)
    with console.capture() as capture:
        for title, rows in tables:
            table = Table(title=f"time per {title}")
            table.add_column(title)
            for name in ("calls", "seconds", "%"):
                table.add_column(name, justify="right")
            for key, stat in rows:
                table.add_row(key, str(stat.calls), f"{stat.seconds:.6f}",
                              f"{100 * stat.seconds / total:.2f}")
            console.print(table)
        console.print(f"total {total:.6f} s")
    return capture.get()


def entry_of(module: Module) -> Operation:
    from ..interpreter.engine import entry_function

    return entry_function(module)



def _jax_arrays(func: Operation, signature: Signature) -> Signature | None:
    """For the text of a jax export whose `main` takes a platform index or effect tokens
    (jax_convention), the signature of its arrays alone, numbered as jax numbers them
    (`arg0` is the first array): what users give, as they give a `.jax` file's; None for
    other modules and for signatures a loader made."""
    from ..interpreter.jax_convention import implicit_inputs

    if signature.platforms is not None or signature.inputs != len(signature.args):
        return None
    has_index, tokens = implicit_inputs(func)
    skipped = int(has_index) + tokens
    if not skipped:
        return None
    args = [ArgSpec(k, spec.name if spec.name != f"arg{spec.index}" else f"arg{k}", spec.type,
                    spec.dim_var, spec.dim_names)
            for k, spec in enumerate(signature.args[skipped:])]
    return Signature(args, signature.results, check=signature.check)


def _has_platform_index(func: Operation) -> bool:
    from ..interpreter.jax_convention import implicit_inputs

    return implicit_inputs(func)[0]


def _jax_implicit(func: Operation, arrays: list[Any],
                  platforms: list[str] | None) -> list[Argument]:
    """jax's platform index and effect tokens that precede the arrays (jax_convention)."""
    from ..interpreter.engine import EvaluationError
    from ..interpreter.jax_convention import complete_inputs

    try:
        completed = complete_inputs(func, arrays, platforms=platforms)
    except EvaluationError as e:
        raise InputError(str(e)) from None
    types = func.attr("function_type").value.inputs
    return [Argument(value, type) for value, type in
            zip(completed[:len(completed) - len(arrays)], types, strict=False)]
