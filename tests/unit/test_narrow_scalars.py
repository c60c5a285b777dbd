"""bf16 and f16 0-d values as Python floats in generated loops (interpreter/narrow_scalars.py,
pyscalar.py): each op's Python lines against the op's own 0-d kernel, bit for bit and dtype
for dtype, over every bf16 and f16 bit pattern (NaN payloads, signalling NaNs, -0.0, the
infinities, subnormals) and, for wider operands, random bit patterns and the rounding edges
(ties to even, values just beside them, the overflow thresholds, integers past 2^24 and 2^53).
The lines get what a loop gives them: the Python float or int of a numpy value."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from line_helpers import BITS, DTYPES, check_lines, planned_step

from shlo_cli.interpreter import pyscalar
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def _every(t: str) -> np.ndarray:
    """Every bf16 or f16 bit pattern."""
    return np.arange(1 << 16, dtype=np.uint16).view(DTYPES[t])


def _midpoints(narrow: str, wide: str, rng: np.random.Generator) -> np.ndarray:
    """Values of `wide` (f32 or f64) at the narrow type's rounding ties, one unit in the last
    place of `wide` beside them, and random bit patterns: ties of every exponent (subnormal
    and the overflow threshold included) in both signs."""
    w = DTYPES[wide]
    bits = BITS[w.itemsize]
    every = _every(narrow)
    with np.errstate(all="ignore"):
        low = every.astype(w)
        high = np.nextafter(low, w.type(np.inf) * np.sign(low.astype(np.float64)))
        ties = ((low.astype(np.float64) + high.astype(np.float64)) / 2).astype(w)
        if narrow == "f16":  # the next value up from each f16, from f16 itself
            up = (every.view(np.uint16) + np.uint16(1)).view(np.float16).astype(w)
            ties = ((low.astype(np.float64) + up.astype(np.float64)) / 2).astype(w)
        beside = np.concatenate([np.nextafter(ties, w.type(np.inf)), np.nextafter(ties, w.type(-np.inf))])
    random = rng.integers(0, np.iinfo(bits).max, 30_000, dtype=bits, endpoint=True).view(w)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.99, 65520.0, 65536.0,
                         -65520.0, 3.3895313892515355e38, 3.3961775292304e38, 3.4028234663852886e38,
                         1e300, -1e300, 5.96e-8, 2.98e-8, 2.9802322387695312e-08, 1e-45, 5e-324, 1.0], np.float64)
    with np.errstate(all="ignore"):
        return np.concatenate([low, ties, beside, random, specials.astype(w)])


def _integers(t: str, rng: np.random.Generator) -> np.ndarray:
    dtype = DTYPES[t]
    info = np.iinfo(dtype)
    edges = [info.min, info.min + 1, -1, 0, 1, 2, 255, 256, 257, 2047, 2049, 65504, 65519,
             65520, 65535, 2**24 + 1, 2**24 + 3, 2**31 - 1, 2**53 + 1, 2**62 + 2**53 + 1,
             2**63 + 2**40 + 1, info.max - 1, info.max]
    for e in range(9, 64):  # bf16's and f16's ties and their neighbours (past f32's 2^24)
        for tie in ((1 << e) + (1 << (e - 9)), (1 << e) + (1 << (e - 12)) if e > 11 else 0):
            edges += [tie - 1, tie, tie + 1, -tie - 1, -tie, -tie + 1]
    values = [v for v in edges if info.min <= v <= info.max]
    random = rng.integers(info.min, info.max, 5000, dtype=dtype, endpoint=True)
    return np.concatenate([np.array(values, dtype), random])


NARROW = ["bf16", "f16"]
OTHERS = ["f32", "f64", "i8", "i32", "i64", "ui8", "ui64", "i1"]


@pytest.mark.parametrize("a", NARROW)
@pytest.mark.parametrize("b", NARROW + OTHERS)
def test_conversions_from_narrow_floats(a: str, b: str) -> None:
    step = planned_step(f"stablehlo.convert %a0 : (tensor<{a}>) -> tensor<{b}>", [a], b)
    check_lines(step, _every(a))


@pytest.mark.parametrize("a", ["f32", "f64"])
@pytest.mark.parametrize("b", NARROW)
def test_float_conversions_to_narrow_floats(a: str, b: str) -> None:
    step = planned_step(f"stablehlo.convert %a0 : (tensor<{a}>) -> tensor<{b}>", [a], b)
    lines = check_lines(step, _midpoints(b, a, np.random.default_rng(len(a + b))))
    assert "_C" in lines or "_BF16_ODD(" in lines  # (not the kernel's)


@pytest.mark.parametrize("a", ["i8", "i32", "i64", "ui8", "ui64", "i1"])
@pytest.mark.parametrize("b", NARROW)
def test_integer_conversions_to_narrow_floats(a: str, b: str) -> None:
    step = planned_step(f"stablehlo.convert %a0 : (tensor<{a}>) -> tensor<{b}>", [a], b)
    values = np.array([False, True]) if a == "i1" else _integers(a, np.random.default_rng(1))
    check_lines(step, values)


@pytest.mark.parametrize("t", NARROW)
def test_rounding_once(t: str) -> None:
    """The rounding of a double a transcendental's or a conversion's kernel does once
    (round_float: bf16 through f32 rounded to odd) on the ties of the type, values one
    double beside them, random doubles and the overflow thresholds."""
    from shlo_cli.dialects.stablehlo.elementwise_numerics import round_float
    from shlo_cli.interpreter import narrow_scalars

    ns: dict[str, Any] = {}
    narrow_scalars.add_cells(ns)
    name = DTYPES[t].name
    exec(f"def f(x):\n    {narrow_scalars.rounded(name, 'x', 't', True)}\n    return t\n", ns)  # noqa: S102
    x = _midpoints(t, "f64", np.random.default_rng(7))
    x = x[x == x]  # (a NaN's payload: the kernels redo it)
    with np.errstate(all="ignore"):
        want = round_float(x, DTYPES[t])
    got = np.array([ns["f"](v) for v in x.tolist()], np.float64).astype(DTYPES[t])
    assert got.view(np.uint16).tobytes() == want.view(np.uint16).tobytes()


def _pairs(t: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Operand pairs: random bit patterns, values of one binade (cancellation, ties), every
    pair of the special values, and small values (subnormal results)."""
    dtype = DTYPES[t]
    bits = rng.integers(0, 1 << 16, (2, 40_000), dtype=np.uint16).view(dtype)
    near = (rng.standard_normal((2, 20_000)) * 4).astype(dtype)
    tiny = (rng.standard_normal((2, 5_000)) * (2.0 ** -14 if t == "f16" else 2.0 ** -126)).astype(dtype)
    with np.errstate(over="ignore"):  # (infinities among them)
        big = (rng.standard_normal((2, 5_000)) * (2.0 ** 15 if t == "f16" else 2.0 ** 127)).astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0], dtype)
    grid = np.stack([np.repeat(specials, specials.size), np.tile(specials, specials.size)])
    both = np.concatenate([bits, near, tiny, big, grid], axis=1)
    return both[0], both[1]


