"""Loops whose 0-d values are Python scalars (interpreter/pyscalar.py): the same results as
the evaluator, bit for bit and type for type (NaN payloads and signalling NaNs, -0.0,
infinities, f32 overflow and subnormals, division by zero, integer wrap-around, element
reads out of range), and the scalar lines themselves against numpy's scalar arithmetic."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import operator
import re
from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter import pyscalar

PROGRAM = """
func.func @main(%xs: tensor<8xf32>, %w: tensor<f32>, %h0: tensor<f32>, %n: tensor<i32>, %k0: tensor<i32>, %d0: tensor<f64>, %u0: tensor<ui32>) -> (tensor<f32>, tensor<i32>, tensor<i32>, tensor<f64>, tensor<i1>, tensor<ui32>, tensor<i64>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %l0 = stablehlo.constant dense<9223372036854775000> : tensor<i64>
  %r:8 = stablehlo.while(%i = %c0, %h = %h0, %k = %k0, %d = %d0, %p = %f, %ww = %w, %u = %u0, %l = %l0) : tensor<i32>, tensor<f32>, tensor<i32>, tensor<f64>, tensor<i1>, tensor<f32>, tensor<ui32>, tensor<i64>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %big = stablehlo.constant dense<2147483000> : tensor<i32>
      %x = stablehlo.dynamic_slice %xs, %k, sizes = [1] : (tensor<8xf32>, tensor<i32>) -> tensor<1xf32>
      %xr = stablehlo.reshape %x : (tensor<1xf32>) -> tensor<f32>
      %a = stablehlo.multiply %ww, %h : tensor<f32>
      %b = stablehlo.add %a, %xr : tensor<f32>
      %q = stablehlo.divide %b, %h : tensor<f32>
      %t = stablehlo.tanh %q : tensor<f32>
      %e = stablehlo.exponential %b : tensor<f32>
      %s = stablehlo.subtract %t, %e : tensor<f32>
      %ng = stablehlo.negate %s : tensor<f32>
      %cmp = stablehlo.compare GT, %ng, %h, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %sel = stablehlo.select %cmp, %ng, %t : tensor<i1>, tensor<f32>
      %k2 = stablehlo.multiply %k, %big : tensor<i32>
      %k3 = stablehlo.add %k2, %one : tensor<i32>
      %kc = stablehlo.convert %k3 : tensor<i32>
      %dd = stablehlo.multiply %d, %d : tensor<f64>
      %d2 = stablehlo.subtract %dd, %d : tensor<f64>
      %lg = stablehlo.log %d2 : tensor<f64>
      %ub = stablehlo.constant dense<4000000000> : tensor<ui32>
      %u2 = stablehlo.add %u, %ub : tensor<ui32>
      %l2 = stablehlo.multiply %l, %l0 : tensor<i64>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %sel, %kc, %lg, %cmp, %ww, %u2, %l2 : tensor<i32>, tensor<f32>, tensor<i32>, tensor<f64>, tensor<i1>, tensor<f32>, tensor<ui32>, tensor<i64>
    }
  return %r#1, %r#0, %r#2, %r#3, %r#4, %r#6, %r#7 : tensor<f32>, tensor<i32>, tensor<i32>, tensor<f64>, tensor<i1>, tensor<ui32>, tensor<i64>
}
"""


def _f32(bits: int) -> np.ndarray:
    return np.array(bits, np.uint32).view(np.float32)


F32 = [np.array(v, np.float32) for v in (0.0, -0.0, 0.5, -1.25, np.inf, -np.inf, np.nan, 1e-45,
                                         -3e-39, 3e38, 7.0)]
F32 += [_f32(0x7FA00001), _f32(0xFFC12345), _f32(0x7F800001)]  # payloads, a signalling NaN


def _run(args: list[np.ndarray], compiled: bool, monkeypatch: pytest.MonkeyPatch
         ) -> tuple[list[Any], list[str]]:
    return run_loops(PROGRAM, args, compiled, monkeypatch)


@pytest.mark.parametrize("seed", range(12))
def test_scalar_loops_match_the_evaluator(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)

    def pick(values: list[np.ndarray]) -> np.ndarray:
        return values[int(rng.integers(len(values)))]

    xs = np.array([pick(F32) for _ in range(8)], np.float32)
    args = [xs, pick(F32), pick(F32), np.array(rng.integers(0, 6), np.int32),
            np.array(rng.choice([-5, 3, 100, 2**31 - 1]), np.int32),
            np.array(rng.choice([0.0, -0.0, 0.5, 3.0, np.nan, 1e300, -np.inf]), np.float64),
            np.array(rng.choice([0, 5, 2**32 - 1]), np.uint32)]
    got, sources = _run(args, True, monkeypatch)
    want, _ = _run(args, False, monkeypatch)
    for a, b in zip(got, want, strict=True):
        assert type(a) is type(b)
        assert np.asarray(a).dtype == np.asarray(b).dtype
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    assert sources and "_cell[()] =" in sources[0] and ".item(" in sources[0]


def _line_function(tag: str, fn: Any, dtype: type, arity: int) -> Any:
    """A function of Python scalars running pyscalar.expression's lines for one op."""
    class Step:
        class op:  # noqa: N801 - a stand-in for an Operation
            results = [type("V", (), {})()]
    Step.fn = fn  # type: ignore[attr-defined]
    kind = pyscalar.Kind(np.dtype(dtype))
    ns: dict[str, Any] = {}
    original = pyscalar.kind_of
    pyscalar.kind_of = lambda v: kind  # type: ignore[assignment]
    try:
        lines = pyscalar.expression(tag, Step, [f"x{i}" for i in range(arity)], "t", ns, "K")
    finally:
        pyscalar.kind_of = original
    params = ", ".join(f"x{i}" for i in range(arity))
    body = "\n".join(f"    {line}" for line in lines)
    exec(f"def f({params}):\n{body}\n    return t\n", ns)  # noqa: S102
    return ns["f"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("symbol", ["+", "-", "*", "/"])
def test_float_lines_round_as_numpy_does(dtype: type, symbol: str) -> None:
    """Random bit patterns (all exponents: subnormals, overflow, NaN payloads) and the
    special values, as numpy's scalar ufunc computes them."""
    ufunc = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[symbol]
    kernel = type("Kernel", (), {"inline": (symbol, ()), "__call__": None})()
    f = _line_function("arith", kernel, dtype, 2)
    rng = np.random.default_rng(0)
    width = np.uint32 if dtype == np.float32 else np.uint64
    values = rng.integers(0, np.iinfo(width).max, 3000, dtype=width, endpoint=True).view(dtype)
    # the same binade more often: cancellation, exact halves
    near = (rng.standard_normal(3000) * 4).astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0], dtype)
    a = np.concatenate([values, near, np.repeat(specials, len(specials))])
    b = np.concatenate([values[::-1], near[::-1], np.tile(specials, len(specials))])
    quiet = (a == a) | ((a.view(width) >> (22 if dtype == np.float32 else 51)) & 1 == 1)
    quiet &= (b == b) | ((b.view(width) >> (22 if dtype == np.float32 else 51)) & 1 == 1)
    a, b = a[quiet], b[quiet]  # (a signalling NaN never reaches these lines as it is)
    with np.errstate(all="ignore"):
        want = ufunc(a, b)
        got = np.array([f(float(x), float(y)) for x, y in zip(a.tolist(), b.tolist(), strict=True)],
                       np.float64).astype(dtype)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.uint32, np.uint64])
