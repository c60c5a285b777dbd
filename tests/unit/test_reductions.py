"""reduce / reduce_window / select_and_scatter: upstream syntax and spec semantics."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _print(text: str, **kw: bool) -> str:
    return print_module(parse_source(text), **kw)


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def _reduce_program(op: str, elem: str, shape: str, dims: str, out: str) -> str:
    return f"""
func.func @main(%x: tensor<{shape}x{elem}>, %i: tensor<{elem}>) -> tensor<{out}{elem}> {{
  %0 = "stablehlo.reduce"(%x, %i) ({{
  ^bb0(%a: tensor<{elem}>, %b: tensor<{elem}>):
    %1 = "{op}"(%a, %b) : (tensor<{elem}>, tensor<{elem}>) -> tensor<{elem}>
    "stablehlo.return"(%1) : (tensor<{elem}>) -> ()
  }}) {{dimensions = array<i64: {dims}>}} : (tensor<{shape}x{elem}>, tensor<{elem}>) -> tensor<{out}{elem}>
  func.return %0 : tensor<{out}{elem}>
}}
"""


# ---- syntax -------------------------------------------------------------------------------


def test_compact_form_printed_and_reparsed() -> None:
    text = _reduce_program("stablehlo.add", "f32", "2x3", "1", "2x")
    printed = _print(text)
    assert "%0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>" in printed
    assert _print(printed) == printed


def test_non_commutative_body_uses_region_form() -> None:
    text = _reduce_program("stablehlo.subtract", "f32", "2x3", "1", "2x")
    printed = _print(text)
    assert "applies" not in printed
    assert "across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n     reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {\n" in printed
    assert _print(printed) == printed


def test_multi_operand_region_form_pairs_block_arguments() -> None:
    text = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xi32>, %c: tensor<f32>, %d: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %0:2 = stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
   reducer(%x: tensor<f32>, %y: tensor<f32>) (%z: tensor<i32>, %w: tensor<i32>)  {
    %1 = stablehlo.maximum %x, %y : tensor<f32>
    %2 = stablehlo.add %z, %w : tensor<i32>
    stablehlo.return %1, %2 : tensor<f32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<f32>, tensor<i32>
}
"""
    printed = _print(text)
    assert "reducer(%arg4: tensor<f32>, %arg6: tensor<f32>) (%arg5: tensor<i32>, %arg7: tensor<i32>)  {" in printed
    assert _print(printed) == printed
    got = _run(text, np.array([1, 5, 2, 3], np.float32), np.array([1, 2, 3, 4], np.int32),
               np.float32(-np.inf), np.int32(10))
    assert got[0] == np.float32(5) and got[1] == np.int32(20)


def test_compact_form_keeps_location_with_debuginfo() -> None:
    text = """
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> tensor<2xf32> {
  %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1] {custom = 1 : i64} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32> loc("here")
  return %0 : tensor<2xf32>
}
"""
    printed = _print(text, debuginfo=True, local_scope=True)
    assert 'applies stablehlo.add across dimensions = [1] {custom = 1 : i64} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32> loc("here")' in printed


def test_bad_compact_inner_op_is_a_diagnostic() -> None:
    text = """
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> tensor<2xf32> {
  %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.subtract across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
    with pytest.raises(Diagnostic, match="commutative binary-op"):
        parse_source(text)


# ---- reduce semantics ------------------------------------------------------------------------


@pytest.mark.parametrize("op, ref", [("stablehlo.add", np.add), ("stablehlo.multiply", np.multiply),
                                     ("stablehlo.maximum", np.maximum), ("stablehlo.minimum", np.minimum),
                                     ("stablehlo.and", np.bitwise_and), ("stablehlo.or", np.bitwise_or),
                                     ("stablehlo.xor", np.bitwise_xor)])
def test_integer_reductions_wrap(op: str, ref: np.ufunc) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, size=(3, 5, 4)).astype(np.int8)
    init = np.int8(3)
    got = _run(_reduce_program(op, "i8", "3x5x4", "0, 2", "5x"), x, init)[0]
    expected = np.empty(5, np.int8)
    for j in range(5):
        acc = init
        for a in range(3):
            for c in range(4):
                acc = np.int8(ref(acc, x[a, j, c]))
        expected[j] = acc
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.int8


def test_float_sum_is_sequential_like_the_reference() -> None:
    x = np.array([[1e8, 1.0, -1e8, 1.0]], np.float32)
    got = _run(_reduce_program("stablehlo.add", "f32", "1x4", "1", "1x"), x, np.float32(0))[0]
    acc = np.float32(0)
    for v in x[0]:
        acc = np.float32(acc + v)
    assert got[0] == acc


def test_bf16_sum_rounds_every_step() -> None:
    x = np.array([[256, 1, 1, 1, 1]], ml_dtypes.bfloat16)
    got = _run(_reduce_program("stablehlo.add", "bf16", "1x5", "1", "1x"), x,
               np.array(0, ml_dtypes.bfloat16))[0]
    assert float(got[0]) == 256.0  # 256 + 1 rounds back to 256 in bf16 each time


def test_bool_add_is_or() -> None:
    x = np.array([[False, True], [False, False]])
    got = _run(_reduce_program("stablehlo.add", "i1", "2x2", "1", "2x"), x, np.bool_(False))[0]
    np.testing.assert_array_equal(got, [True, False])


def test_general_body_argmax() -> None:
    text = """
