"""Regressions found by exporting jax functions (`jax.export`) and running them here: each
test exports a small function, runs the artifact, and compares with jax's own result."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import shlo_cli
from shlo_cli.commands.main import cli

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def export(f: Callable[..., Any], *args: Any, path: Path) -> Path:
    """`f` exported for CPU and written as a .jax artifact."""
    exported = jax.export.export(jax.jit(f))(*args)
    path.write_bytes(exported.serialize())
    return path


# ---- inputs jax leaves out of the module -------------------------------------------------

def test_unused_inputs_are_given_as_jax_calls_take_them(tmp_path: Path) -> None:
    """jax drops unused inputs from the module (`module_kept_var_idx`) but its callers pass
    all of them: the API, `--input` and the .npz keys `argN` follow jax's numbering."""
    a, b, c = np.arange(3, dtype=np.float32), np.ones(2, np.int32), np.full(3, 5, np.float32)
    path = export(lambda x, unused, y: x * 2 + y, a, b, c, path=tmp_path / "kept.jax")
    want = np.asarray(a * 2 + c)
    [got] = shlo_cli.interpret(path, a, b, c)
    np.testing.assert_array_equal(got, want)
    [got] = shlo_cli.interpret(path, a, c)  # the module's own arguments still work
    np.testing.assert_array_equal(got, want)
    with pytest.raises(shlo_cli.Diagnostic, match=r"provided 1 inputs but the entry function "
                       r"takes 3 \(or the module's 2\)"):
        shlo_cli.interpret(path, a)
    np.savez(tmp_path / "in.npz", arg0=a, arg1=b, arg2=c)
    result = CliRunner().invoke(cli, ["interpret", str(path), "--inputs",
                                      str(tmp_path / "in.npz"), "--save-results",
                                      str(tmp_path / "out.npz")])
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["result0"], want)
    result = CliRunner().invoke(cli, ["interpret", str(path), "--input", "3xf32=1 2 3"])
    assert result.exit_code == 1
    assert "1 --input values given but the entry function takes 3 (or the module's 2)" \
        in result.output


def test_no_input_used(tmp_path: Path) -> None:
    """An empty `module_kept_var_idx` means no input is used, not that the field is absent."""
    a = np.ones((3, 3), np.float32)
    path = export(lambda x: jnp.linalg.matrix_power(x, 0), a, path=tmp_path / "eye.jax")
    [got] = shlo_cli.interpret(path, a)
    np.testing.assert_array_equal(got, np.eye(3, dtype=np.float32))
    result = CliRunner().invoke(cli, ["inspect", str(path), "--no-module"])
    assert "#0: tensor<3x3xf32> (float32[3, 3]) (unused, not in the module)" in result.output


# ---- approx_max_k without aggregate_to_topk ----------------------------------------------

@pytest.mark.parametrize("size", [100, 3000])
def test_approx_max_k_without_aggregation(tmp_path: Path, size: int) -> None:
    """jax sizes the result for the approximate algorithm (the whole row, or 256 of 3000);
    XLA CPU sorts and returns that many: the result's size says how many."""
    x = np.random.default_rng(0).standard_normal((2, size)).astype(np.float32)

    def f(a: Any) -> Any:
        return jax.lax.approx_max_k(a, 5, recall_target=0.5, aggregate_to_topk=False)

    want_values, want_indices = jax.jit(f)(x)
    values, indices = shlo_cli.interpret(export(f, x, path=tmp_path / "k.jax"), x)
    assert values.shape == want_values.shape and values.shape[1] < size + 1
    np.testing.assert_array_equal(values, want_values)
    np.testing.assert_array_equal(indices, want_indices)


# ---- shape-polymorphic custom calls ------------------------------------------------------

def test_symbolic_svd_reads_result_shapes_from_shape_operands(tmp_path: Path) -> None:
    """A shape-polymorphic LAPACK call has `?` result types; its shape operands give the
    run's sizes (u and vt of gesdd), which the kernels read from the result types."""
    a = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)

    def f(x: Any) -> Any:
        u, s, vt = jnp.linalg.svd(x, full_matrices=False)
        return jnp.abs(u), s, jnp.abs(vt), jnp.linalg.svd(x, compute_uv=False)

    specs = jax.export.symbolic_args_specs((a,), ["m, n"])
    path = tmp_path / "svd.jax"
    path.write_bytes(jax.export.export(jax.jit(f))(*specs).serialize())
    for x in (a, a[:4], a.T):
        got = shlo_cli.interpret(path, x)
        for g, w in zip(got, jax.jit(f)(x), strict=True):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, np.asarray(w), rtol=1e-4, atol=1e-5)


# ---- Shardy ops in single-device exports -------------------------------------------------

