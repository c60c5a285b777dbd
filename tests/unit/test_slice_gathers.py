"""Gathers of one dynamic start index planned as dynamic slices (interpreter/gathers.py):
the gather's results bit for bit (indices below 0 and past the end, several index types, the
axis collapsed or kept, a 0-d index operand, in a loop whose index steps with its counter);
gathers of several indices stay."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

INDEX = {"i32": np.int32, "i64": np.int64, "ui8": np.uint8, "i16": np.int16}


def _program(index: str, collapsed: bool, broadcast: bool) -> str:
    """out[k] = x[:, j] with j = %off + k (and the sum of those rows), for k < %n."""
    ids_t = f"tensor<1x{index}>" if broadcast else f"tensor<{index}>"
    make = (f"%ids = stablehlo.broadcast_in_dim %j, dims = [] : (tensor<{index}>) -> {ids_t}"
            if broadcast else f"%ids = stablehlo.add %j, %zero : {ids_t}")
    row = "tensor<5xf32>" if collapsed else "tensor<5x1xf32>"
    offset, dropped, axes = ("[0]", "collapsed_slice_dims = [1], ", "[0]") if collapsed \
        else ("[0, 1]", "", "[0, 1]")
    return f"""
func.func @main(%x: tensor<5x7xf32>, %off: tensor<{index}>, %n: tensor<i32>) -> (tensor<9x5xf32>, tensor<f32>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %out0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<9x5xf32>
  %r:4 = stablehlo.while(%k = %c0, %j = %off, %out = %out0, %s = %z) : tensor<i32>, tensor<{index}>, tensor<9x5xf32>, tensor<f32>
  cond {{
    %p = stablehlo.compare LT, %k, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %zero = stablehlo.constant dense<0> : tensor<{index}>
    {make}
    %g = "stablehlo.gather"(%x, %ids) <{{dimension_numbers = #stablehlo.gather<offset_dims = {offset}, {dropped}start_index_map = [1]>, indices_are_sorted = true, slice_sizes = array<i64: 5, 1>}}> : (tensor<5x7xf32>, {ids_t}) -> {row}
    %g5 = stablehlo.reshape %g : ({row}) -> tensor<1x5xf32>
    %out2 = stablehlo.dynamic_update_slice %out, %g5, %k, %c0 : (tensor<9x5xf32>, tensor<1x5xf32>, tensor<i32>, tensor<i32>) -> tensor<9x5xf32>
    %t = stablehlo.reduce(%g init: %z) applies stablehlo.add across dimensions = {axes} : ({row}, tensor<f32>) -> tensor<f32>
    %s2 = stablehlo.add %s, %t : tensor<f32>
    %one = stablehlo.constant dense<1> : tensor<{index}>
    %j2 = stablehlo.add %j, %one : tensor<{index}>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %k2 = stablehlo.add %k, %c1 : tensor<i32>
    stablehlo.return %k2, %j2, %out2, %s2 : tensor<i32>, tensor<{index}>, tensor<9x5xf32>, tensor<f32>
  }}
  return %r#2, %r#3 : tensor<9x5xf32>, tensor<f32>
}}
"""


def _run(text: str, args: list[Any], rewritten: bool, monkeypatch: pytest.MonkeyPatch
         ) -> tuple[list[np.ndarray], list[str]]:
    with monkeypatch.context() as m:
        if not rewritten:
            m.setattr(engine, "slice_gathers", lambda ops, terminator: ops)
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
    names = [s.op.name for p in interpreter._plans.values() for s in p.steps]
    return [np.asarray(o) for o in out], names


@pytest.mark.parametrize("index", list(INDEX))
@pytest.mark.parametrize("collapsed", [True, False])
@pytest.mark.parametrize("broadcast", [True, False])
def test_one_index_gathers_are_dynamic_slices(index: str, collapsed: bool, broadcast: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    text = _program(index, collapsed, broadcast)
    x = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32)
    x[0, :3] = [np.nan, -0.0, np.inf]
    for off, n in ((-3, 9), (0, 0), (0, 1), (2, 9), (5, 4)):
        if INDEX[index] == np.uint8 and off < 0:
            off = 250  # (wraps past 255 to 0 in the loop)
        args = [x, np.array(off, INDEX[index]), np.array(n, np.int32)]
        got, names = _run(text, args, True, monkeypatch)
        want, plain = _run(text, args, False, monkeypatch)
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        if n:
            assert "stablehlo.gather" in plain and "stablehlo.gather" not in names


def test_gathers_of_several_indices_stay(monkeypatch: pytest.MonkeyPatch) -> None:
    text = """
func.func @main(%x: tensor<5x7xf32>, %i: tensor<3xi32>) -> tensor<5x3xf32> {
  %ids = stablehlo.reshape %i : (tensor<3xi32>) -> tensor<3x1xi32>
  %g = "stablehlo.gather"(%x, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 5, 1>}> : (tensor<5x7xf32>, tensor<3x1xi32>) -> tensor<5x3xf32>
  return %g : tensor<5x3xf32>
}
"""
    x = np.arange(35, dtype=np.float32).reshape(5, 7)
    got, names = _run(text, [x, np.array([-1, 3, 9], np.int32)], True, monkeypatch)
    assert "stablehlo.gather" in names
    assert got[0].tobytes() == x[:, [0, 3, 6]].tobytes()


ROW = """
func.func @main(%x: tensor<4x9xi32>, %js: tensor<6xi32>, %n: tensor<i32>) -> tensor<4xi32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %acc0 = stablehlo.constant dense<0> : tensor<4xi32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %acc0) : tensor<i32>, tensor<4xi32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %js1 = stablehlo.dynamic_slice %js, %i, sizes = [1] : (tensor<6xi32>, tensor<i32>) -> tensor<1xi32>
    %j = stablehlo.reshape %js1 : (tensor<1xi32>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j1 = stablehlo.add %j, %one : tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %neg = stablehlo.compare LT, %j1, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %nine = stablehlo.constant dense<9> : tensor<i32>
    %w = stablehlo.add %j1, %nine : tensor<i32>
    %k = stablehlo.select %neg, %w, %j1 : tensor<i1>, tensor<i32>
    %ids = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %g = "stablehlo.gather"(%x, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [1]>, indices_are_sorted = true, slice_sizes = array<i64: 4, 1>}> : (tensor<4x9xi32>, tensor<1xi32>) -> tensor<4x1xi32>
    %col = stablehlo.reshape %g : (tensor<4x1xi32>) -> tensor<4xi32>
    %acc2 = stablehlo.add %acc, %col : tensor<4xi32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %acc2 : tensor<i32>, tensor<4xi32>
  }
  return %r#1 : tensor<4xi32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 6, 8])
def test_an_index_read_in_a_loop_stays_a_python_int(n: int, monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    """x[:, j[i] + 1] (jnp's negative index wrap included): the element read, its index
    arithmetic and the slice's start are Python ints; the gather's bits."""
    x = np.arange(36, dtype=np.int32).reshape(4, 9) * 7 - 100
    js = np.array([-12, -1, 0, 3, 8, 20], np.int32)
    args = [x, js, np.array(n, np.int32)]
    got, sources = run_loops(ROW, args, True, monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(engine, "slice_gathers", lambda ops, terminator: ops)
        want, _ = run_loops(ROW, args, False, monkeypatch)
    assert np.asarray(got[0]).tobytes() == np.asarray(want[0]).tobytes()
    if n:
        loop = sources[0][sources[0].index("while True"):]
        assert "_Nint32(" not in loop.split("return")[0]  # no conversion back to numpy
        assert re.search(r"w_K\d+\(w_o\d, w_C\d+, w_s\d+\)", loop)  # the slice at a Python int
