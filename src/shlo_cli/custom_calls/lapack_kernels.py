"""One-matrix LAPACK computations with LAPACK's output conventions.

Each function takes one (unbatched) matrix and returns what the LAPACK routine leaves behind:
packed factors, `tau`, 1-based pivots, `info`. `scipy.linalg.lapack` calls the same routines
jaxlib calls, so with the `linalg` extra installed the results equal XLA's up to rounding.
Without scipy, numpy is used where it calls the same routine (`np.linalg.qr(mode='raw')` is
geqrf, `eigh` is syevd, `svd` is gesdd, `cholesky` is potrf) or a direct transcription of the
unblocked algorithm (getrf, orgqr, trsm); the rest raise `NeedsScipy`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..lazy_imports import lazy


class NeedsScipy(Exception):
    """The computation has no numpy equivalent; install the `linalg` extra."""

    def __init__(self, routine: str) -> None:
        super().__init__(f"{routine} needs scipy: pip install shlo-cli[linalg]")


_PREFIX = lazy(lambda: {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"})


def _scipy() -> Any:
    try:
        from scipy.linalg import lapack
    except ImportError:
        return None
    return lapack


def _scipy_blas() -> Any:
    try:
        from scipy.linalg import blas
    except ImportError:
        return None
    return blas


def _routine(a: np.ndarray, name: str) -> Any:
    """`scipy.linalg.lapack.<prefix><name>` for `a`'s dtype, or None without scipy."""
    lapack = _scipy()
    if lapack is None:
        return None
    return getattr(lapack, _PREFIX[a.dtype] + name)


def _is_complex(a: np.ndarray) -> bool:
    return np.iscomplexobj(a)


def _f(a: np.ndarray) -> np.ndarray:
    return np.array(a, order="F", copy=True)


# ---- triangular solve ------------------------------------------------------------------


def trsm(a: np.ndarray, b: np.ndarray, side: str, uplo: str, trans: str,
         diag: str) -> np.ndarray:
    """op(A) X = B (side L) or X op(A) = B (side R), A triangular; alpha = 1."""
    blas = _scipy_blas()
    if blas is not None and b.size:
        fn = getattr(blas, _PREFIX[a.dtype] + "trsm")
        return fn(1.0, _f(a), _f(b), side=int(side == "R"), lower=int(uplo == "L"),
                  trans_a="NTC".index(trans), diag=int(diag == "U"))
    n = a.shape[0]
    tri = np.tril(a) if uplo == "L" else np.triu(a)
    if diag == "U":
        tri = tri.copy()
        tri[np.arange(n), np.arange(n)] = 1
    lower = uplo == "L"
    if trans == "T":
        tri, lower = tri.T, not lower
    elif trans == "C":
        tri, lower = tri.conj().T, not lower
    if side == "R":  # X A' = B  <=>  A'^T X^T = B^T
        return _substitute(tri.T, b.T, not lower).T.astype(b.dtype)
    return _substitute(tri, b, lower).astype(b.dtype)


