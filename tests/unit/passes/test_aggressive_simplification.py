"""--stablehlo-aggressive-simplification and --stablehlo-target-independent-optimization
(passes/simplify, passes/target_independent): each rewrite keeps the program's results, and
the rewrites upstream documents happen."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes

ARGS = (np.arange(6, dtype=np.int32).reshape(2, 3) - 2,)

CASES = {
    "add_zero": ("%z = stablehlo.constant dense<0> : tensor<2x3xi32>\n"
                 "%r = stablehlo.add %z, %arg0 : tensor<2x3xi32>", "stablehlo.add"),
    "mul_zero": ("%z = stablehlo.constant dense<0> : tensor<2x3xi32>\n"
                 "%r = stablehlo.multiply %arg0, %z : tensor<2x3xi32>", "stablehlo.multiply"),
    "and_all_ones": ("%z = stablehlo.constant dense<-1> : tensor<2x3xi32>\n"
                     "%r = stablehlo.and %arg0, %z : tensor<2x3xi32>", "stablehlo.and"),
    "sub_self": ("%r = stablehlo.subtract %arg0, %arg0 : tensor<2x3xi32>",
                 "stablehlo.subtract"),
    "xor_self": ("%r = stablehlo.xor %arg0, %arg0 : tensor<2x3xi32>", "stablehlo.xor"),
    "transpose_twice": (
        "%t = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>\n"
        "%r = stablehlo.transpose %t, dims = [1, 0] : (tensor<3x2xi32>) -> tensor<2x3xi32>",
        "stablehlo.transpose"),
    "reshape_twice": (
        "%t = stablehlo.reshape %arg0 : (tensor<2x3xi32>) -> tensor<6xi32>\n"
        "%r = stablehlo.reshape %t : (tensor<6xi32>) -> tensor<2x3xi32>", "stablehlo.reshape"),
    "compare_self": (
        "%c = stablehlo.compare GE, %arg0, %arg0, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>)"
        " -> tensor<2x3xi1>\n"
        "%r = stablehlo.convert %c : (tensor<2x3xi1>) -> tensor<2x3xi32>", "stablehlo.compare"),
    "compare_constant_left": (
        "%k = stablehlo.constant dense<1> : tensor<2x3xi32>\n"
        "%c = stablehlo.compare LT, %k, %arg0, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>)"
        " -> tensor<2x3xi1>\n"
        "%r = stablehlo.convert %c : (tensor<2x3xi1>) -> tensor<2x3xi32>", None),
    "broadcast_twice": (
        "%b = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xi32>) -> "
        "tensor<4x2x3xi32>\n"
        "%c = stablehlo.broadcast_in_dim %b, dims = [0, 1, 2] : (tensor<4x2x3xi32>) -> "
        "tensor<4x2x3xi32>\n"
        "%r = stablehlo.slice %c [1:3, 0:2, 0:3] : (tensor<4x2x3xi32>) -> tensor<2x2x3xi32>\n"
        "%s = stablehlo.reshape %r : (tensor<2x2x3xi32>) -> tensor<12xi32>\n"
        "%u = stablehlo.slice %s [0:6] : (tensor<12xi32>) -> tensor<6xi32>\n"
        "%r2 = stablehlo.reshape %u : (tensor<6xi32>) -> tensor<2x3xi32>", None),
    "dynamic_slice_clamped_start": (
        "%s0 = stablehlo.constant dense<5> : tensor<i64>\n"
        "%s1 = stablehlo.constant dense<-1> : tensor<i64>\n"
        "%d = stablehlo.dynamic_slice %arg0, %s0, %s1, sizes = [1, 3] : "
        "(tensor<2x3xi32>, tensor<i64>, tensor<i64>) -> tensor<1x3xi32>\n"
        "%r = stablehlo.broadcast_in_dim %d, dims = [0, 1] : (tensor<1x3xi32>) -> "
        "tensor<2x3xi32>", "stablehlo.dynamic_slice"),
    "sort_unused_operand_negative_dim": (
        "%s:2 = \"stablehlo.sort\"(%arg0, %arg0) <{dimension = -1 : i64, is_stable = true}> ({\n"
        "^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):\n"
        "  %p = stablehlo.compare GT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "  stablehlo.return %p : tensor<i1>\n"
        "}) : (tensor<2x3xi32>, tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>)\n"
        "%r = stablehlo.add %s#0, %arg0 : tensor<2x3xi32>", "dimension = -1"),
    "gather_constant_index_clamped": (
        "%i = stablehlo.constant dense<[5, -2]> : tensor<2xi32>\n"
        "%g = \"stablehlo.gather\"(%arg0, %i) {dimension_numbers = #stablehlo.gather<"
        "offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0, 1], "
        "index_vector_dim = 0>, slice_sizes = array<i64: 1, 3>} : "
        "(tensor<2x3xi32>, tensor<2xi32>) -> tensor<3xi32>\n"
        "%r = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<3xi32>) -> "
        "tensor<2x3xi32>", "stablehlo.gather"),
    "real_dynamic_slice_start_plus_sizes": (
        "%t = stablehlo.slice %arg0 [1:2, 0:2] : (tensor<2x3xi32>) -> tensor<1x2xi32>\n"
        "%s = stablehlo.reshape %t : (tensor<1x2xi32>) -> tensor<2xi32>\n"
        "%n = stablehlo.constant dense<1> : tensor<2xi32>\n"
        "%l = stablehlo.add %s, %n : tensor<2xi32>\n"
        "%d = stablehlo.real_dynamic_slice %arg0, %s, %l, %n : (tensor<2x3xi32>, "
        "tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x1xi32>\n"
        "%r = stablehlo.broadcast_in_dim %d, dims = [0, 1] : (tensor<1x1xi32>) -> "
        "tensor<2x3xi32>", "stablehlo.real_dynamic_slice"),
    "dynamic_iota_static_result": (
        "%s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
        "%i = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>\n"
        "%r = stablehlo.add %i, %arg0 : tensor<2x3xi32>", "stablehlo.dynamic_iota"),
    "iota_2d": ("%i = stablehlo.iota dim = 1 : tensor<2x3xi32>\n"
                "%r = stablehlo.add %i, %arg0 : tensor<2x3xi32>", None),
}


def _program(body: str) -> str:
    result = "%r2" if "%r2 =" in body else "%r"
    lines = "\n  ".join(body.splitlines())
    return (f"func.func @main(%arg0: tensor<2x3xi32>) -> tensor<2x3xi32> {{\n  {lines}\n"
            f"  return {result} : tensor<2x3xi32>\n}}")


def run(text: str, passes: list) -> str:
    module = parse_source(text, "t.mlir")
    run_passes(module, passes)
    return print_module(module)


@pytest.mark.parametrize("pass_name", ["stablehlo-aggressive-simplification",
                                       "stablehlo-target-independent-optimization"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrites_keep_results(name: str, pass_name: str) -> None:
    body, gone = CASES[name]
    text = _program(body)
    out = run(text, [pass_name])
    if gone is not None:
        assert gone not in out, out
    expected = shlo_cli.interpret(text, *ARGS)[0]
    actual = shlo_cli.interpret(out, *ARGS)[0]
    assert actual.dtype == expected.dtype and np.array_equal(actual, expected)


def test_constant_moves_to_the_right_with_mirrored_direction() -> None:
    out = run(_program(CASES["compare_constant_left"][0]),
              ["stablehlo-aggressive-simplification"])
    assert "GT, %arg0, %c" in out


def test_zero_extent_operands_become_empty_constants() -> None:
    text = """
