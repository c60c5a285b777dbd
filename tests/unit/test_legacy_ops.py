"""Ops outside spec.md (torch_index_select, cross-replica-sum, trace, async_start/async_done):
their syntax as upstream prints it, their verifiers' wording, and what they compute."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shlo_cli.commands.interpret import run_interpret
from shlo_cli.dialects.stablehlo.legacy import (
    Future,
    async_done,
    future_types,
    torch_index_select,
)
from shlo_cli.interpreter.engine import EvaluationError
from shlo_cli.ir import registry
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import F32, I32, OpaqueType, TensorType


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> tuple[int, str, str]:
    path = tmp_path / "t.mlir"
    path.write_text(text)
    code = run_interpret(str(path), interpreter_print_dense=True)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    return code, out, err


def reprint(text: str, generic: bool = False) -> str:
    return print_module(parse_source(text, "t.mlir"), generic)


def verify_all(text: str) -> None:
    module = parse_source(text, "t.mlir")
    for op in module.op.walk():
        opdef = registry.lookup(op.name)
        if opdef is not None and opdef.verify is not None:
            opdef.verify(op)


def messages_of(text: str) -> list[str]:
    with pytest.raises(Diagnostic) as info:
        verify_all(text)
    return [info.value.message] + [note.message for note in info.value.notes]


def test_every_legacy_op_is_registered_with_an_evaluator() -> None:
    for name in ("torch_index_select", "cross-replica-sum", "trace", "async_start",
                 "async_done", "einsum", "unary_einsum", "dynamic_iota"):
        opdef = registry.lookup("stablehlo." + name)
        assert opdef is not None and opdef.evaluate is not None, name


# ---- torch_index_select ---------------------------------------------------------------------


def select(operand: np.ndarray, index: np.ndarray, dim: int, batch_dims: int,
           shape: tuple[int, ...]) -> np.ndarray:
    return torch_index_select(operand, index, dim=dim, batch_dims=batch_dims,
                              result_type=TensorType(shape, I32))


def test_torch_index_select_without_batch_dims_is_take_along_dim() -> None:
    rng = np.random.default_rng(0)
    operand = rng.integers(-50, 50, size=(3, 4, 5)).astype(np.int32)
    index = rng.integers(0, 4, size=(2, 3)).astype(np.int32)
    got = select(operand, index, dim=1, batch_dims=0, shape=(3, 2, 3, 5))
    np.testing.assert_array_equal(got, np.take(operand, index, axis=1))
    assert got.dtype == np.int32


def test_torch_index_select_scalar_index_drops_the_dimension() -> None:
    operand = np.arange(25, dtype=np.int32).reshape(5, 1, 5)
    got = select(operand, np.array(3, np.int32), dim=0, batch_dims=0, shape=(1, 5))
    np.testing.assert_array_equal(got, operand[3])


def test_torch_index_select_batch_dims_pair_operand_and_index_rows() -> None:
    operand = np.array([[6, 7], [8, 9]], np.int32)
    index = np.array([[[[0, 1], [1, 0]], [[0, 0], [1, 1]]],
                      [[[1, 1], [0, 0]], [[0, 1], [1, 0]]]], np.int32)
    got = select(operand, index, dim=1, batch_dims=1, shape=(2, 2, 2, 2))
    expected = np.stack([operand[b][index[b]] for b in range(2)])
    np.testing.assert_array_equal(got, expected)
    assert got[1, 0, 0].tolist() == [9, 9]


def test_torch_index_select_negative_dims_count_from_the_ranks() -> None:
    operand = np.array([[[100, 101], [110, 111]], [[200, 201], [210, 211]]], np.int32)
    index = np.array([[[0, 1], [1, 0]], [[0, 0], [1, 1]]], np.int32)
    got = select(operand, index, dim=-1, batch_dims=-1, shape=(2, 2, 2))
    assert got.tolist() == [[[100, 101], [111, 110]], [[200, 200], [211, 211]]]


def test_torch_index_select_clamps_indices_like_gather() -> None:
    operand = np.array([10, 20, 30], np.int32)
    got = select(operand, np.array([-4, 1, 7], np.int64), dim=0, batch_dims=0, shape=(3,))
    assert got.tolist() == [10, 20, 30]


@pytest.mark.parametrize(("dim", "batch_dims", "shape", "fragment"), [
    (2, 0, (2,), "dim 2 is out of range"),
    (0, 1, (2,), "batch_dims 1 must be in"),
    (0, 0, (5,), "does not match the result type"),
])
def test_torch_index_select_bad_dims_are_run_time_errors(
        dim: int, batch_dims: int, shape: tuple[int, ...], fragment: str) -> None:
    with pytest.raises(EvaluationError, match=fragment):
        select(np.zeros((3, 2), np.int32), np.array([0, 1], np.int32), dim, batch_dims, shape)


TORCH_INDEX_SELECT = """
func.func @main() -> tensor<2x2xf32> {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %i = stablehlo.constant dense<[2, 0]> : tensor<2xi32>
  %0 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 1 : i64}
       : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
