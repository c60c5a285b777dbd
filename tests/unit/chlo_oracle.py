"""Shared machinery of the direct-vs-legalized chlo tests: run one program both ways (the
interpreter's own chlo evaluators, then `--chlo-legalize-to-stablehlo` and StableHLO only),
input generators with edge values, and a ULP comparison in which NaN matches NaN."""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

import shlo_cli
from shlo_cli.ir.core import Module
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes

FLOATS: dict[str, type] = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32,
                           "f64": np.float64}
COMPLEXES: dict[str, type] = {"complex<f32>": np.complex64, "complex<f64>": np.complex128}
SEED = 20261126


def legalized(text: str) -> Module:
    """The program after --chlo-legalize-to-stablehlo; no chlo op may be left anywhere."""
    module = parse_source(text, "chlo.mlir")
    verify_module(module)
    run_passes(module, ["chlo-legalize-to-stablehlo"], verify_module)
    left = sorted({o.name for o in module.op.walk() if o.name.startswith("chlo.")})
    assert not left, f"not legalized: {left}"
    return module


def run_both(text: str, inputs: Sequence[np.ndarray]) -> tuple[list[np.ndarray],
                                                                 list[np.ndarray]]:
    """The results of `text` evaluated directly and after legalization."""
    direct = [np.asarray(r) for r in shlo_cli.interpret(text, *inputs)]
    lowered = [np.asarray(r) for r in shlo_cli.interpret(legalized(text), *inputs)]
    return direct, lowered


def _ordered(v: np.ndarray) -> np.ndarray:
    """Float bits mapped to integers that order like the values (-0 and +0 adjacent)."""
    width = {2: np.int16, 4: np.int32, 8: np.int64}[v.dtype.itemsize]
    bits = np.ascontiguousarray(v).view(width).astype(np.int64)
    return np.where(bits < 0, np.int64(np.iinfo(width).min) - bits, bits)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ULP distance per element (complex: the worse part); NaN vs NaN is 0, NaN vs a number
    is huge; +0 and -0 are one apart."""
    if np.iscomplexobj(a):
        return np.maximum(ulps(a.real, b.real), ulps(a.imag, b.imag))
    distance = np.abs(_ordered(a) - _ordered(b))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    nan_a, nan_b = np.isnan(a64), np.isnan(b64)
    distance = np.where(nan_a | nan_b, np.int64(2**62), distance)
    return np.where(nan_a & nan_b, 0, distance)


def _abs_close(a: np.ndarray, b: np.ndarray, atol: float | np.ndarray) -> np.ndarray:
    if np.iscomplexobj(a):
        return _abs_close(a.real, b.real, atol) & _abs_close(a.imag, b.imag, atol)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.isfinite(a64) & np.isfinite(b64) & (np.abs(a64 - b64) <= atol)


def mismatches(direct: np.ndarray, lowered: np.ndarray, max_ulp: int | np.ndarray = 0,
               atol: float | np.ndarray = 0.0, compared: np.ndarray | None = None
               ) -> list[tuple[int, object, object, int]]:
    """(flat index, direct, legalized, ulps) of the `compared` elements (default: all)
    further apart than `max_ulp` ULP and `atol` (both scalars or per element); integers and
    booleans must be equal, floats of one kind."""
    assert direct.dtype == lowered.dtype and direct.shape == lowered.shape, \
        (direct.dtype, lowered.dtype, direct.shape, lowered.shape)
    d, e = direct.ravel(), lowered.ravel()
    mask = np.ones(d.shape, bool) if compared is None else \
        np.broadcast_to(compared, direct.shape).ravel()
    if d.dtype.kind in "biu":
        bad = np.flatnonzero((d != e) & mask)
        return [(int(i), d[i], e[i], -1) for i in bad]
    distance = ulps(d, e)
    budget = np.nan_to_num(np.broadcast_to(np.asarray(max_ulp, np.float64), direct.shape)
                           .ravel(), nan=0.0)
    tolerance = np.broadcast_to(np.asarray(atol, np.float64), direct.shape).ravel()
    ok = (distance <= budget) | _abs_close(d, e, tolerance)
    return [(int(i), d[i], e[i], int(distance[i])) for i in np.flatnonzero(~ok & mask)]


def max_ulps(direct: np.ndarray, lowered: np.ndarray) -> int:
    return int(ulps(direct.ravel(), lowered.ravel()).max(initial=0))


def float_edges(dtype: type) -> np.ndarray:
    """Signed zeros, infinities, NaN, the smallest subnormal and normal, the largest finite
    value, and ones, halves and twos."""
    info = ml_dtypes.finfo(dtype)
    values = [0.0, np.inf, np.nan, float(info.smallest_subnormal), float(info.tiny),
              float(info.max), 1.0, 0.5, 2.0, float(info.eps), 1.0 - float(info.epsneg)]
    positive = np.array(values, dtype)
    return np.concatenate([positive, -positive]).astype(dtype)


def wide_random(dtype: type, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random signs and magnitudes log-uniform over the finite range of `dtype`."""
    info = ml_dtypes.finfo(dtype)
    low = np.log10(float(info.smallest_subnormal))
    high = np.log10(float(info.max))
    magnitude = 10.0 ** rng.uniform(low, high, n)
    sign = rng.choice([-1.0, 1.0], n)
    return (sign * magnitude).astype(dtype)


