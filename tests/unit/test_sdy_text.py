"""Shardy ops in StableHLO text (`jax.jit(f).lower(key, ...).as_text()` writes `sdy.mesh` and
`sdy.sharding_constraint` for a typed PRNG key argument): they parse, print back as read,
verify, and run as what they are on global values, the operand itself."""
# ruff: noqa: E501  (the programs keep the line lengths jax writes)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import shlo_cli
from shlo_cli.commands.main import cli
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module

SHARDED = """\
module @m attributes {mhlo.num_partitions = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  sdy.mesh @mesh = <["x"=1, "y"=1]>
  func.func public @main(%arg0: tensor<2x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<2x3xf32> {
    %0 = sdy.sharding_constraint %arg0 <@empty_mesh, [{}, {}]> : tensor<2x3xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<2x3xf32>
    %2 = sdy.reshard %1 <@mesh, [{"x", ?}, {"y"}p0]> : tensor<2x3xf32>
    sdy.sharding_group %2 group_id=3 : tensor<2x3xf32>
    %3 = stablehlo.add %2, %0 : tensor<2x3xf32>
    return %3 : tensor<2x3xf32>
  }
}
"""


def test_custom_and_generic_forms_print_back_as_read() -> None:
    module = parse_source(SHARDED, "s.mlir")
    assert print_module(module) == SHARDED
    generic = print_module(module, generic=True)
    assert '"sdy.mesh"() <{mesh = #sdy.mesh<["x"=1, "y"=1]>, sym_name = "mesh"}>' in generic
    assert '<{sharding = #sdy.sharding<@mesh, [{"x", ?}, {"y"}p0]>}>' in generic
    assert '"sdy.sharding_group"(%2) <{group_id = 3 : i64}>' in generic
    assert print_module(parse_source(generic, "g.mlir")) == SHARDED


def test_constraints_run_as_their_operand() -> None:
    x = np.array([[1, -2, 3], [0.5, np.nan, -0.0]], np.float32)
    [got] = shlo_cli.interpret(SHARDED, x)
    np.testing.assert_array_equal(got, x * x + x)
    result = CliRunner().invoke(cli, ["interpret", "-", "--input", "2x3xf32=1 2 3 4 5 6"],
                                input=SHARDED)
    assert result.exit_code == 0, result.output
    assert "[2.000000e+00, 6.000000e+00, 1.200000e+01]" in result.output


def test_a_constraint_that_changes_the_type_is_rejected() -> None:
    bad = """\
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "sdy.reshard"(%x) <{sharding = #sdy.sharding<@mesh, []>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
"""
    with pytest.raises(shlo_cli.Diagnostic, match="result type tensor<3x2xf32> differs from "
                                                  "the operand's tensor<2x3xf32>"):
        shlo_cli.interpret(bad, np.zeros((2, 3), np.float32))


def test_jax_text_with_a_typed_key_argument_runs() -> None:
    jax = pytest.importorskip("jax")

    def f(key: Any, x: Any) -> Any:
        return jax.random.normal(key, (3,)) * x

    key = jax.random.key(3)
    text = jax.jit(f).lower(key, np.float32(2)).as_text()
    assert "sdy.sharding_constraint" in text
    [got] = shlo_cli.interpret(text, np.asarray(jax.random.key_data(key)), np.float32(2))
    np.testing.assert_allclose(got, np.asarray(f(key, np.float32(2))), rtol=1e-6)


def test_a_generic_mesh_without_shardys_attribute_is_kept_generic() -> None:
    """Upstream's tests name a mesh for replica groups as `"sdy.mesh"() {sym_name = ...,
    stablehlo.mesh = {...}}`, without Shardy's `mesh`: it still reads, prints (generic) and
    runs."""
    text = """\
module {
  "sdy.mesh"() {sym_name = "m", stablehlo.mesh = {axes = [{name = "x", size = 1 : i64}]}} : () -> ()
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %x, %x : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"""
    printed = print_module(parse_source(text, "g.mlir"))
    assert '"sdy.mesh"() <{sym_name = "m"}> {stablehlo.mesh = {axes = [{name = "x", size = 1 : i64}]}}' \
        in printed
    [got] = shlo_cli.interpret(printed, np.array([1, 2], np.float32))
    np.testing.assert_array_equal(got, [2, 4])
