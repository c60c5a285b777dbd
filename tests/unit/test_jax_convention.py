"""jax.export's entry convention: platform index and effect tokens filled in by the API."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic

MODULE = """
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"},
                         %arg1: !stablehlo.token {jax.token = true}, %arg2: tensor<3xf32>)
      -> (!stablehlo.token {jax.token = true}, tensor<3xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<2.0> : tensor<3xf32>
    %m = stablehlo.multiply %arg2, %c : tensor<3xf32>
    %r = "stablehlo.case"(%arg0) ({
      %x = stablehlo.add %m, %c : tensor<3xf32>
      stablehlo.return %x : tensor<3xf32>
    }, {
      stablehlo.return %m : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    return %arg1, %r : !stablehlo.token, tensor<3xf32>
  }
}
"""


def test_platform_index_and_tokens_are_filled_in() -> None:
    x = np.ones(3, np.float32)
    [first] = shlo_cli.interpret(MODULE, x)  # platform 0; the token result is dropped
    np.testing.assert_array_equal(first, [4, 4, 4])
    [cpu_second] = shlo_cli.interpret(MODULE, x, platforms=["cuda", "cpu"])
    np.testing.assert_array_equal(cpu_second, [2, 2, 2])


def test_platform_not_exported() -> None:
    with pytest.raises(Diagnostic, match=r"exported for \['tpu'\], not for 'cpu'"):
        shlo_cli.interpret(MODULE, np.ones(3, np.float32), platforms=["tpu"])


def test_explicit_inputs_are_kept() -> None:
    from shlo_cli.dialects.stablehlo.elementwise_misc import TOKEN

    results = shlo_cli.interpret(MODULE, np.array(1, np.int32), TOKEN, np.ones(3, np.float32))
    assert len(results) == 2  # nothing was filled in, so nothing is dropped
    np.testing.assert_array_equal(results[1], [2, 2, 2])