def _substitute(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Forward/back substitution, one row of X at a time (as the unblocked BLAS does)."""
    n = t.shape[0]
    x = np.array(b, copy=True)
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:
        if lower:
            acc = x[i] - t[i, :i] @ x[:i]
        else:
            acc = x[i] - t[i, i + 1:] @ x[i + 1:]
        x[i] = acc / t[i, i]
    return x


# ---- LU ----------------------------------------------------------------------------------


def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """LU with partial pivoting: (packed L\\U, 1-based int32 pivots, info)."""
    fn = _routine(a, "getrf")
    k = min(a.shape)
    if fn is not None and a.size:
        lu, piv, info = fn(_f(a))
        return lu, (piv[:k] + 1).astype(np.int32), int(info)
    lu = np.array(a, copy=True)
    piv = np.zeros(k, np.int32)
    info = 0
    m = a.shape[0]
    for j in range(k):
        col = lu[j:, j]
        p = j + int(np.argmax(np.abs(col.real) + np.abs(col.imag)))
        piv[j] = p + 1
        if lu[p, j] != 0:
            if p != j:
                lu[[j, p]] = lu[[p, j]]
            if j + 1 < m:
                lu[j + 1:, j] /= lu[j, j]
        elif info == 0:
            info = j + 1
        lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, piv, info


# ---- QR ----------------------------------------------------------------------------------


def geqrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Householder QR: (R above the diagonal, reflectors below; tau)."""
    fn = _routine(a, "geqrf")
    if fn is not None and a.size:
        qr, tau, _, _ = fn(_f(a))
        return qr, tau
    h, tau = np.linalg.qr(a.astype(_wide(a.dtype)), mode="raw")
    return h.T.astype(a.dtype), tau.astype(a.dtype)


def _wide(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.complex128) if dtype.kind == "c" else np.dtype(np.float64)


def orgqr(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """The first n columns of Q = H(1)...H(k) from geqrf's reflectors."""
    name = "ungqr" if _is_complex(a) else "orgqr"
    fn = _routine(a, name)
    if fn is not None and a.size:
        q, _, _ = fn(_f(a), tau)
        return q
    m, n = a.shape
    q = np.eye(m, n, dtype=a.dtype)
    for i in range(len(tau) - 1, -1, -1):
        v = np.concatenate([np.zeros(i, a.dtype), [1], a[i + 1:, i]]).astype(a.dtype)
        q -= tau[i] * np.outer(v, v.conj() @ q)
    return q


def ormqr(a: np.ndarray, tau: np.ndarray, c: np.ndarray, left: bool,
          transpose: bool) -> np.ndarray:
    """Q C, Q^H C, C Q or C Q^H with Q from geqrf's reflectors (m x m)."""
    name = "unmqr" if _is_complex(a) else "ormqr"
    fn = _routine(a, name)
    side = "L" if left else "R"
    trans = ("C" if _is_complex(a) else "T") if transpose else "N"
    if fn is not None and c.size:
        lwork = max(1, 64 * max(c.shape))
        cq, _, _ = fn(side, trans, _f(a), tau, _f(c), lwork)
        return cq
    m = a.shape[0]
    full = np.concatenate([a, np.zeros((m, max(0, m - a.shape[1])), a.dtype)], axis=1)
    q = orgqr(full[:, :m], np.concatenate([tau, np.zeros(m - len(tau), a.dtype)]))
    qop = q.conj().T if transpose else q
    return (qop @ c if left else c @ qop).astype(c.dtype)


def geqp3(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """QR with column pivoting: (packed factors, 1-based int32 jpvt, tau)."""
    fn = _routine(a, "geqp3")
    if fn is None:
        raise NeedsScipy("geqp3")
    qr, jpvt, tau, _, _ = fn(_f(a))
    return qr, jpvt.astype(np.int32), tau


# ---- Cholesky ----------------------------------------------------------------------------


def potrf(a: np.ndarray, uplo: str) -> tuple[np.ndarray, int]:
    """Cholesky into the `uplo` triangle; the other triangle keeps the input."""
    lower = uplo == "L"
    fn = _routine(a, "potrf")
    if fn is not None and a.size:
        c, info = fn(_f(a), lower=int(lower), clean=0)
        return c, int(info)
    herm = np.tril(a) + np.tril(a, -1).conj().T if lower else np.triu(a) + np.triu(a, 1).conj().T
    try:
        factor = np.linalg.cholesky(herm)
    except np.linalg.LinAlgError:
        return np.array(a, copy=True), _first_non_pd(herm)
    out = np.array(a, copy=True)
    mask = np.tril(np.ones(a.shape, bool)) if lower else np.triu(np.ones(a.shape, bool))
    out[mask] = (factor if lower else factor.conj().T)[mask]
    return out, 0


def _first_non_pd(herm: np.ndarray) -> int:
    for k in range(1, herm.shape[0] + 1):
        try:
            np.linalg.cholesky(herm[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


# ---- symmetric/Hermitian eigen -----------------------------------------------------------


def syevd(a: np.ndarray, uplo: str, vectors: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Eigenvalues ascending; eigenvectors in the columns (or `a` back when not wanted)."""
    lower = uplo == "L"
    fn = _routine(a, "heevd" if _is_complex(a) else "syevd")
    if fn is not None and a.size:
        w, v, info = fn(_f(a), compute_v=int(vectors), lower=int(lower))
        return (v if vectors else np.array(a, copy=True)), w, int(info)
    if vectors:
        w, v = np.linalg.eigh(a, UPLO=uplo)
        return v, w, 0
    return np.array(a, copy=True), np.linalg.eigvalsh(a, UPLO=uplo), 0


# ---- general eigen -----------------------------------------------------------------------


def geev(a: np.ndarray, left: bool, right: bool) -> tuple[np.ndarray, ...]:
    """(w, vl, vr, info): complex eigenvalues and vectors, vectors zero when not asked."""
    fn = _routine(a, "geev")
    n = a.shape[0]
    cdtype = np.result_type(a.dtype, np.complex64)
    zeros = np.zeros((n, n), cdtype)
    if fn is not None and a.size:
        if _is_complex(a):
            w, vl, vr, info = fn(_f(a), compute_vl=int(left), compute_vr=int(right))
        else:
            wr, wi, vl, vr, info = fn(_f(a), compute_vl=int(left), compute_vr=int(right))
            w = (wr + 1j * wi).astype(cdtype)
            vl, vr = _unpack_real_vectors(vl, wi), _unpack_real_vectors(vr, wi)
        return (w.astype(cdtype), vl.astype(cdtype) if left else zeros,
                vr.astype(cdtype) if right else zeros, int(info))
    if left:
        raise NeedsScipy("geev with left eigenvectors")
    if right:
        w, vr = np.linalg.eig(a)
        return w.astype(cdtype), zeros, vr.astype(cdtype), 0
    return np.linalg.eigvals(a).astype(cdtype), zeros, zeros, 0


def _unpack_real_vectors(v: np.ndarray, wi: np.ndarray) -> np.ndarray:
    """LAPACK stores a conjugate pair's vector as two real columns (re, im)."""
    n = len(wi)
    out = v.astype(np.result_type(v.dtype, np.complex64))
    j = 0
    while j < n:
        if wi[j] != 0 and j + 1 < n:
            re, im = v[:, j], v[:, j + 1]
            out[:, j] = re + 1j * im
            out[:, j + 1] = re - 1j * im
            j += 2
        else:
            j += 1
    return out


# ---- SVD ---------------------------------------------------------------------------------


def gesdd(a: np.ndarray, mode: str, u_shape: tuple[int, ...], vt_shape: tuple[int, ...],
          routine: str = "gesdd") -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(s, u, vt, info); mode A: full U/VT, S: min(m, n) columns/rows, N: none (zeros)."""
    compute_uv = mode != "N"
    full = mode == "A"
    real = np.dtype(a.dtype).type(0).real.dtype
    fn = _routine(a, routine)
    if fn is not None and a.size:
        u, s, vt, info = fn(_f(a), compute_uv=int(compute_uv), full_matrices=int(full))
    elif routine != "gesdd":
        raise NeedsScipy(routine)
    elif compute_uv:
        u, s, vt = np.linalg.svd(a, full_matrices=full)
        info = 0
    else:
        s, u, vt, info = np.linalg.svd(a, compute_uv=False), None, None, 0
    if not compute_uv:
        u, vt = np.zeros(u_shape, a.dtype), np.zeros(vt_shape, a.dtype)
    return s.astype(real), u.astype(a.dtype), vt.astype(a.dtype), int(info)


# ---- Schur, Hessenberg, tridiagonal ------------------------------------------------------


def gees(a: np.ndarray, vectors: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """(T, Z, eigenvalues (complex), sdim, info); Z zero when not asked."""
    fn = _routine(a, "gees")
    if fn is None:
        raise NeedsScipy("gees")
    if not a.size:
        return a.copy(), a.copy(), np.zeros(0, np.result_type(a, np.complex64)), 0, 0
    out = fn(lambda *_: None, _f(a), compute_v=int(vectors), sort_t=0)
    if _is_complex(a):
        t, sdim, w, vs, _, info = out
    else:
        t, sdim, wr, wi, vs, _, info = out
        w = wr + 1j * wi
    if not vectors:
        vs = np.zeros_like(a)
    return t, vs, w, int(sdim), int(info)


def gehrd(a: np.ndarray, low: int, high: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Hessenberg reduction of rows/columns low..high (1-based): (packed H, tau, info)."""
    fn = _routine(a, "gehrd")
    if fn is None:
        raise NeedsScipy("gehrd")
    if a.shape[0] == 0:
        return a.copy(), np.zeros(0, a.dtype), 0
    h, tau, info = fn(_f(a), lo=low - 1, hi=high - 1)
    return h, tau, int(info)


def sytrd(a: np.ndarray, uplo: str) -> tuple[np.ndarray, ...]:
    """Tridiagonal reduction: (packed reflectors, diagonal, off-diagonal, tau, info)."""
    fn = _routine(a, "hetrd" if _is_complex(a) else "sytrd")
    if fn is None:
        raise NeedsScipy("hetrd" if _is_complex(a) else "sytrd")
    real = np.dtype(a.dtype).type(0).real.dtype
    if a.shape[0] == 0:
        return a.copy(), np.zeros(0, real), np.zeros(0, real), np.zeros(0, a.dtype), 0
    c, d, e, tau, info = fn(_f(a), lower=int(uplo == "L"))
    return c, d, e, tau, int(info)


def gtsv(dl: np.ndarray, d: np.ndarray, du: np.ndarray,
         b: np.ndarray) -> tuple[np.ndarray, ...]:
    """Tridiagonal solve; dl[0] and du[-1] are padding (jax passes length-n diagonals)."""
    n = d.shape[0]
    fn = _routine(d, "gtsv")
    dl_out, d_out, du_out = dl.copy(), d.copy(), du.copy()
    if fn is not None and n:
        du2, d2, du1, x, info = fn(dl[1:].copy(), d.copy(), du[:-1].copy(), _f(b))
        dl_out[1:], d_out[:], du_out[:-1] = du2, d2, du1
        return dl_out, d_out, du_out, x, int(info)
    x, info = _thomas(dl, d, du, b)
    return dl_out, d_out, du_out, x, info


def _thomas(dl: np.ndarray, d: np.ndarray, du: np.ndarray,
            b: np.ndarray) -> tuple[np.ndarray, int]:
    """Gaussian elimination on a tridiagonal system (numpy's dense solve as the fallback)."""
    n = d.shape[0]
    if n == 0:
        return b.copy(), 0
    full = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    try:
        return np.linalg.solve(full, b).astype(b.dtype), 0
    except np.linalg.LinAlgError:
        return b.copy(), 1
