"""shlo: a pure-Python StableHLO toolchain.

Python API (details in README and api.py):

    import numpy as np, shlo_cli
    program = shlo_cli.load("prog.mlir")            # or shlo_cli.parse(text)
    [y] = program.main(np.ones((2,), np.float32))   # functions are callable
    [y] = shlo_cli.interpret("prog.mlir", x)       # one-shot; a str naming an existing
                                                    # file is a path, else program text
    shlo_cli.register_custom_call("my_op", lambda x: x * 2)

Heavy modules load on first use, so importing the package stays cheap for the CLIs.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# BLAS on one thread: interpreted programs multiply many small matrices, where OpenBLAS's
# thread hand-off costs more than the product, and on a busy machine its spinning threads
# slow a 64x128x384 product from 50 us to 50 ms. Takes effect before numpy loads; yours wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__all__ = ["Diagnostic", "Function", "Program", "interpret", "load", "parse",
           "register_custom_call"]

_API = {"interpret", "load", "parse", "register_custom_call", "Program", "Function"}


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    if name == "Diagnostic":
        from .ir.diagnostics import Diagnostic

        return Diagnostic
    raise AttributeError(f"module 'shlo_cli' has no attribute '{name}'")
