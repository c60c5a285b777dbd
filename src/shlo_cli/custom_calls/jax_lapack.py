"""jaxlib's CPU LAPACK custom calls (`@lapack_<t><routine>_ffi`), as jax lowers them.

Rules jax follows for every target (jaxlib/cpu/lapack_kernels.cc, jax/_src/lax/linalg.py):

- `<t>` is the element type: s = f32, d = f64, c = complex<f32>, z = complex<f64>.
- Calls use `api_version = 4` (typed FFI); attributes live in `mhlo.backend_config`.
  Character-valued attributes are `ui8` codes: `uplo` 'L'/'U', `mode`, `side` 'L'/'R',
  `trans_x` 'N'/'T'/'C', `diag` 'N' (non-unit) / 'U' (unit), `compute_left`/`compute_right`
  'V'/'N', `sort` 'N'.
- Matrices are the two minor-most dimensions; all leading dimensions are batch dimensions
  (`mhlo.frontend_attributes.num_batch_dims`). `operand_layouts`/`result_layouts` make each
  matrix column-major (`[r-2, r-1, r-3, ..., 0]`) with batch dimensions major-most, so the
  kernels see LAPACK's Fortran order and the logical (row, column) indices of the tensor are
  the matrix's. Vectors and scalars (`tau`, pivots, `info`) use the default layout.
- `info` results are `i32` per batch element, LAPACK's INFO: 0 = success, > 0 = failure at
  that (1-based) step; callers replace failed results with NaN.

Targets (operands -> results, backend_config keys):

- `trsm`   (a, b) -> x solving op(a) x = b (side L) or x op(a) = b (side R), alpha = 1;
           side, uplo, trans_x, diag. Only the `uplo` triangle of `a` is read.
- `getrf`  (a) -> (lu, ipiv, info): unit-lower L below the diagonal, U on and above it;
           ipiv are LAPACK's 1-based int32 row interchanges, min(m, n) of them.
- `geqrf`  (a) -> (qr, tau): R on and above the diagonal, Householder vectors below.
- `geqp3`  (a, jpvt) -> (qr, jpvt, tau): column-pivoted QR; jpvt is 1-based (jax passes 0s).
- `orgqr`/`ungqr` (qr, tau) -> q: the first n columns of H(1)...H(k).
- `ormqr`/`unmqr` (qr, tau, c) -> c': Q c, Q^H c, c Q or c Q^H; `left`, `transpose` (bool).
- `potrf`  (a) -> (factor, info); uplo. The other triangle keeps the input values.
- `syevd`/`heevd` (a) -> (v, w, info); uplo, mode 'V'/'N'. Eigenvalues ascending (real),
           eigenvectors in the columns of v (LAPACK's signs); with 'N', v is unspecified.
- `geev`   real (a) -> (wr, wi, vl, vr, info), complex (a) -> (w, vl, vr, info);
           compute_left, compute_right. Vectors are complex, unit 2-norm with the largest
           component real (LAPACK); a conjugate pair's vectors are re ± i*im of LAPACK's two
           real columns. Vectors not asked for are zeros here.
- `gesdd`/`gesvd` (a) -> (a_out, s, u, vt, info); mode 'A' (full u, vt), 'S' (min(m, n)
           columns/rows), 'N' (singular values only: u, vt unspecified, zeros here). s is
           real, descending. a_out is unspecified (the input here).
- `gees`   real (a) -> (t, vs, wr, wi, sdim, info), complex (a) -> (t, vs, w, sdim, info);
           mode 'V'/'N' (Schur vectors), sort 'N' only (jax supplies no select function).
- `gehrd`  (a) -> (h, tau, info); low, high (1-based ilo/ihi, jax passes 1 and n).
           Hessenberg on and above the first subdiagonal, reflectors below; tau has n-1.
- `sytrd`/`hetrd` (a) -> (packed, d, e, tau, info); uplo. d, e are real.
- `gtsv`   (dl, d, du, b) -> (dl', d', du', x, info): dl, d, du have length n; dl[0] and
           du[n-1] are padding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ir.attributes import ArrayAttr, DenseElementsAttr
from ..ir.types import TensorType, numpy_dtype
from . import lapack_kernels as K
from .registry import Config, Operand, TargetCall, TargetError, lookup_target, register_target

PREFIXES = {"s": "f32", "d": "f64", "c": "complex<f32>", "z": "complex<f64>"}
REAL_OF = {"s": "f32", "d": "f64", "c": "f32", "z": "f64"}
COMPLEX_OF = {"s": "complex<f32>", "d": "complex<f64>", "c": "complex<f32>",
              "z": "complex<f64>"}

UPLO = Config("char", choices=("L", "U"))
VN = Config("char", choices=("V", "N"))
I32 = Operand("i32")


def _matrix(t: str) -> Operand:
    return Operand(t, min_rank=2)


def _vector(t: str) -> Operand:
    return Operand(t, min_rank=1)


# ---- checks shared by the targets ----------------------------------------------------------


def _check_layouts(call: TargetCall) -> None:
    """Matrix operands/results must be laid out as jax lays them out (or not at all)."""
    op = call.op
    target = lookup_target(call.name)
    for key, types, specs in (("operand_layouts", op.operand_types, target.operands),
                              ("result_layouts", op.result_types, target.results)):
        attr = op.properties.get(key) or op.attributes.get(key)
        if not isinstance(attr, ArrayAttr) or specs is None:
            continue
        for i, (layout, t, spec) in enumerate(zip(attr.elements, types, specs, strict=False)):
            if not isinstance(layout, DenseElementsAttr) or not isinstance(t, TensorType):
                continue
            got = [int(x) for x in np.asarray(layout.data).reshape(-1)]
            rank = t.rank
            if spec.min_rank >= 2:  # a batch of matrices: column-major, batch major-most
                want = [rank - 2, rank - 1, *range(rank - 3, -1, -1)]
            else:
                want = list(range(rank - 1, -1, -1))
            if got != want:
                what = "operand" if key == "operand_layouts" else "result"
                raise TargetError(f"{what} #{i} has layout {got}, expected {want} "
                                  "(jax's layout for this position)")


def _square(index: int = 0) -> Callable[[TargetCall], None]:
    def check(call: TargetCall) -> None:
        t = call.op.operand_types[index]
        if t.shape[-1] != t.shape[-2]:
            raise TargetError(f"operand #{index} must be a batch of square matrices, got {t}")

    return check


def _checks(*extra: Callable[[TargetCall], None]) -> Callable[[TargetCall], None]:
    def verify(call: TargetCall) -> None:
        _check_layouts(call)
        for check in extra:
            check(call)

    return verify


# ---- batching ------------------------------------------------------------------------------


def _batched(call: TargetCall, fn: Callable[..., Sequence[Any]],
             inputs: Sequence[tuple[np.ndarray, int]]) -> list[np.ndarray]:
    """Apply `fn` to every batch element; `inputs` pairs each array with its item rank."""
    arrays = [np.asarray(a) for a, _ in inputs]
    batch = arrays[0].shape[: arrays[0].ndim - inputs[0][1]]
    if not batch:  # one item (a solve inside a scan step): no stacking
        single = list(fn(*arrays))
        return [np.asarray(single[j]).astype(numpy_dtype(rtype.element))
                for j, rtype in enumerate(call.result_types)]
    per_item: list[list[Any]] = []
    for idx in np.ndindex(*batch):
        per_item.append(list(fn(*(a[idx] for a in arrays))))
    results = []
    for j, rtype in enumerate(call.result_types):
        dtype = numpy_dtype(rtype.element)
        if per_item:
            stacked = np.stack([np.asarray(item[j]) for item in per_item])
            results.append(stacked.reshape(batch + stacked.shape[1:]).astype(dtype))
        else:
            results.append(np.zeros(rtype.shape, dtype))
    return results


def _kernel(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the kernels' missing-scipy error into a target error."""

    def run(*args: Any) -> Any:
        try:
            return fn(*args)
        except K.NeedsScipy as e:
            raise TargetError(str(e)) from None

    return run