def real_inputs(dtype: type, low: float, high: float, n: int,
                extra: Sequence[float] = (), seed: int = SEED) -> np.ndarray:
    """Uniform random values in [low, high], then the edge values, wide random values and
    `extra` (e.g. poles)."""
    rng = np.random.default_rng(seed)
    parts = [rng.uniform(low, high, n).astype(dtype), float_edges(dtype),
             wide_random(dtype, n // 4, rng), np.array(list(extra), np.float64).astype(dtype)]
    return np.concatenate(parts).astype(dtype)


def complex_inputs(dtype: type, low: float, high: float, n: int, seed: int = SEED) -> np.ndarray:
    """Random x + iy in the square [low, high]^2, then every pair of real edge values and
    wide random values (parts assigned separately so infinities stay exact)."""
    part = np.float32 if dtype == np.complex64 else np.float64
    rng = np.random.default_rng(seed)
    edges = float_edges(part)
    re, im = np.meshgrid(edges, edges)
    wide_re, wide_im = wide_random(part, n // 4, rng), wide_random(part, n // 4, rng)
    real = np.concatenate([rng.uniform(low, high, n).astype(part), re.ravel(), wide_re])
    imag = np.concatenate([rng.uniform(low, high, n).astype(part), im.ravel(), wide_im])
    z = np.empty(real.size, dtype)
    z.real, z.imag = real, imag
    return z


def tensor(shape: Sequence[int], element: str) -> str:
    """The tensor type; a negative size is a dynamic (`?`) dimension."""
    return "tensor<" + "".join(f"{d if d >= 0 else '?'}x" for d in shape) + element + ">"


def program(op: str, operand_types: Sequence[str], result_types: Sequence[str],
            properties: str = "") -> str:
    """One generic-form op applied to the function's arguments."""
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operand_types))
    names = ", ".join(f"%a{i}" for i in range(len(operand_types)))
    props = f" <{{{properties}}}>" if properties else ""
    results = ", ".join(result_types)
    n = len(result_types)
    lhs = "%r" if n == 1 else f"%r:{n}"
    rets = "%r" if n == 1 else ", ".join(f"%r#{i}" for i in range(n))
    return (f"func.func @main({args}) -> ({results}) {{\n"
            f'  {lhs} = "{op}"({names}){props} : ({", ".join(operand_types)}) -> '
            f"({results})\n  return {rets} : {results}\n}}")
