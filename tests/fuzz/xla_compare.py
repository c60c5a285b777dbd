"""XLA CPU as a reference: compile the same StableHLO text with jaxlib and run the inputs.

Imported only when jax is installed (`pip install -e '.[xla]'`). Exact ops must agree bit for
bit (signed zeros included, NaNs as a class); transcendental ops and sums within a tolerance
per precision. Known departures of XLA from the spec are returned as ("deviation", key), a key
of DEVIATIONS (optionally followed by ": detail").
XLA runs in a worker process: some programs (a gather from an empty operand) fail a CHECK in
XLA's compiler and abort the process, which must not end the fuzz run; the worker is restarted
and the program counted as one XLA cannot run.
"""

from __future__ import annotations

import multiprocessing
from typing import Any

import numpy as np

INEXACT = {"exponential", "log", "sqrt", "rsqrt", "tanh", "sine", "cosine", "logistic",
           "exponential_minus_one", "log_plus_one", "cbrt", "tan", "power", "atan2", "divide",
           "reduce_add", "dot_general", "fft"}
# The documented deviations: where XLA CPU departs from the spec (we follow the spec), or
# cannot run a valid program. A disagreement is counted under one of these only when its
# test below holds; any other disagreement is a bug. key -> reason.
DEVIATIONS = {
    "subnormal": "XLA CPU flushes subnormal inputs and results to zero (denormals-are-zero / "
                 "flush-to-zero); the spec keeps IEEE-754 subnormals, and so do we",
    "complex-annex-g": "complex infinities/NaNs: we follow C99 Annex G (ccos, csin, cexp, cpow "
                       "= cexp(y clog x), division recovery); XLA's lowerings give NaN there",
    "complex-signed-zero": "a -0 imaginary part picks the branch (C99: csqrt(conj z) = "
                           "conj(csqrt z)); XLA ignores the zero's sign",
    "convert-out-of-range": "float -> integer conversion of an out-of-range value or NaN: "
                            "implementation-defined in the spec",
    "rng-raw-bits": "rng_bit_generator with a signed or float output type: XLA CPU returns "
                    "the raw unsigned bits (the same bits as ours, in an unsigned type)",
    "scatter-partial-window": "scatter with an update window partly out of bounds: the spec "
                              "updates each in-bounds element (and so do we); XLA skips the "
                              "whole window",
    "conv-padding-times-inf": "convolution with edge padding or lhs dilation and an infinite "
                              "or NaN kernel element: the spec pads with zeros and multiplies "
                              "them (0 * inf = NaN), XLA leaves padded positions out of the sum",
    "upstream-add-zero": "upstream's simplification rewrites add(X, 0.0) to X (AnyZero in "
                         "StablehloAggressiveSimplificationPatterns.td), so an X of -0.0 stays "
                         "-0.0 where IEEE addition gives +0.0; our passes do as upstream does "
                         "(counted only for a result that differs in zero signs alone)",
    "xla-cannot-run": "XLA refuses or crashes on a valid program (e.g. a gather from an empty "
                      "operand fails a CHECK in XLA's gather expander and aborts the process)",
}

EXACT_CHLO = {"chlo_is_inf", "chlo_is_neg_inf", "chlo_is_pos_inf", "chlo_conj", "chlo_top_k"}
RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-14,
        np.dtype(np.complex64): 2e-6, np.dtype(np.complex128): 1e-14}


def _worker(conn: Any) -> None:
    """Compile and run each (text, inputs) received; send back the first result or an error."""
    import jax
    from jax._src.lib import xla_client
    from jax.extend import backend as jax_backend

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    backend = jax_backend.get_backend("cpu")
    devices = xla_client.DeviceList(tuple(backend.devices()[:1]))
    while True:
        try:
            text, inputs = conn.recv()
        except EOFError:
            return
        try:
            exe = backend.compile_and_load(text, devices, xla_client.CompileOptions())
            out = exe.execute([jax.device_put(np.asarray(x)) for x in inputs])
            conn.send(("ok", np.asarray(out[0])))
        except Exception as e:  # noqa: BLE001 - sent back as "XLA cannot run it"
            conn.send(("error", str(e).splitlines()[0][:120] if str(e) else type(e).__name__))


