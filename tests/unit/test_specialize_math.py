"""specialize_math's f16/f32 kernels of logistic, sqrt and rsqrt equal the straightforward
evaluation (double, rounded once; logistic's add and divide in the element type) and the
general evaluator, bit for bit: every f16 bit pattern, random f32 bit patterns (NaN
payloads of both signs, signed zeros, subnormals, infinities), single elements (rsqrt's
Python path), views, 0-d and empty arrays; the `unquieted` forms give the same bits."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from shlo_cli.dialects import libm
from shlo_cli.dialects.quiet import switches
from shlo_cli.dialects.stablehlo import specialize, specialize_math
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

BITS = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32}


def _sqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.sqrt(x.astype(np.float64)).astype(x.dtype)  # type: ignore[no-any-return]


def _rsqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (1.0 / np.sqrt(x.astype(np.float64))).astype(x.dtype)  # type: ignore[no-any-return]


def _logistic(x: np.ndarray) -> np.ndarray:
    bits = BITS[x.dtype]
    negated = (x.view(bits) ^ bits(1 << (8 * x.itemsize - 1))).view(x.dtype)
    with np.errstate(all="ignore"):
        exp = np.asarray(libm.exp(negated.astype(np.float64))).astype(x.dtype)
        one = np.ones((), x.dtype)
        return (one / (one + exp)).astype(x.dtype)  # type: ignore[no-any-return]


OPS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[..., Any]]] = {
    "sqrt": (_sqrt, lambda dtype, general: specialize_math.root(False, dtype, general)),
    "rsqrt": (_rsqrt, lambda dtype, general: specialize_math.root(True, dtype, general)),
    "logistic": (_logistic, specialize_math.logistic),
}


def _patterns(dtype: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    """Every f16 pattern; for f32 random patterns, a fifth of them specials."""
    if dtype == np.float16:
        return np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    x = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    specials = np.array([0x0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                         0x7F800001, 0xFF812345, 0x00000001, 0x807FFFFF, 0x3F800000,
                         0xBF800000], np.uint32).view(np.float32)
    where = rng.random(n) < 0.2
    x[where] = rng.choice(specials, int(where.sum()))
    return x


def _same_bits(a: Any, b: np.ndarray) -> bool:
    a = np.asarray(a)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", list(OPS))
def test_kernels_equal_the_straightforward_evaluation(name: str, dtype: type) -> None:
    reference, make = OPS[name]
    kernel = make(np.dtype(dtype), reference)  # (the general path: the reference too)
    quiet, loud = switches()
    rng = np.random.default_rng(9)
    x = _patterns(np.dtype(dtype), 40000, rng)
    views = [x, x[::-7], x[:4096].reshape(64, 64).T, x[:64].reshape(1, 64), x[5:6],
             x[7:8].reshape(1, 1), x[:0].reshape(0, 3)]
    views += [x[i:i + 1] for i in rng.integers(0, x.size, 300)]  # single elements
    for view in views:
        want = reference(view)
        with warnings.catch_warnings(record=True) as caught:
            got = kernel(view)
        assert not caught
        assert _same_bits(got, want), view
        token = quiet()
        try:
            again = kernel.unquieted(view)
        finally:
            loud(token)
        assert _same_bits(again, want)


@pytest.mark.parametrize("name", list(OPS))
def test_zero_dimensional_operands_take_the_general_path(name: str) -> None:
    reference, make = OPS[name]
    seen: list[Any] = []
    kernel = make(np.dtype(np.float32), lambda x: seen.append(x) or reference(np.asarray(x)))
    x = np.asarray(np.float32(2.0))
    assert _same_bits(kernel(x), reference(x)) and len(seen) == 1


def _run(text: str, args: list[np.ndarray], specialized: bool) -> np.ndarray:
    saved = list(engine.BIND_HOOKS)
    if not specialized:
        engine.BIND_HOOKS[:] = [h for h in saved if h is not specialize.bind_specialized]
    try:
        interpreter = Interpreter(parse_source(text))
        out = np.asarray(interpreter.call(interpreter.lookup_function("main"), args)[0])
        plan = next(iter(interpreter._plans.values()))
        chosen = [step.fn.__module__ == specialize_math.__name__ for step in plan.steps]
    finally:
        engine.BIND_HOOKS[:] = saved
    if args[0].dtype == np.float32:  # (f16: another hook may tabulate the op first)
        assert chosen == [specialized]
    return out


@pytest.mark.parametrize("shape", [(1,), (1, 1), (3, 41)])
@pytest.mark.parametrize("elem", ["f16", "f32"])
@pytest.mark.parametrize("name", list(OPS))
def test_specialized_ops_equal_the_general_evaluator(name: str, elem: str,
                                                      shape: tuple[int, ...]) -> None:
    dtype = np.dtype(np.float16 if elem == "f16" else np.float32)
    t = "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    text = (f"func.func @main(%a: {t}) -> {t} {{\n  %0 = stablehlo.{name} %a : {t}\n"
            f"  func.return %0 : {t}\n}}\n")
    rng = np.random.default_rng(len(shape))
    for _ in range(20):
        x = _patterns(np.dtype(np.float32), int(np.prod(shape)), rng)
        if dtype == np.float16:
            x = rng.choice(_patterns(dtype, 0, rng), x.size)
        x = x.reshape(shape)
        assert _same_bits(_run(text, [x], True), _run(text, [x], False))