@pytest.mark.parametrize("t", NARROW)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide"])
def test_arithmetic(t: str, op: str) -> None:
    """+ - * / rounded as the kernel rounds (bf16: the double to f32, then to bf16; f16:
    once); NaN results and division by zero the kernel's."""
    step = planned_step(f"stablehlo.{op} %a0, %a1 : tensor<{t}>", [t, t], t)
    lines = check_lines(step, *_pairs(t, np.random.default_rng(2)))
    assert "_C" in lines


UNARY = {"bf16": ["tanh", "exponential", "log", "sine", "cbrt", "exponential_minus_one", "negate", "abs"],
         "f16": ["tanh", "exponential", "log", "sine", "cbrt", "logistic", "sqrt", "rsqrt",
                 "floor", "round_nearest_even", "abs", "sign", "negate"]}


@pytest.mark.parametrize(("t", "op"), [(t, op) for t, ops in UNARY.items() for op in ops])
def test_unary(t: str, op: str) -> None:
    step = planned_step(f"stablehlo.{op} %a0 : tensor<{t}>", [t], t)
    check_lines(step, _every(t))


@pytest.mark.parametrize("t", NARROW)
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_extrema(t: str, op: str) -> None:
    step = planned_step(f"stablehlo.{op} %a0, %a1 : tensor<{t}>", [t, t], t)
    a, b = _pairs(t, np.random.default_rng(4))
    check_lines(step, a[:20_000], b[:20_000])


@pytest.mark.parametrize("op", ["power", "remainder", "atan2"])
def test_f16_binary_functions(op: str) -> None:
    step = planned_step(f"stablehlo.{op} %a0, %a1 : tensor<f16>", ["f16", "f16"], "f16")
    a, b = _pairs("f16", np.random.default_rng(5))
    check_lines(step, a[::4], b[::4])


@pytest.mark.parametrize("t", NARROW)
def test_compare_and_select(t: str) -> None:
    step = planned_step(f"stablehlo.compare LT, %a0, %a1 : (tensor<{t}>, tensor<{t}>) -> tensor<i1>", [t, t], "i1")
    a, b = _pairs(t, np.random.default_rng(6))
    check_lines(step, a[:5000], b[:5000])


