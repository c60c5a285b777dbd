"""Results computed from a broadcast (a zero-stride view) come out C-ordered: numpy's astype
keeps a view's memory order, which puts the broadcast axis innermost, and every op after it
would keep that layout (a reduction over the last axis then reads memory strided). Values
are those of the same ops on a materialized broadcast."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

PROGRAM = """
func.func @main(%m: tensor<64x64xi1>, %x: tensor<64x64xf32>, %s: tensor<4x64x64xf32>) -> tensor<4x64x64x{E}> {{
  %b = stablehlo.broadcast_in_dim %m, dims = [1, 2] : (tensor<64x64xi1>) -> tensor<4x64x64xi1>
  %bx = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>
  {BODY}
}}
"""
BODIES = {
    "select": ("f32", """%c = stablehlo.constant dense<-1.0e+30> : tensor<4x64x64xf32>
  %r = stablehlo.select %b, %s, %c : tensor<4x64x64xi1>, tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>"""),
    "convert_f64": ("f64", """%r = stablehlo.convert %bx : (tensor<4x64x64xf32>) -> tensor<4x64x64xf64>
  return %r : tensor<4x64x64xf64>"""),
    "convert_bool": ("f32", """%r = stablehlo.convert %b : (tensor<4x64x64xi1>) -> tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>"""),
    "convert_int": ("i32", """%r = stablehlo.convert %bx : (tensor<4x64x64xf32>) -> tensor<4x64x64xi32>
  return %r : tensor<4x64x64xi32>"""),
    "exponential": ("f32", """%r = stablehlo.exponential %bx : tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>"""),
    "tanh_then_add": ("f32", """%t = stablehlo.tanh %bx : tensor<4x64x64xf32>
  %r = stablehlo.add %t, %s : tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>"""),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_results_of_broadcasts_are_c_ordered(name: str) -> None:
    element, body = BODIES[name]
    text = PROGRAM.format(E=element, BODY=body)
    rng = np.random.default_rng(len(name))
    x = (rng.standard_normal((64, 64)) * 30).astype(np.float32)
    x.reshape(-1)[:5] = [np.nan, -0.0, np.inf, -np.inf, 1e-40]
    args = [rng.random((64, 64)) < 0.5, x, rng.standard_normal((4, 64, 64)).astype(np.float32)]
    interpreter = Interpreter(parse_source(text))
    with np.errstate(all="ignore"):
        got = np.asarray(interpreter.call(interpreter.lookup_function("main"), args)[0])
    # the same program on the broadcasts written out as arguments (no view anywhere)
    plain = text.replace("%b = stablehlo.broadcast_in_dim %m, dims = [1, 2] : (tensor<64x64xi1>) -> tensor<4x64x64xi1>", "").replace(
        "%bx = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<64x64xf32>) -> tensor<4x64x64xf32>", "").replace(
        "%m: tensor<64x64xi1>, %x: tensor<64x64xf32>", "%b: tensor<4x64x64xi1>, %bx: tensor<4x64x64xf32>")
    full = [np.broadcast_to(a, (4, 64, 64)).copy() for a in args[:2]] + [args[2]]
    reference = Interpreter(parse_source(plain))
    with np.errstate(all="ignore"):
        want = np.asarray(reference.call(reference.lookup_function("main"), full)[0])
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert got.flags.c_contiguous
