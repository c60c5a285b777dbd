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