func.func @main(%v: tensor<3x5xf32>, %i: tensor<3x5xi32>, %v0: tensor<f32>, %i0: tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %0:2 = stablehlo.reduce(%v init: %v0), (%i init: %i0) across dimensions = [1] : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>)  {
    %gt = stablehlo.compare GT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %b, %d : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %pick = stablehlo.or %gt, %tie : tensor<i1>
    %v1 = stablehlo.select %pick, %a, %c : tensor<i1>, tensor<f32>
    %i1 = stablehlo.select %pick, %b, %d : tensor<i1>, tensor<i32>
    stablehlo.return %v1, %i1 : tensor<f32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
}
"""
    v = np.array([[1, 7, 3, 7, 0], [-1, -2, -3, -4, -5], [2, 2, 2, 2, 9]], np.float32)
    idx = np.tile(np.arange(5, dtype=np.int32), (3, 1))
    values, indices = _run(text, v, idx, np.float32(-np.inf), np.int32(0))
    np.testing.assert_array_equal(values, v.max(axis=1))
    np.testing.assert_array_equal(indices, v.argmax(axis=1))


def test_empty_reduction_gives_init() -> None:
    got = _run(_reduce_program("stablehlo.add", "f32", "2x0", "1", "2x"),
               np.zeros((2, 0), np.float32), np.float32(7))[0]
    np.testing.assert_array_equal(got, [7, 7])


# ---- reduce_window ----------------------------------------------------------------------------


def _naive_reduce_window(x: np.ndarray, init: float, window: tuple, strides: tuple, base: tuple,
                         wdil: tuple, pad: list, out_shape: tuple) -> np.ndarray:
    """Literal spec: pad with init (interior base-1), slice each window, sum it."""
    dil_shape = tuple((n - 1) * b + 1 for n, b in zip(x.shape, base, strict=True))
    d = np.full(dil_shape, init, x.dtype)
    d[tuple(slice(None, None, b) for b in base)] = x
    p = np.pad(d, pad, constant_values=init)
    out = np.zeros(out_shape, x.dtype)
    for idx in np.ndindex(*out_shape):
        acc = init
        for w in np.ndindex(*window):
            pos = tuple(i * s + k * dl for i, s, k, dl in zip(idx, strides, w, wdil, strict=True))
            acc = acc + p[pos]
        out[idx] = acc
    return out


def test_reduce_window_dilations_padding_strides() -> None:
    text = """
func.func @main(%x: tensor<5x6xi64>, %i: tensor<i64>) -> tensor<4x3xi64> {
  %0 = "stablehlo.reduce_window"(%x, %i) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %1 = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }) {base_dilations = array<i64: 2, 1>, padding = dense<[[1, 2], [0, 1]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 2>, window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 3, 2>} : (tensor<5x6xi64>, tensor<i64>) -> tensor<4x3xi64>
  return %0 : tensor<4x3xi64>
}
"""
    x = np.arange(30, dtype=np.int64).reshape(5, 6)
    got = _run(text, x, np.int64(100))[0]
    expected = _naive_reduce_window(x, 100, (3, 2), (3, 2), (2, 1), (1, 2), [(1, 2), (0, 1)], (4, 3))
    np.testing.assert_array_equal(got, expected)
    printed = _print(text)
    assert '"stablehlo.reduce_window"(%arg0, %arg1) <{base_dilations = array<i64: 2, 1>, padding = dense<[[1, 2], [0, 1]]> : tensor<2x2xi64>' in printed


def test_reduce_window_general_body_runs_in_order() -> None:
    # Body `b - a` (not commutative) exposes the fold order acc = body(acc, x).
    text = """