@pytest.mark.parametrize("fn", [operator.add, operator.sub, operator.mul])
def test_integer_lines_wrap_as_numpy_does(dtype: type, fn: Any) -> None:
    f = _line_function("arith", fn, dtype, 2)
    info = np.iinfo(dtype)
    edges = [info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max]
    values = np.array([v for v in edges if info.min <= v <= info.max], dtype)
    a, b = np.repeat(values, len(values)), np.tile(values, len(values))
    ufunc = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply}[fn]
    with np.errstate(all="ignore"):
        want = ufunc(a, b)
    got = np.array([f(int(x), int(y)) for x, y in zip(a.tolist(), b.tolist(), strict=True)],
                   dtype)
    assert got.tobytes() == want.tobytes()


PASSED_ON = """
func.func @main(%n: tensor<i32>, %a: tensor<i64>, %b: tensor<i64>) -> (tensor<i32>, tensor<i64>, tensor<i64>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %x = %a, %y = %b) : tensor<i32>, tensor<i64>, tensor<i64>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %two = stablehlo.constant dense<2> : tensor<i32>
      %p = stablehlo.compare LT, %i, %two, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %s = stablehlo.select %p, %y, %x : tensor<i1>, tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %s, %x : tensor<i32>, tensor<i64>, tensor<i64>
    }
  return %r#0, %r#1, %r#2 : tensor<i32>, tensor<i64>, tensor<i64>
}
"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_values_passed_on_keep_their_value(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A select of carried integers returns one of them, swapped around the loop: its bits
    and dtype (an entry value passed on is a Python int too: `int(x)` is exact; it leaves
    as a numpy scalar where it may have come in as a 0-d array), the loop on Python ints."""
    args = [np.array(n, np.int32), np.array(-5, np.int64), np.array(2**62, np.int64)]
    got, sources = run_loops(PASSED_ON, args, True, monkeypatch)
    want, _ = run_loops(PASSED_ON, args, False, monkeypatch)
    for a, b in zip(got, want, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    assert "a1 = int(a1)" in sources[0] and "a2 = int(a2)" in sources[0]


CHAIN = """
func.func @main(%xs: tensor<4xf32>, %w: tensor<f32>, %h0: tensor<f32>, %g0: tensor<f64>) -> (tensor<f32>, tensor<f64>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %h = %h0, %g = %g0) : tensor<i32>, tensor<f32>, tensor<f64>
    cond {
      %c4 = stablehlo.constant dense<4> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %x0 = stablehlo.dynamic_slice %xs, %i, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
      %x = stablehlo.reshape %x0 : (tensor<1xf32>) -> tensor<f32>
      %a = stablehlo.multiply %w, %h : tensor<f32>
      %b = stablehlo.add %a, %x : tensor<f32>
      %d = stablehlo.subtract %x, %a : tensor<f32>
      %p = stablehlo.compare GT, %d, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %s = stablehlo.select %p, %b, %d : tensor<i1>, tensor<f32>
      %t = stablehlo.tanh %s : tensor<f32>
      %xd = stablehlo.convert %x : (tensor<f32>) -> tensor<f64>
      %g2 = stablehlo.divide %g, %xd : tensor<f64>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %t, %g2 : tensor<i32>, tensor<f32>, tensor<f64>
    }
  return %r#1, %r#2 : tensor<f32>, tensor<f64>
}
"""


@pytest.mark.parametrize("seed", range(8))
def test_nan_redos_deferred_to_the_step_end(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The float redos of an all-scalar step run only when a result is NaN (then the whole
    step again, with them): NaNs of different payloads meeting mid-step, a NaN dropped by
    a select, give the evaluator's bits."""
    rng = np.random.default_rng(seed)
    nans = [_f32(0x7FC00000 | int(rng.integers(1, 1 << 22))) for _ in range(4)] + [
        _f32(0xFFC00000 | int(rng.integers(1, 1 << 22))), _f32(0x7F800001)]
    values = nans + [np.array(v, np.float32) for v in (0.5, -0.0, np.inf, -np.inf, 2.0)]

    def pick() -> np.ndarray:
        return values[int(rng.integers(len(values)))]
    args = [np.array([pick() for _ in range(4)], np.float32), pick(), pick(),
            np.array(rng.choice([np.nan, 1.5, -0.0]), np.float64)]
    got, source = _run_chain(args, True, monkeypatch)
    want, _ = _run_chain(args, False, monkeypatch)
    assert re.search(r"\n +if (\w+) != \1 or (\w+) != \2:\n", source)  # the step-end test
    for a, b in zip(got, want, strict=True):
        assert type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()


def _run_chain(args: list[np.ndarray], compiled: bool, monkeypatch: pytest.MonkeyPatch
               ) -> tuple[list[Any], str]:
    out, sources = run_loops(CHAIN, args, compiled, monkeypatch)
    return out, "".join(sources)


STEADY = """
func.func @main(%n: tensor<i32>, %k0: tensor<i32>, %w0: tensor<f32>, %h0: tensor<f32>) -> (tensor<i32>, tensor<f32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = stablehlo.while(%i = %c0, %k = %k0, %w = %w0, %h = %h0) : tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %ik = stablehlo.multiply %i, %k : tensor<i32>
      %f = stablehlo.convert %ik : (tensor<i32>) -> tensor<f32>
      %a = stablehlo.multiply %h, %w : tensor<f32>
      %h2 = stablehlo.add %a, %f : tensor<f32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i2 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i2, %k, %w, %h2 : tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>
    }
  return %r#1, %r#3 : tensor<i32>, tensor<f32>
}
"""


@pytest.mark.parametrize("w", [0.5, -0.0, np.nan, np.inf, 1e-45])
def test_unchanged_values_converted_once(w: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """Carried values the body passes on unchanged (a fori_loop's outer index, a weight) are
    converted to Python scalars once per execution of the loop, before it."""
    args = [np.array(5, np.int32), np.array(-2**30, np.int32), np.array(w, np.float32),
            np.array(0.25, np.float32)]
    got, sources = run_loops(STEADY, args, True, monkeypatch)
    want, _ = run_loops(STEADY, args, False, monkeypatch)
    for a, b in zip(got, want, strict=True):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    loop = sources[0]
    inside = loop[loop.index("while True"):]
    assert "int(a1)" in loop and "float(a2)" in loop
    assert "int(a1)" not in inside and "float(a2)" not in inside
