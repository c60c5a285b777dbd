"""The comparisons behind the `check` dialect, vectorized over whole tensors.

Each `*_failure` function returns None when the check holds, else the message upstream's
interpreter reports (`Element values don't match: 1 (actual) vs 2 (expected) at index [0]`).
Element texts use the interpreter's element printing (no type suffix).
"""

from __future__ import annotations

import numpy as np

from ..ir.diagnostics import EvaluationError
from ..ir.types import ComplexType, FloatType, Type
from ..ir.value_text import format_element, format_index

DEFAULT_TOLERANCE = 1e-4
ULP_MAX = (1 << 64) - 1  # np.iinfo(np.uint64).max
_HISTOGRAM_BUCKETS = 5


def _same_shape(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    if actual.shape != expected.shape:
        raise EvaluationError(
            f"Shapes don't match: {list(actual.shape)} (actual) vs {list(expected.shape)} "
            "(expected)")
    return expected.astype(actual.dtype, copy=False) if expected.dtype != actual.dtype \
        else expected


def _first_mismatch(mismatch: np.ndarray) -> tuple[int, ...] | None:
    """Row-major index of the first True element (upstream stops at the first mismatch)."""
    flat = mismatch.reshape(-1)
    if not flat.any():
        return None
    position = int(np.argmax(flat))
    return tuple(int(i) for i in np.unravel_index(position, mismatch.shape))


def _describe(actual: np.ndarray, expected: np.ndarray, index: tuple[int, ...],
              etype: Type) -> str:
    return (f"{format_element(actual[index], etype)} (actual) vs "
            f"{format_element(expected[index], etype)} (expected) at index {format_index(index)}")


def expect_eq_failure(actual: np.ndarray, expected: np.ndarray, etype: Type) -> str | None:
    """Exact equality per element; floats compare as IEEE `==` (0 == -0), except that a NaN
    matches any NaN, as in expect_almost_eq (upstream's `==` never matches NaN, #2497)."""
    expected = _same_shape(actual, expected)
    mismatch = np.asarray(actual != expected)
    if isinstance(etype, (FloatType, ComplexType)) and mismatch.any():
        mismatch &= ~(_is_nan(actual) & _is_nan(expected))
    index = _first_mismatch(mismatch)
    if index is None:
        return None
    return "Element values don't match: " + _describe(actual, expected, index, etype)


def _is_nan(x: np.ndarray) -> np.ndarray:
    """NaN per element; a complex element is NaN when either part is."""
    if x.dtype.kind == "c":
        return np.isnan(x.real) | np.isnan(x.imag)
    return np.isnan(x.astype(np.float64))


def _require_float_or_complex(etype: Type) -> None:
    if not isinstance(etype, (FloatType, ComplexType)):
        raise EvaluationError(f"Unsupported element type: {etype}")


def _approximately_equal(f: np.ndarray, g: np.ndarray, tolerance: float) -> np.ndarray:
    """Upstream's `areApproximatelyEqual` on float64 copies of two float arrays."""
    f = f.astype(np.float64)
    g = g.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        equal = f == g
        f_nan, g_nan = np.isnan(f), np.isnan(g)
        unordered = f_nan | g_nan
        # Both finite (zero, subnormal or normal), or one of them zero: compare distance.
        finite_nonzero = lambda x: np.isfinite(x) & (x != 0)  # noqa: E731
        comparable = (finite_nonzero(f) & finite_nonzero(g)) | (f == 0) | (g == 0)
        comparable &= np.isfinite(f) & np.isfinite(g)
        same_sign = np.signbit(f) == np.signbit(g)
        close = np.abs(f - g) <= tolerance
    return np.where(equal, True,
                    np.where(unordered, f_nan & g_nan, comparable & same_sign & close))


def expect_almost_eq_failure(actual: np.ndarray, expected: np.ndarray, etype: Type,
                             tolerance: float = DEFAULT_TOLERANCE) -> str | None:
    """Equal within `tolerance` per element (complex: both parts); NaN matches only NaN."""
    _require_float_or_complex(etype)
    expected = _same_shape(actual, expected)
    if isinstance(etype, ComplexType):
        ok = (_approximately_equal(actual.real, expected.real, tolerance)
              & _approximately_equal(actual.imag, expected.imag, tolerance))
    else:
        ok = _approximately_equal(actual, expected, tolerance)
    index = _first_mismatch(~ok)
    if index is None:
        return None
    return (f"Element values don't match with tolerance {tolerance:f}: "
            + _describe(actual, expected, index, etype))


def _unsigned_view(x: np.ndarray) -> np.ndarray:
    """The bits of `x` as uint64, same shape (ascontiguousarray alone makes 0-d arrays 1-d)."""
    x = np.asarray(x)
    return np.ascontiguousarray(x).view(f"u{x.dtype.itemsize}").astype(np.uint64).reshape(
        x.shape)


def _float_ulp_difference(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    """ULP distance: 0 when bitwise equal; between finite values the number of floats
    between them (through zero when the signs differ); 0 for two NaNs; else UINT64_MAX."""
    f64, g64 = f.astype(np.float64), g.astype(np.float64)
    bitwise_equal = _unsigned_view(f) == _unsigned_view(g)
    a = _unsigned_view(np.abs(f))
    b = _unsigned_view(np.abs(g))
    finite = np.isfinite(f64) & np.isfinite(g64)
    with np.errstate(over="ignore"):
        through_zero = a + b
        distance = np.where(a > b, a - b, b - a)
    finite_diff = np.where(np.signbit(f64) != np.signbit(g64), through_zero, distance)
    both_nan = np.isnan(f64) & np.isnan(g64)
    result = np.where(finite, finite_diff, np.where(both_nan, np.uint64(0), np.uint64(ULP_MAX)))
    return np.where(bitwise_equal, np.uint64(0), result).astype(np.uint64)


def ulp_difference(actual: np.ndarray, expected: np.ndarray, etype: Type) -> np.ndarray:
    """Per-element ULP distance; for complex numbers the larger of the parts' distances."""
    if isinstance(etype, ComplexType):
        return np.maximum(_float_ulp_difference(actual.real, expected.real),
                          _float_ulp_difference(actual.imag, expected.imag))
    return _float_ulp_difference(actual, expected)


def expect_close_failure(actual: np.ndarray, expected: np.ndarray, etype: Type,
                         max_ulp: int = 1, min_ulp: int = 0) -> str | None:
    """Every element's ULP distance within [min_ulp, max_ulp]; lists all mismatches and a
    histogram of distances like upstream."""
    _require_float_or_complex(etype)
    expected = _same_shape(actual, expected)
    diff = ulp_difference(actual, expected, etype)
    bad = (diff > np.uint64(max_ulp)) | (diff < np.uint64(min_ulp))
    if not bad.any():
        return None
    lines = []
    for position in np.flatnonzero(bad.reshape(-1)):
        index = tuple(int(i) for i in np.unravel_index(int(position), bad.shape))
        lines.append(f"\n  index={format_index(index)}"
                     f", actual={format_element(actual[index], etype)}"
                     f", expected={format_element(expected[index], etype)}"
                     f", ULP difference={int(diff[index])}")
    buckets = np.minimum(diff.reshape(-1), _HISTOGRAM_BUCKETS - 1).astype(np.int64)
    counts = np.bincount(buckets, minlength=_HISTOGRAM_BUCKETS)
    for i in range(_HISTOGRAM_BUCKETS):
        relation = ">=" if i + 1 == _HISTOGRAM_BUCKETS else "=="
        lines.append(f"\nULP difference {relation} {i} count is {int(counts[i])}")
    return ("Elements values don't match with respect to maximal ULP difference="
            f"{max_ulp} limit:" + "".join(lines))