func.func @main(%x: tensor<4xf32>, %i: tensor<f32>) -> tensor<2xf32> {
  %0 = "stablehlo.reduce_window"(%x, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.subtract %b, %a : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {window_dimensions = array<i64: 3>} : (tensor<4xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
    x = np.array([1, 2, 4, 8], np.float32)
    got = _run(text, x, np.float32(0))[0]
    expected = []
    for start in range(2):
        acc = np.float32(0)
        for v in x[start:start + 3]:
            acc = v - acc
        expected.append(acc)
    np.testing.assert_array_equal(got, expected)


# ---- select_and_scatter ----------------------------------------------------------------------


def test_select_and_scatter_max_pool_gradient() -> None:
    text = """
func.func @main(%x: tensor<4x4xf32>, %s: tensor<2x2xf32>, %i: tensor<f32>) -> tensor<4x4xf32> {
  %0 = "stablehlo.select_and_scatter"(%x, %s, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {padding = dense<[[0, 1], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
"""
    x = np.array([[1, 9, 2, 0], [3, 4, 5, 6], [7, 8, 9, 1], [0, 2, 3, 4]], np.float32)
    s = np.array([[10, 20], [30, 40]], np.float32)
    got = _run(text, x, s, np.float32(0))[0]
    expected = np.zeros((4, 4), np.float32)
    for r in range(2):
        for c in range(2):
            best = None
            for dr in range(3):
                for dc in range(3):
                    i, j = 2 * r + dr, 2 * c + dc
                    if i < 4 and j < 4 and (best is None or not x[best] >= x[i, j]):
                        best = (i, j)
            expected[best] += s[r, c]
    np.testing.assert_array_equal(got, expected)


# ---- verifiers --------------------------------------------------------------------------------


def _verify(text: str) -> None:
    from shlo_cli.ir.verifier import verify_module

    verify_module(parse_source(text))


def test_reduce_verifier_rejects_bad_dimensions_and_reducers() -> None:
    bad_dim = _reduce_program("stablehlo.add", "f32", "2x3", "2", "2x")
    with pytest.raises(Diagnostic, match=r"Out-of-bounds dimension 2, expected to be in range \[0, 2\)"):
        _verify(bad_dim)
    narrowing = """
func.func @main(%x: tensor<4xi32>, %i: tensor<i32>) -> tensor<i8> {
  %0 = "stablehlo.reduce"(%x, %i) ({
  ^bb0(%a: tensor<i8>, %b: tensor<i8>):
    %1 = "stablehlo.add"(%a, %b) : (tensor<i8>, tensor<i8>) -> tensor<i8>
    "stablehlo.return"(%1) : (tensor<i8>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xi32>, tensor<i32>) -> tensor<i8>
  func.return %0 : tensor<i8>
}
"""
    with pytest.raises(Diagnostic, match="expected to be promotable"):
        _verify(narrowing)
    _verify(_reduce_program("stablehlo.add", "f32", "2x3", "1", "2x"))  # valid


def test_reduce_window_verifier_checks_window_attributes() -> None:
    text = """
func.func @main(%x: tensor<4x2xf32>, %i: tensor<f32>) -> tensor<2x2xf32> {
  %0 = "stablehlo.reduce_window"(%x, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 0>} : (tensor<4x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
"""
    with pytest.raises(Diagnostic, match="expects window to have positive stride for 1-th window dimension, but got 0."):
        _verify(text)
    _verify(text.replace("array<i64: 2, 0>", "array<i64: 2, 1>"))


def test_promotable_reduce_accumulates_in_the_wider_type() -> None:
    text = """
func.func @main(%x: tensor<4xi8>, %i: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.reduce"(%x, %i) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<4xi8>, tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
"""
    got = _run(text, np.array([100, 100, 100, 100], np.int8), np.int32(1))[0]
    assert got == 401 and got.dtype == np.int32
