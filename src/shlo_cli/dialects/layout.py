"""Conversions of arrays that may be broadcast views, in C order.

A broadcast_in_dim kernel may return a zero-stride view (stablehlo/specialize.py
`_broadcast_view`). numpy's `astype` keeps its input's memory order ('K'), and for a
zero-stride axis that order puts the broadcast axis innermost: the copy of a (4, 1024, 1024)
view of a 1024x1024 mask has its first axis contiguous, every elementwise op after it keeps
that layout, and a reduction over the last axis then reads memory strided (a masked softmax's
max: 29 ms instead of 0.6 ms). A copy made here from such a view is C-ordered; any other
array keeps astype's own order (a transposed array stays as cheap to copy as it was).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def astype(x: Any, dtype: Any) -> Any:
    """`x.astype(dtype)`, C-ordered when `x` repeats elements along an axis."""
    return x.astype(dtype, order="C" if 0 in x.strides else "K")


def dense(x: Any) -> Any:
    """`x`, or a C-ordered copy of it when it repeats elements along an axis."""
    return x.copy() if 0 in x.strides else x