@pytest.mark.parametrize("t", NARROW)
def test_values_convert_back_exactly(t: str) -> None:
    """A held value's numpy scalar is the value converted in, NaN payloads included (a
    signalling NaN's quiet bit aside: float(x) may set it)."""
    x = _every(t)
    to = pyscalar.Kind(DTYPES[t]).to_numpy
    back = np.array([to(float(v)) for v in x], DTYPES[t])
    quiet = (x.view(np.uint16) & (0x40 if t == "bf16" else 0x200)) != 0
    nan = np.isnan(x.astype(np.float32))
    assert back.view(np.uint16)[~nan | quiet].tobytes() == x.view(np.uint16)[~nan | quiet].tobytes()
    assert type(to(1.0)) is DTYPES[t].type


# A scalar RNN whose state is {t}: h = tanh(w * h + x[i]) computed in f32.
RNN = """
func.func @main(%xs: tensor<{n}xf32>, %h0: tensor<{t}>, %w: tensor<f32>) -> tensor<{t}> {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %h = %h0) : tensor<i32>, tensor<{t}>
    cond {{
      %cn = stablehlo.constant dense<{n}> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %cn, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<{n}xf32>, tensor<i32>) -> tensor<1xf32>
      %x = stablehlo.reshape %x0 : (tensor<1xf32>) -> tensor<f32>
      %hf = stablehlo.convert %h : (tensor<{t}>) -> tensor<f32>
      %p = stablehlo.multiply %w, %hf : tensor<f32>
      %s = stablehlo.add %p, %x : tensor<f32>
      %y = stablehlo.tanh %s : tensor<f32>
      %h2 = stablehlo.convert %y : (tensor<f32>) -> tensor<{t}>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %h2 : tensor<i32>, tensor<{t}>
    }}
  return %r#1 : tensor<{t}>
}}
"""


@pytest.mark.parametrize("t", NARROW)
@pytest.mark.parametrize("seed", range(4))
def test_recurrent_state(t: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The state is a Python float the whole loop (converted once each way), its steps
    Python lines; the evaluator's bits, NaN and infinite inputs and states included."""
    from loop_helpers import run_loops

    rng = np.random.default_rng(seed)
    xs = rng.standard_normal(40).astype(np.float32)
    xs[rng.integers(0, 40, 3)] = rng.choice(np.array([np.nan, np.inf, -np.inf, 1e-40, -0.0, 3e38], np.float32), 3)
    h0 = np.array(rng.choice([0.0, -0.0, 0.5, np.nan, -np.inf, 1e-40]), DTYPES[t])
    args = [xs, h0[()], np.float32(rng.choice([0.5, -3.0, 1e30]))]
    text = RNN.format(n=xs.size, t=t)
    got, sources = run_loops(text, args, True, monkeypatch)
    want, _ = run_loops(text, args, False, monkeypatch)
    assert np.asarray(got[0]).dtype == DTYPES[t]
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()
    source = "".join(sources)
    assert "a1 = float(a1)" in source and f"_C{DTYPES[t].name}[()] = " in source


@pytest.mark.parametrize("t", NARROW)
@pytest.mark.parametrize("seed", range(6))
def test_scan_outputs(t: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A value written into an output vector each step (loop_helpers.BINARY: x[i] + z[i] -
    z[i]): the evaluator's bits, NaNs of several payloads and signs meeting included
    (Python's + and the kernel's pick different ones: the kernel's, written as it is), on
    the first run and the next."""
    from loop_helpers import BINARY, run_loops

    rng = np.random.default_rng(seed)
    every = _every(t)
    nan = np.isnan(every.astype(np.float32))
    nans = every[nan & ((every.view(np.uint16) & (0x40 if t == "bf16" else 0x200)) != 0)]
    xs, zs = rng.choice(every[~nan], (2, 12))
    xs[rng.integers(0, 12, 4)] = rng.choice(nans, 4)
    zs[rng.integers(0, 12, 4)] = rng.choice(nans, 4)
    if seed == 0:  # NaNs of both signs meet in every step
        xs[:], zs[:] = nans[nans.view(np.uint16) < 0x8000][0], nans[nans.view(np.uint16) > 0x8000][0]
    args = [xs, zs]
    text = BINARY.format(n=xs.size, t=t, name="add")
    want, _ = run_loops(text, args, False, monkeypatch)
    interpreter = Interpreter(parse_source(text))
    main = interpreter.lookup_function("main")
    for _ in range(2):
        with np.errstate(all="ignore"):
            got = interpreter.call(main, list(args))
        for a, b in zip(got, want, strict=True):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), (a, b)
