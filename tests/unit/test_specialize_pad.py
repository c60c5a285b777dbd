"""`stablehlo.pad` kernels (dialects/stablehlo/specialize_pad.py) give the general
evaluator's results bit for bit: edge padding positive, zero and negative (cutting into the
operand), interior padding, empty dimensions, several element types."""

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_pad

CASES = [  # (shape, low, high, interior)
    ((2, 1), (0, 0), (0, 1), (0, 0)),
    ((2, 1), (0, 1), (0, 0), (0, 0)),
    ((5,), (2,), (3,), (1,)),
    ((4, 3), (-1, 2), (1, -2), (0, 2)),
    ((3, 4), (-2, -1), (-1, -3), (1, 1)),
    ((0, 3), (1, 0), (2, 1), (3, 0)),
    ((2, 0, 2), (0, 1, 0), (1, 1, 0), (0, 2, 1)),
    ((), (), (), ()),
]
TYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "ui32": np.uint32, "i1": np.bool_}


def _program(elem: str, shape: tuple[int, ...], low: tuple[int, ...],
             high: tuple[int, ...], interior: tuple[int, ...]) -> str:
    spread = [(n - 1) * (i + 1) + 1 if n else 0 for n, i in zip(shape, interior, strict=True)]
    out = [lo + s + hi for lo, s, hi in zip(low, spread, high, strict=True)]

    def t(dims: list[int] | tuple[int, ...]) -> str:
        return "tensor<" + "".join(f"{d}x" for d in dims) + elem + ">"

    def a(values: tuple[int, ...]) -> str:
        return "[" + ", ".join(map(str, values)) + "]"

    return (f"func.func @main(%x: {t(shape)}, %v: {t(())}) -> {t(out)} {{\n"
            f"  %0 = stablehlo.pad %x, %v, low = {a(low)}, high = {a(high)}, "
            f"interior = {a(interior)} : ({t(shape)}, {t(())}) -> {t(out)}\n"
            f"  func.return %0 : {t(out)}\n}}\n")


@pytest.mark.parametrize("elem", list(TYPES))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_pad_matches_general_evaluator(case: int, elem: str) -> None:
    shape, low, high, interior = CASES[case]
    rng = np.random.default_rng(case)
    x: np.ndarray = (rng.standard_normal(shape) * 50).astype(TYPES[elem])
    v: np.ndarray = np.array(7 if elem != "i1" else True).astype(TYPES[elem])
    text = _program(elem, shape, low, high, interior)
    fast, kernel = run_first_op(text, [x, v], specialize_pad.bind_pad, True)
    plain, general = run_first_op(text, [x, v], specialize_pad.bind_pad, False)
    assert kernel is not general
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()
    assert fast.flags.c_contiguous and fast.flags.writeable
