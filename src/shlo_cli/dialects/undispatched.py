"""numpy functions without their `__array_function__` dispatch (NEP 18).

`np.dot` and `np.concatenate` first call a Python dispatcher that looks for operands
overriding them: some 0.15 us of a 0.45 us `np.dot` of an RNN step's (1, 32) x (32, 32),
0.5 us of a 0.9 us concatenate of two gate vectors. The interpreter's kernels pass numpy
arrays, which override nothing, so the C implementation the dispatch would pick
(`_implementation`, where numpy has one) does the same work, bit for bit, without it.
Kernels look it up as they are made (an attribute of numpy, which a tool launch that
does not compute never loads: lazy_imports.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def undispatched(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`'s implementation behind numpy's dispatch; `fn` itself when it has none."""
    implementation = getattr(fn, "_implementation", None)
    return implementation if callable(implementation) else fn

