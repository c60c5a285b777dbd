"""Whether a kernel may write into its first operand: nothing else can see the array.

A scan's `dynamic_update_slice` of its stacked outputs copies the whole stack every step
(O(steps^2) bytes for the loop) although the old stack is dead right after: the generated
plan (interpreter/codegen.py) passes it from a local variable at its last use. The array
may be updated in place exactly when that local holds the only reference besides the call's
own: it owns its memory (no view of another array), is writeable (constants are frozen),
and its reference count is what a sole local gives, measured once on this interpreter with
the same call shape (`SOLE`). Any other holder (a caller's argument list, the environment
dict of nested regions, a view, another local aliasing it) raises the count.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

_count = sys.getrefcount


def _probe(x: Any, *rest: Any) -> int:
    return _count(x)


def _calibrate() -> int:
    """The count a kernel `f(x, *rest)` sees for an array held by one local of its caller
    (generated code: `v = K(a, b)`); -1 (never) if the measure is not plausible."""
    # any object counts references alike (a list: numpy is not loaded at import)
    ns: dict[str, Any] = {"probe": _probe, "empty": list}
    exec("def caller():\n    a = empty()\n    v = probe(a, 0)\n    return v\n", ns)  # noqa: S102
    seen = {ns["caller"]() for _ in range(3)}
    sole = seen.pop()
    return sole if not seen and 2 <= sole <= 8 else -1


SOLE = _calibrate()


def _calibrate_inline() -> int:
    """The count generated code sees for an array held by one of its locals, measured in
    the line itself (`v = x if refs(x) == SOLE ... else K(x, ...)`: a kernel's `emit`)."""
    ns: dict[str, Any] = {"refs": _count, "empty": list}
    exec("def caller():\n    a = empty()\n    v = refs(a) if a is not None else 0\n"  # noqa: S102
         "    return v\n", ns)
    seen = {ns["caller"]() for _ in range(3)}
    sole = seen.pop()
    return sole if not seen and 1 <= sole <= 8 else -1


INLINE_SOLE = _calibrate_inline()


def writable_alone(x: np.ndarray, seen: int) -> bool:
    """True when `x`, whose reference count the kernel measured as `seen` (`_count(x)` in
    the kernel itself, as `_probe` does: a statement of its own, with nothing else of the
    kernel's holding x), may be written in place."""
    return seen == SOLE and x.base is None and x.flags.writeable
