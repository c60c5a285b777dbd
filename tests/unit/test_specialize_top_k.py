"""Selecting top_k (dialects/chlo/specialize_top_k.py) gives the general evaluator's values
and indices: floats with NaNs of both signs, ±0, ±inf and many ties, integers with
extremes and duplicates, several rows, k at the selection limit, and rows whose ties fill
most of the row (the full sort)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.chlo import specialize_top_k
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
         "i8": np.int8, "i32": np.int32, "i64": np.int64, "ui8": np.uint8, "ui64": np.uint64}


def _program(elem: str, shape: tuple[int, ...], k: int) -> str:
    dims = "".join(f"{d}x" for d in shape)
    out = "".join(f"{d}x" for d in shape[:-1]) + f"{k}x"
    t = f"tensor<{dims}{elem}>"
    return (f"func.func @main(%a: {t}) -> (tensor<{out}{elem}>, tensor<{out}i32>) {{\n"
            f"  %v, %i = chlo.top_k(%a, k = {k}) : {t} -> (tensor<{out}{elem}>, "
            f"tensor<{out}i32>)\n"
            f"  func.return %v, %i : tensor<{out}{elem}>, tensor<{out}i32>\n}}\n")


def _run(text: str, x: np.ndarray, specialized: bool) -> tuple[list[np.ndarray], object]:
    saved = list(engine.BIND_HOOKS)
    if not specialized:
        engine.BIND_HOOKS[:] = [h for h in saved if h is not specialize_top_k.bind_top_k]
    try:
        interpreter = Interpreter(parse_source(text))
        out = interpreter.call(interpreter.lookup_function("main"), [x])
        kernel = next(iter(interpreter._plans.values())).steps[0].fn
    finally:
        engine.BIND_HOOKS[:] = saved
    return [np.asarray(o) for o in out], kernel


def _check(elem: str, x: np.ndarray, k: int) -> None:
    text = _program(elem, x.shape, k)
    fast, kernel = _run(text, x, True)
    plain, general = _run(text, x, False)
    assert kernel is not general
    for a, b in zip(fast, plain, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def _values(elem: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dtype = np.dtype(TYPES[elem])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        flat = x.reshape(-1)
        flat[::7] = info.max
        flat[1::11] = info.min
        flat[2::13] = 0
        return x
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    flat = x.reshape(-1)
    specials = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
    for i, value in enumerate(specials):
        flat[i::37 + i] = np.array(value, np.float64).astype(dtype)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    flat[5::53] = (np.array(np.nan, dtype).view(unsigned) | unsigned.type(1)).view(dtype)
    return x


@pytest.mark.parametrize("elem", list(TYPES))
def test_top_k_matches_general_evaluator(elem: str) -> None:
    for shape, k in (((4000,), 4), ((3, 700), 5), ((2, 3, 256), 32), ((64,), 8), ((5, 80), 1)):
        _check(elem, _values(elem, shape, 1), k)


def test_top_k_with_ties_and_masks() -> None:
    """Many equal keys at the threshold (quantized logits, a -inf mask with fewer than k
    finite entries per row): ties keep ascending indices, padding never appears."""
    rng = np.random.default_rng(2)
    x = np.round(rng.standard_normal((6, 400)) * 2).astype(np.float32)
    _check("f32", x, 40)
    masked = np.full((4, 512), -np.inf, np.float32)
    masked[0, [5, 300]] = [1.0, 2.0]
    masked[1, 7] = np.nan
    masked[2, :] = -0.0
    masked[2, 100] = 0.0
    masked[3, ::2] = 3.0  # ties over half the row: the full sort
    _check("f32", masked, 8)
    _check("i32", np.zeros((3, 100), np.int32), 10)


def test_selection_keeps_few_candidates() -> None:
    """The selection itself (not a fallback): at most k + ties candidates per row, every
    row's k largest among them."""
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 50, (5, 1000))
    found = specialize_top_k._candidates(keys, 6)
    assert found is not None
    indices, _ = found
    for row, got in zip(keys, indices, strict=True):
        real = got[got < 1000]
        assert np.array_equal(real, np.sort(real))
        assert set(np.argsort(-row, kind="stable")[:6]) <= set(real.tolist())
        assert real.size < 200
