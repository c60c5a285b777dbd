"""A scan's row reads and row writes (specialize._dynamic_slice's `row`, the in-place
`dynamic_update_slice` of whole leading rows): their shortcuts (x[start] for a standard
C-ordered operand, an integer-index assignment) give the general formulation's values,
layout and freshness, at clamped indices, for NaN, -0.0, vectors and empty operands."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize

_NAN = np.array([0x7FC12345], np.uint32).view(np.float32)[0]


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    if x.size and np.dtype(dtype).kind == "f":
        flat = x.reshape(-1)
        flat[0], flat[-1] = -0.0, _NAN
    return x


def _pair(x: np.ndarray, start: int, size: int) -> np.ndarray:
    """dynamic_slice then reshape, as the general kernels do them."""
    top = x.shape[0] - 1
    s = min(max(start, 0), top)
    view = x[s:s + size].reshape(x.shape[1:])
    flags = view.flags
    return view if flags.c_contiguous and flags.writeable else np.array(view, order="C")


SHAPES = [(100, 1, 8), (5, 2), (3, 4, 1, 2), (7,), (4, 0, 3), (2, 3, 5)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8])
def test_row_read_is_slice_and_reshape(shape: tuple[int, ...], dtype: type) -> None:
    rng = np.random.default_rng(len(shape) + shape[0])
    sizes = (1,) + shape[1:]
    kernel = specialize._dynamic_slice(sizes, shape, np.dtype(dtype).itemsize)
    row = getattr(kernel, "row", None)
    if len(shape) == 1:  # a vector: no row read (the element read instead)
        assert row is None
        return
    assert row is not None
    base = _data(rng, shape, dtype)
    layouts = [base, np.asfortranarray(base), base.copy()]
    layouts[2].flags.writeable = False  # a frozen constant: its row is copied
    if base.ndim > 1 and base.shape[1] > 1:
        layouts.append(np.repeat(base, 2, axis=1)[:, ::2])  # strided
    for x in layouts:
        for i in (-4, 0, 1, shape[0] - 1, shape[0], 50):
            index = np.array(i, np.int32)
            zeros = [np.array(0, np.int32)] * (len(shape) - 1)
            got, want = row(x, index, *zeros), _pair(x, i, 1)
            assert got.shape == want.shape and got.strides == want.strides
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
            assert got.flags.writeable and got.flags.c_contiguous
            # a view of a writeable operand (as the pair's), a copy of a frozen one
            assert np.shares_memory(got, x) == np.shares_memory(want, x)


def _sole(in_place: Any, make: Any, update: np.ndarray, starts: list[np.ndarray]) -> Any:
    """`in_place` called as generated plans call it: the operand held by one local, the
    arguments listed (a `*` call holds them in a tuple too)."""
    a = make()
    if len(starts) == 1:
        v = in_place(a, update, starts[0])
    elif len(starts) == 2:
        v = in_place(a, update, starts[0], starts[1])
    else:
        assert len(starts) == 3
        v = in_place(a, update, starts[0], starts[1], starts[2])
    return v, v is a


@pytest.mark.parametrize("shape,sizes", [((40, 1, 32), (1, 1, 32)), ((6, 3), (1, 3)),
                                         ((6, 3), (2, 3)), ((5,), (1,)), ((5,), (2,)),
                                         ((4, 2, 2), (4, 2, 2)), ((3, 0, 2), (1, 0, 2))])
def test_row_writes_in_place_are_the_copy(shape: tuple[int, ...], sizes: tuple[int, ...]) -> None:
    rng = np.random.default_rng(sum(shape))

    def general(*args: Any) -> Any:
        raise AssertionError("operands of the kernel's own shapes")

    kernel = specialize._dynamic_update_slice(shape, sizes, general)
    in_place = kernel.in_place  # type: ignore[attr-defined]
    leading = sum(n > k for n, k in zip(shape, sizes, strict=True)) == 1 and shape[0] > sizes[0]
    assert in_place.__qualname__.endswith("in_place_rows") == leading
    x = _data(rng, shape, np.float32)
    update = _data(rng, sizes, np.float32)
    for i in (-3, 0, 1, shape[0] - 1, shape[0] + 2):
        starts = [np.array(i, np.int32)] + [np.array(0, np.int32)] * (len(shape) - 1)
        want = kernel(x, update, *starts)
        got, same = _sole(in_place, x.copy, update, starts)
        assert same  # written in place
        assert got.shape == want.shape and got.tobytes() == want.tobytes()
        # the reference: the update at the clamped start
        ref = x.copy()
        s = min(max(i, 0), shape[0] - sizes[0])
        ref[s:s + sizes[0]] = update
        assert ref.tobytes() == got.tobytes()
        # held elsewhere too: a copy, the operand untouched
        kept = x.copy()
        other, same = _sole(in_place, lambda kept=kept: kept, update, starts)
        assert not same and other.tobytes() == want.tobytes()
        assert kept.tobytes() == x.tobytes()
