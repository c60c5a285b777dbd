"""Comparing computed arrays with expected ones: tolerances per dtype, ULP distance, and a
report that says where the first difference is and how far off it is.

Floats pass when `|a - e| <= atol + rtol * |e|` (or, with `ulp`, when they are at most that
many units in the last place apart); NaN matches NaN; integers and bools must be equal.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

# (rtol, atol) per float width: loose enough for a different summation order, tight enough
# to catch a wrong op.
DEFAULT_TOLERANCES = {
    64: (1e-9, 1e-12), 32: (1e-4, 1e-5), 16: (1e-2, 1e-3), 8: (1.25e-1, 1e-2),
}


@dataclass
class Tolerance:
    rtol: float | None = None
    atol: float | None = None
    ulp: float | None = None

    def for_dtype(self, dtype: np.dtype) -> tuple[float, float]:
        width = _float_bits(dtype)
        rtol, atol = DEFAULT_TOLERANCES.get(width, DEFAULT_TOLERANCES[8] if width < 16
                                            else DEFAULT_TOLERANCES[16])
        return (rtol if self.rtol is None else self.rtol,
                atol if self.atol is None else self.atol)


@dataclass
class Comparison:
    """The outcome for one array pair."""

    name: str
    ok: bool
    message: str = ""  # why it failed (shape/dtype), or where the first mismatch is
    mismatches: int = 0
    size: int = 0
    max_abs: float = 0.0
    max_rel: float = 0.0
    max_ulp: float = 0.0
    compared: bool = True  # False: the shapes or dtypes differ, no element was compared

    def summary(self) -> str:
        status = "ok" if self.ok else "MISMATCH"
        if not self.compared:  # (no element statistics: the shapes or dtypes differ)
            return f"{self.name}: {status}\n  {self.message}"
        stats = (f"max abs {self.max_abs:.3g}, max rel {self.max_rel:.3g}, "
                 f"max ulp {self.max_ulp:.3g}")
        text = f"{self.name}: {status} ({stats}; {self.mismatches}/{self.size} differ)"
        return text + (f"\n  {self.message}" if self.message else "")


def _float_bits(dtype: np.dtype) -> int:
    if dtype.kind == "c":
        return dtype.itemsize * 4
    return dtype.itemsize * 8 if dtype.itemsize >= 2 else 8


def _is_float(dtype: np.dtype) -> bool:
    if dtype.kind in "fc":
        return True
    try:
        ml_dtypes.finfo(dtype)
        return True
    except (ValueError, TypeError):
        return False


def ulp_distance(actual: np.ndarray, expected: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """|a - e| in units of the spacing of `dtype` at `e` (subnormal spacing near zero)."""
    info = ml_dtypes.finfo(dtype)
    e = np.abs(expected.astype(np.float64))
    tiny = float(info.smallest_subnormal)
    with np.errstate(divide="ignore", invalid="ignore"):
        exponent = np.floor(np.log2(np.where(e > 0, e, 1.0)))
        spacing = np.maximum(np.exp2(exponent - info.nmant), tiny)
        return np.abs(actual.astype(np.float64) - expected.astype(np.float64)) / spacing


def compare_arrays(name: str, actual: np.ndarray, expected: np.ndarray,
                   tolerance: Tolerance | None = None) -> Comparison:
    """Compare one pair; the first mismatching element is named by its index."""
    tolerance = tolerance or Tolerance()
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        return Comparison(name, False, f"shape {actual.shape} differs from expected "
                                       f"{expected.shape}", size=expected.size, compared=False)
    if actual.dtype != expected.dtype:
        return Comparison(name, False, f"dtype {actual.dtype} differs from expected "
                                       f"{expected.dtype}", size=expected.size, compared=False)
    if expected.size == 0:
        return Comparison(name, True)
    dtype = expected.dtype
    if not _is_float(dtype):
        bad = actual != expected
        return _outcome(name, bad, actual, expected, None, None, None)
    if dtype.kind == "c":
        parts = [(actual.real, expected.real), (actual.imag, expected.imag)]
        part_dtype = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    else:
        parts = [(actual, expected)]
        part_dtype = dtype
    rtol, atol = tolerance.for_dtype(dtype)
    bad = np.zeros(expected.shape, bool)
    abs_err = np.zeros(expected.shape)
    rel_err = np.zeros(expected.shape)
    ulps = np.zeros(expected.shape)
    with np.errstate(all="ignore"):
        for a, e in parts:
            a64, e64 = a.astype(np.float64), e.astype(np.float64)
            both_nan = np.isnan(a64) & np.isnan(e64)
            same = (a64 == e64) | both_nan
            diff = np.where(same, 0.0, np.abs(a64 - e64))
            diff = np.where(np.isnan(diff), np.inf, diff)
            rel = np.where(same, 0.0, diff / np.abs(e64))
            rel = np.where(np.isnan(rel), np.inf, rel)
            u = np.where(same, 0.0, ulp_distance(a, e, part_dtype))
            u = np.where(np.isnan(u), np.inf, u)
            if tolerance.ulp is not None:
                bad |= u > tolerance.ulp
            else:
                bad |= ~same & ~(diff <= atol + rtol * np.abs(e64))
            abs_err = np.maximum(abs_err, diff)
            rel_err = np.maximum(rel_err, rel)
            ulps = np.maximum(ulps, u)
    return _outcome(name, bad, actual, expected, abs_err, rel_err, ulps)


def _outcome(name: str, bad: np.ndarray, actual: np.ndarray, expected: np.ndarray,
             abs_err: np.ndarray | None, rel_err: np.ndarray | None,
             ulps: np.ndarray | None) -> Comparison:
    result = Comparison(name, not bad.any(), mismatches=int(bad.sum()), size=expected.size)
    if abs_err is not None:
        result.max_abs = float(abs_err.max())
        result.max_rel = float(rel_err.max())  # type: ignore[union-attr]
        result.max_ulp = float(ulps.max())  # type: ignore[union-attr]
    elif bad.any():
        result.max_abs = float(np.max(np.abs(actual.astype(np.float64)
                                             - expected.astype(np.float64))))
    if bad.any():
        flat = int(np.argmax(bad.reshape(-1)))
        index = np.unravel_index(flat, expected.shape) if expected.shape else ()
        where = "[" + ", ".join(str(int(i)) for i in index) + "]"
        a, e = actual.reshape(-1)[flat], expected.reshape(-1)[flat]
        text = f"first difference at {where}: got {a!s}, expected {e!s}"
        if abs_err is not None:
            text += (f" (abs {abs_err.reshape(-1)[flat]:.3g}, rel {rel_err.reshape(-1)[flat]:.3g},"  # type: ignore[union-attr]
                     f" {ulps.reshape(-1)[flat]:.3g} ulp)")  # type: ignore[union-attr]
        result.message = text
    return result


def compare_sets(actual: dict[str, np.ndarray], expected: dict[str, np.ndarray],
                 tolerance: Tolerance | None = None) -> list[Comparison]:
    """Compare by key; a key on one side only is a mismatch."""
    out = []
    for key in sorted(set(actual) | set(expected), key=_natural):
        if key not in actual:
            out.append(Comparison(key, False, "missing from the results"))
        elif key not in expected:
            out.append(Comparison(key, False, "not in the expected file"))
        else:
            out.append(compare_arrays(key, actual[key], expected[key], tolerance))
    return out


def _natural(key: str) -> tuple[str, int]:
    stem = key.rstrip("0123456789")
    return stem, int(key[len(stem):] or -1)
