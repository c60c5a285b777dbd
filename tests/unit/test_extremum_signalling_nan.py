"""maximum/minimum with a signalling NaN operand: the result is that NaN made quiet (its
payload and sign kept), as IEEE-754 maximum/minimum and the general evaluator (through its
float64 round trip) give it, for every kernel the specialized plan picks (0-d, small and
large arrays, with and without zeros in the result, a ReLU's +0 operand; f16, f32, f64).
Found by tests/fuzz/loops.py: numpy's maximum passes a signalling NaN on as it is."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

BITS = {np.float16: (np.uint16, 0x7C01, 0x0200), np.float32: (np.uint32, 0x7F800001, 0x400000),
        np.float64: (np.uint64, 0x7FF0000000000001, 0x8000000000000)}
ELEMS = {np.float16: "f16", np.float32: "f32", np.float64: "f64"}


def _program(op: str, shape: tuple[int, ...], elem: str, relu: bool) -> str:
    t = "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    rhs = "%z" if relu else "%y"
    zero = f"%z = stablehlo.constant dense<0.0> : {t}\n  " if relu else ""
    return (f"func.func @main(%x: {t}, %y: {t}) -> {t} {{\n  {zero}"
            f"%0 = stablehlo.{op} %x, {rhs} : {t}\n  func.return %0 : {t}\n}}\n")


def _run(text: str, args: list[np.ndarray], hooks: bool) -> np.ndarray:
    saved = list(engine.BIND_HOOKS)
    if not hooks:
        engine.BIND_HOOKS[:] = []
    try:
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            return np.asarray([interpreter.call(main, list(args)) for _ in range(2)][-1][0])
    finally:
        engine.BIND_HOOKS[:] = saved


@pytest.mark.parametrize("dtype", list(BITS))
@pytest.mark.parametrize("shape", [(), (1,), (300,), (70000,)])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("zeros", [False, True])
@pytest.mark.parametrize("relu", [False, True])
def test_signalling_nan_is_quieted(dtype: type, shape: tuple[int, ...], op: str, zeros: bool,
                                   relu: bool) -> None:
    if relu and op == "minimum":
        pytest.skip("the +0 kernel is maximum's")
    bits, signalling, quiet = BITS[dtype]
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(dtype)
    y = rng.standard_normal(shape).astype(dtype)
    if zeros:
        x.reshape(-1)[-1], y.reshape(-1)[-1] = -0.0, 0.0
    x.reshape(-1).view(bits)[0] = signalling  # (0-d: the only element)
    text = _program(op, shape, ELEMS[dtype], relu)
    fast = _run(text, [x, y], True)
    general = _run(text, [x, y], False)
    assert fast.dtype == general.dtype and fast.tobytes() == general.tobytes()
    assert fast.reshape(-1).view(bits)[0] == signalling | quiet