# ---- evaluators ------------------------------------------------------------------------


def _trsm(call: TargetCall) -> list[np.ndarray]:
    c = call.config
    a, b = call.operands
    return _batched(call, _kernel(lambda x, y: [K.trsm(
        x, y, c["side"], c["uplo"], c["trans_x"], c["diag"])]), [(a, 2), (b, 2)])


def _getrf(call: TargetCall) -> list[np.ndarray]:
    return _batched(call, _kernel(K.getrf), [(call.operands[0], 2)])


def _geqrf(call: TargetCall) -> list[np.ndarray]:
    return _batched(call, _kernel(K.geqrf), [(call.operands[0], 2)])


def _geqp3(call: TargetCall) -> list[np.ndarray]:
    a, jpvt = call.operands
    if np.any(np.asarray(jpvt) != 0):
        raise TargetError("only all-zero initial jpvt (free columns) is supported")
    return _batched(call, _kernel(K.geqp3), [(a, 2)])


def _orgqr(call: TargetCall) -> list[np.ndarray]:
    a, tau = call.operands
    return _batched(call, _kernel(lambda x, t: [K.orgqr(x, t)]), [(a, 2), (tau, 1)])


def _ormqr(call: TargetCall) -> list[np.ndarray]:
    a, tau, c = call.operands
    cfg = call.config
    return _batched(call, _kernel(lambda x, t, y: [K.ormqr(x, t, y, cfg["left"],
                                                            cfg["transpose"])]),
                    [(a, 2), (tau, 1), (c, 2)])


