"""A libm function over an f32 array of a few elements, one `math` call per element.

`libm.native_kernel` computes an f32 result with about eight whole-array numpy calls (a
double guess, then a test that the C library's result rounds the same way): some 3 us
whatever the size. A small recurrent model's gates hold 8 to 32 elements, and there Python's
`math` module, which calls the C library itself, is cheaper: its double results are the C
library's by definition, and numpy's cast rounds them to f32 exactly as the kernel does.
"""

from __future__ import annotations

import numpy as np

from .quiet import quieted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

TINY = 24  # elements up to which the per-element path is the cheaper one (measured)


def per_element(fn: Any, dtype: np.dtype) -> Callable[[np.ndarray], Any] | None:
    """For a libm function whose `math` is the `math` module's (None if not): `x -> math_fn`
    on each element of float array `x`, rounded to `dtype`, or None where an argument is
    not finite or `math_fn` raises (outside its domain, overflow): the C library's own
    answer there (NaN signs, infinities) comes through the general kernel. Its `unquieted`
    form leaves numpy's error state (a double past f32's range rounds to an infinity, as
    astype does, with an overflow warning) to the caller (dialects/quiet.py)."""
    math_fn: Callable[[float], float] | None = getattr(fn, "math", None)
    if math_fn is None:
        return None
    fromiter = np.fromiter

    def unquieted(x: np.ndarray) -> np.ndarray | None:
        values = x.ravel().tolist()
        total = sum(values)  # (f32 values: a finite sum unless one is infinite or NaN)
        if total - total != 0.0:
            return None
        try:
            out = fromiter(map(math_fn, values), dtype, len(values))
        except (OverflowError, ValueError):
            return None
        out.shape = x.shape
        return out

    return quieted(unquieted)
