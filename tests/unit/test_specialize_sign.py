"""Bitwise float sign (dialects/stablehlo/specialize_sign.py) gives the general evaluator's
bits: f16, bf16, f32, f64; ±0, ±inf, subnormals, extremes; arrays with NaNs (payloads, sign
bit set, signaling) go whole to the general path; empty, 0-d and strided operands."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_sign

TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}


def _program(elem: str, shape: str) -> str:
    t = f"tensor<{shape}{elem}>"
    return (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.sign %a : {t}\n  func.return %0 : {t}\n}}\n")


def _values(elem: str, n: int, seed: int, nan: bool) -> np.ndarray:
    """Random bit patterns (NaNs replaced by zeros unless `nan`), specials first."""
    dtype = np.dtype(TYPES[elem])
    unsigned = np.dtype(f"u{dtype.itemsize}")
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, np.iinfo(unsigned).max, n, dtype=unsigned, endpoint=True)
    x = bits.view(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 1e-40, -1e-40], np.float64)
    x[:specials.size] = specials.astype(dtype)
    x[specials.size:specials.size + 2] = np.array([1, (1 << (8 * dtype.itemsize - 1)) | 1],
                                                   unsigned).view(dtype)  # least subnormals
    if not nan:
        with np.errstate(invalid="ignore"):
            x[np.isnan(x.astype(np.float64))] = dtype.type(0.0)
    return x


def _check(elem: str, shape: str, x: np.ndarray, fast_expected: bool = True) -> None:
    text = _program(elem, shape)
    fast, kernel = run_first_op(text, [x], specialize_sign.bind_sign, True)
    plain, general = run_first_op(text, [x], specialize_sign.bind_sign, False)
    assert (kernel is not general) == fast_expected
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()


@pytest.mark.parametrize("elem", list(TYPES))
def test_sign_matches_general_evaluator(elem: str) -> None:
    x = _values(elem, 6000, 1, nan=False)
    _check(elem, "6000x", x)
    _check(elem, "60x100x", x.reshape(60, 100))
    _check(elem, "0x", x[:0])
    _check(elem, "", x[5:6].reshape(()))
    _check(elem, "", x[0:1].reshape(()))


@pytest.mark.parametrize("elem", list(TYPES))
def test_sign_with_nans_takes_the_general_path(elem: str) -> None:
    """Any NaN (quiet, signaling, sign bit set, payloads) in the operand: every element,
    the NaNs' bits included, is the general evaluator's."""
    dtype = np.dtype(TYPES[elem])
    unsigned = np.dtype(f"u{dtype.itemsize}")
    width = 8 * dtype.itemsize
    mantissa = 52 if width == 64 else (23 if width == 32 else (10 if dtype == np.float16 else 7))
    exponent = ((1 << (width - 1 - mantissa)) - 1) << mantissa
    quiet = 1 << (mantissa - 1)
    nans = np.array([exponent | quiet, exponent | 1, exponent | quiet | 3,
                     (1 << (width - 1)) | exponent | quiet, (1 << (width - 1)) | exponent | 5],
                    unsigned).view(dtype)
    x = _values(elem, 3000, 2, nan=False)
    for nan in nans:
        y = x.copy()
        y[1234] = nan
        _check(elem, "3000x", y)
    _check(elem, "3000x", _values(elem, 3000, 3, nan=True))


def test_sign_kernel_on_strided_views() -> None:
    """Called directly on a transposed and a stepped view: the general evaluator's bits."""
    from shlo_cli.dialects.stablehlo.elementwise import sign

    x = _values("f32", 4096, 4, nan=False).reshape(64, 64)
    kernel = specialize_sign._sign(np.dtype(np.float32), sign)
    for view in (x.T, x[::3, 1::2]):
        assert kernel(view).tobytes() == sign(view).tobytes()
        assert kernel(view).shape == view.shape
