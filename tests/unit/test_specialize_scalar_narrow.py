"""0-d kernels of the narrow float types (specialize_scalar_narrow.py) give the general
evaluator's bits: arithmetic on every pair of each 8-bit type's values and on bf16 pairs
(random, special values, results that are bf16 ties after their f32 rounding), the libm
functions on every bf16 and 8-bit value (NaNs, infinities, subnormals, overflow), the IEEE
comparisons; numpy scalars and 0-d arrays; and a bf16 scalar loop runs on them."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo.specialize_narrow import bind_narrow
from shlo_cli.dialects.stablehlo.specialize_scalar_narrow import bind_scalar_narrow

TYPES = {"bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
         "f8E5M2": ml_dtypes.float8_e5m2, "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
         "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz, "f8E4M3B11FNUZ": ml_dtypes.float8_e4m3b11fnuz,
         "f8E3M4": ml_dtypes.float8_e3m4, "f8E4M3": ml_dtypes.float8_e4m3}
BINARY = ["add", "subtract", "multiply", "divide"]
UNARY = ["exponential", "exponential_minus_one", "log", "log_plus_one", "sine", "cosine",
         "tan", "tanh", "cbrt"]


def _program(op: str, elem: str, arity: int, shape: str = "") -> str:
    t = f"tensor<{shape}{elem}>"
    r = f"tensor<{shape}i1>" if op.startswith("compare") else t
    params = ", ".join(f"%{n}: {t}" for n in "ab"[:arity])
    args = ", ".join(f"%{n}" for n in "ab"[:arity])
    if op.startswith("compare"):
        line = f"%0 = stablehlo.compare {op.split()[1]}, {args}, FLOAT : ({t}, {t}) -> {r}"
    else:
        line = f"%0 = stablehlo.{op} {args} : {t}"
    return f"func.func @main({params}) -> {r} {{\n  {line}\n  func.return %0 : {r}\n}}\n"


def _check(op: str, elem: str, columns: list[np.ndarray]) -> None:
    """The 0-d kernel on each element (numpy scalars, every third as 0-d arrays) against
    the general evaluator on the whole vectors."""
    arity = len(columns)
    firsts = [c[0] for c in columns]
    _, kernel = run_first_op(_program(op, elem, arity), firsts, bind_scalar_narrow, True)
    assert kernel.__module__.endswith("specialize_scalar_narrow") or op.startswith("compare")
    n = columns[0].size
    want, _ = run_first_op(_program(op, elem, arity, f"{n}x"), columns,
                           (bind_narrow, bind_scalar_narrow), False)
    rows = zip(*[list(c) for c in columns], strict=True)
    with np.errstate(all="ignore"):
        got = [kernel(*(np.asarray(v) if k % 3 == 0 else v for v in row))
               for k, row in enumerate(rows)]
    out = np.array([np.asarray(g)[()] for g in got], want.dtype)
    assert out.tobytes() == want.tobytes(), (op, elem)


def _every(elem: str) -> np.ndarray:
    dtype = np.dtype(TYPES[elem])
    return np.arange(1 << (8 * dtype.itemsize), dtype=f"u{dtype.itemsize}").view(dtype)


@pytest.mark.parametrize("elem", [e for e in TYPES if e != "bf16"])
@pytest.mark.parametrize("op", [*BINARY, "compare LT", "compare EQ"])
def test_every_pair_of_8_bit_values(elem: str, op: str) -> None:
    every = _every(elem)
    a, b = (v.reshape(-1) for v in np.meshgrid(every, every))
    _check(op, elem, [a, b])


@pytest.mark.parametrize("op", [*BINARY, "compare GE", "compare NE"])
def test_bf16_pairs(op: str) -> None:
    rng = np.random.default_rng(4)
    every = _every("bf16")
    specials = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x0001, 0x8001,
                         0x3F80, 0xBF80, 0x7F7F, 0x0080, 0x4000], np.uint16).view(every.dtype)
    a, b = (v.reshape(-1) for v in np.meshgrid(specials, specials))
    pairs = rng.integers(0, 1 << 16, (2, 20000), dtype=np.uint16).view(every.dtype)
    # products and sums whose f32 result lies on a bf16 midpoint (ties to even)
    whole = rng.integers(1 << 7, 1 << 8, (2, 4000)).astype(np.float32)
    ties = (whole * np.float32(2.0 ** -7)).astype(every.dtype)
    _check(op, "bf16", [np.concatenate([a, pairs[0], ties[0]]),
                        np.concatenate([b, pairs[1], ties[1]])])


@pytest.mark.parametrize("elem", ["bf16", "f8E4M3FN", "f8E5M2"])
@pytest.mark.parametrize("op", UNARY)
def test_libm_functions_on_every_value(elem: str, op: str) -> None:
    _check(op, elem, [_every(elem)])


def test_a_bf16_scalar_loop_runs_on_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """An RNN-like bf16 scalar recurrence: every step's op is a 0-d kernel of this module
    or specialize_scalar's, and the result is the general evaluators'."""
    from loop_helpers import run_loops

    from shlo_cli.dialects.stablehlo.specialize_scalar import bind_scalar
    from shlo_cli.interpreter import engine

    text = """func.func @main(%xs: tensor<40xbf16>) -> tensor<bf16> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %h0 = stablehlo.constant dense<0.5> : tensor<bf16>
  %r:2 = stablehlo.while(%i = %c0, %h = %h0) : tensor<i32>, tensor<bf16>
    cond {
      %cn = stablehlo.constant dense<40> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %cn, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<40xbf16>, tensor<i32>) -> tensor<1xbf16>
      %x = stablehlo.reshape %x0 : (tensor<1xbf16>) -> tensor<bf16>
      %w = stablehlo.constant dense<0.7> : tensor<bf16>
      %hw = stablehlo.multiply %h, %w : tensor<bf16>
      %s = stablehlo.add %hw, %x : tensor<bf16>
      %y = stablehlo.tanh %s : tensor<bf16>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %y : tensor<i32>, tensor<bf16>
    }
  return %r#1 : tensor<bf16>
}"""
    xs = np.random.default_rng(2).uniform(-3, 3, 40).astype(ml_dtypes.bfloat16)
    got, _ = run_loops(text, [xs], True, monkeypatch)
    saved = list(engine.BIND_HOOKS)
    engine.BIND_HOOKS[:] = [h for h in saved if h not in (bind_scalar, bind_scalar_narrow)]
    try:
        want, _ = run_loops(text, [xs], False, monkeypatch)
    finally:
        engine.BIND_HOOKS[:] = saved
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()
    assert np.asarray(got[0]).dtype == np.asarray(want[0]).dtype




@pytest.mark.parametrize("elem", ["bf16", "f8E4M3FN", "f8E5M2"])
def test_one_rounding_of_a_double(elem: str) -> None:
    """The libm kernels' rounding of a double to the type (through f32 rounding to odd) is
    round_float's, on doubles just beside the type's midpoints (where rounding to nearest
    f32 first would land on the midpoint: about one in 600 here), overflowing, tiny and
    special ones."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float
    from shlo_cli.dialects.stablehlo.specialize_scalar_narrow import RoundingCells

    dtype = np.dtype(TYPES[elem])
    rng = np.random.default_rng(8)
    with np.errstate(all="ignore"):
        values = np.unique(_every(elem).astype(np.float64))
    values = values[np.isfinite(values)]
    mid = (values[:-1] + values[1:]) / 2  # (exact doubles)
    near = mid * (1 + rng.choice([-1.0, 1.0], mid.size) * rng.uniform(2.0 ** -40, 2.0 ** -24,
                                                                        mid.size))
    doubles = np.concatenate([near, mid, values * (1 + 2.0 ** -30), [1e39, -1e39, 3.4e38, 1e-46,
                                                                      -1e-300, 0.0, -0.0, np.inf]])
    cells = RoundingCells(dtype)
    got = np.array([cells.odd(v) for v in doubles.tolist()], dtype)
    with np.errstate(all="ignore"):
        want = round_float(doubles, dtype)
        nearest = doubles.astype(np.float32).astype(dtype)
    assert got.tobytes() == want.tobytes()
    assert nearest.tobytes() != want.tobytes()  # (the rounding to odd is needed here)
