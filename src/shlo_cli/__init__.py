"""shlo: a pure-Python StableHLO toolchain.

Python API:

    import numpy as np, shlo_cli
    [y] = shlo_cli.interpret(open("prog.mlir").read(), np.ones((2,), np.float32))

Heavy modules load on first use, so importing the package stays cheap for the CLIs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

# Upstream's interpreter evaluates exp, log, pow, atan2, cbrt, expm1, log1p, tan, tanh... with
# glibc. numpy's AVX-512 (SVML) f64 versions differ from glibc by an ulp on ~5% of inputs, so keep
# numpy on its libm paths. Takes effect when set before numpy's first import; a user's setting wins.
os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", "X86_V4 AVX512_ICL AVX512_SPR")

if TYPE_CHECKING:
    import numpy as np

    from .ir.core import Module

__all__ = ["interpret"]


def interpret(module_or_text: Module | str | os.PathLike[str], *inputs: Any,
              probe_output_dir: str | None = None,
              platforms: Sequence[str] | None = None, memory_limit: int | None = None,
              max_iterations: int | None = None) -> list[np.ndarray]:
    """Run the entry function (`main`, or the only function) of a StableHLO program.

    `module_or_text` is a parsed Module, program text, or a path to a `.mlir` file. `inputs`
    are numpy arrays (or anything `np.asarray` accepts) for the entry function's arguments;
    values of another dtype are converted when that is a same-kind cast. Returns one numpy
    array per result. Errors raise `shlo_cli.ir.diagnostics.Diagnostic` (an Exception whose
    message upstream would print), never a half-finished result.

    jax.export modules may be given only their arrays: the platform index (the position of
    "cpu" in `platforms`, else 0) and effect tokens are filled in, and the token results
    are dropped (see `interpreter.jax_convention`).

    `memory_limit` (bytes) refuses ops whose results or temporaries would exceed it (default:
    `interpreter.memory.default_limit()`); `max_iterations` caps every `while` loop.
    """
    from .interpreter.engine import EvaluationError
    from .interpreter.run import InterpretOptions, arrays_as_arguments, evaluate
    from .ir.core import Module as ModuleClass
    from .ir.diagnostics import Diagnostic
    from .ir.parser import parse_source

    if isinstance(module_or_text, ModuleClass):
        module = module_or_text
    elif isinstance(module_or_text, os.PathLike):
        path = os.fspath(module_or_text)
        with open(path, encoding="utf-8") as f:
            module = parse_source(f.read(), path)
    else:
        module = parse_source(module_or_text, "<string>")
    arguments = None
    if module.functions():
        from .interpreter.engine import entry_function
        from .interpreter.jax_convention import complete_inputs

        try:
            entry = entry_function(module)
            completed = complete_inputs(entry, inputs, platforms=platforms)
            drop_tokens = len(completed) != len(inputs)
            arguments = arrays_as_arguments(entry, completed)
        except EvaluationError as e:
            raise Diagnostic(str(e)) from None
    options = InterpretOptions(probe_output_dir=probe_output_dir, memory_limit=memory_limit,
                               max_iterations=max_iterations)
    results = evaluate(module, arguments, options)
    import numpy as np

    values = [np.asarray(value) if isinstance(value, np.generic) else value
              for value, _ in results]
    if arguments is not None and drop_tokens:
        from .interpreter.jax_convention import array_results

        values = array_results(entry, values)
    return values