@pytest.mark.parametrize("impl", ["threefry2x32", "rbg"])
def test_typed_key_argument_and_sharding_constraint(tmp_path: Path, impl: str) -> None:
    """A `jax.random.key` argument (or `with_sharding_constraint`) puts `sdy.mesh` and
    `sdy.sharding_constraint` in the module: no-ops on one device, removed with a note."""
    key = jax.random.key(5, impl=impl)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("d",))
    spec = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("d"))

    def f(k: Any) -> Any:
        x = jax.random.uniform(k, (4,))
        return jax.lax.with_sharding_constraint(x * 2, spec) + 1

    path = tmp_path / "key.jax"
    path.write_bytes(jax.export.export(jax.jit(f))(key).serialize())
    [got] = shlo_cli.interpret(path, np.asarray(jax.random.key_data(key)))
    np.testing.assert_array_equal(got, np.asarray(f(key)))
    result = CliRunner().invoke(cli, ["inspect", str(path), "--no-module"])
    assert result.exit_code == 0
    result = CliRunner().invoke(cli, ["inspect", str(path)])
    assert "note: removed Shardy sharding ops (no-ops on one device): sdy.mesh x2, " \
           "sdy.sharding_constraint x" in result.output
    assert "sdy." not in result.output.split("\nmodule")[1]


SHARDY_GENERIC = """
module {
  "sdy.mesh"() {sym_name = "m"} : () -> ()
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "sdy.manual_computation"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %1 = stablehlo.add %a, %a : tensor<4xf32>
      %2 = "sdy.reshard"(%1) : (tensor<4xf32>) -> tensor<4xf32>
      "sdy.return"(%2) : (tensor<4xf32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = stablehlo.multiply %0, %x : tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}
"""


def test_manual_computation_body_runs_on_the_whole_arrays() -> None:
    from shlo_cli.formats.jax_shardy import remove_sharding_ops
    from shlo_cli.ir.diagnostics import ShloError
    from shlo_cli.ir.parser import parse_source

    module = parse_source(SHARDY_GENERIC, "m.mlir", allow_unregistered=True)
    assert remove_sharding_ops(module, "m.jax") == {
        "sdy.mesh": 1, "sdy.manual_computation": 1, "sdy.reshard": 1}
    x = np.array([1, 2, 3, 4], np.float32)
    [got] = shlo_cli.interpret(module, x)
    np.testing.assert_array_equal(got, 2 * x * x)
    other = parse_source(SHARDY_GENERIC.replace('"sdy.reshard"', '"sdy.all_gather"'), "m.mlir",
                         allow_unregistered=True)
    with pytest.raises(ShloError, match="m.jax: Shardy op 'sdy.all_gather' .* is not supported"):
        remove_sharding_ops(other, "m.jax")


# ---- collectives of a single-device export -----------------------------------------------

def test_psum_in_shard_map_runs_on_the_one_device(tmp_path: Path) -> None:
    """A module declaring one replica and one partition (every single-device jax export)
    runs as process (0, 0) of a 1 x 1 grid: its `all_reduce` reduces over that process."""
    try:
        from jax import shard_map
    except ImportError:  # older jax
        from jax.experimental.shard_map import shard_map
    spec = jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("d",))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def f(a: Any) -> Any:
        return shard_map(lambda p: jax.lax.psum(p, "d") * 2, mesh=mesh, in_specs=spec("d"),
                         out_specs=spec())(a)

    exported = jax.export.export(jax.jit(f))(x)
    assert "all_reduce" in exported.mlir_module()
    path = tmp_path / "psum.jax"
    path.write_bytes(exported.serialize())
    [got] = shlo_cli.interpret(path, x)
    np.testing.assert_array_equal(got, np.asarray(f(x)))
    without = exported.mlir_module().replace("mhlo.num_replicas = 1", "mhlo.num_replicas = 2")
    with pytest.raises(shlo_cli.Diagnostic, match="all_reduce is only supported when run via "
                                                  "interpreter.run_parallel"):
        shlo_cli.interpret(without, x)


def test_shardy_ops_in_text_name_the_jax_artifact() -> None:
    """The Shardy ops text may hold run (tests/unit/test_sdy_text.py); any other, written in
    its custom form, is an unknown op whose note points to the .jax artifact."""
    text = SHARDY_GENERIC.replace('"sdy.mesh"() {sym_name = "m"} : () -> ()',
                                  "sdy.mesh @m = <[]>").replace(
        '%0 = "sdy.manual_computation"(%x) ({', '%0 = sdy.manual_computation(%x) ({')
    with pytest.raises(shlo_cli.Diagnostic) as info:
        shlo_cli.interpret(text, np.zeros(4, np.float32))
    assert "custom op 'sdy.manual_computation' is unknown" in str(info.value)
    assert "the others are read from jax.export artifacts (.jax)" in str(info.value)
