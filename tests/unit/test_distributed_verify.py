"""Verifiers of the distributed ops: upstream's checks and wording, and no complaint about
the valid programs the interpreter tests run."""

from __future__ import annotations

from pathlib import Path

import pytest

from shlo_cli.ir import registry
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

MINE = {"stablehlo." + name for name in (
    "all_gather all_reduce all_to_all collective_broadcast collective_permute "
    "collective_reduce reduce_scatter send recv infeed outfeed replica_id partition_id").split()}
CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "interpret"


def verify_all(text: str) -> None:
    module = parse_source(text, "t.mlir")
    for op in module.op.walk():
        opdef = registry.lookup(op.name)
        if op.name in MINE and opdef is not None and opdef.verify is not None:
            opdef.verify(op)


def message_of(text: str) -> str:
    with pytest.raises(Diagnostic) as info:
        verify_all(text)
    return info.value.message


def func(body: str, args: str = "%x: tensor<4x16xf32>", results: str = "") -> str:
    return f"func.func @f({args}) {results} {{\n{body}\n  func.return\n}}"


REGION = """({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  })"""


@pytest.mark.parametrize(("op", "message"), [
    ('%0 = "stablehlo.all_gather"(%x) {all_gather_dim = 2 : i64, replica_groups = '
     'dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x16xf32>) -> tensor<4x32xf32>',
     "all_gather_dim must be a valid index of operand"),
    ('%0 = "stablehlo.all_gather"(%x) {all_gather_dim = -1 : i64, replica_groups = '
     'dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x16xf32>) -> tensor<4x32xf32>',
     "'stablehlo.all_gather' op attribute 'all_gather_dim' failed to satisfy constraint: "
     "64-bit signless integer attribute whose value is non-negative"),
    ('%0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = '
     'dense<[[0, 2]]> : tensor<1x2xi64>} : (tensor<4x16xf32>) -> tensor<4x32xf32>',
     "replica id #1 not seen in replica groups"),
    ('%0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = '
     'dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x16xf32>) -> tensor<4x40xf32>',
     "result gather dimension has size 40, expected to be a multiple of operand gather "
     "dimension size 16"),
    ('%0 = "stablehlo.all_reduce"(%x) ' + REGION + ' {replica_groups = dense<[[0, 0]]> : '
     'tensor<1x2xi64>} : (tensor<4x16xf32>) -> tensor<4x16xf32>',
     "replica id #0 seen more than once"),
    ('%0 = "stablehlo.all_reduce"(%x) ' + REGION + ' {replica_groups = dense<[[0, 1]]> : '
     'tensor<1x2xi64>, use_global_device_ids} : (tensor<4x16xf32>) -> tensor<4x16xf32>',
     "channel_id must be positive when useGlobalDeviceIds is set but got: 0"),
    ('%0 = "stablehlo.reduce_scatter"(%x) ' + REGION + ' {scatter_dimension = 1 : i64, '
     'replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} '
     ': (tensor<4x16xf32>) -> tensor<3x8xf32>',
     "non scatter dimensions should be same for operand (4) and result (3)"),
    ('%0 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64,'
     ' split_count = 5 : i64, replica_groups = dense<[[0, 1, 2, 3, 4]]> : tensor<1x5xi64>} '
     ': (tensor<4x16xf32>) -> tensor<20x3xf32>',
     "split dimension has size 16, expected to be a multiple of split_count 5"),
    ('%0 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64,'
     ' split_count = 4 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} '
     ': (tensor<4x16xf32>) -> tensor<16x4xf32>',
     "group size of replica_groups must be 4"),
    ('%0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [0, 2]]> :'
     ' tensor<2x2xi64>} : (tensor<4x16xf32>) -> tensor<4x16xf32>',
     "duplicate sources not allowed"),
    ('%0 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[1, 1]]> : '
     'tensor<1x2xi64>} : (tensor<4x16xf32>) -> tensor<4x16xf32>',
     "replica id #1 seen more than once"),
])
def test_collective_verifiers(op: str, message: str) -> None:
    assert message in message_of(func("  " + op))


@pytest.mark.parametrize(("op", "message"), [
    ('%0 = "stablehlo.send"(%y, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, '
     'type = 1>, is_host_transfer = true} : (tensor<2xi32>, !stablehlo.token) -> '
     '!stablehlo.token',
     "channel_type should be DEVICE_TO_HOST when is_host_transfer is true"),
    ('%0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, '
     'type = 3>} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)',
     "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false"),
    ('%0:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>)',
     "last element of result types is expected to be of token type, but got 'tensor<2xi32>'"),
    ('%0:2 = "stablehlo.infeed"(%t) {layout = [[0], [1]]} : (!stablehlo.token) -> '
     '(tensor<2xi32>, !stablehlo.token)',
     "layout-attribute size must be 1 (which is the number of op-results - 1 (for token "
     "result)), but got 2"),
])
def test_channel_and_feed_verifiers(op: str, message: str) -> None:
    text = func("  " + op, args="%y: tensor<2xi32>, %t: !stablehlo.token")
    assert message in message_of(text)


def test_valid_programs_pass() -> None:
    verify_all(func('  %0 = "stablehlo.collective_broadcast"(%x) {replica_groups = '
                    'dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<4x16xf32>) -> '
                    'tensor<4x16xf32>'))
    verify_all(func('  %0 = "stablehlo.all_reduce"(%x) ' + REGION + ' {replica_groups = '
                    'dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>} : (tensor<4x16xf32>) -> '
                    'tensor<4x16xf32>'))


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="conformance suite not present")
@pytest.mark.parametrize("name", [
    "all_gather", "all_reduce", "all_to_all", "collective_broadcast", "collective_permute",
    "collective_reduce", "reduce_scatter", "replica_id", "partition_id", "send_recv", "infeed",
    "outfeed"])
def test_interpreter_test_programs_verify(name: str) -> None:
    for chunk in (CONFORMANCE / f"{name}.mlir").read_text().split("\n// -----\n"):
        verify_all(chunk)
