"""libm_tiny: f32 arrays of a few elements through `math`, one call per element, give the
bits `libm.native_kernel` gives (the C library's double result rounded once to f32)."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects import libm, libm_tiny

F32 = np.dtype(np.float32)
SPECIALS = [np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 88.8, 89.0, 710.0, -1.0, 1e-45,
            3e38, -3e38]


def _reference(fn: object, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return fn(x.astype(np.float64)).astype(np.float32)  # type: ignore[operator, no-any-return]


@pytest.mark.parametrize("name", ["tanh", "exp", "expm1", "sin", "cos", "arctan", "log",
                                  "log1p", "arcsin", "sinh"])
def test_small_arrays_match_the_kernel_bits(name: str) -> None:
    fn = getattr(libm, name)
    kernel = libm.native_kernel(fn, F32)
    rng = np.random.default_rng(7)
    for size in range(1, libm_tiny.TINY + 3):
        for trial in range(40):
            scale = rng.choice([1e-3, 1.0, 10.0, 100.0])
            x = (rng.standard_normal((1, size)) * scale).astype(np.float32)
            if trial % 3 == 0:
                x.flat[rng.integers(size)] = rng.choice(SPECIALS)
            got = kernel(x)
            assert got.shape == x.shape and got.dtype == F32
            assert np.array_equal(got.view(np.uint32), _reference(fn, x).view(np.uint32))


def test_per_element_answers_only_finite_in_domain_arguments() -> None:
    tanh = libm_tiny.per_element(libm.tanh, F32)
    exp = libm_tiny.per_element(libm.exp, F32)
    log = libm_tiny.per_element(libm.log, F32)
    assert tanh is not None and exp is not None and log is not None
    x = np.array([[0.5, -2.0, 3.0]], np.float32)
    assert np.array_equal(tanh(x), _reference(libm.tanh, x))
    assert tanh(np.array([[0.5, np.nan]], np.float32)) is None  # NaN: the C library's sign
    assert tanh(np.array([[np.inf]], np.float32)) is None
    assert exp(np.array([[1.0, 710.0]], np.float32)) is None  # math.exp overflows
    assert log(np.array([[1.0, -1.0]], np.float32)) is None  # outside the domain
    big = exp(np.array([[89.0]], np.float32))  # finite double, past f32: infinity
    assert big is not None and np.isposinf(big).all()


def test_functions_without_a_math_counterpart_keep_the_kernel() -> None:
    assert libm_tiny.per_element(libm.lgamma, F32) is None
