"""Kernels of small loop steps (dialects/stablehlo/specialize.py): concatenate as numpy's,
a 0-d value broadcast by assignment, a one-element static slice read with its reshape as one
element read in generated loops (an IIR filter's `c[0]`, `concatenate([c[1:], 0])`): the
general evaluators' bits (NaN payloads, -0.0, empty operands), errors as diagnostics, and a
filter scan against the general evaluator (no steps, one, many, a bound from an
argument)."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.dialects.stablehlo import specialize
from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.registry import bind_hooks

ELEMS = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i8": np.int8,
         "i1": np.bool_, "ui32": np.uint32}
NANS = np.array([0xFFC00000, 0x7F800001, 0x7FC00001, 0xFF812345], np.uint32).view(np.float32)


def _data(rng: np.random.Generator, shape: tuple[int, ...], elem: str) -> np.ndarray:
    dtype = np.dtype(ELEMS[elem])
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    specials = list(NANS) if dtype == np.float32 else [np.nan]
    for i, v in enumerate([*specials, -0.0, np.inf]):
        if i < flat.size:
            flat[i] = v
    return x


def _run(text: str, args: list[Any], specialized: bool) -> tuple[list[np.ndarray], list[Any]]:
    saved = list(bind_hooks())  # (all loaded: restored below)
    if not specialized:
        engine.BIND_HOOKS[:] = [h for h in saved if h is not specialize.bind_specialized]
    try:
        interpreter = Interpreter(parse_source(text))
        out = interpreter.call(interpreter.lookup_function("main"), args)
        kernels = [s.fn for p in interpreter._plans.values() for s in p.steps]
    finally:
        engine.BIND_HOOKS[:] = saved
    return [np.asarray(o) for o in out], kernels


def _same(got: list[np.ndarray], want: list[np.ndarray], fresh: bool = True) -> None:
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        assert not fresh or (a.flags.c_contiguous and a.flags.writeable)


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


@pytest.mark.parametrize("elem", list(ELEMS))
@pytest.mark.parametrize("shapes,axis", [
    (((2,), (1,)), 0), (((3, 2), (3, 0), (3, 4)), 1), (((0, 5), (2, 5)), 0),
    (((1, 2, 3), (1, 2, 1)), 2)])
def test_concatenate_is_the_general_one(elem: str, shapes: tuple[tuple[int, ...], ...],
                                        axis: int) -> None:
    out = list(shapes[0])
    out[axis] = sum(s[axis] for s in shapes)
    names = [f"%a{k}" for k in range(len(shapes))]
    params = ", ".join(f"{n}: {_t(s, elem)}" for n, s in zip(names, shapes, strict=True))
    types = ", ".join(_t(s, elem) for s in shapes)
    r = _t(tuple(out), elem)
    text = f"""func.func @main({params}) -> {r} {{
  %0 = stablehlo.concatenate {", ".join(names)}, dim = {axis} : ({types}) -> {r}
  func.return %0 : {r}
}}"""
    rng = np.random.default_rng(len(shapes) + axis)
    args = [_data(rng, s, elem) for s in shapes]
    args[0] = args[0][..., ::-1] if args[0].ndim > 1 else args[0]  # (a strided view)
    got, kernels = _run(text, args, True)
    want, plain = _run(text, args, False)
    _same(got, want)
    assert "_concatenate" in kernels[0].__qualname__ and kernels[0] is not plain[0]


def test_concatenate_of_a_wrong_operand_is_a_diagnostic() -> None:
    text = """func.func @main(%a: tensor<2xf32>, %b: tensor<1xf32>) -> tensor<3xf32> {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}"""
    interpreter = Interpreter(parse_source(text))
    with pytest.raises(Diagnostic):
        interpreter.call(interpreter.lookup_function("main"),
                         [np.ones(2, np.float32), np.ones((1, 2), np.float32)])


@pytest.mark.parametrize("elem", list(ELEMS))
@pytest.mark.parametrize("shape", [(3,), (2, 4), (0,), (1, 1)])
def test_a_scalar_broadcast_is_the_general_one(elem: str, shape: tuple[int, ...]) -> None:
    r = _t(shape, elem)
    text = f"""func.func @main(%a: tensor<{elem}>) -> {r} {{
  %0 = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<{elem}>) -> {r}
  func.return %0 : {r}
}}"""
    values = [_data(np.random.default_rng(1), (6,), elem)[k] for k in range(6)]
    for x in values + [np.asarray(values[0])]:  # numpy scalars, a 0-d array
        got, kernels = _run(text, [x], True)
        want, _ = _run(text, [x], False)
        _same(got, want)
        assert shape == (1, 1) or "splat" in kernels[0].__qualname__


# y[t] = b0 * x[t] + c[0];  c = concatenate(c[1:], 0) + b[1:] * x[t] - a[1:] * y[t]
FILTER = """
func.func @main(%x: tensor<16xf32>, %b: tensor<4xf32>, %a: tensor<4xf32>, %n: tensor<i32>) -> (tensor<16xf32>, tensor<3xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %state = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %ys0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<16xf32>
  %r:4 = stablehlo.while(%i = %c0, %c = %state, %ys = %ys0, %bb = %b) : tensor<i32>, tensor<3xf32>, tensor<16xf32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %xs = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<16xf32>, tensor<i32>) -> tensor<1xf32>
    %xt = stablehlo.reshape %xs : (tensor<1xf32>) -> tensor<f32>
    %b0s = stablehlo.slice %bb [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %b0 = stablehlo.reshape %b0s : (tensor<1xf32>) -> tensor<f32>
    %bx = stablehlo.multiply %b0, %xt : tensor<f32>
    %c0s = stablehlo.slice %c [0:1] : (tensor<3xf32>) -> tensor<1xf32>
    %cf = stablehlo.reshape %c0s : (tensor<1xf32>) -> tensor<f32>
    %y = stablehlo.add %bx, %cf : tensor<f32>
    %tail = stablehlo.slice %c [1:3] : (tensor<3xf32>) -> tensor<2xf32>
    %zero = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %shift = stablehlo.concatenate %tail, %zero, dim = 0 : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
    %b1 = stablehlo.slice %bb [1:4] : (tensor<4xf32>) -> tensor<3xf32>
    %xb = stablehlo.broadcast_in_dim %xt, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %bxs = stablehlo.multiply %b1, %xb : tensor<3xf32>
    %s1 = stablehlo.add %shift, %bxs : tensor<3xf32>
    %a1 = stablehlo.slice %a [1:4] : (tensor<4xf32>) -> tensor<3xf32>
    %yb = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %ay = stablehlo.multiply %a1, %yb : tensor<3xf32>
    %c2 = stablehlo.subtract %s1, %ay : tensor<3xf32>
    %y1 = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %y1, %i : (tensor<16xf32>, tensor<1xf32>, tensor<i32>) -> tensor<16xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %c2, %ys2, %bb : tensor<i32>, tensor<3xf32>, tensor<16xf32>, tensor<4xf32>
  }
  return %r#2, %r#1 : tensor<16xf32>, tensor<3xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 2, 16])
