"""maximum with a +0.0 splat operand (a ReLU, `clip(x, 0)`: specialize_extremum's
max_positive_zero) gives the general evaluator's result bit for bit: negative and positive
zeros in x, NaN (its payload and sign kept), infinities, subnormals, either operand order,
the zero as a splat constant or a broadcast of a 0-d one, small and large arrays, f16, f32
and f64; a -0.0 splat keeps the general kernel."""

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

ELEMS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def _program(shape: tuple[int, ...], elem: str, zero: str, zero_first: bool,
             broadcast: bool) -> str:
    t = "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"
    if broadcast:
        make = (f"%c = stablehlo.constant dense<{zero}> : tensor<{elem}>\n"
                f"  %z = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<{elem}>) -> {t}")
    else:
        make = f"%z = stablehlo.constant dense<{zero}> : {t}"
    operands = "%z, %x" if zero_first else "%x, %z"
    return (f"func.func @main(%x: {t}) -> {t} {{\n  {make}\n"
            f"  %0 = stablehlo.maximum {operands} : {t}\n  func.return %0 : {t}\n}}\n")


def _data(shape: tuple[int, ...], dtype: type, nan: bool, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    tiny = np.finfo(dtype).smallest_subnormal
    special = [-0.0, 0.0, np.inf, -np.inf, tiny, -tiny]
    flat[rng.integers(0, flat.size, len(special))] = special
    if nan:
        bits = flat.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[flat.itemsize])
        exponent = {2: 0x7C01, 4: 0x7FC00123, 8: 0xFFF8000000000456}[flat.itemsize]
        bits[rng.integers(0, flat.size, 2)] = exponent  # a payload, and a negative NaN
    return x


def _run(text: str, x: np.ndarray, specialized: bool) -> np.ndarray:
    """main's result, with or without the specialized kernels."""
    return run_first_op(text, [x], specialize.bind_specialized, specialized)[0]


@pytest.mark.parametrize("elem", list(ELEMS))
@pytest.mark.parametrize("shape", [(300,), (4, 5000), (70000,), (1,)])
@pytest.mark.parametrize("nan", [False, True])
def test_relu_matches_general_evaluator(elem: str, shape: tuple[int, ...], nan: bool) -> None:
    dtype = ELEMS[elem]
    x = _data(shape, dtype, nan, len(shape) * 7 + nan)
    for zero_first in (False, True):
        for broadcast in (False, True):
            text = _program(shape, elem, "0.0", zero_first, broadcast)
            fast = _run(text, x, True)
            plain = _run(text, x, False)
            assert fast.dtype == plain.dtype and fast.tobytes() == plain.tobytes()
            assert not np.signbit(fast[fast == 0]).any()


def test_the_kernel_is_chosen_for_positive_zero_only() -> None:
    kinds = {}
    for zero in ("0.0", "-0.0", "1.0"):
        interpreter = Interpreter(parse_source(_program((8,), "f32", zero, True, True)))
        main = interpreter.lookup_function("main")
        x = _data((8,), np.float32, False, 3)
        fast = interpreter.call(main, [x])[0]
        steps = next(iter(interpreter._plans.values())).steps
        kinds[zero] = getattr(steps[-1].fn, "__qualname__", "")  # (the maximum is last)
        general = _run(_program((8,), "f32", zero, True, True), x, False)
        assert np.asarray(fast).tobytes() == general.tobytes()
    assert kinds["0.0"].startswith("max_positive_zero")
    assert not kinds["-0.0"].startswith("max_positive_zero")
    assert not kinds["1.0"].startswith("max_positive_zero")
