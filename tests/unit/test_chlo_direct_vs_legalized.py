"""Every elementwise chlo op: evaluated directly and after --chlo-legalize-to-stablehlo, on
the same random inputs, within a tolerance per precision.

The direct evaluators compute in double (libm where it is exact to rounding); the
decompositions are upstream's formulas in the element precision, so the two must agree to the
decompositions' accuracy. Functions with zeros inside their domain (lgamma, digamma) also get
an absolute tolerance there.
"""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes

RNG_SEED = 20261125
# op -> (domain low, high) for random inputs; binary ops take two operands.
UNARY = {"acos": (-1, 1), "acosh": (1, 50), "asin": (-1, 1), "asinh": (-50, 50),
         "atan": (-50, 50), "atanh": (-0.99, 0.99), "bessel_i1e": (-40, 40),
         "cosh": (-80, 80), "sinh": (-80, 80), "tan": (-1.5, 1.5), "digamma": (0.1, 30),
         "erf": (-6, 6), "erfc": (-3, 9), "erf_inv": (-0.999, 0.999), "lgamma": (0.1, 30),
         "square": (-1e3, 1e3)}
BINARY = {"broadcast_atan2": (-10, 10), "broadcast_next_after": (-10, 10),
          "broadcast_power": (0.1, 5), "broadcast_remainder": (-10, 10),
          "broadcast_add": (-10, 10), "broadcast_divide": (-10, 10),
          "broadcast_maximum": (-10, 10), "broadcast_minimum": (-10, 10),
          "next_after": (-10, 10), "broadcast_zeta": (1.5, 6), "zeta": (1.5, 6),
          "polygamma": (0.2, 6), "broadcast_polygamma": (0.2, 6)}
RTOL = {"f32": 3e-5, "f64": 1e-12}  # decompositions in f32 lose a few dozen ulp at most
ATOL = {"f32": 2e-6, "f64": 1e-14}


def _program(op: str, element: str, n: int, arity: int) -> str:
    t = f"tensor<{n}x{element}>"
    if arity == 1:
        return f"func.func @main(%a0: {t}) -> {t} {{\n  %r = chlo.{op} %a0 : {t} -> {t}\n" \
               f"  return %r : {t}\n}}"
    return (f"func.func @main(%a0: {t}, %a1: {t}) -> {t} {{\n"
            f'  %r = "chlo.{op}"(%a0, %a1) : ({t}, {t}) -> {t}\n  return %r : {t}\n}}')


def _inputs(op: str, low: float, high: float, dtype: type, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(RNG_SEED)
    xs = [rng.uniform(low, high, n).astype(dtype)]
    if op in BINARY:
        if "polygamma" in op:  # order n: small non-negative integers
            xs = [rng.integers(0, 4, n).astype(dtype), xs[0]]
        elif "zeta" in op:
            xs.append(rng.uniform(0.5, 4, n).astype(dtype))
        else:
            xs.append(rng.uniform(low, high, n).astype(dtype))
    return xs


@pytest.mark.parametrize("element", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(UNARY) + sorted(BINARY))
def test_direct_matches_legalized(op: str, element: str) -> None:
    low, high = {**UNARY, **BINARY}[op]
    dtype = np.float32 if element == "f32" else np.float64
    xs = _inputs(op, low, high, dtype, 256)
    text = _program(op, element, 256, len(xs))
    [direct] = shlo_cli.interpret(text, *xs)
    module = parse_source(text, "chlo.mlir")
    verify_module(module)
    run_passes(module, ["chlo-legalize-to-stablehlo"], verify_module)
    assert not any(o.name.startswith("chlo.") for f in module.functions()
                   for o in f.regions[0].entry.operations)
    [legalized] = shlo_cli.interpret(module, *xs)
    d, e = direct.astype(np.float64), legalized.astype(np.float64)
    both_nan = np.isnan(d) & np.isnan(e)
    close = np.abs(d - e) <= RTOL[element] * np.maximum(np.abs(d), np.abs(e)) + ATOL[element]
    ok = both_nan | (d == e) | close
    bad = np.flatnonzero(~ok)
    assert bad.size == 0, [(tuple(float(x[i]) for x in xs), d[i], e[i]) for i in bad[:5]]
