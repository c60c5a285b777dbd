"""stablehlo.compare of floats through specialize_compare's kernels equals the general
evaluator (elementwise_select.compare: both operands widened to double, TOTALORDER on
integer keys of the doubles' bits) element for element: every direction, IEEE and
TOTALORDER, every float type; every pair of bit patterns of the 8-bit and narrower types,
every 16-bit pattern against the special ones and random pairs, f32/f64 with and without
NaNs (signaling too), -0.0 against +0.0, equal values, subnormals, infinities; small
arrays (numpy's own loop), empty and 0-d operands."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo.elementwise_select import compare
from shlo_cli.dialects.stablehlo.specialize_compare import bind_compare
from shlo_cli.ir.parser import parse_type_text
from shlo_cli.ir.types import FLOAT_WIDTHS, numpy_dtype

DIRECTIONS = ("EQ", "NE", "LT", "LE", "GT", "GE")
NARROW = [name for name, width in FLOAT_WIDTHS.items() if width <= 16 and name != "tf32"]
WIDE = ["f32", "f64"]


def _dtype(name: str) -> np.dtype:
    return np.dtype(numpy_dtype(parse_type_text(name)))


def _run(name: str, direction: str, kind: str, a: np.ndarray, b: np.ndarray) -> Any:
    """(the program's result, the kernel bound) for `compare direction, kind` of a and b."""
    shape = "x".join(map(str, a.shape))
    t = f"tensor<{shape}x{name}>" if a.ndim else f"tensor<{name}>"
    r = t.replace(name, "i1")
    text = (f"func.func @main(%a: {t}, %b: {t}) -> {r} {{\n"
            f"  %0 = stablehlo.compare {direction}, %a, %b, {kind} : ({t}, {t}) -> {r}\n"
            f"  func.return %0 : {r}\n}}\n")
    return run_first_op(text, [a, b], bind_compare, True)


def _check(name: str, a: np.ndarray, b: np.ndarray, kernel_from_here: bool = True) -> None:
    for kind in ("FLOAT", "TOTALORDER"):
        for direction in DIRECTIONS:
            got, kernel = _run(name, direction, kind, a, b)
            with np.errstate(all="ignore"):
                want = compare(a, b, comparison_direction=direction, compare_type=kind)
            if kernel_from_here and (kind == "TOTALORDER" or FLOAT_WIDTHS[name] <= 16):
                assert kernel.__module__.endswith("specialize_compare"), (name, kind)
            assert got.dtype == np.bool_ and got.shape == a.shape
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {direction} {kind}")


def _patterns(name: str) -> np.ndarray:
    dtype = _dtype(name)
    bits = ml_dtypes.finfo(dtype).bits if name != "f16" else 16
    return np.arange(1 << bits, dtype=f"u{dtype.itemsize}").view(dtype)


@pytest.mark.parametrize("name", [n for n in NARROW if FLOAT_WIDTHS[n] <= 8])
def test_every_pair_of_narrow_patterns(name: str) -> None:
    every = _patterns(name)
    a, b = (v.reshape(-1) for v in np.meshgrid(every, every))
    _check(name, a, b)
    _check(name, a[:100], b[-100:])  # (numpy's / ml_dtypes' own loop)


@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_16_bit_patterns(name: str) -> None:
    every = _patterns(name)
    rng = np.random.default_rng(5)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0],
                        np.float32).astype(every.dtype)
    signaling = np.array([0x7C01 if name == "f16" else 0x7F81, 0xFD00 if name == "f16"
                          else 0xFF81], np.uint16).view(every.dtype)
    for value in [*specials, *signaling, every[1], every[0x8001]]:  # (+-least subnormal)
        _check(name, every, np.full(every.shape, value, every.dtype))
    mixed = rng.integers(0, 1 << 16, (2, 300, 70), dtype=np.uint16).view(every.dtype)
    _check(name, mixed[0], mixed[1])
    _check(name, mixed[0, :5], mixed[1, :5])


@pytest.mark.parametrize("name", WIDE)
def test_f32_and_f64(name: str) -> None:
    dtype = _dtype(name)
    info = np.finfo(dtype)
    rng = np.random.default_rng(6)
    n = 3000
    numbers = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)).astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, info.smallest_subnormal,
                         -info.smallest_subnormal, info.max, info.min, 1.0, -1.0], dtype)
    a = numbers.copy()
    b = rng.permutation(numbers)
    b[::3] = a[::3]  # equal values
    a[: specials.size * specials.size] = np.repeat(specials, specials.size)
    b[: specials.size * specials.size] = np.tile(specials, specials.size)
    _check(name, a, b)  # no NaN: the IEEE comparison with ties by bits
    _check(name, a[:7], b[:7])
    words = np.dtype(f"u{dtype.itemsize}")
    raw = rng.integers(0, np.iinfo(words).max, n, dtype=words, endpoint=True)
    raw[:4] = [0x7F800001, 0xFFC00000, 0x7FC00000, 0xFF800001] if name == "f32" else [
        0x7FF0000000000001, 0xFFF8000000000000, 0x7FF8000000000000, 0xFFF0000000000001]
    with_nans = raw.view(dtype)
    _check(name, with_nans, rng.permutation(with_nans), kernel_from_here=True)
    _check(name, with_nans, a, kernel_from_here=True)
    _check(name, a.reshape(30, 100), with_nans.reshape(30, 100))
    _check(name, np.zeros(0, dtype), np.zeros(0, dtype))
    _check(name, np.array(-0.0, dtype), np.array(0.0, dtype))


def test_each_kind_binds_here_and_ieee_wide_ones_stay_numpys() -> None:
    """The TOTALORDER and narrow kernels are this module's; f32/f64 IEEE compares stay
    numpy's own ufunc (bound by specialize.py), which this module does not touch."""
    a = np.arange(300, dtype=np.float32)
    _, kernel = _run("f32", "LT", "FLOAT", a, a)
    assert kernel is np.less
    _, kernel = _run("f32", "LT", "TOTALORDER", a, a)
    assert kernel.__module__.endswith("specialize_compare")
