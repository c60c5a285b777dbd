"""`cholesky` and `triangular_solve`: batched factorisation and substitution.

Both loop over the (attribute-sized) matrix dimension and are vectorized over the batch and
the other matrix axis; every product and sum happens in the element type, so f16/bf16 round
as those types round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ..asm import Format
from ..registry import define_op
from .linalg_verify import verify_cholesky, verify_triangular_solve


def _adjoint(x: np.ndarray) -> np.ndarray:
    """conj(transpose(x)) over the two minor dimensions."""
    t = np.swapaxes(x, -1, -2)
    return np.conj(t) if np.iscomplexobj(t) else t


def _work_dtype(dtype: np.dtype) -> np.dtype:
    if dtype.kind not in "fcV":
        raise EvaluationError(f"expected floating-point or complex elements, got {dtype}")
    return dtype


# ---- cholesky ----------------------------------------------------------------------------


def cholesky_lower(a: np.ndarray) -> np.ndarray:
    """L with a = L @ L^H, read from the lower triangle of `a` (Cholesky-Banachiewicz);
    entries above the diagonal are zero. A matrix that is not positive definite gives an
    all-NaN result, as XLA returns."""
    n = a.shape[-1]
    out = np.zeros_like(a)
    with np.errstate(all="ignore"):
        for j in range(n):
            row = out[..., j, :j]
            diagonal = a[..., j, j] - np.sum(row * np.conj(row), axis=-1, dtype=a.dtype)
            if np.iscomplexobj(diagonal):
                diagonal = diagonal.real.astype(a.dtype)
            pivot = np.sqrt(diagonal)
            out[..., j, j] = pivot
            if j + 1 < n:
                below = out[..., j + 1:, :j]
                dots = np.sum(below * np.conj(row)[..., None, :], axis=-1, dtype=a.dtype)
                out[..., j + 1:, j] = (a[..., j + 1:, j] - dots) / pivot[..., None]
        if n:
            diagonal = np.diagonal(out, axis1=-2, axis2=-1).real
            failed = ~np.all(diagonal > 0, axis=-1)
            out[failed] = np.nan
    return out


class _CholeskyFormat(Format):
    """Prints `, lower = ...` only when it differs from the default `false`, as upstream's
    DefaultValuedOptionalAttr printing does."""

    def print(self, pr: Any, op: Operation) -> None:
        lower = op.properties.get("lower")
        if lower is None or getattr(lower, "value", True):
            super().print(pr, op)
            return
        del op.properties["lower"]
        try:
            super().print(pr, op)
        finally:
            op.properties["lower"] = lower


@define_op("stablehlo.cholesky", operands=("a",), results=1, attributes=("lower?",),
           syntax=_CholeskyFormat("$a [`,` `lower` `=` $lower]", operands=("a",),
                                  attrs={"lower": "attr"}), verify=verify_cholesky)
def cholesky(a: np.ndarray, *, lower: Any = None) -> np.ndarray:
    """spec cholesky: the lower (a = L L^H) or upper (a = U^H U) factor of each matrix in
    the batch. Only the chosen triangle of `a` is read; the other triangle of the result
    is implementation-defined and set to zero here (as jax.lax.linalg.cholesky returns)."""
    _work_dtype(a.dtype)
    if bool(lower):
        return cholesky_lower(a)
    # a = U^H U with U = L^H, where L factors the lower triangle mirrored from the upper.
    return np.ascontiguousarray(_adjoint(cholesky_lower(_adjoint(a))))


# ---- triangular_solve --------------------------------------------------------------------


def solve_triangular(m: np.ndarray, b: np.ndarray, lower: bool, unit: bool) -> np.ndarray:
    """x with m @ x = b for triangular `m` (only its `lower`/upper triangle is read)."""
    out_dtype = b.dtype
    # Substitution in double (complex128), rounded once: float32 sums of products lose ~n ulp.
    wide = np.complex128 if b.dtype.kind == "c" else np.float64
    if b.dtype.itemsize < np.dtype(wide).itemsize:
        m, b = m.astype(wide), b.astype(wide)
    n = m.shape[-1]
    x = np.zeros(np.broadcast_shapes(m.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            known = slice(0, i) if lower else slice(i + 1, n)
            coeffs = m[..., i, known]
            acc = b[..., i, :] - np.sum(coeffs[..., :, None] * x[..., known, :], axis=-2,
                                        dtype=b.dtype)
            x[..., i, :] = acc if unit else acc / m[..., i, i][..., None]
    return x.astype(out_dtype)


@define_op("stablehlo.triangular_solve", operands=("a", "b"), results=1,
           attributes=("left_side", "lower", "unit_diagonal", "transpose_a"),
           verify=verify_triangular_solve)
def triangular_solve(a: np.ndarray, b: np.ndarray, *, left_side: Any, lower: Any,
                     unit_diagonal: Any, transpose_a: Any) -> np.ndarray:
    """spec triangular_solve: x with op(a) @ x = b (left_side) or x @ op(a) = b, where
    op is identity, transpose or adjoint and `a` is read as lower or upper triangular."""
    _work_dtype(b.dtype)
    mode = str(transpose_a or "NO_TRANSPOSE")
    m = a
    is_lower = bool(lower)
    if mode in ("TRANSPOSE", "ADJOINT"):
        m = np.swapaxes(m, -1, -2)
        if mode == "ADJOINT" and np.iscomplexobj(m):
            m = np.conj(m)
        is_lower = not is_lower
    elif mode != "NO_TRANSPOSE":
        raise EvaluationError(f"unsupported transpose_a {mode}")
    if left_side:
        return solve_triangular(m, b, is_lower, bool(unit_diagonal))
    # x @ m = b  <=>  m^T @ x^T = b^T
    xt = solve_triangular(np.swapaxes(m, -1, -2), np.swapaxes(b, -1, -2), not is_lower,
                          bool(unit_diagonal))
    return np.ascontiguousarray(np.swapaxes(xt, -1, -2))
