"""XLA CPU as a reference: compile the same StableHLO text with jaxlib and run the inputs.

Imported only when jax is installed (`pip install -e '.[xla]'`). Exact ops must agree bit for
bit (signed zeros included, NaNs as a class); transcendental ops and sums within a tolerance
per precision. Known departures of XLA from the spec are returned as ("deviation", reason).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax._src.lib import xla_client
from jax.extend import backend as jax_backend

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

INEXACT = {"exponential", "log", "sqrt", "rsqrt", "tanh", "sine", "cosine", "logistic",
           "exponential_minus_one", "log_plus_one", "cbrt", "tan", "power", "atan2", "divide",
           "reduce_add", "dot_general", "fft"}
RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-14,
        np.dtype(np.complex64): 2e-6, np.dtype(np.complex128): 1e-14}


class XlaReference:
    def __init__(self) -> None:
        self.backend = jax_backend.get_backend("cpu")
        self.devices = xla_client.DeviceList(tuple(self.backend.devices()[:1]))

    def run(self, text: str, inputs: list[np.ndarray]) -> np.ndarray:
        exe = self.backend.compile_and_load(text, self.devices, xla_client.CompileOptions())
        out = exe.execute([jax.device_put(np.asarray(x)) for x in inputs])
        return np.asarray(out[0])

    def compare(self, program: Any, ours: Any) -> tuple[str, str] | None:
        try:
            theirs = self.run(program.text, program.inputs)
        except Exception as e:  # noqa: BLE001 - XLA rejecting a program is worth a line
            return "deviation", f"XLA cannot compile or run it: {str(e).splitlines()[0][:80]}"
        ours = np.asarray(ours)
        if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
            return "bug", f"ours {ours.dtype}{ours.shape} vs XLA {theirs.dtype}{theirs.shape}"
        if ours.size == 0 or _same(ours, theirs, program.op):
            return None
        if _has_subnormal(program.inputs) or _has_subnormal([ours, theirs]):
            return "deviation", "subnormal (XLA CPU flushes subnormals to zero)"
        if program.element.startswith("complex"):
            parts = [np.asarray(x) for x in program.inputs if np.asarray(x).dtype.kind == "c"]
            if any(not np.all(np.isfinite(p)) for p in parts):
                return "deviation", ("complex infinities/NaNs: we follow C99 Annex G (ccos, "
                                     "csin, cexp, cpow = cexp(y clog x), division recovery); "
                                     "XLA's lowerings give NaN there")
            if np.allclose(np.abs(ours), np.abs(theirs), equal_nan=True) and any(
                    np.any(np.signbit(p.imag) & (p.imag == 0)) for p in parts):
                return "deviation", ("a -0 imaginary part picks the branch (C99 csqrt(conj z) "
                                     "= conj csqrt z); XLA ignores the zero's sign")
        if program.op.startswith("convert_to_") and np.asarray(
                program.inputs[0]).dtype.kind in "fc" and program.op[11:].lstrip("u")[:1] == "i":
            return "deviation", "float -> integer conversion out of range (implementation-defined)"
        bad = np.flatnonzero(~_close(ours, theirs, program.op))
        i = int(bad[0]) if bad.size else 0
        return "bug", (f"element {i}: ours {ours.reshape(-1)[i]!r} vs XLA "
                       f"{theirs.reshape(-1)[i]!r} ({bad.size} of {ours.size} differ)")


def _has_subnormal(arrays: list[Any]) -> bool:
    for a in arrays:
        a = np.asarray(a)
        if a.dtype.kind not in "fcV" and "bfloat16" not in str(a.dtype):
            continue
        parts = [a.real, a.imag] if a.dtype.kind == "c" else [a]
        for p in parts:
            f = p.astype(np.float64)
            tiny = float(np.finfo(p.dtype).tiny) if p.dtype.kind == "f" else 1.1754944e-38
            if np.any((f != 0) & (np.abs(f) < tiny)):
                return True
    return False


def _close(a: np.ndarray, b: np.ndarray, op: str) -> np.ndarray:
    if a.dtype.kind in "biu":
        return a == b
    a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    b64 = b.astype(a64.dtype)
    nan = np.isnan(a64) & np.isnan(b64)
    exact = (a64 == b64) & (np.signbit(a64.real) == np.signbit(b64.real))
    if op.split("_")[0] in {o.split("_")[0] for o in INEXACT} or op in INEXACT:
        rtol = RTOL.get(a.dtype, 1e-2)
        with np.errstate(all="ignore"):
            close = np.abs(a64 - b64) <= rtol * 4 * np.maximum(np.abs(a64), np.abs(b64)) + 1e-300
        return nan | exact | close | (a64 == b64)
    return nan | exact


def _same(a: np.ndarray, b: np.ndarray, op: str) -> bool:
    return bool(np.all(_close(a, b, op)))
