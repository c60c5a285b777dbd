"""jaxlib's LAPACK targets against numpy identities (reconstruction, orthogonality, pivots)."""

from __future__ import annotations

import numpy as np
import pytest
from jax_call_helpers import run_call

import shlo_cli
from shlo_cli.custom_calls import lapack_kernels

TYPES = [("s", np.float32, 1e-4), ("d", np.float64, 1e-10), ("c", np.complex64, 1e-4),
         ("z", np.complex128, 1e-10)]
REAL = {np.float32: np.float32, np.float64: np.float64, np.complex64: np.float32,
        np.complex128: np.float64}


def _rand(shape: tuple[int, ...], dtype: type, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _hpd(n: int, dtype: type) -> np.ndarray:
    a = _rand((n, n), dtype)
    return (a @ a.conj().T + n * np.eye(n)).astype(dtype)


def _close(a: np.ndarray, b: np.ndarray, tol: float) -> None:
    scale = max(1.0, float(np.max(np.abs(b))))
    assert float(np.max(np.abs(a - b))) <= tol * scale * 10


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_potrf(p: str, dtype: type, tol: float, uplo: str) -> None:
    a = _hpd(5, dtype)
    a_in = a.copy()
    a_in[np.triu_indices(5, 1) if uplo == "L" else np.tril_indices(5, -1)] = 7  # unread
    out, info = run_call(f"lapack_{p}potrf_ffi", [a_in], [((5, 5), dtype), ((), np.int32)],
                         {"uplo": uplo})
    assert int(info) == 0
    if uplo == "L":
        factor = np.tril(out)
        _close(factor @ factor.conj().T, a, tol)
        assert np.all(out[np.triu_indices(5, 1)] == 7)  # the other triangle is kept
    else:
        factor = np.triu(out)
        _close(factor.conj().T @ factor, a, tol)
        assert np.all(out[np.tril_indices(5, -1)] == 7)
    bad = -np.eye(3, dtype=dtype)
    _, info = run_call(f"lapack_{p}potrf_ffi", [bad], [((3, 3), dtype), ((), np.int32)],
                       {"uplo": uplo})
    assert int(info) == 1


def _permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    perm = np.arange(m)
    for i, p in enumerate(pivots):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    return perm


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 4)])
def test_getrf(p: str, dtype: type, tol: float, shape: tuple[int, ...]) -> None:
    a = _rand(shape, dtype)
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    lu, piv, info = run_call(f"lapack_{p}getrf_ffi", [a],
                             [(shape, dtype), ((*batch, k), np.int32), (batch, np.int32)])
    assert piv.dtype == np.int32 and np.all(piv >= 1) and np.all(piv <= m)
    assert np.all(info == 0)
    for idx in np.ndindex(*batch):
        lower = np.tril(lu[idx], -1)[:, :k] + np.eye(m, k)
        upper = np.triu(lu[idx])[:k, :]
        perm = _permutation(piv[idx], m)
        _close(lower @ upper, a[idx][perm], tol)
        # partial pivoting: |L| <= 1
        assert np.all(np.abs(lower) <= 1 + 1e-6)


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
def test_getrf_singular_info(p: str, dtype: type, tol: float) -> None:
    a = np.zeros((3, 3), dtype)
    a[0, 0] = 1
    _, _, info = run_call(f"lapack_{p}getrf_ffi", [a],
                          [((3, 3), dtype), ((3,), np.int32), ((), np.int32)])
    assert int(info) == 2


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
@pytest.mark.parametrize("shape", [(6, 4), (4, 4), (3, 5, 2)])
def test_geqrf_orgqr_ormqr(p: str, dtype: type, tol: float, shape: tuple[int, ...]) -> None:
    a = _rand(shape, dtype)
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    qr, tau = run_call(f"lapack_{p}geqrf_ffi", [a], [(shape, dtype), ((*batch, k), dtype)])
    orgqr = "ungqr" if p in "cz" else "orgqr"
    q_in = qr[..., :, :k]
    (q,) = run_call(f"lapack_{p}{orgqr}_ffi", [q_in, tau], [(q_in.shape, dtype)])
    for idx in np.ndindex(*batch):
        r = np.triu(qr[idx])[:k, :]
        _close(q[idx] @ r, a[idx], tol)
        _close(q[idx].conj().T @ q[idx], np.eye(k), tol)
    c = _rand((*batch, m, 2), dtype, seed=3)
    ormqr = "unmqr" if p in "cz" else "ormqr"
    (qc,) = run_call(f"lapack_{p}{ormqr}_ffi", [qr, tau, c], [(c.shape, dtype)],
                     {"left": True, "transpose": True})
    for idx in np.ndindex(*batch):
        full_q = np.linalg.qr(a[idx].astype(np.complex128), mode="complete")[0]
        # Q^H c keeps the norms of c's columns and matches Q's first k rows up to sign.
        _close(np.linalg.norm(qc[idx], axis=0), np.linalg.norm(c[idx], axis=0), tol)
        _close(np.abs(qc[idx][:k]), np.abs(full_q.conj().T @ c[idx])[:k], tol)


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_syevd(p: str, dtype: type, tol: float, uplo: str) -> None:
    a = _rand((5, 5), dtype)
    a = (a + a.conj().T) / 2
    name = "heevd" if p in "cz" else "syevd"
    v, w, info = run_call(f"lapack_{p}{name}_ffi", [a],
                          [((5, 5), dtype), ((5,), REAL[dtype]), ((), np.int32)],
                          {"uplo": uplo, "mode": "V"})
    assert int(info) == 0 and w.dtype == REAL[dtype]
    assert np.all(np.diff(w) >= 0)
    _close(a @ v, v * w, tol)
    _close(v.conj().T @ v, np.eye(5), tol)
    _, w2, _ = run_call(f"lapack_{p}{name}_ffi", [a],
                        [((5, 5), dtype), ((5,), REAL[dtype]), ((), np.int32)],
                        {"uplo": uplo, "mode": "N"})
    _close(w2, w, tol)


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
def test_geev(p: str, dtype: type, tol: float) -> None:
    a = _rand((5, 5), dtype, seed=4)
    cdt = np.result_type(dtype, np.complex64)
    if p in "sd":
        wr, wi, vl, vr, info = run_call(
            f"lapack_{p}geev_ffi", [a],
            [((5,), dtype), ((5,), dtype), ((5, 5), cdt), ((5, 5), cdt), ((), np.int32)],
            {"compute_left": "V", "compute_right": "V"})
        w = wr + 1j * wi
        assert np.any(wi != 0)  # this matrix has a conjugate pair
        for j in np.nonzero(wi > 0)[0]:
            assert wi[j + 1] == -wi[j] and np.allclose(vr[:, j + 1], vr[:, j].conj())
    else:
        w, vl, vr, info = run_call(
            f"lapack_{p}geev_ffi", [a], [((5,), dtype), ((5, 5), dtype), ((5, 5), dtype),
                                         ((), np.int32)],
            {"compute_left": "V", "compute_right": "V"})
    assert int(info) == 0
    _close(a @ vr, vr * w, tol)
    _close(vl.conj().T @ a, w[:, None] * vl.conj().T, tol)
    _close(np.linalg.norm(vr, axis=0), np.ones(5), tol)
    # LAPACK: each vector's largest component is real
    big = np.argmax(np.abs(vr), axis=0)
    assert np.allclose(vr[big, np.arange(5)].imag, 0, atol=tol * 10)


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
@pytest.mark.parametrize("routine", ["gesdd", "gesvd"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_svd_modes(p: str, dtype: type, tol: float, routine: str,
                   shape: tuple[int, int]) -> None:
    a = _rand(shape, dtype)
    m, n = shape
    k = min(m, n)
    real = REAL[dtype]
    name = f"lapack_{p}{routine}_ffi"
    _, s, u, vt, info = run_call(name, [a], [(shape, dtype), ((k,), real), ((m, m), dtype),
                                             ((n, n), dtype), ((), np.int32)], {"mode": "A"})
    assert int(info) == 0 and np.all(np.diff(s) <= 0)
    _close(u[:, :k] * s @ vt[:k], a, tol)
    _close(u.conj().T @ u, np.eye(m), tol)
    _close(vt @ vt.conj().T, np.eye(n), tol)
    _, s2, u2, vt2, _ = run_call(name, [a], [(shape, dtype), ((k,), real), ((m, k), dtype),
                                             ((k, n), dtype), ((), np.int32)], {"mode": "S"})
    _close(u2 * s2 @ vt2, a, tol)
    _, s3, _, _, _ = run_call(name, [a], [(shape, dtype), ((k,), real), ((m, m), dtype),
                                          ((n, n), dtype), ((), np.int32)], {"mode": "N"})
    _close(s3, np.linalg.svd(a.astype(np.complex128), compute_uv=False), tol)


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
def test_gees(p: str, dtype: type, tol: float) -> None:
    a = _rand((4, 4), dtype, seed=5)
    if p in "sd":
        t, z, wr, wi, sdim, info = run_call(
            f"lapack_{p}gees_ffi", [a], [((4, 4), dtype), ((4, 4), dtype), ((4,), dtype),
                                         ((4,), dtype), ((), np.int32), ((), np.int32)],
            {"mode": "V", "sort": "N"})
        w = wr + 1j * wi
        assert np.all(np.tril(t, -2) == 0)  # quasi-triangular
    else:
        t, z, w, sdim, info = run_call(
            f"lapack_{p}gees_ffi", [a], [((4, 4), dtype), ((4, 4), dtype), ((4,), dtype),
                                         ((), np.int32), ((), np.int32)],
            {"mode": "V", "sort": "N"})
        assert np.all(np.tril(t, -1) == 0)
    assert int(info) == 0 and int(sdim) == 0
    _close(z @ t @ z.conj().T, a, tol)
    _close(z.conj().T @ z, np.eye(4), tol)
    _close(np.sort_complex(w), np.sort_complex(np.linalg.eigvals(a.astype(np.complex128))),
           tol * 10)


def _reflectors_q(packed: np.ndarray, tau: np.ndarray, offset: int) -> np.ndarray:
    n = packed.shape[0]
    q = np.eye(n, dtype=np.complex128)
    for i, t in enumerate(tau):
        v = np.zeros(n, np.complex128)
        v[i + offset] = 1
        v[i + offset + 1:] = packed[i + offset + 1:, i]
        q = q @ (np.eye(n) - t * np.outer(v, v.conj()))
    return q


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
def test_gehrd(p: str, dtype: type, tol: float) -> None:
    a = _rand((5, 5), dtype, seed=6)
    h, tau, info = run_call(f"lapack_{p}gehrd_ffi", [a],
                            [((5, 5), dtype), ((4,), dtype), ((), np.int32)],
                            {"low": 1, "high": 5})
    assert int(info) == 0
    hess = np.triu(h, -1)
    q = _reflectors_q(h, tau, 1)
    _close(q @ hess @ q.conj().T, a, tol)


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
def test_sytrd(p: str, dtype: type, tol: float) -> None:
    a = _rand((5, 5), dtype, seed=7)
    a = (a + a.conj().T) / 2
    name = "hetrd" if p in "cz" else "sytrd"
    real = REAL[dtype]
    packed, d, e, tau, info = run_call(
        f"lapack_{p}{name}_ffi", [a], [((5, 5), dtype), ((5,), real), ((4,), real),
                                       ((4,), dtype), ((), np.int32)], {"uplo": "L"})
    assert int(info) == 0 and d.dtype == real
    tri = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    q = _reflectors_q(packed, tau, 1)
    _close(q @ tri @ q.conj().T, a, tol)


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
def test_gtsv(p: str, dtype: type, tol: float) -> None:
    n = 5
    dl, d, du = _rand((n,), dtype, 1), _rand((n,), dtype, 2) + 4, _rand((n,), dtype, 3)
    dl[0] = 0
    du[-1] = 0
    b = _rand((n, 2), dtype, 4)
    *_, x, info = run_call(f"lapack_{p}gtsv_ffi", [dl, d, du, b],
                           [((n,), dtype)] * 3 + [((n, 2), dtype), ((), np.int32)])
    full = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    assert int(info) == 0
    _close(full @ x, b, tol)


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("diag", ["N", "U"])
def test_trsm(p: str, dtype: type, tol: float, side: str, uplo: str, trans: str,
              diag: str) -> None:
    a = _rand((4, 4), dtype, 8) + 4 * np.eye(4, dtype=dtype)
    b = _rand((4, 3) if side == "L" else (3, 4), dtype, 9)
    (x,) = run_call(f"lapack_{p}trsm_ffi", [a, b], [(b.shape, dtype)],
                    {"side": side, "uplo": uplo, "trans_x": trans, "diag": diag})
    tri = np.tril(a) if uplo == "L" else np.triu(a)
    if diag == "U":
        np.fill_diagonal(tri, 1)
    op = {"N": tri, "T": tri.T, "C": tri.conj().T}[trans]
    _close(op @ x if side == "L" else x @ op, b, tol)


# ---- numpy fallback (no scipy) -------------------------------------------------------------


@pytest.fixture
def no_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lapack_kernels, "_scipy", lambda: None)
    monkeypatch.setattr(lapack_kernels, "_scipy_blas", lambda: None)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_numpy_fallback_matches_lapack(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _rand((5, 4), dtype, 11)
    sq = _rand((4, 4), dtype, 12) + 3 * np.eye(4, dtype=dtype)
    hpd = _hpd(4, dtype)
    with_scipy = [lapack_kernels.getrf(sq), lapack_kernels.geqrf(a),
                  lapack_kernels.potrf(hpd, "L"), lapack_kernels.syevd(hpd, "L", True),
                  lapack_kernels.trsm(sq, a.T.copy(), "L", "U", "N", "N")]
    qr, tau = with_scipy[1]
    q = lapack_kernels.orgqr(qr, tau)
    monkeypatch.setattr(lapack_kernels, "_scipy", lambda: None)
    monkeypatch.setattr(lapack_kernels, "_scipy_blas", lambda: None)
    without = [lapack_kernels.getrf(sq), lapack_kernels.geqrf(a),
               lapack_kernels.potrf(hpd, "L"), lapack_kernels.syevd(hpd, "L", True),
               lapack_kernels.trsm(sq, a.T.copy(), "L", "U", "N", "N")]
    for got, want in zip(without, with_scipy, strict=True):
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,), strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(lapack_kernels.orgqr(qr, tau), q, rtol=1e-9, atol=1e-9)


def test_without_scipy_names_the_extra(no_scipy: None) -> None:
    a = _rand((4, 4), np.float64)
    with pytest.raises(Exception, match=r"gehrd needs scipy: pip install shlo-cli\[linalg\]"):
        run_call("lapack_dgehrd_ffi", [a], [((4, 4), np.float64), ((3,), np.float64),
                                            ((), np.int32)], {"low": 1, "high": 4})


@pytest.mark.parametrize(("p", "dtype", "tol"), TYPES)
def test_geqp3_column_pivoted_qr(p: str, dtype: type, tol: float) -> None:
    a = _rand((5, 4), dtype, 13)
    jpvt_in = np.zeros(4, np.int32)
    qr, jpvt, tau = run_call(f"lapack_{p}geqp3_ffi", [a, jpvt_in],
                             [((5, 4), dtype), ((4,), np.int32), ((4,), dtype)])
    assert sorted(jpvt.tolist()) == [1, 2, 3, 4]  # a 1-based permutation
    orgqr = "ungqr" if p in "cz" else "orgqr"
    (q,) = run_call(f"lapack_{p}{orgqr}_ffi", [qr, tau], [((5, 4), dtype)])
    r = np.triu(qr)[:4]
    _close(q @ r, a[:, jpvt - 1], tol)
    assert np.all(np.diff(np.abs(np.diag(r))) <= tol * 10)  # pivoting: |r_ii| decreasing


ATTRS = ("indices_of_shape_operands = dense<[1, 2]> : tensor<2xi64>, "
         "mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = "
         "[dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>, "
         "dense<0> : tensor<1xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, "
         "dense<0> : tensor<1xindex>]")


def test_shape_operands_of_a_polymorphic_call_are_dropped() -> None:
    """jax appends a shape-polymorphic call's result shapes as operands, listed in
    `indices_of_shape_operands`: the target reads the same operands as the static call."""
    a = np.stack([_hpd(4, np.float32), 2 * _hpd(4, np.float32)])
    text = """
func.func @main(%a: tensor<?x4x4xf32>) -> (tensor<?x4x4xf32>, tensor<?xi32>) {
  %s = stablehlo.constant dense<[2, 4, 4]> : tensor<3xi32>
  %n = stablehlo.constant dense<2> : tensor<1xi32>
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a, %s, %n) {""" + ATTRS + """} : \
(tensor<?x4x4xf32>, tensor<3xi32>, tensor<1xi32>) -> (tensor<?x4x4xf32>, tensor<?xi32>)
  return %0#0, %0#1 : tensor<?x4x4xf32>, tensor<?xi32>
}
"""
    out, info = shlo_cli.interpret(text, a)
    want, want_info = run_call("lapack_spotrf_ffi", [a], [((2, 4, 4), np.float32),
                                                          ((2,), np.int32)], {"uplo": "L"})
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(info, want_info)


def test_backend_config_is_decoded_once_per_op(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call run many times (a solve inside a scan step) decodes its backend_config once,
    and every run gives the same solution."""
    from jax_call_helpers import call_module

    from shlo_cli.custom_calls import registry
    from shlo_cli.interpreter.engine import Interpreter
    from shlo_cli.ir.parser import parse_source

    decoded: list[int] = []
    decode = registry.decode_config

    def counted(target: object, op: object) -> object:
        decoded.append(1)
        return decode(target, op)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "decode_config", counted)
    a = _rand((4, 4), np.float64, 8) + 4 * np.eye(4)
    b = _rand((4, 3), np.float64, 9)
    text = call_module("lapack_dtrsm_ffi", [a, b], [(b.shape, np.float64)],
                       {"side": "L", "uplo": "L", "trans_x": "N", "diag": "N"})
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")
    first = np.asarray(interpreter.call(main, [a, b])[0])
    for _ in range(4):
        assert np.asarray(interpreter.call(main, [a, b])[0]).tobytes() == first.tobytes()
    assert len(decoded) == 1
    _close(np.tril(a) @ first, b, 1e-12)
