"""FFT accuracy (issue 18): max ULP distance of `stablehlo.fft` results from the exactly
rounded transform, per result element type.

The exact reference is numpy.fft in long double (a 64-bit significand on x86-64) over the
same inputs, rounded once to the result type; on platforms whose long double is no wider
than double the section says so and stops. Inputs are random normal values with the shapes
of upstream's fft testdata programs plus random lengths (primes, powers of two, mixed radix)
for each transform type. For the testdata programs holding XLA's expected values, the same
distance is printed for XLA's float32 results, which is what `check.expect_close` (3 ULP)
compares ours with.
"""

from __future__ import annotations

import glob
import os
import re

import numpy as np

import shlo_cli
from shlo_cli.dialects.stablehlo.fft import transform

KINDS = ("FFT", "IFFT", "RFFT", "IRFFT")
LENGTHS = [1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 60, 64, 97, 100, 127, 128, 243, 256, 331,
           512, 625, 1000, 1009, 1024, 1031, 4096, 4099, 10007]
RANDOM_LENGTHS = 12
BATCH = 4
_FFT_OP = re.compile(r"stablehlo\.fft %\w+, type =\s+(\w+), length = \[([\d, ]*)\] : "
                     r"\(tensor<([\dx]+)x(f32|f64|complex<f32>|complex<f64>)>\)")
_DT = {"f32": np.float32, "f64": np.float64, "complex<f32>": np.complex64,
       "complex<f64>": np.complex128}


def ulp(a: np.ndarray, b: np.ndarray) -> int:
    """Largest distance in representable values between same-typed real or complex arrays
    (through zero when signs differ; NaN or infinity anywhere counts as unbounded)."""
    if np.iscomplexobj(a):
        return max(ulp(a.real, b.real), ulp(a.imag, b.imag))
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return 2**63
    bits, sign = (np.int32, 0x7FFFFFFF) if a.dtype == np.float32 else (np.int64, 2**63 - 1)

    def ordered(v: np.ndarray) -> np.ndarray:
        i = np.ascontiguousarray(v).view(bits).astype(object if bits == np.int64 else np.int64)
        return np.where(i < 0, -(i & sign), i)

    return int(np.abs(ordered(a) - ordered(b)).max()) if a.size else 0


def exact(x: np.ndarray, kind: str, lengths: list[int], dtype: type) -> np.ndarray:
    wide = np.longdouble if kind == "RFFT" else np.clongdouble
    fn = {"FFT": np.fft.fftn, "IFFT": np.fft.ifftn, "RFFT": np.fft.rfftn,
          "IRFFT": np.fft.irfftn}[kind]
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    return fn(x.astype(wide), s=lengths, axes=axes).astype(dtype)


def _input(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _cases(root: str, rng: np.random.Generator) -> list[tuple[str, list[int], tuple, type]]:
    """(kind, lengths, operand shape, operand dtype): testdata programs' ops, then lengths."""
    cases = []
    for path in sorted(glob.glob(os.path.join(root, "testdata", "fft_*.mlir"))):
        with open(path) as f:
            m = _FFT_OP.search(f.read())
        if m and "x0x" not in f"x{m.group(3)}x":
            lengths = [int(v) for v in m.group(2).split(",")]
            cases.append((m.group(1), lengths, tuple(int(d) for d in m.group(3).split("x")),
                          _DT[m.group(4)]))
    extra = sorted(int(n) for n in rng.integers(2, 5000, RANDOM_LENGTHS))
    for n in LENGTHS + extra:
        for kind in KINDS:
            in_len = n // 2 + 1 if kind == "IRFFT" else n
            for real, cplx in ((np.float32, np.complex64), (np.float64, np.complex128)):
                cases.append((kind, [n], (BATCH, in_len), real if kind == "RFFT" else cplx))
    return cases


def _result_dtype(kind: str, operand: type) -> type:
    single = operand in (np.float32, np.complex64)
    if kind == "IRFFT":
        return np.float32 if single else np.float64
    return np.complex64 if single else np.complex128


def _xla_rows(root: str) -> list[str]:
    """Ours and XLA's expected values against the exact transform, per testdata program."""
    rows = []
    for path in sorted(glob.glob(os.path.join(root, "testdata", "fft_*.mlir"))):
        with open(path) as f:
            text = f.read()
        m = _FFT_OP.search(text)
        if not m or "x0x" in f"x{m.group(3)}x":
            continue
        kind, lengths = m.group(1), [int(v) for v in m.group(2).split(",")]
        x, xla = _program_data(text)
        ours = transform(x, kind, lengths, xla.dtype)
        ref = exact(x, kind, lengths, xla.dtype)
        rows.append(f"  {os.path.basename(path):36} ours {ulp(ours, ref):>6}  "
                    f"XLA {ulp(xla, ref):>6}  ours vs XLA {ulp(ours, xla):>6}")
    return rows


def _program_data(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The @inputs and @expected constants of an upstream testdata program."""
    in_t = re.search(r"call @inputs\(\) : \(\) -> (\S+)\n", text).group(1)
    ex_t = re.search(r"call @expected\(\) : \(\) -> (\S+)\n", text).group(1)
    helpers = text[text.index("  func.func private @inputs"):text.rindex("}")]
    module = (f"module {{\n  func.func @main() -> ({in_t}, {ex_t}) {{\n"
              f"    %0 = call @inputs() : () -> {in_t}\n"
              f"    %1 = call @expected() : () -> {ex_t}\n"
              f"    return %0, %1 : {in_t}, {ex_t}\n  }}\n{helpers}}}\n")
    x, expected = shlo_cli.interpret(module)
    return np.asarray(x), np.asarray(expected)


def run(root: str, profile: bool = False) -> None:
    del profile  # nothing hot to profile: one numpy call per transform
    print("== fft accuracy: max ULP from the exactly rounded transform")
    if np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant:
        print("  skipped: long double is not wider than double here (no exact reference)")
        return
    rng = np.random.default_rng(18)
    worst: dict[str, tuple[int, str]] = {}
    for kind, lengths, shape, dtype in _cases(root, rng):
        x = _input(rng, shape, dtype)
        out_dtype = _result_dtype(kind, dtype)
        got = transform(x, kind, lengths, out_dtype)
        distance = ulp(got, exact(x, kind, lengths, out_dtype))
        name = np.dtype(out_dtype).name
        if distance >= worst.get(name, (-1, ""))[0]:
            worst[name] = (distance, f"{kind} {lengths}")
    for name in ("float32", "complex64", "float64", "complex128"):
        if name in worst:
            distance, where = worst[name]
            print(f"  {name:10} max ULP {distance:>8}  (at {where})")
    rows = _xla_rows(root) if os.path.isdir(os.path.join(root, "testdata")) else []
    if rows:
        print("  upstream programs with XLA's expected values (max ULP from exact):")
        print("\n".join(rows))
