"""reduce_precision in the float's own width (dialects/stablehlo/specialize_rounding.py) gives
the general evaluator's bits: ties to even, mantissa carries into the exponent, overflow to
±inf, underflow and the reduced format's subnormals to ±0, NaNs of either sign (kept, or
+inf with no mantissa), ±0 and ±inf, for f16, f32 and f64 and several formats."""

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import specialize_rounding

ELEMS = {"f16": (np.float16, np.uint16), "f32": (np.float32, np.uint32),
         "f64": (np.float64, np.uint64)}


def _values(elem: str, n: int) -> np.ndarray:
    dtype, unsigned = ELEMS[elem]
    rng = np.random.default_rng(n)
    bits = rng.integers(0, np.iinfo(unsigned).max, n, dtype=unsigned, endpoint=True)
    x = bits.view(dtype).copy()
    scale = 2.0 ** rng.integers(-30, 30, n // 2)
    with np.errstate(over="ignore"):  # f16 overflows to inf: wanted
        x[:n // 2] = (rng.standard_normal(n // 2) * scale).astype(dtype)
    x[:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0], dtype)
    return x


@pytest.mark.parametrize(("exponent", "mantissa"), [(5, 10), (8, 7), (4, 3), (5, 2), (2, 0),
                                                    (8, 23), (11, 4), (3, 30)])
@pytest.mark.parametrize("elem", list(ELEMS))
def test_reduce_precision_matches_general_evaluator(elem: str, exponent: int,
                                                    mantissa: int) -> None:
    x = _values(elem, 4000)
    t = f"tensor<4000x{elem}>"
    text = (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.reduce_precision %a, format = e{exponent}m{mantissa} : {t}\n"
            f"  func.return %0 : {t}\n}}\n")
    fast, kernel = run_first_op(text, [x], specialize_rounding.bind_rounding, True)
    plain, general = run_first_op(text, [x], specialize_rounding.bind_rounding, False)
    assert fast.dtype == plain.dtype and fast.tobytes() == plain.tobytes()
    assert fast.flags.c_contiguous
    assert not np.shares_memory(fast, x)