@pytest.mark.parametrize("special", [None, "nan", "-0", "inf"])
def test_a_filter_scan_is_the_evaluator_one(n: int, special: str | None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(n)
    x = rng.standard_normal(16).astype(np.float32)
    b = np.array([0.2, 0.3, 0.2, 0.1], np.float32)
    a = np.array([1.0, -0.5, 0.2, -0.05], np.float32)
    if special == "nan":
        x[0], b[0] = NANS[1], NANS[3]  # (a signalling NaN, a payload)
    elif special == "-0":
        x[:] = -0.0
        b[0] = -0.0
    elif special == "inf":
        x[1] = np.inf
    args = [x, b, a, np.array(n, np.int32)]
    got, sources = run_loops(FILTER, args, True, monkeypatch)
    want, _ = run_loops(FILTER, args, False, monkeypatch)
    _same([np.asarray(v) for v in got], [np.asarray(v) for v in want], fresh=False)
    if n:  # c[0] (its reshape too): one element read of the carried state
        assert re.search(r"w_E\d+\(a1\)", sources[0])


MASKED = """
func.func @main(%m: tensor<16xi1>, %x: tensor<16xf32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = stablehlo.while(%i = %c0, %s = %z) : tensor<i32>, tensor<f32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %ms = stablehlo.dynamic_slice %m, %i, sizes = [1] : (tensor<16xi1>, tensor<i32>) -> tensor<1xi1>
    %mi = stablehlo.reshape %ms : (tensor<1xi1>) -> tensor<i1>
    %xs = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<16xf32>, tensor<i32>) -> tensor<1xf32>
    %xi = stablehlo.reshape %xs : (tensor<1xf32>) -> tensor<f32>
    %sx = stablehlo.add %s, %xi : tensor<f32>
    %s2 = stablehlo.select %mi, %sx, %s : tensor<i1>, tensor<f32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %s2 : tensor<i32>, tensor<f32>
  }
  return %r#1, %r#0 : tensor<f32>, tensor<i32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 16, 40])
def test_a_mask_element_is_one_read(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """x[i] of a bool vector (a precomputed mask) with its 0-d reshape: one element read,
    an index past the end clamped as dynamic_slice clamps it."""
    rng = np.random.default_rng(n)
    m = rng.random(16) < 0.5
    x = _data(rng, (16,), "f32")
    args = [m, x, np.array(n, np.int32)]
    got, sources = run_loops(MASKED, args, True, monkeypatch)
    want, _ = run_loops(MASKED, args, False, monkeypatch)
    _same([np.asarray(v) for v in got], [np.asarray(v) for v in want], fresh=False)
    if n:
        assert sources[0].count(".item(") >= 2  # the mask's and x's elements


CONSTANT_ELEMENT = """
func.func @main(%n: tensor<i32>) -> (tensor<ui64>, tensor<ui64>) {
  %c = stablehlo.constant dense<[7, 18446744073709551615, 3]> : tensor<3xui64>
  %s = stablehlo.slice %c [1:2] : (tensor<3xui64>) -> tensor<1xui64>
  %e = stablehlo.reshape %s : (tensor<1xui64>) -> tensor<ui64>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %acc0 = stablehlo.constant dense<0> : tensor<ui64>
  %r:2 = stablehlo.while(%i = %z, %acc = %acc0) : tensor<i32>, tensor<ui64>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %a = stablehlo.xor %acc, %e : tensor<ui64>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %a : tensor<i32>, tensor<ui64>
  }
  return %r#1, %e : tensor<ui64>, tensor<ui64>
}
"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_constant_element_read_by_a_region_folds(n: int) -> None:
    """A one-element slice of a constant and its reshape fold together (the loop body
    reads the element from its enclosing block)."""
    interpreter = Interpreter(parse_source(CONSTANT_ELEMENT))
    got = interpreter.call(interpreter.lookup_function("main"), [np.array(n, np.int32)])
    top = np.uint64(2**64 - 1)
    assert [int(v) for v in got] == [int(top) if n % 2 else 0, int(top)]


