"""reduce_precision of a 0-d f32 or f64 in a generated loop (pyscalar.py, scalar_ops.py):
its kernel's step on the value's bits as a Python line, the kernel's bits on random bit
patterns and the edges (ties to even in the kept mantissa, the carry into the exponent,
exponents past the reduced range either way, subnormals, infinities, NaN payloads)."""

from __future__ import annotations

import numpy as np
import pytest
from line_helpers import BITS, DTYPES, check_lines, planned_step


def _values(t: str, rng: np.random.Generator) -> np.ndarray:
    dtype = DTYPES[t]
    bits = BITS[dtype.itemsize]
    random = rng.integers(0, np.iinfo(bits).max, 20_000, dtype=bits, endpoint=True).view(dtype)
    normal = (rng.standard_normal(5_000) * 10.0 ** rng.integers(-12, 12, 5_000)).astype(dtype)
    # values of few mantissa bits, and their neighbours: ties of every reduced width
    ties = (np.floor(rng.uniform(1, 2 ** 12, 5_000)) * 2.0 ** rng.integers(-30, 30, 5_000)
            + 2.0 ** rng.integers(-40, 10, 5_000))
    ties = ties.astype(dtype)
    beside = np.concatenate([np.nextafter(ties, dtype.type(np.inf)),
                             np.nextafter(ties, dtype.type(-np.inf))])
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 65504.0, 65520.0, 65536.0,
                         6.1e-5, 6.103515625e-05, 5.96e-8, 1e-40, 3.4e38, 1.0, 1.5, 1.25], dtype)
    return np.concatenate([random, normal, ties, beside, specials])


FORMATS = [(5, 10), (8, 7), (4, 3), (2, 0), (8, 0), (11, 10), (5, 30), (10, 20)]


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize(("exponent", "mantissa"), FORMATS)
def test_reduce_precision(t: str, exponent: int, mantissa: int) -> None:
    op = f"stablehlo.reduce_precision %a0, format = e{exponent}m{mantissa} : tensor<{t}>"
    step = planned_step(op, [t], t)
    lines = check_lines(step, _values(t, np.random.default_rng(exponent * 100 + mantissa)))
    assert "_RP" in lines
