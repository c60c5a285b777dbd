"""stablehlo.tanh on narrow floats takes libm.rounded (numpy's tanh, the C library's where
rounding is in doubt): the result must equal the straightforward evaluation, the C library's
tanh of every element in double rounded once, on random data with NaN, -0.0, infinities,
tiny values and empty tensors."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import shlo_cli
from shlo_cli.dialects import libm


def _straightforward(x: np.ndarray) -> np.ndarray:
    wide = x.astype(np.float64).ravel()
    out = np.array([math.tanh(v) if math.isfinite(v) else float(np.tanh(v)) for v in wide],
                   np.float64)
    return out.astype(x.dtype).reshape(x.shape)


@pytest.mark.parametrize("elem,dtype", [("f32", np.float32), ("f16", np.float16),
                                         ("bf16", ml_dtypes.bfloat16)])
@pytest.mark.parametrize("shape", [(0,), (), (7,), (64, 33)])
def test_tanh_matches_c_library(elem: str, dtype: type, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(shape) + len(elem))
    x = (rng.standard_normal(shape) * rng.choice([1e-6, 0.3, 3.0, 30.0], shape)).astype(dtype)
    flat = x.reshape(-1)
    for i, v in enumerate([np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-30, -20.0]):
        if i < flat.size:
            flat[i] = v
    t = "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    text = (f"func.func @main(%x: {t}) -> {t} {{\n  %0 = stablehlo.tanh %x : {t}\n"
            f"  func.return %0 : {t}\n}}\n")
    (out,) = shlo_cli.interpret(text, x)
    got, want = np.asarray(out), _straightforward(x)
    assert got.shape == want.shape and got.dtype == want.dtype
    bits = f"u{np.dtype(dtype).itemsize}"
    nan = np.isnan(want.astype(np.float32))
    assert np.array_equal(np.isnan(got.astype(np.float32)), nan)
    assert np.array_equal(got.view(bits)[~nan], want.view(bits)[~nan])


def test_tanh_is_a_libm_function() -> None:
    """The rounded path needs `.ufunc` (else every element goes through Python floats)."""
    from shlo_cli.dialects.stablehlo import elementwise_math

    assert elementwise_math._tanh is libm.tanh
    # `.ufunc` may be the lazy stand-in for np.tanh (start-up without numpy): same function.
    ufunc = libm.tanh.ufunc
    assert ufunc.__name__ == "tanh" and isinstance(ufunc, np.ufunc)
    x = np.array([-2.0, 0.5, np.nan])
    np.testing.assert_array_equal(ufunc(x), np.tanh(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name", ["tanh", "exp", "expm1", "log", "log1p", "sin", "cos", "tan",
                                  "cbrt", "sinh", "arctanh"])
@pytest.mark.parametrize("shape", [(0,), (), (5,), (40, 33)])
def test_native_kernel_is_rounded(dtype: type, name: str, shape: tuple[int, ...]) -> None:
    """libm.native_kernel (unary, f16/f32) against libm.rounded with round_float: the same
    bits on random data with NaN, -0.0, infinities, tiny values and domain edges."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float

    rng = np.random.default_rng(len(shape) * 31 + len(name))
    x = (rng.standard_normal(shape) * rng.choice([1e-6, 0.5, 3.0, 300.0], shape)).astype(dtype)
    flat = x.reshape(-1)
    for i, v in enumerate([np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-30, -1.0, 1.0, 89.0]):
        if i < flat.size:
            flat[i] = v
    fn = getattr(libm, name)
    want = libm.rounded(fn, lambda r: round_float(r, np.dtype(dtype)), x)
    got = libm.native_kernel(fn, np.dtype(dtype))(x)
    assert got.shape == want.shape and got.dtype == want.dtype
    bits = f"u{np.dtype(dtype).itemsize}"
    assert np.array_equal(np.asarray(got).view(bits), np.asarray(want).view(bits))
