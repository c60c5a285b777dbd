"""Exact transcendental kernels on small f32 arrays (issue 13: a recurrent or decoding
step's gates, attention rows and layer-norm scales), per call.

Each case calls the kernel the interpreter binds for the op (dialects/libm.py,
dialects/stablehlo/specialize_math.py) in its `unquieted` form, as a generated loop does,
and numpy's own f32 ufunc on the same array in the same process: that baseline is fast but
not the C library's result rounded once (numpy's f32 SIMD functions are off by an ulp or
more on many inputs); the ratio is what exactness costs per call. The exp cases with a
causal mask hold -1e9 in half of each row, as a decoding step's attention does.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

import numpy as np

from shlo_cli.dialects import libm
from shlo_cli.dialects.quiet import switches
from shlo_cli.dialects.stablehlo import specialize_math

CALLS = 2000  # per timing
ROUNDS = 7  # interleaved timings of kernel and baseline, best kept


def _cases() -> list[tuple[str, Callable[..., object], Callable[..., object], np.ndarray]]:
    f32 = np.dtype(np.float32)
    rng = np.random.default_rng(0)

    def normal(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    def kernel(fn: object) -> Callable[..., object]:
        made = libm.native_kernel(fn, f32)
        return getattr(made, "unquieted", made)

    masked = normal(4, 32)
    masked[:, 16:] = -1e9
    masked -= masked.max(axis=1, keepdims=True)
    positive = np.abs(normal(64)) + 0.1
    return [
        ("tanh (1, 8)", kernel(libm.tanh), np.tanh, normal(1, 8)),
        ("tanh (1, 32)", kernel(libm.tanh), np.tanh, normal(1, 32)),
        ("tanh (1, 256)", kernel(libm.tanh), np.tanh, normal(1, 256)),
        ("exp (4, 32)", kernel(libm.exp), np.exp, normal(4, 32)),
        ("exp (4, 32) causal mask", kernel(libm.exp), np.exp, masked),
        ("exp (2048,)", kernel(libm.exp), np.exp, normal(2048)),
        ("logistic (1, 64)", specialize_math.logistic(f32, None).unquieted,  # type: ignore[attr-defined]
         lambda x: 1 / (1 + np.exp(-x)), normal(1, 64)),
        ("sqrt (1,)", specialize_math.root(False, f32, None).unquieted,  # type: ignore[attr-defined]
         np.sqrt, positive[:1]),
        ("rsqrt (1,)", specialize_math.root(True, f32, None).unquieted,  # type: ignore[attr-defined]
         lambda x: 1 / np.sqrt(x), positive[:1]),
        ("rsqrt (64,)", specialize_math.root(True, f32, None).unquieted,  # type: ignore[attr-defined]
         lambda x: 1 / np.sqrt(x), positive),
    ]


def run(profile: bool = False) -> None:
    del profile  # (nothing here worth a profile: each case is a handful of numpy calls)
    quiet, loud = switches()
    print("exact math on small f32 arrays, wall time per call (best of "
          f"{ROUNDS} interleaved rounds of {CALLS} calls; numpy = its own f32 ufunc, not exact):")
    print(f"  {'case':26} {'ours':>9} {'numpy':>9}   ratio")
    token = quiet()  # as a generated loop runs its kernels' unquieted forms
    try:
        for label, ours, baseline, x in _cases():
            best = [float("inf"), float("inf")]
            for _ in range(ROUNDS):
                for i, fn in enumerate((ours, baseline)):
                    best[i] = min(best[i], timeit.timeit(lambda f=fn, a=x: f(a), number=CALLS))
            a, b = (1e6 * t / CALLS for t in best)
            print(f"  {label:26} {a:6.2f} us {b:6.2f} us   {a / b:5.1f}x")
    finally:
        loud(token)
