"""Elementwise ops hoisted above sibling slices (interpreter/hoist.py) give the results of the
program as written, bit for bit, on random data with NaN, -0.0, infinities and empty
tensors; they are hoisted only where that is sound, and the module is left unchanged."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

# An LSTM cell's gate split: three logistic chains and one tanh on four slices of 1xN.
GATES = """
func.func @main(%x: tensor<2x{N4}x{E}>, %c: tensor<2x{N}x{E}>) -> (tensor<2x{N}x{E}>, tensor<2x{N}x{E}>) {{
  %s0 = stablehlo.slice %x [0:2, 0:{N}] : (tensor<2x{N4}x{E}>) -> tensor<2x{N}x{E}>
  %s1 = stablehlo.slice %x [0:2, {N}:{N2}] : (tensor<2x{N4}x{E}>) -> tensor<2x{N}x{E}>
  %s2 = stablehlo.slice %x [0:2, {N2}:{N3}] : (tensor<2x{N4}x{E}>) -> tensor<2x{N}x{E}>
  %s3 = stablehlo.slice %x [0:2, {N3}:{N4}] : (tensor<2x{N4}x{E}>) -> tensor<2x{N}x{E}>
  %n0 = stablehlo.negate %s0 : tensor<2x{N}x{E}>
  %e0 = stablehlo.exponential %n0 : tensor<2x{N}x{E}>
  %one = stablehlo.constant dense<1.0> : tensor<{E}>
  %b0 = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<{E}>) -> tensor<2x{N}x{E}>
  %a0 = stablehlo.add %b0, %e0 : tensor<2x{N}x{E}>
  %g0 = stablehlo.divide %b0, %a0 : tensor<2x{N}x{E}>
  %n1 = stablehlo.negate %s1 : tensor<2x{N}x{E}>
  %e1 = stablehlo.exponential %n1 : tensor<2x{N}x{E}>
  %one1 = stablehlo.constant dense<1.0> : tensor<{E}>
  %b1 = stablehlo.broadcast_in_dim %one1, dims = [] : (tensor<{E}>) -> tensor<2x{N}x{E}>
  %a1 = stablehlo.add %b1, %e1 : tensor<2x{N}x{E}>
  %g1 = stablehlo.divide %b1, %a1 : tensor<2x{N}x{E}>
  %g2 = stablehlo.tanh %s2 : tensor<2x{N}x{E}>
  %g3 = stablehlo.logistic %s3 : tensor<2x{N}x{E}>
  %f = stablehlo.multiply %g1, %c : tensor<2x{N}x{E}>
  %i = stablehlo.multiply %g0, %g2 : tensor<2x{N}x{E}>
  %cn = stablehlo.add %f, %i : tensor<2x{N}x{E}>
  %t = stablehlo.tanh %cn : tensor<2x{N}x{E}>
  %h = stablehlo.multiply %g3, %t : tensor<2x{N}x{E}>
  return %h, %cn : tensor<2x{N}x{E}>, tensor<2x{N}x{E}>
}}
"""


def _gates(n: int, elem: str) -> str:
    return GATES.format(N=n, N2=2 * n, N3=3 * n, N4=4 * n, E=elem)


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    x = (rng.standard_normal(shape) * rng.choice([0.1, 1.0, 30.0, 100.0], shape)).astype(dtype)
    flat = x.reshape(-1)
    for i, v in enumerate([np.nan, -0.0, 0.0, np.inf, -np.inf, -np.nan]):
        if 3 * i < flat.size:
            flat[3 * i] = v
    return x


def _run(text: str, args: list[np.ndarray], hoist: bool,
         monkeypatch: pytest.MonkeyPatch) -> tuple[list[np.ndarray], list[str]]:
    with monkeypatch.context() as m:
        if not hoist:
            m.setattr(engine, "hoist_slices", lambda ops, pinned: list(ops))
        # (repeats not merged: the gates' empty slices are all the same op at N = 0)
        m.setattr(engine, "merge_repeats", lambda ops, terminator: ops)
        # (nor the gates' chains made table lookups: unary_tables.py, test_unary_tables.py)
        m.setattr(engine, "fuse_chains", lambda steps, kept, make: list(steps))
        module = parse_source(text)
        before = print_module(module)
        interpreter = Interpreter(module)
        with np.errstate(all="ignore"):
            out = interpreter.call(interpreter.lookup_function("main"), args)
        assert print_module(module) == before  # the program itself is not rewritten
        names = [step.op.name for plan in interpreter._plans.values() for step in plan.steps]
    return [np.asarray(o) for o in out], names


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()
        assert x.flags.c_contiguous == y.flags.c_contiguous


@pytest.mark.parametrize("elem,dtype", [("f32", np.float32), ("f64", np.float64),
                                         ("f16", np.float16), ("bf16", None)])
@pytest.mark.parametrize("n", [1, 5, 64, 0])
def test_gate_chains_hoisted_bit_for_bit(elem: str, dtype: Any, n: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    if dtype is None:
        import ml_dtypes
        dtype = ml_dtypes.bfloat16
    rng = np.random.default_rng(n)
    text = _gates(n, elem)
    for _ in range(3):
        args = [_data(rng, (2, 4 * n), dtype), _data(rng, (2, n), dtype)]
        got, names = _run(text, args, True, monkeypatch)
        want, plain = _run(text, args, False, monkeypatch)
        _same(got, want)
    # the three logistic gates' negate/exponential/add/divide ran once each
    assert names.count("stablehlo.exponential") == 1 and plain.count("stablehlo.exponential") == 2
    assert names.count("stablehlo.negate") == 1 and names.count("stablehlo.divide") == 1


BINARY = """
func.func @main(%x: tensor<12xf32>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {{
  %a = stablehlo.slice %x [0:4] : (tensor<12xf32>) -> tensor<4xf32>
  %b = stablehlo.slice %x [4:8] : (tensor<12xf32>) -> tensor<4xf32>
  %c = stablehlo.slice %x [{third}] : (tensor<12xf32>) -> tensor<4xf32>
  %k1 = stablehlo.constant dense<{k1}> : tensor<f32>
  %k2 = stablehlo.constant dense<{k2}> : tensor<f32>
  %w1 = stablehlo.broadcast_in_dim %k1, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %w2 = stablehlo.broadcast_in_dim %k2, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %ws = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %0 = stablehlo.{op} {lhs0} : tensor<4xf32>
  %1 = stablehlo.{op} {lhs1} : tensor<4xf32>
  %2 = stablehlo.{op} {lhs2} : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}}
"""


@pytest.mark.parametrize("op", ["subtract", "divide", "add", "multiply"])
@pytest.mark.parametrize("shape,k2,third,hoisted", [
    # same constant, same side, strided third slice: all three hoisted
    ("%a, %w1|%b, %w2|%c, %w1", "2.5", "8:12:1", 3),
    # the splat operand on the left
    ("%w1, %a|%w2, %b|%w1, %c", "2.5", "1:8:2", 3),
    # a run-time scalar broadcast, the same value each time
    ("%a, %ws|%b, %ws|%c, %ws", "2.5", "0:12:3", 3),
    # different constants: only the two with the same one
    ("%a, %w1|%b, %w2|%c, %w1", "-1.5", "8:12", 2),
    # the slice on different sides: only the two alike
    ("%a, %w1|%w1, %b|%c, %w1", "2.5", "8:12", 2),
    # the same slice read twice, or a non-splat operand: nothing
    ("%a, %a|%b, %b|%c, %c", "2.5", "8:12", 0),
    ("%a, %b|%b, %w1|%c, %c", "2.5", "8:12", 0),
])
def test_binary_with_splats(op: str, shape: str, k2: str, third: str, hoisted: int,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    lhs = shape.split("|")
    text = BINARY.format(op=op, lhs0=lhs[0], lhs1=lhs[1], lhs2=lhs[2], k1="2.5", k2=k2,
                         third=third)
    rng = np.random.default_rng(1)
    args = [_data(rng, (12,), np.float32), np.float32(-0.75)]
    got, names = _run(text, args, True, monkeypatch)
    want, plain = _run(text, args, False, monkeypatch)
    _same(got, want)
    assert plain.count(f"stablehlo.{op}") - names.count(f"stablehlo.{op}") == (
        hoisted - 1 if hoisted else 0)


NOT_HOISTED = {
    # a slice result also returned: its slice must stay
    "returned": """
func.func @main(%x: tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = stablehlo.slice %x [0:4] : (tensor<8xf32>) -> tensor<4xf32>
  %b = stablehlo.slice %x [4:8] : (tensor<8xf32>) -> tensor<4xf32>
  %0 = stablehlo.exponential %a : tensor<4xf32>
  %1 = stablehlo.exponential %b : tensor<4xf32>
  return %0, %1, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
""",
    # a slice result read inside a nested region
    "captured": """
func.func @main(%x: tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = stablehlo.slice %x [0:4] : (tensor<8xf32>) -> tensor<4xf32>
  %b = stablehlo.slice %x [4:8] : (tensor<8xf32>) -> tensor<4xf32>
  %0 = stablehlo.exponential %a : tensor<4xf32>
  %1 = stablehlo.exponential %b : tensor<4xf32>
  %p = stablehlo.constant dense<true> : tensor<i1>
  %2 = "stablehlo.if"(%p) ({
    stablehlo.return %b : tensor<4xf32>
  }, {
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
""",
    # slices covering less than half of the value
    "sparse": """
func.func @main(%x: tensor<20xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = stablehlo.slice %x [0:4] : (tensor<20xf32>) -> tensor<4xf32>
  %b = stablehlo.slice %x [4:8] : (tensor<20xf32>) -> tensor<4xf32>
  %0 = stablehlo.exponential %a : tensor<4xf32>
  %1 = stablehlo.exponential %b : tensor<4xf32>
  return %0, %1, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
""",
    # integers: not hoisted (an element no slice selected could divide by zero)
    "integer": """
func.func @main(%x: tensor<8xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %a = stablehlo.slice %x [0:4] : (tensor<8xi32>) -> tensor<4xi32>
  %b = stablehlo.slice %x [4:8] : (tensor<8xi32>) -> tensor<4xi32>
  %0 = stablehlo.negate %a : tensor<4xi32>
  %1 = stablehlo.negate %b : tensor<4xi32>
  return %0, %1, %a : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
""",
}


@pytest.mark.parametrize("name", sorted(NOT_HOISTED))
def test_not_hoisted(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = NOT_HOISTED[name]
    rng = np.random.default_rng(2)
    size = 20 if name == "sparse" else 8
    x = (_data(rng, (size,), np.float32) if name != "integer"
         else rng.integers(-9, 9, size).astype(np.int32))
    got, names = _run(text, [x], True, monkeypatch)
    want, plain = _run(text, [x], False, monkeypatch)
    _same(got, want)
    assert names == plain


def test_hoisted_op_error_is_located_at_its_own_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The detached ops keep the original ops' locations (diagnostics quote the program)."""
    text = _gates(4, "f32")
    module = parse_source(text)
    interpreter = Interpreter(module)
    interpreter.call(interpreter.lookup_function("main"),
                     [np.zeros((2, 16), np.float32), np.zeros((2, 4), np.float32)])
    lines = {step.op.name: step.op.location.line
             for plan in interpreter._plans.values() for step in plan.steps}
    assert lines["stablehlo.exponential"] == text.splitlines().index(
        "  %e0 = stablehlo.exponential %n0 : tensor<2x4xf32>") + 1


# A GRU step's update and reset gates: each adds the same window of two 1x3N products.
TWO_SOURCES = """
func.func @main(%x: tensor<2x12xf32>, %y: tensor<2x{Y}xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {{
  %x0 = stablehlo.slice %x [0:2, 0:4] : (tensor<2x12xf32>) -> tensor<2x4xf32>
  %x1 = stablehlo.slice %x [0:2, 4:8] : (tensor<2x12xf32>) -> tensor<2x4xf32>
  %x2 = stablehlo.slice %x [0:2, 8:12] : (tensor<2x12xf32>) -> tensor<2x4xf32>
  %y0 = stablehlo.slice %y [0:2, 0:4] : (tensor<2x{Y}xf32>) -> tensor<2x4xf32>
  %y1 = stablehlo.slice %y [0:2, {W1}] : (tensor<2x{Y}xf32>) -> tensor<2x4xf32>
  %y2 = stablehlo.slice %y [0:2, 8:12] : (tensor<2x{Y}xf32>) -> tensor<2x4xf32>
  %z = stablehlo.{op} %x0, %y0 : tensor<2x4xf32>
  %r = stablehlo.{op} %x1, %y1 : tensor<2x4xf32>
  %e0 = stablehlo.exponential %z : tensor<2x4xf32>
  %e1 = stablehlo.exponential %r : tensor<2x4xf32>
  %t = stablehlo.multiply %e1, %x2 : tensor<2x4xf32>
  return %e0, %t, %y2, {RET} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}}
"""


@pytest.mark.parametrize("op", ["add", "subtract", "divide"])
@pytest.mark.parametrize("y,w1,ret,hoisted", [
    ("12", "4:8", "%e0", True),  # the same windows of two 2x12 values
    ("12", "0:4", "%e0", False),  # the second pair's windows differ
    ("16", "4:8", "%e0", False),  # values of different shapes
    ("12", "4:8", "%y1", False),  # a slice also returned: it must stay
])
def test_slices_of_two_values(op: str, y: str, w1: str, ret: str, hoisted: bool,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    text = TWO_SOURCES.format(op=op, Y=y, W1=w1, RET=ret)
    rng = np.random.default_rng(3)
    args = [_data(rng, (2, 12), np.float32), _data(rng, (2, int(y)), np.float32)]
    got, names = _run(text, args, True, monkeypatch)
    want, plain = _run(text, args, False, monkeypatch)
    _same(got, want)
    assert plain.count(f"stablehlo.{op}") == 2 and plain.count("stablehlo.exponential") == 2
    assert names.count(f"stablehlo.{op}") == (1 if hoisted else 2)
    assert names.count("stablehlo.exponential") == (1 if hoisted else 2)
    assert names.count("stablehlo.slice") == plain.count("stablehlo.slice") - (2 if hoisted else 0)