"""


def test_torch_index_select_runs_and_prints_generic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, TORCH_INDEX_SELECT)
    assert (code, err) == (0, "")
    assert out == ("dense<[[3.000000e+00, 1.000000e+00], [6.000000e+00, 4.000000e+00]]> "
                   ": tensor<2x2xf32>\n")
    assert ('%0 = "stablehlo.torch_index_select"(%cst, %c) <{batch_dims = 0 : i64, '
            'dim = 1 : i64}> : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x2xf32>'
            ) in reprint(TORCH_INDEX_SELECT)


def test_torch_index_select_requires_its_attributes() -> None:
    text = ('func.func @f(%x: tensor<3xf32>, %i: tensor<1xi32>) -> tensor<1xf32> {\n'
            '  %0 = "stablehlo.torch_index_select"(%x, %i) {dim = 0 : i64} '
            ': (tensor<3xf32>, tensor<1xi32>) -> tensor<1xf32>\n'
            '  return %0 : tensor<1xf32>\n}')
    assert messages_of(text) == [
        "'stablehlo.torch_index_select' op requires attribute 'batch_dims'"]


# ---- trace --------------------------------------------------------------------------------

TRACE = """
func.func @main() -> tensor<3xi64> {
  %c = stablehlo.constant dense<[2, 3, 5]> : tensor<3xi64>
  "stablehlo.trace"(%c) {tag = "This is a test"} : (tensor<3xi64>) -> ()
  stablehlo.trace %c, "second" {note = 1 : i32} : tensor<3xi64>
  return %c : tensor<3xi64>
}
"""


def test_trace_prints_custom_form_and_round_trips() -> None:
    once = reprint(TRACE)
    assert 'stablehlo.trace %c, "This is a test" : tensor<3xi64>\n' in once
    assert 'stablehlo.trace %c, "second" {note = 1 : i32} : tensor<3xi64>\n' in once
    assert reprint(once) == once
    assert ('"stablehlo.trace"(%0) <{tag = "This is a test"}> : (tensor<3xi64>) -> ()'
            in reprint(TRACE, generic=True))


def test_trace_leaves_values_unchanged(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, TRACE)
    assert (code, err, out) == (0, "", "dense<[2, 3, 5]> : tensor<3xi64>\n")


# ---- cross-replica-sum --------------------------------------------------------------------

CROSS_REPLICA_SUM = """
func.func @sum(%x: tensor<2xi8>) -> tensor<2xi8> {
  %0 = "stablehlo.cross-replica-sum"(%x) {
    replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>
  } : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}