def _potrf(call: TargetCall) -> list[np.ndarray]:
    uplo = call.config["uplo"]
    return _batched(call, _kernel(lambda x: K.potrf(x, uplo)), [(call.operands[0], 2)])


def _syevd(call: TargetCall) -> list[np.ndarray]:
    uplo, vectors = call.config["uplo"], call.config["mode"] == "V"
    return _batched(call, _kernel(lambda x: K.syevd(x, uplo, vectors)),
                    [(call.operands[0], 2)])


def _geev(real: bool) -> Callable[[TargetCall], list[np.ndarray]]:
    def evaluate(call: TargetCall) -> list[np.ndarray]:
        left = call.config["compute_left"] == "V"
        right = call.config["compute_right"] == "V"

        def one(x: np.ndarray) -> list[Any]:
            w, vl, vr, info = K.geev(x, left, right)
            if real:
                return [w.real, w.imag, vl, vr, info]
            return [w, vl, vr, info]

        return _batched(call, _kernel(one), [(call.operands[0], 2)])

    return evaluate


def _svd(routine: str) -> Callable[[TargetCall], list[np.ndarray]]:
    def evaluate(call: TargetCall) -> list[np.ndarray]:
        mode = call.config["mode"]
        u_shape = tuple(call.result_types[2].shape[-2:])
        vt_shape = tuple(call.result_types[3].shape[-2:])

        def one(x: np.ndarray) -> list[Any]:
            s, u, vt, info = K.gesdd(x, mode, u_shape, vt_shape, routine)
            return [x, s, u, vt, info]

        return _batched(call, _kernel(one), [(call.operands[0], 2)])

    return evaluate


def _gees(real: bool) -> Callable[[TargetCall], list[np.ndarray]]:
    def evaluate(call: TargetCall) -> list[np.ndarray]:
        vectors = call.config["mode"] == "V"

        def one(x: np.ndarray) -> list[Any]:
            t, vs, w, sdim, info = K.gees(x, vectors)
            if real:
                return [t, vs, w.real, w.imag, sdim, info]
            return [t, vs, w, sdim, info]

        return _batched(call, _kernel(one), [(call.operands[0], 2)])

    return evaluate


def _gehrd(call: TargetCall) -> list[np.ndarray]:
    low, high = call.config["low"], call.config["high"]
    n = call.op.operand_types[0].shape[-1]
    if not 1 <= low <= max(1, high) <= max(1, n):
        raise TargetError(f"needs 1 <= low <= high <= {n}, got low = {low}, high = {high}")
    return _batched(call, _kernel(lambda x: K.gehrd(x, low, high)), [(call.operands[0], 2)])


