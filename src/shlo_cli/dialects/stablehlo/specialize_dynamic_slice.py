"""Plan-time dynamic_slice and dynamic_update_slice kernels (specialize.py's binding
hook): the clamped window worked out per call in a few integer tests, a scan's row read
and row write in their cheapest numpy form, the update in place where nothing else holds
the operand (in_place.py)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.diagnostics import EvaluationError
from .in_place import INLINE_SOLE, writable_alone

Kernel = Callable[..., Any]


def _fresh(x: np.ndarray) -> np.ndarray:
    """What data_movement.result_array returns for an array of the right dtype and shape:
    itself when contiguous and writeable, else a contiguous copy."""
    flags = x.flags  # one flags object (each `.flags` access builds a new one)
    if flags.c_contiguous and flags.writeable:
        return x
    return np.array(x, order="C")


def _dynamic_update_slice(shape: tuple[int, ...], sizes: tuple[int, ...],
                          general: Kernel) -> Kernel:
    """slicing.dynamic_update_slice: a C-ordered copy of the operand with the window at
    the clamped start indices (slicing.clamped_start) replaced by the update; operands of
    other shapes go to the general evaluator."""
    # Dimensions the update spans whole take a fixed slice (every start clamps to 0), and
    # none at all after the last dimension it does not span; leading dimensions of one
    # element take an integer (an attention cache's (1, 1, heads, width) row: a quarter of
    # the slices' cost; numpy drops the update's unit dimensions as it assigns).
    rank = len(sizes)
    spans = [d for d in range(rank) if sizes[d] != shape[d]]
    length = spans[-1] + 1 if spans else 0
    ints = 0  # (never every dimension: an element takes no array)
    while ints < min(length, rank - 1) and sizes[ints] == 1:
        ints += 1
    fixed: list[int | slice] = [0 if d < ints else slice(0, sizes[d]) for d in range(length)]
    moving = tuple((d, n - k, k) for d, (n, k) in enumerate(zip(shape, sizes, strict=True))
                   if n > k)
    array = np.ndarray

    leading = len(moving) == 1 and moving[0][0] == 0

    def window(starts: tuple[np.ndarray, ...]) -> tuple[int | slice, ...] | int | slice:
        """The update's window at the clamped start indices (the index of the leading
        dimension alone when the update spans every other one: a scan's stacked output
        row, which numpy assigns in half the time of a tuple)."""
        found = fixed.copy()
        for d, top, size in moving:
            start = int(starts[d])
            if start < 0:
                start = 0
            elif start > top:
                start = top
            found[d] = start if d < ints else slice(start, start + size)
        return found[0] if leading else tuple(found)

    def kernel(x: np.ndarray, update: np.ndarray, *starts: np.ndarray) -> np.ndarray:
        if (x.__class__ is not array or update.__class__ is not array or x.shape != shape
                or update.shape != sizes or len(starts) != rank):
            if row_update is not None and np.shape(update) == row_update:  # (see below)
                return kernel(x, np.reshape(update, sizes), *starts)
            return general(x, update, *starts)
        out = np.array(x, order="C")
        out[window(starts)] = update
        return out

    def in_place(x: np.ndarray, update: np.ndarray, *starts: np.ndarray) -> np.ndarray:
        """`kernel`, writing into `x` when nothing else can see it (in_place.py): for
        generated plans passing `x` at its last use."""
        seen = count(x)  # a statement of its own: as an argument, x would be on the stack
        if (x.__class__ is not array or not writable_alone(x, seen)
                or update.__class__ is not array or x.shape != shape
                or update.shape != sizes or len(starts) != rank):
            return kernel(x, update, *starts)
        x[window(starts)] = update
        return x

    def in_place_rows(x: np.ndarray, update: np.ndarray, *starts: np.ndarray) -> np.ndarray:
        """`in_place` for a window of whole rows of the leading dimension (`leading`: a
        scan's stacked output row), its start clamped inline; one row is assigned at an
        integer index (the same elements: numpy drops the update's leading unit
        dimension), cheaper than through a slice."""
        seen = count(x)  # (as in `in_place`)
        if (x.__class__ is not array or not writable_alone(x, seen)
                or update.__class__ is not array or x.shape != shape
                or update.shape != sizes and update.shape != row_update
                or len(starts) != rank):
            return kernel(x, update, *starts)
        start = int(starts[0])
        if start < 0:
            start = 0
        elif start > top:
            start = top
        if row:
            x[start] = update
        elif element:  # (a one-element slice assignment costs twice an item's)
            x[start] = update[0]
        else:
            x[start:start + size] = update
        return x

    def write_element(x: np.ndarray, value: Any, start: Any) -> np.ndarray:
        """`in_place_rows` of a vector's one-element update given as the Python scalar
        `value` (a generated loop's held float, int or bool: numpy's item assignment casts
        it as converting it back to a numpy scalar would), no update array made."""
        seen = count(x)  # (as in `in_place`)
        if x.__class__ is not array or not writable_alone(x, seen) or x.shape != shape:
            if x.__class__ is not array:
                x = np.asarray(x)
            return kernel(x, np.array([value], x.dtype), start)
        start = int(start)
        if start < 0:
            start = 0
        elif start > top:
            start = top
        x[start] = value
        return x

    def emit(name: str, args: list[str], ns: dict[str, Any]) -> str | None:
        """`in_place_rows` of one row as a generated line's expression (codegen's
        in-place steps): the row assigned where the kernel would assign it (the operand
        held by that local alone, owning its memory, writeable: in_place.INLINE_SOLE),
        the start clamped as the kernel clamps it; otherwise the kernel's call. The
        classes, shapes and start count the kernel also tests are the step's static
        types. A scan's `ys[t] = y` then costs the assignment and three tests."""
        if not row or len(args) != rank + 2:
            return None
        x, update, start = args[0], args[1], args[2]
        ns["_REFS"], ns["_SOLE"] = count, INLINE_SOLE
        at = f"{start} if 0 <= {start} <= {top} else (0 if {start} < 0 else {top})"
        return (f"{x} if _REFS({x}) == _SOLE and {x}.base is None and {x}.flags.writeable "
                f"and not {x}.__setitem__({at}, {update}) else {name}({', '.join(args)})")

    count = sys.getrefcount
    # (all three read each start with int(), the general evaluator through np.asarray:
    # a generated loop may pass a Python int counter, pyscalar.py)
    kernel.int_starts = 2  # type: ignore[attr-defined]
    # A one-row update also comes as its row, without the leading unit dimension (numpy
    # assigns it to x[start] as it is): codegen then skips the reshape that made the
    # update (a scan's `ys[i] = y`, row_writes.py).
    row_update: tuple[int, ...] | None = None
    if leading:
        _, top, size = moving[0]
        row = size == 1 and rank > 1  # (an element of a vector takes no array)
        element = size == 1 and rank == 1
        if row:
            row_update = sizes[1:]
            kernel.row_update = row_update  # type: ignore[attr-defined]
        kernel.in_place = in_place_rows  # type: ignore[attr-defined]
        in_place_rows.emit = emit  # type: ignore[attr-defined]
        if element:  # (codegen's scalar loops: interpreter/scalar_writes.py)
            in_place_rows.write_element = write_element  # type: ignore[attr-defined]
    else:
        kernel.in_place = in_place  # type: ignore[attr-defined]
    return kernel


