"""With debug info, a jax export prints exactly as jax (MLIR's printer) wrote it: `#loc`
aliases for nested locations in argument locations, none for the locations of a `while`'s
iteration arguments (its custom form never prints them), FileLineColRange ends kept, and the
current spacing (`cond {` under the op, one space before enums)."""

from __future__ import annotations

import pytest

from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _programs() -> list[str]:
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    lax = jax.lax

    def loop(x, n):
        def body(c):
            i, acc = c
            return i + 1, acc * 2 + lax.cond(i % 2 == 0, lambda a: a, lambda a: -a, acc)
        return lax.while_loop(lambda c: c[0] < n, body, (0, x))[1]

    def argmax_scan(x):
        return jnp.argmax(x, axis=0), lax.scan(lambda c, v: (c + v, c * v), 0.0, x)[1]

    def sort_fft(x):
        return jnp.sort(x), jnp.fft.rfft(x), jnp.cumsum(x) < 1.0

    x = jnp.arange(6.0, dtype=jnp.float32)
    exports = [jax.export.export(jax.jit(loop))(x, 3), jax.export.export(jax.jit(argmax_scan))(x),
               jax.export.export(jax.jit(sort_fft))(x)]
    return [e.mlir_module() for e in exports]


def test_jax_exports_print_as_jax_wrote_them() -> None:
    for text in _programs():
        printed = print_module(parse_source(text, "jax.mlir"), debuginfo=True)
        assert printed.rstrip("\n") == text.rstrip("\n")


TWO_FUNCTIONS = """func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %a : tensor<f32>
  %1 = func.call @f(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @f(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.multiply %a, %a : tensor<f32>
  return %0 : tensor<f32>
}
"""


def test_generic_form_numbers_ssa_values_uniquely() -> None:
    """MLIR's generic form prints unique SSA ids (shouldPrintUniqueSSAIDs): counters never
    restart, and the last function, numbered first from the region stack, gets %arg0."""
    printed = print_module(parse_source(TWO_FUNCTIONS, "t.mlir"), generic=True)
    main, f = printed.split('sym_name = "f"')
    assert "^bb0(%arg1: tensor<f32>):" in main and '"stablehlo.add"(%arg1, %arg1)' in main
    assert '%1 = "stablehlo.add"' in main and '%2 = "func.call"(%1)' in main
    assert "^bb0(%arg0: tensor<f32>):" in f and '%0 = "stablehlo.multiply"' in f
    custom = print_module(parse_source(TWO_FUNCTIONS, "t.mlir"))
    assert custom.count("(%arg0: tensor<f32>) -> tensor<f32>") == 2


def test_ragged_dot_dimensions_and_tensor_cast_print_as_mlir() -> None:
    """chlo's RaggedDotDimensionNumbersAttr::print leaves empty fields out (printStruct), and
    tensor.cast names its result `%cast` (CastOp::getAsmResultNames)."""
    text = """func.func @main(%a: tensor<2x11x5xf32>, %b: tensor<3x5x7xf32>, %g: tensor<3xi64>)
    -> tensor<?x11x7xf32> {
  %0 = "chlo.ragged_dot"(%a, %b, %g) {precision_config = [#chlo<precision DEFAULT>,
    #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<
    rhs_group_dimensions = [0], lhs_batching_dimensions = [], rhs_batching_dimensions = [],
    lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
    lhs_ragged_dimensions = [1]>} : (tensor<2x11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>)
    -> tensor<2x11x7xf32>
  %1 = tensor.cast %0 : tensor<2x11x7xf32> to tensor<?x11x7xf32>
  return %1 : tensor<?x11x7xf32>
}"""
    printed = print_module(parse_source(text, "t.mlir"))
    assert ("#chlo.ragged_dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], "
            "lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>") in printed
    assert "%cast = tensor.cast %0 : tensor<2x11x7xf32> to tensor<?x11x7xf32>" in printed


def test_func_constant_result_is_named_f() -> None:
    """func.constant names its results `%f`, `%f_0` (ConstantOp::getAsmResultNames)."""
    text = """func.func @main() -> () {
  %0 = func.constant @g : () -> ()
  %1 = func.constant @g : () -> ()
  return
}
func.func private @g() -> () {
  return
}"""
    printed = print_module(parse_source(text, "t.mlir"))
    assert "%f = constant @g : () -> ()" in printed and "%f_0 = constant @g" in printed