class XlaCrash(Exception):
    """The XLA worker died (a CHECK failure aborts the whole process)."""


class XlaReference:
    def __init__(self) -> None:
        import jax  # noqa: F401 - fail here (ImportError) when jax is not installed

        self._context = multiprocessing.get_context("spawn")
        self._start()

    def _start(self) -> None:
        self._conn, child = self._context.Pipe()
        self._process = self._context.Process(target=_worker, args=(child,), daemon=True)
        self._process.start()
        child.close()

    def run(self, text: str, inputs: list[np.ndarray]) -> np.ndarray:
        try:
            self._conn.send((text, [np.asarray(x) for x in inputs]))
            kind, value = self._conn.recv()
        except (EOFError, OSError):
            self._process.join(5)
            code = self._process.exitcode
            self._start()
            raise XlaCrash(f"XLA aborted (exit code {code})") from None
        if kind == "error":
            raise RuntimeError(value)
        return value

    def compare(self, program: Any, ours: Any) -> tuple[str, str] | None:
        try:
            theirs = self.run(program.text, program.inputs)
        except Exception as e:  # noqa: BLE001 - XLA rejecting a program is worth a line
            return "deviation", f"xla-cannot-run: {str(e).splitlines()[0][:80]}"
        ours = np.asarray(ours)
        if (program.op.startswith("rng_bit_generator") and ours.shape == theirs.shape
                and ours.dtype != theirs.dtype and ours.dtype.itemsize == theirs.dtype.itemsize
                and theirs.dtype.kind == "u"):
            if np.array_equal(ours.view(theirs.dtype), theirs):
                return "deviation", "rng-raw-bits"
            return "bug", f"bits differ from XLA's: ours {ours!r} vs {theirs!r}"
        if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
            return "bug", f"ours {ours.dtype}{ours.shape} vs XLA {theirs.dtype}{theirs.shape}"
        if ours.size == 0 or _same(ours, theirs, program.op):
            return None
        for flag in ("scatter-partial-window", "conv-padding-times-inf"):
            if flag in program.flags:
                return "deviation", flag
        if _has_subnormal(program.inputs) or _has_subnormal([ours, theirs]):
            return "deviation", "subnormal"
        if program.element.startswith("complex"):
            parts = [np.asarray(x) for x in program.inputs if np.asarray(x).dtype.kind == "c"]
            if any(not np.all(np.isfinite(p)) for p in parts):
                return "deviation", "complex-annex-g"
            if np.allclose(np.abs(ours), np.abs(theirs), equal_nan=True) and any(
                    np.any(np.signbit(p.imag) & (p.imag == 0)) for p in parts):
                return "deviation", "complex-signed-zero"
        if program.op.startswith("convert_to_") and np.asarray(
                program.inputs[0]).dtype.kind in "fcV" and program.op[11:].lstrip("u")[:1] == "i":
            return "deviation", "convert-out-of-range"
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
            if p.dtype.kind == "f":
                tiny = float(np.finfo(p.dtype).tiny)
            else:  # bf16, f8: ml_dtypes' own finfo
                import ml_dtypes
                tiny = float(ml_dtypes.finfo(p.dtype).tiny)
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
    if op.startswith("chlo_") and op not in EXACT_CHLO:
        # chlo's special functions: libm/our series in double vs XLA's polynomials; within
        # a few ulp of max(|x|, 1) (their zeros, e.g. lgamma(1), are not relative-exact).
        rtol = RTOL.get(a.dtype, 1e-2) * 8
        with np.errstate(all="ignore"):
            close = np.abs(a64 - b64) <= rtol * np.maximum(
                np.maximum(np.abs(a64), np.abs(b64)), 1.0)
        return nan | exact | close | (a64 == b64)
    if op.split("_")[0] in {o.split("_")[0] for o in INEXACT} or op in INEXACT:
        rtol = RTOL.get(a.dtype, 1e-2)
        with np.errstate(all="ignore"):
            close = np.abs(a64 - b64) <= rtol * 4 * np.maximum(np.abs(a64), np.abs(b64)) + 1e-300
        return nan | exact | close | (a64 == b64)
    return nan | exact


def _same(a: np.ndarray, b: np.ndarray, op: str) -> bool:
    return bool(np.all(_close(a, b, op)))
