"""jaxlib's pre-FFI LAPACK custom calls (`@lapack_sgetrf` ...), found in exports before 0.4.34.

They pass sizes and options as leading `i32`/`i64`/`ui8` scalar operands, then the matrices,
and return LAPACK's workspaces as extra results (`api_version = 2`). Their numerics are the
FFI targets' (jax_lapack); only the operand/result lists differ:

- `potrf` (lower, b, n, a) -> (factor, info)
- `getrf` (b, m, n, a) -> (lu, ipiv, info)
- `geqrf` (b, m, n, lwork, a) -> (qr, tau, info, work)
- `orgqr`/`ungqr` (b, m, n, k, lwork, a, tau) -> (q, info, work)
- `syevd`/`heevd` (lower, b, n, a) -> (v, w, info, work..., iwork): eigenvectors always
- `gesdd` (full_matrices, compute_uv, b, m, n, lwork, a) -> (a, s, u, vt, info, iwork, work...)
- `gehrd` (n, ilo, ihi, lda, b, lwork, a) -> (h, tau, info, work)
- `geev`  (b, n, jobvl, jobvr, a) -> (work x3, wr, wi, vl, vr, info) real,
          (work x2, w, vl, vr, info) complex

Workspace results are returned as zeros.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.types import numpy_dtype
from . import jax_lapack as ffi
from .registry import Operand, TargetCall, TargetError, register_target

_SCALAR = Operand(("i32", "i64", "ui8"), rank=0)


def _int(x: Any) -> int:
    return int(np.asarray(x).reshape(-1)[0])


def _char(x: Any) -> str:
    value = _int(x)
    return chr(value) if 0 < value < 128 else "?"


def _delegate(call: TargetCall, evaluate: Callable[[TargetCall], list[np.ndarray]],
              operands: list[Any], config: dict[str, Any], results: list[int]) -> list[Any]:
    """Run an FFI evaluator on `operands`, producing the legacy results at `results`."""
    types = [call.result_types[i] for i in results]
    inner = TargetCall(call.name, operands, config, types, None, call.ctx)
    values = evaluate(inner)
    out: list[Any] = []
    for i, t in enumerate(call.result_types):
        if i in results:
            out.append(values[results.index(i)])
        else:
            out.append(np.zeros(t.shape, numpy_dtype(t.element)))
    return out


def _potrf(call: TargetCall) -> list[Any]:
    lower, _, _, a = call.operands
    return _delegate(call, ffi._potrf, [a], {"uplo": "L" if _int(lower) else "U"}, [0, 1])


def _getrf(call: TargetCall) -> list[Any]:
    return _delegate(call, ffi._getrf, [call.operands[-1]], {}, [0, 1, 2])


def _geqrf(call: TargetCall) -> list[Any]:
    return _delegate(call, ffi._geqrf, [call.operands[-1]], {}, [0, 1])


def _orgqr(call: TargetCall) -> list[Any]:
    return _delegate(call, ffi._orgqr, list(call.operands[-2:]), {}, [0])


def _syevd(call: TargetCall) -> list[Any]:
    lower, a = call.operands[0], call.operands[-1]
    return _delegate(call, ffi._syevd, [a], {"uplo": "L" if _int(lower) else "U", "mode": "V"},
                     [0, 1, 2])


def _gesdd(call: TargetCall) -> list[Any]:
    full, compute_uv, a = call.operands[0], call.operands[1], call.operands[-1]
    mode = ("A" if _int(full) else "S") if _int(compute_uv) else "N"
    return _delegate(call, ffi._svd("gesdd"), [a], {"mode": mode}, [0, 1, 2, 3, 4])


def _gehrd(call: TargetCall) -> list[Any]:
    ilo, ihi, a = call.operands[1], call.operands[2], call.operands[-1]
    inner = TargetCall(call.name, [a], {"low": _int(ilo), "high": _int(ihi)},
                       call.result_types[:3], None, call.ctx)
    n = a.shape[-1]
    if not 1 <= inner.config["low"] <= max(1, inner.config["high"]) <= max(1, n):
        raise TargetError(f"needs 1 <= ilo <= ihi <= {n}")
    values = ffi._batched(inner, ffi._kernel(
        lambda x: ffi.K.gehrd(x, inner.config["low"], inner.config["high"])), [(a, 2)])
    extra = [np.zeros(t.shape, numpy_dtype(t.element)) for t in call.result_types[3:]]
    return values + extra


def _geev(real: bool) -> Callable[[TargetCall], list[Any]]:
    def evaluate(call: TargetCall) -> list[Any]:
        jobvl, jobvr, a = call.operands[2], call.operands[3], call.operands[-1]
        config = {"compute_left": _char(jobvl), "compute_right": _char(jobvr)}
        for key, value in config.items():
            if value not in ("V", "N"):
                raise TargetError(f"{key} must be 'V' or 'N', got {value!r}")
        first = len(call.result_types) - (5 if real else 4)
        return _delegate(call, ffi._geev(real), [a], config,
                         list(range(first, len(call.result_types))))

    return evaluate


def _register_all() -> None:
    for p, t in ffi.PREFIXES.items():
        m, v = Operand(t, min_rank=2), Operand(t, min_rank=1)
        cplx = p in "cz"
        register_target(f"lapack_{p}potrf", _potrf, operands=[_SCALAR] * 3 + [m])
        register_target(f"lapack_{p}getrf", _getrf, operands=[_SCALAR] * 3 + [m])
        register_target(f"lapack_{p}geqrf", _geqrf, operands=[_SCALAR] * 4 + [m])
        register_target(f"lapack_{p}{'ungqr' if cplx else 'orgqr'}", _orgqr,
                        operands=[_SCALAR] * 5 + [m, v])
        register_target(f"lapack_{p}{'heevd' if cplx else 'syevd'}", _syevd,
                        operands=[_SCALAR] * 3 + [m])
        register_target(f"lapack_{p}gesdd", _gesdd, operands=[_SCALAR] * 6 + [m])
        register_target(f"lapack_{p}gehrd", _gehrd, operands=[_SCALAR] * 6 + [m])
        register_target(f"lapack_{p}geev", _geev(not cplx), operands=[_SCALAR] * 4 + [m])


_register_all()