def _sytrd(call: TargetCall) -> list[np.ndarray]:
    uplo = call.config["uplo"]
    return _batched(call, _kernel(lambda x: K.sytrd(x, uplo)), [(call.operands[0], 2)])


def _gtsv(call: TargetCall) -> list[np.ndarray]:
    dl, d, du, b = call.operands
    return _batched(call, _kernel(K.gtsv), [(dl, 1), (d, 1), (du, 1), (b, 2)])


# ---- declarations ------------------------------------------------------------------------


def _register_all() -> None:
    for p, t in PREFIXES.items():
        real, cplx = REAL_OF[p], COMPLEX_OF[p]
        is_complex = p in "cz"
        m, v = _matrix(t), _vector(t)
        register_target(
            f"lapack_{p}trsm_ffi", _trsm, operands=[m, m], results=[m],
            config={"side": Config("char", choices=("L", "R")), "uplo": UPLO,
                    "trans_x": Config("char", choices=("N", "T", "C")),
                    "diag": Config("char", choices=("N", "U"))},
            verify=_checks(_square(0)))
        register_target(f"lapack_{p}getrf_ffi", _getrf, operands=[m],
                        results=[m, _vector("i32"), I32], verify=_checks())
        register_target(f"lapack_{p}geqrf_ffi", _geqrf, operands=[m], results=[m, v],
                        verify=_checks())
        register_target(f"lapack_{p}geqp3_ffi", _geqp3, operands=[m, _vector("i32")],
                        results=[m, _vector("i32"), v], verify=_checks())
        orgqr = "ungqr" if is_complex else "orgqr"
        register_target(f"lapack_{p}{orgqr}_ffi", _orgqr, operands=[m, v], results=[m],
                        verify=_checks())
        ormqr = "unmqr" if is_complex else "ormqr"
        register_target(f"lapack_{p}{ormqr}_ffi", _ormqr, operands=[m, v, m], results=[m],
                        config={"left": Config("bool"), "transpose": Config("bool")},
                        verify=_checks())
        register_target(f"lapack_{p}potrf_ffi", _potrf, operands=[m], results=[m, I32],
                        config={"uplo": UPLO}, verify=_checks(_square(0)))
        syevd = "heevd" if is_complex else "syevd"
        register_target(f"lapack_{p}{syevd}_ffi", _syevd, operands=[m],
                        results=[m, _vector(real), I32], config={"uplo": UPLO, "mode": VN},
                        verify=_checks(_square(0)))
        cm = _matrix(cplx)
        geev_results = ([v, v, cm, cm, I32] if not is_complex else [v, m, m, I32])
        register_target(f"lapack_{p}geev_ffi", _geev(not is_complex), operands=[m],
                        results=geev_results,
                        config={"compute_left": VN, "compute_right": VN},
                        verify=_checks(_square(0)))
        for routine in ("gesdd", "gesvd"):
            register_target(
                f"lapack_{p}{routine}_ffi", _svd(routine), operands=[m],
                results=[m, _vector(real), m, m, I32],
                config={"mode": Config("char", choices=("A", "S", "N"))}, verify=_checks())
        gees_results = ([m, m, v, v, I32, I32] if not is_complex else [m, m, v, I32, I32])
        register_target(f"lapack_{p}gees_ffi", _gees(not is_complex), operands=[m],
                        results=gees_results,
                        config={"mode": VN, "sort": Config("char", choices=("N",))},
                        verify=_checks(_square(0)))
        register_target(f"lapack_{p}gehrd_ffi", _gehrd, operands=[m], results=[m, v, I32],
                        config={"low": Config("int"), "high": Config("int")},
                        verify=_checks(_square(0)))
        sytrd = "hetrd" if is_complex else "sytrd"
        register_target(f"lapack_{p}{sytrd}_ffi", _sytrd, operands=[m],
                        results=[m, _vector(real), _vector(real), v, I32],
                        config={"uplo": UPLO}, verify=_checks(_square(0)))
        register_target(f"lapack_{p}gtsv_ffi", _gtsv, operands=[v, v, v, m],
                        results=[v, v, v, m, I32], verify=_checks())


_register_all()