func.func @main() -> (tensor<2xi8>, tensor<2xi8>) {
  %a = stablehlo.constant dense<[100, 1]> : tensor<2xi8>
  %b = stablehlo.constant dense<[1, 2]> : tensor<2xi8>
  %c = stablehlo.constant dense<[100, 3]> : tensor<2xi8>
  %d = stablehlo.constant dense<[4, 5]> : tensor<2xi8>
  %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@sum], [@sum], [@sum], [@sum]]}
       : (tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>)
       -> (tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>)
  return %r#2, %r#3 : tensor<2xi8>, tensor<2xi8>
}
"""


def test_cross_replica_sum_adds_within_replica_groups_and_wraps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, CROSS_REPLICA_SUM)
    assert (code, err) == (0, "")
    # replicas 0 and 2: [100 + 100, 1 + 3] wraps to [-56, 4]; replicas 1 and 3: [5, 7]
    assert out == "dense<[-56, 4]> : tensor<2xi8>\ndense<[5, 7]> : tensor<2xi8>\n"


def test_cross_replica_sum_prints_generic_and_checks_its_type() -> None:
    assert ('"stablehlo.cross-replica-sum"(%arg0) <{replica_groups = dense<[[0, 2], [1, 3]]> '
            ': tensor<2x2xi64>}> : (tensor<2xi8>) -> tensor<2xi8>') in reprint(CROSS_REPLICA_SUM)
    bad = ('func.func @f(%x: tensor<2xf32>) -> tensor<3xf32> {\n'
           '  %0 = "stablehlo.cross-replica-sum"(%x) {replica_groups = dense<0> : '
           'tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<3xf32>\n'
           '  return %0 : tensor<3xf32>\n}')
    assert messages_of(bad) == [
        "'stablehlo.cross-replica-sum' op inferred type(s) 'tensor<2xf32>' are incompatible "
        "with return type(s) of operation 'tensor<3xf32>'",
        "'stablehlo.cross-replica-sum' op failed to infer returned types"]


# ---- async_start / async_done -------------------------------------------------------------

ASYNC_ALL_REDUCE = """
func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
  %f = "stablehlo.async_start"(%x) ({
  ^bb0(%arg: tensor<2xf32>):
    %s = "stablehlo.all_reduce"(%arg) ({
    ^bb1(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    stablehlo.return %s : tensor<2xf32>
  }) : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>
  %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @main() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0.5, -4.0]> : tensor<2xf32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step], [@step]]}
       : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %r#1 : tensor<2xf32>
}
"""


def test_async_start_and_done_run_the_wrapped_collective(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, ASYNC_ALL_REDUCE)
    assert (code, err) == (0, "")
    assert out == "dense<[2.000000e+00, -2.000000e+00]> : tensor<2xf32>\n"


def test_async_ops_print_generic_and_verify() -> None:
    verify_all(ASYNC_ALL_REDUCE)
    text = reprint(ASYNC_ALL_REDUCE)
    assert '%0 = "stablehlo.async_start"(%arg0) ({\n' in text
    assert ('}) : (tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>>\n'
            '    %1 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<2xf32>>) '
            '-> tensor<2xf32>') in text


def async_program(region: str, result: str = "tensor<2xf32>",
                  block_args: str = "%arg: tensor<2xf32>") -> str:
    return (f"func.func @f(%x: tensor<2xf32>) -> !stablehlo.future<{result}> {{\n"
            f'  %f = "stablehlo.async_start"(%x) ({{\n  ^bb0({block_args}):\n{region}\n'
            f"  }}) : (tensor<2xf32>) -> !stablehlo.future<{result}>\n"
            f"  return %f : !stablehlo.future<{result}>\n}}")


GATHER = ('    %s = "stablehlo.all_gather"(%arg) {all_gather_dim = 0 : i64, replica_groups = '
          'dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>\n'
          '    stablehlo.return %s : tensor<4xf32>')


@pytest.mark.parametrize(("text", "message"), [
    (async_program("    %s = stablehlo.add %arg, %arg : tensor<2xf32>\n"
                   "    stablehlo.return %s : tensor<2xf32>"),
     "region must contain a collective or slice operation"),
    (async_program("    stablehlo.return %arg : tensor<2xf32>"),
     "region must contain exactly one operation and a return"),
    (async_program(GATHER),
     "inferred type(s) '!stablehlo.future<tensor<4xf32>>' are incompatible with return "
     "type(s) of operation '!stablehlo.future<tensor<2xf32>>'"),
    (async_program(GATHER.replace("f32", "i32"), "tensor<4xi32>", "%arg: tensor<2xi32>"),
     "operand type 'tensor<2xf32>' at index 0 must match region argument type "
     "'tensor<2xi32>'"),
    (async_program(GATHER, "tensor<4xf32>", "%arg: tensor<2xf32>, %extra: tensor<2xf32>"),
     "number of operands (1) must match number of region arguments (2)"),
])
def test_async_start_verifier(text: str, message: str) -> None:
    assert messages_of(text) == [f"'stablehlo.async_start' op {message}",
                                 "'stablehlo.async_start' op failed to infer returned types"]


def test_async_start_needs_exactly_one_region_and_gather_verifies() -> None:
    verify_all(async_program(GATHER, "tensor<4xf32>"))
    no_region = ('func.func @f(%x: tensor<2xf32>) -> !stablehlo.future<tensor<2xf32>> {\n'
                 '  %f = "stablehlo.async_start"(%x) : (tensor<2xf32>) -> '
                 '!stablehlo.future<tensor<2xf32>>\n'
                 '  return %f : !stablehlo.future<tensor<2xf32>>\n}')
    assert messages_of(no_region) == ["'stablehlo.async_start' op requires one region"]


def test_async_done_result_must_be_what_the_future_carries() -> None:
    text = async_program(GATHER, "tensor<4xf32>").replace(
        "  return %f : !stablehlo.future<tensor<4xf32>>",
        '  %d = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> '
        'tensor<4xi32>\n  return %f : !stablehlo.future<tensor<4xf32>>')
    assert messages_of(text) == [
        "'stablehlo.async_done' op inferred type(s) 'tensor<4xf32>' are incompatible with "
        "return type(s) of operation 'tensor<4xi32>'",
        "'stablehlo.async_done' op failed to infer returned types"]


def test_future_types_and_values() -> None:
    assert future_types(OpaqueType("!stablehlo.future<tensor<2xf32>, tensor<i32>>")) == [
        TensorType((2,), F32), TensorType((), I32)]
    assert future_types(TensorType((2,), F32)) is None
    one, two = np.zeros(2, np.float32), np.ones(3, np.int32)
    assert async_done(Future((one,)), result_types=[TensorType((2,), F32)]) is one
    assert async_done(Future((one, two)), result_types=[TensorType((2,), F32),
                                                         TensorType((3,), I32)]) == (one, two)
    with pytest.raises(EvaluationError):
        async_done(one, result_types=[TensorType((2,), F32)])


@pytest.mark.parametrize(("inner", "bad"), [
    ("f32", "f32"), ("tensor<f32>, i32", "i32"), ("tensor<*xf32>", "tensor<*xf32>")])
def test_future_type_holds_only_ranked_tensors(inner: str, bad: str) -> None:
    with pytest.raises(Diagnostic) as info:
        parse_source(f"func.func private @f() -> !stablehlo.future<{inner}>", "t.mlir")
    assert info.value.message == f"future element type must be a ranked tensor, but got '{bad}'"


def test_future_type_prints_its_types_canonically() -> None:
    text = reprint("func.func private @f() -> !stablehlo.future<tensor<2x3xf32>,tensor<4xi32>>")
    assert "-> !stablehlo.future<tensor<2x3xf32>, tensor<4xi32>>" in text


def test_einsum_without_its_config_is_a_diagnostic() -> None:
    """A missing (or non-string) einsum_config reached np.einsum as None: a TypeError, i.e.
    an internal error; now the verifier's diagnostic names the attribute."""
    import shlo_cli

    for attrs, message in (('{comparison_direction = "ab,bc->ac"}',  # ODS: a required attribute
                            "requires attribute 'einsum_config'"),
                           ("{einsum_config = 3 : i64}",
                            "attribute 'einsum_config' failed to satisfy constraint: string "
                            "attribute")):
        text = ("func.func @main(%a: tensor<1x2xi8>, %b: tensor<2x1xi8>) -> tensor<1x1xi16> {\n"
                f'  %0 = "stablehlo.einsum"(%a, %b) {attrs} : (tensor<1x2xi8>, tensor<2x1xi8>)'
                " -> tensor<1x1xi16>\n  return %0 : tensor<1x1xi16>\n}")
        with pytest.raises(Diagnostic, match=message):
            shlo_cli.interpret(text, np.ones((1, 2), np.int8), np.ones((2, 1), np.int8))
