"""numpy's floating-point error state set to "ignore" for a few calls, cheaply.

`with np.errstate(all="ignore")` costs about 2 us (a Python object, keyword handling, a
context variable set and reset): on a 64-element LSTM gate that is more than the numpy
calls it guards. numpy 2 keeps the state in one context variable; `quiet()` sets it to a
prebuilt "ignore" state and returns the token `loud(token)` restores it with (0.3 us,
thread- and context-safe like errstate itself). Where numpy has no such variable (another
major version), the same two calls enter and leave a fresh `np.errstate`.

`switches()` returns the pair; kernels fetch it when they are built, not at import (numpy
is loaded lazily: parsing and printing never load it). A kernel may carry its work without
the pair as `kernel.unquieted`: a generated loop (interpreter/loopgen.py) ignores the
errors once around all its iterations and calls that instead, two switches less per op
and step of a recurrent cell.
"""

from __future__ import annotations

import functools

import numpy as np

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def _enter() -> Any:
    """Ignore floating-point errors until `loud(token)`; returns the token."""
    state = np.errstate(all="ignore")
    state.__enter__()
    return state


def _leave(token: Any) -> None:
    """Restore the error state `quiet()` replaced."""
    token.__exit__(None, None, None)


@functools.cache
def switches() -> tuple[Callable[[], Any], Callable[[Any], Any]]:
    """(quiet, loud): C-level callables on numpy 2's error-state variable, else the
    errstate-based pair."""
    try:
        from numpy._core import _ufunc_config as config  # numpy 2's errstate machinery

        variable = getattr(config, "_extobj_contextvar")  # noqa: B009 - private: may be absent
        make = getattr(config, "_make_extobj")  # noqa: B009
        state = make(all="ignore")
        variable.reset(variable.set(state))
    except Exception:  # noqa: BLE001 - any other numpy: the public errstate
        return _enter, _leave
    return functools.partial(variable.set, state), variable.reset


def quieted(unquieted: Callable[..., Any]) -> Callable[..., Any]:
    """`unquieted` run with numpy's floating-point errors ignored, carrying `unquieted`
    for generated loops (which ignore them once around all their steps). Named as
    `unquieted`'s maker's `kernel`: profiles and tests tell kernel kinds apart by name."""
    quiet, loud = switches()

    def kernel(*args: Any) -> Any:
        token = quiet()
        try:
            return unquieted(*args)
        finally:
            loud(token)
    kernel.unquieted = unquieted  # type: ignore[attr-defined]
    kernel.__qualname__ = unquieted.__qualname__.rsplit(".", 1)[0] + ".kernel"
    return kernel
