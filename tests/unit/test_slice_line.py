"""A static slice written inline (specialize._slice's `emit`, through codegen._inline): the
view itself where the kernel would return it (C-contiguous and writeable), the kernel's
call for any other view (a column window of a matrix, a frozen constant's window), so the
value, its layout and its writeability are the kernel's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize


def _run(window: tuple[slice, ...], x: Any) -> tuple[Any, list[Any]]:
    """The emitted expression's value on x, and the operands the kernel was called with."""
    kernel = specialize._slice(window, np.shape(x), 0)
    calls: list[Any] = []

    def recorded(v: Any) -> Any:
        calls.append(v)
        return kernel(v)
    ns: dict[str, Any] = {"K": recorded, "x": x}
    exec(f"def f():\n    return {kernel.emit('K', ['x'], ns)}\n", ns)  # noqa: S102
    return ns["f"](), calls


@pytest.mark.parametrize("case", ["row", "columns", "frozen", "strided"])
def test_inline_slice_is_the_kernels(case: str) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 16)).astype(np.float32)
    x[0, [1, 5, 9, 12]] = [np.nan, -0.0, np.inf, 1e-42]
    window: tuple[slice, ...] = (slice(0, 1, 1), slice(4, 12, 1))
    if case == "columns":  # (a window of a matrix's columns is no contiguous view)
        x = rng.standard_normal((3, 16)).astype(np.float32)
        window = (slice(0, 3, 1), slice(4, 12, 1))
    if case == "frozen":
        x.flags.writeable = False
    if case == "strided":
        window = (slice(0, 1, 1), slice(0, 16, 2))
    want = specialize._slice(window, x.shape, 0)(x)
    got, calls = _run(window, x)
    assert got.tobytes() == want.tobytes() and got.shape == want.shape
    assert got.flags.c_contiguous and got.flags.writeable
    assert np.shares_memory(got, x) == np.shares_memory(want, x)
    assert len(calls) == (0 if case == "row" else 1)
