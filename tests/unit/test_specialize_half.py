"""f16 maximum/minimum on integer keys (dialects/stablehlo/specialize_half.py) give the
general evaluator's results bit for bit: signed zeros, infinities, subnormals, NaNs with
either sign and any payload (the NaN fallback), a one-value broadcast operand, empty and
0-d tensors."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize, specialize_half
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def _run(text: str, args: list[np.ndarray], removed: tuple[object, ...]) -> np.ndarray:
    saved = list(engine.BIND_HOOKS)
    engine.BIND_HOOKS[:] = [h for h in saved if h not in removed]
    try:
        interpreter = Interpreter(parse_source(text))
        return np.asarray(interpreter.call(interpreter.lookup_function("main"), args)[0])
    finally:
        engine.BIND_HOOKS[:] = saved


def _check(text: str, args: list[np.ndarray]) -> None:
    fast = _run(text, args, ())
    plain = _run(text, args, (specialize_half.bind_half, specialize.bind_specialized))
    assert fast.dtype == plain.dtype == np.float16 and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()


def _binary(op: str, shape: str) -> str:
    t = f"tensor<{shape}f16>"
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.{op} %a, %b : {t}\n  func.return %0 : {t}\n}}\n")


def _specials(rng: np.random.Generator, n: int, nans: bool) -> np.ndarray:
    """Random f16 values drawn partly from every bit pattern (subnormals, infinities) and
    from the zeros; NaNs of both signs and several payloads when `nans`."""
    bits = rng.integers(0, 1 << 16, n, dtype=np.uint16)
    x = bits.view(np.float16).copy()
    x[np.isnan(x)] = 1.5
    pick = rng.random(n)
    x[pick < 0.2] = 0.0
    x[(pick >= 0.2) & (pick < 0.4)] = -0.0
    x[(pick >= 0.4) & (pick < 0.45)] = np.inf
    x[(pick >= 0.45) & (pick < 0.5)] = -np.inf
    if nans:
        payloads = np.array([0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0xFFFF], np.uint16)
        where = rng.random(n) < 0.05
        x.view(np.uint16)[where] = rng.choice(payloads, int(where.sum()))
    return x


@pytest.mark.parametrize("nans", [False, True])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_f16_extremum_matches_general_evaluator(op: str, nans: bool) -> None:
    rng = np.random.default_rng(11 + nans)
    a, b = _specials(rng, 600, nans), _specials(rng, 600, nans)
    _check(_binary(op, "20x30x"), [a.reshape(20, 30), b.reshape(20, 30)])
    neighbours = (a.view(np.uint16) ^ np.uint16(1)).view(np.float16)  # adjacent values
    neighbours[np.isnan(neighbours) & ~np.isnan(a)] = 2.0
    _check(_binary(op, "20x30x"), [a.reshape(20, 30), neighbours.reshape(20, 30)])
    _check(_binary(op, "0x"), [a[:0], b[:0]])
    _check(_binary(op, ""), [a[:1].reshape(()), b[:1].reshape(())])


@pytest.mark.parametrize("value", [0.0, -0.0, 1.0, -np.inf, np.nan, -np.nan])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_f16_extremum_with_one_value_operand(op: str, value: float) -> None:
    """relu's maximum(x, broadcast 0): the broadcast operand's key computed once."""
    rng = np.random.default_rng(5)
    a = _specials(rng, 257, False)
    text = ("func.func @main(%a: tensor<257xf16>, %b: tensor<f16>) -> tensor<257xf16> {\n"
            "  %0 = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<f16>) -> tensor<257xf16>\n"
            f"  %1 = stablehlo.{op} %a, %0 : tensor<257xf16>\n"
            "  func.return %1 : tensor<257xf16>\n}\n")
    _check(text, [a, np.array(value, np.float16)])


def _no_fallback(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    raise AssertionError("NaN-free operands must not fall back")


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_f16_extremum_without_nan_takes_the_key_path(op: str) -> None:
    """Without NaN the key path itself answers (no fallback), adjacent values included."""
    rng = np.random.default_rng(8)
    a = _specials(rng, 900, False)
    b = (a.view(np.uint16) ^ np.uint16(1)).view(np.float16)
    b[np.isnan(b)] = -2.0
    ufunc = np.maximum if op == "maximum" else np.minimum
    kernel = specialize_half._extremum(ufunc, _no_fallback)
    fast = kernel(a, b)
    plain = _run(_binary(op, "900x"), [a, b], (specialize_half.bind_half,
                                              specialize.bind_specialized))
    assert fast.tobytes() == plain.tobytes()