def _dynamic_slice(sizes: tuple[int, ...], shape: tuple[int, ...], itemsize: int) -> Kernel:
    """slicing.dynamic_slice at the clamped start indices, for operands of `shape` (of
    elements of `itemsize` bytes: the row read's fast case)."""
    highest = [max(n - k, 0) for n, k in zip(shape, sizes, strict=True)]
    if len(sizes) == 1:
        size, top = sizes[0], highest[0]

        def one(x: np.ndarray, i: np.ndarray) -> np.ndarray:
            start = int(i)
            if start < 0:  # (comparisons cost less than min(max(...)) on this path)
                start = 0
            elif start > top:
                start = top
            return _fresh(x[start:start + size])

        if size == 1:
            full = (shape[0],)
            array = np.ndarray

            def element(x: np.ndarray, i: np.ndarray) -> Any:
                """one(x, i) reshaped to 0-d by a scalar reshape (specialize_scalar's
                _element): x's element at the clamped index, a numpy scalar."""
                if x.__class__ is not array or x.shape != full:
                    window = one(x, i)  # what the pair does, its error included
                    if window.size != 1:
                        raise EvaluationError(f"cannot reshape {list(window.shape)} into []")
                    return window[(0,) * window.ndim]
                start = int(i)
                if start < 0:
                    start = 0
                elif start > top:
                    start = top
                return x[start]
            one.element = element  # type: ignore[attr-defined]  # codegen fuses the pair
            # codegen's scalar loops clamp a Python int index to it themselves (pyscalar.py)
            element.top = top  # type: ignore[attr-defined]
        one.int_starts = 1  # type: ignore[attr-defined]  # (int(): a Python int index too)
        return one

    # A dimension the window spans whole clamps every start to 0: its slice is fixed (a
    # scan's x[i] of a (T, 1, n) stack converts one index, not three).
    fixed = [slice(0, size) for size in sizes]
    moving = tuple((d, top, sizes[d]) for d, top in enumerate(highest) if top > 0)
    rank = len(sizes)

    def kernel(x: np.ndarray, *starts: np.ndarray) -> np.ndarray:
        if len(starts) != rank:  # as zip(strict=True) would say
            raise ValueError(f"dynamic_slice takes {rank} start indices")
        window = fixed.copy()
        for d, top, size in moving:
            start = int(starts[d])
            if start < 0:
                start = 0
            elif start > top:
                start = top
            window[d] = slice(start, start + size)
        return _fresh(x[tuple(window)])

    if moving and moving[0][0] == 0 and sizes[0] == 1 and sizes[1:] == shape[1:]:
        top0, rest = moving[0][1], shape[1:]
        array = np.ndarray

        def row(x: np.ndarray, *starts: np.ndarray) -> np.ndarray:
            """kernel(x, *starts) reshaped without its leading unit dimension (a scan's
            x[i]): the row at the clamped first index."""
            if x.__class__ is not array or x.shape != shape or len(starts) != rank:
                window = kernel(x, *starts)  # what the pair does, its error included
                if window.size != math.prod(shape[1:]):
                    raise EvaluationError(f"cannot reshape {list(window.shape)} into "
                                          f"{list(shape[1:])}")
                return _fresh(window.reshape(shape[1:]))
            start = int(starts[0])
            if start < 0:
                start = 0
            elif start > top0:
                start = top0
            if x.strides == standard and x.flags.writeable:
                # x's own C strides: x[start] is the view the reshape below gives (its
                # strides too, unit dimensions included), for one numpy call
                return x[start]  # type: ignore[no-any-return]
            # the pair's own view and reshape (x[start] may keep another stride for a
            # unit dimension, and a product's kernel reads the layout)
            return _fresh(x[start:start + 1].reshape(rest))
        # (none for an empty operand: numpy's strides of empty views are its own choice)
        standard = tuple(itemsize * math.prod(shape[d + 1:]) for d in range(len(shape))
                         ) if math.prod(shape) else None

        def rows_of(x: Any) -> Any:
            """An array whose [i] is `row(x, i, ...)` for every start i in [0, top] (then
            it is read by indexing: a scan's sequence, checked once per loop), else None:
            x itself in C strides; a C-contiguous x of other strides for unit dimensions
            (a Keras GRU's transposed sequence) re-strided, as numpy's reshape strides the
            pair's view of such an x."""
            if (x.__class__ is not array or x.shape != shape or standard is None
                    or not x.flags.writeable):
                return None
            if x.strides == standard:
                return x
            if x.flags.c_contiguous:
                return x.reshape(-1).reshape(shape)  # (views: a contiguous x is not copied)
            return None
        kernel.row = row  # type: ignore[attr-defined]  # codegen fuses it with the reshape
        row.rows_of = rows_of  # type: ignore[attr-defined]
        row.top = top0  # type: ignore[attr-defined]
    kernel.int_starts = 1  # type: ignore[attr-defined]  # (as `one`)
    return kernel