func.func @main(%arg0: tensor<0x3xf32>) -> tensor<0x3xf32> {
  %0 = stablehlo.negate %arg0 : tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}"""
    out = run(text, ["stablehlo-aggressive-simplification"])
    assert "stablehlo.negate" not in out and "dense<> : tensor<0x3xf32>" in out


def test_discardable_attributes_move_to_the_surviving_op() -> None:
    text = """
func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.negate %arg0 : tensor<f32>
  %1 = stablehlo.add %0, %zero {mhlo.sharding = "{replicated}"} : tensor<f32>
  return %1 : tensor<f32>
}"""
    out = run(text, ["stablehlo-aggressive-simplification"])
    assert 'stablehlo.negate %arg0 {mhlo.sharding = "{replicated}"}' in out


def test_reduce_drops_results_nobody_reads() -> None:
    text = """
func.func @main(%arg0: tensor<2x3xi32>) -> tensor<3xi32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.reduce(%arg0 init: %z), (%arg0 init: %z) across dimensions = [0] :
      (tensor<2x3xi32>, tensor<2x3xi32>, tensor<i32>, tensor<i32>) -> (tensor<3xi32>, tensor<3xi32>)
    reducer(%a: tensor<i32>, %c: tensor<i32>) (%b: tensor<i32>, %d: tensor<i32>) {
      %s = stablehlo.add %a, %c : tensor<i32>
      %m = stablehlo.maximum %b, %d : tensor<i32>
      stablehlo.return %s, %m : tensor<i32>, tensor<i32>
    }
  return %0#1 : tensor<3xi32>
}"""
    out = run(text, ["stablehlo-aggressive-simplification"])
    assert "stablehlo.add" not in out and "stablehlo.maximum" in out
    expected = shlo_cli.interpret(text, *ARGS)[0]
    assert np.array_equal(shlo_cli.interpret(out, *ARGS)[0], expected)


def test_custom_call_backend_config_dictionary_moves_to_typed_ffi() -> None:
    text = ("func.func @main(%arg0: tensor<1xf32>) -> tensor<1xf32> {\n"
            "  %0 = stablehlo.custom_call @foo(%arg0) {api_version = 1 : i32, "
            "mhlo.backend_config = {bar = 1 : i32}} : (tensor<1xf32>) -> tensor<1xf32>\n"
            "  %1 = stablehlo.custom_call @foo(%0) {api_version = 2 : i32, "
            "mhlo.backend_config = {bar = 1 : i32}} : (tensor<1xf32>) -> tensor<1xf32>\n"
            "  return %1 : tensor<1xf32>\n}")
    out = run(text, ["stablehlo-aggressive-simplification"])
    assert "{api_version = 4 : i32, backend_config = {bar = 1 : i32}}" in out, out
    assert "api_version = 2 : i32, mhlo.backend_config" in out, out