COPY = """
func.func @main(%x: tensor<8xf32>, %n: tensor<i32>) -> tensor<8xf32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %f = stablehlo.constant dense<1.0> : tensor<f32>
  %ys0 = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<8xf32>
  %r:2 = stablehlo.while(%i = %z, %ys = %ys0) : tensor<i32>, tensor<8xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %seven = stablehlo.constant dense<7> : tensor<i32>
    %j = stablehlo.subtract %seven, %i : tensor<i32>
    %xs = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<8xf32>, tensor<i32>) -> tensor<1xf32>
    %ys2 = stablehlo.dynamic_update_slice %ys, %xs, %j : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %ys2 : tensor<i32>, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 8, 11])
def test_one_element_stores_keep_the_bits(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """ys[7 - i] = x[i] in place (an element store): NaN payloads and a signalling NaN
    as they are, indices past the end clamped."""
    x = _data(np.random.default_rng(n), (8,), "f32")
    args = [x, np.array(n, np.int32)]
    got, _ = run_loops(COPY, args, True, monkeypatch)
    want, _ = run_loops(COPY, args, False, monkeypatch)
    _same([np.asarray(v) for v in got], [np.asarray(v) for v in want], fresh=False)
    if n == 8:
        assert np.asarray(got[0])[::-1].tobytes() == x.tobytes()
