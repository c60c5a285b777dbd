"""numpy's floating-point error state set to "ignore" for a few calls, cheaply.

`with np.errstate(all="ignore")` costs about 2 us (a Python object, keyword handling, a
context variable set and reset): on a 64-element LSTM gate that is more than the numpy
calls it guards. numpy 2 keeps the state in one context variable; `quiet()` sets it to a
prebuilt "ignore" state and returns the token `loud(token)` restores it with (0.3 us,
thread- and context-safe like errstate itself). Where numpy has no such variable (another
major version), the same two calls enter and leave a fresh `np.errstate`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np


def _native() -> tuple[Any, Any] | None:
    try:
        from numpy._core import _ufunc_config as config  # numpy 2's errstate machinery

        variable = getattr(config, "_extobj_contextvar")  # noqa: B009 - private: may be absent
        make = getattr(config, "_make_extobj")  # noqa: B009
        state = make(all="ignore")
        token = variable.set(state)
        variable.reset(token)
    except Exception:  # noqa: BLE001 - any other numpy: the public errstate
        return None
    return variable, state


_NATIVE = _native()


def _enter() -> Any:
    """Ignore floating-point errors until `loud(token)`; returns the token."""
    state = np.errstate(all="ignore")
    state.__enter__()
    return state


def _leave(token: Any) -> None:
    """Restore the error state `quiet()` replaced."""
    token.__exit__(None, None, None)


quiet: Callable[[], Any] = _enter
loud: Callable[[Any], Any] = _leave
if _NATIVE is not None:  # C-level callables: no Python frame per call
    quiet = functools.partial(_NATIVE[0].set, _NATIVE[1])
    loud = _NATIVE[0].reset
