"""stablehlo.sort: fast paths and the region-driven merge sort agree with a literal stable sort."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import functools

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def _single(direction: str, elem: str, shape: str, dim: int, compare_type: str = "") -> str:
    ctype = f", {compare_type}" if compare_type else ""
    return f"""
func.func @main(%x: tensor<{shape}x{elem}>) -> tensor<{shape}x{elem}> {{
  %0 = "stablehlo.sort"(%x) <{{dimension = {dim} : i64, is_stable = true}}> ({{
  ^bb0(%a: tensor<{elem}>, %b: tensor<{elem}>):
    %1 = stablehlo.compare {direction}, %a, %b{ctype} : (tensor<{elem}>, tensor<{elem}>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }}) : (tensor<{shape}x{elem}>) -> tensor<{shape}x{elem}>
  return %0 : tensor<{shape}x{elem}>
}}
"""


def test_generic_form_round_trips() -> None:
    text = _single("LT", "i32", "4", 0)
    printed = print_module(parse_source(text))
    assert '"stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({' in printed
    assert print_module(parse_source(printed)) == printed


@pytest.mark.parametrize("direction", ["LT", "GT"])
@pytest.mark.parametrize("dim", [0, 1])
def test_single_compare_fast_path(direction: str, dim: int) -> None:
    x = np.random.default_rng(1).integers(-5, 5, size=(6, 7)).astype(np.int32)
    got = _run(_single(direction, "i32", "6x7", dim), x)[0]
    expected = np.sort(x, axis=dim)
    if direction == "GT":
        expected = np.flip(expected, axis=dim)
    np.testing.assert_array_equal(got, expected)


def test_totalorder_floats() -> None:
    x = np.array([0.0, -0.0, np.nan, -np.inf, 1.0, -np.nan, np.inf], np.float32)
    got = _run(_single("LT", "f32", "7", 0, "TOTALORDER"), x)[0]
    bits = got.view(np.uint32)
    expected = np.array([-np.nan, -np.inf, -0.0, 0.0, 1.0, np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(bits, expected.view(np.uint32))


def _lexicographic_program() -> str:
    # Sort by key descending, ties by value ascending: a comparator numpy has no fast path for.
    return """
func.func @main(%k: tensor<40xi32>, %v: tensor<40xf32>) -> (tensor<40xi32>, tensor<40xf32>) {
  %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64, is_stable = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %c, %d, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %r = stablehlo.or %gt, %tie : tensor<i1>
    stablehlo.return %r : tensor<i1>
  }) : (tensor<40xi32>, tensor<40xf32>) -> (tensor<40xi32>, tensor<40xf32>)
  return %0#0, %0#1 : tensor<40xi32>, tensor<40xf32>
}
"""


def test_region_comparator_merge_sort() -> None:
    rng = np.random.default_rng(2)
    keys = rng.integers(0, 4, 40).astype(np.int32)
    values = rng.integers(0, 6, 40).astype(np.float32)
    got_k, got_v = _run(_lexicographic_program(), keys, values)

    def cmp(i: int, j: int) -> int:
        less = keys[i] > keys[j] or (keys[i] == keys[j] and values[i] < values[j])
        more = keys[j] > keys[i] or (keys[j] == keys[i] and values[j] < values[i])
        return -1 if less else 1 if more else 0

    order = sorted(range(40), key=functools.cmp_to_key(cmp))  # Python's sort is stable
    np.testing.assert_array_equal(got_k, keys[order])
    np.testing.assert_array_equal(got_v, values[order])


def test_stable_on_the_key_operand_only() -> None:
    text = """
func.func @main(%k: tensor<2x5xi64>, %p: tensor<2x5xi64>) -> (tensor<2x5xi64>, tensor<2x5xi64>) {
  %0:2 = "stablehlo.sort"(%k, %p) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>, %c: tensor<i64>, %d: tensor<i64>):
    %1 = stablehlo.compare GT, %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<2x5xi64>, tensor<2x5xi64>) -> (tensor<2x5xi64>, tensor<2x5xi64>)
  return %0#0, %0#1 : tensor<2x5xi64>, tensor<2x5xi64>
}
"""
    k = np.array([[1, 3, 1, 3, 2], [0, 0, 0, 0, 0]], np.int64)
    p = np.tile(np.arange(5, dtype=np.int64), (2, 1))
    got_k, got_p = _run(text, k, p)
    np.testing.assert_array_equal(got_k, [[3, 3, 2, 1, 1], [0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(got_p, [[1, 3, 4, 0, 2], [0, 1, 2, 3, 4]])


def test_sort_verifier_checks_the_comparator() -> None:
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    text = _single("LT", "i32", "4", 0).replace("(%a: tensor<i32>, %b: tensor<i32>)", "(%a: tensor<i32>, %b: tensor<f32>)").replace("%a, %b : (tensor<i32>, tensor<i32>)", "%a, %a : (tensor<i32>, tensor<i32>)")
    with pytest.raises(Diagnostic, match="comparator block argument #1 should be of type 'tensor<i32>' but got 'tensor<f32>'"):
        verify_module(parse_source(text))
    with pytest.raises(Diagnostic, match=r"dimension attribute value must be in range \[-1, 1\), but found 1"):
        verify_module(parse_source(_single("LT", "i32", "4", 1)))
    verify_module(parse_source(_single("LT", "i32", "4", 0)))
