"""Mesh-axes replica groups flatten to the dense table (stablehlo-compatibility-expander
below 1.16.0)."""

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes
from shlo_cli.passes.mesh_axes import flatten_groups


def test_groups_put_the_communicating_axes_last() -> None:
    axes = [("x", 2), ("y", 3)]
    np.testing.assert_array_equal(flatten_groups(axes, ["x"], None),
                                  [[0, 3], [1, 4], [2, 5]])
    np.testing.assert_array_equal(flatten_groups(axes, ["y"], None), [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(flatten_groups(axes, ["y", "x"], None), [[0, 3, 1, 4, 2, 5]])
    np.testing.assert_array_equal(flatten_groups(axes, [], None), [[0], [1], [2], [3], [4], [5]])


def test_device_ids_replace_the_row_major_numbering() -> None:
    np.testing.assert_array_equal(flatten_groups([("x", 2), ("y", 2)], ["x"], [0, 2, 1, 3]),
                                  [[0, 1], [2, 3]])


PROGRAM = """module {
  "sdy.mesh"() {sym_name = "m", stablehlo.mesh = {axes = [{name = "x", size = 2 : i64},
    {name = "y", size = 2 : i64}]}} : () -> ()
  func.func @main(%arg0: tensor<4xf32>) -> tensor<8xf32> {
    %0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 0 : i64,
      replica_groups = #stablehlo.replica_group_mesh_axes<mesh = MESH,
        axes = [#stablehlo.axis_ref<name = "x">]>} : (tensor<4xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
"""
INLINE = ('#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, '
          '#stablehlo.mesh_axis<name = "y", size = 2>]>')


@pytest.mark.parametrize("mesh", ["@m", INLINE])
def test_pass_writes_the_dense_table(mesh: str) -> None:
    module = parse_source(PROGRAM.replace("MESH", mesh), allow_unregistered=True)
    run_passes(module, [("stablehlo-compatibility-expander", "target=1.15.0")])
    assert "replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>" in print_module(module)


def test_pass_keeps_mesh_axes_from_1_16() -> None:
    module = parse_source(PROGRAM.replace("MESH", "@m"), allow_unregistered=True)
    run_passes(module, [("stablehlo-compatibility-expander", "target=1.16.0")])
    assert "replica_group_mesh_axes" in print_module(module)


def test_symbol_without_a_mesh_is_an_error() -> None:
    text = PROGRAM.replace("MESH", "@m").replace("stablehlo.mesh =", "other =")
    module = parse_source(text, allow_unregistered=True)
    with pytest.raises(Diagnostic, match="Failed to find mesh attribute on symbol"):
        run_passes(module, [("stablehlo-compatibility-expander", "target=1.0.0")])


@pytest.mark.parametrize("change, words", [
    (('name = "x">]>', 'name = "z">]>'), "axis 'z' is not an axis of the mesh"),
    (("size = 2 : i64}]}", 'size = 2 : i64}], device_ids = dense<[0, 1, 2]> : tensor<3xi64>}'),
     "the mesh has 4 devices but 3 device_ids"),
])
def test_inconsistent_meshes_are_located_errors(change: tuple[str, str], words: str) -> None:
    text = PROGRAM.replace("MESH", "@m").replace(*change)
    module = parse_source(text, allow_unregistered=True)
    with pytest.raises(Diagnostic, match=words):
        run_passes(module, [("stablehlo-compatibility-expander", "target=1.0.0")])
