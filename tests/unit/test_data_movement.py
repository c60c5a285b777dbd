"""Data-movement ops: upstream assembly (print + re-parse) and evaluators against the spec."""
# ruff: noqa: E501  (upstream MLIR lines are kept whole)

from __future__ import annotations

import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import broadcast, reshaping, slicing
from shlo_cli.interpreter.engine import EvaluationError
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source, scalar_type
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import TensorType


def _t(shape: tuple[int, ...], dtype: str = "i32") -> TensorType:
    return TensorType(tuple(shape), scalar_type(dtype))


# ---- assembly -------------------------------------------------------------------------------

GENERIC = """func.func @f(%arg0: tensor<1x2xf32>, %arg1: tensor<3x4xi32>, %arg2: tensor<i64>,
    %arg3: tensor<8xf32>, %arg4: tensor<f32>, %arg5: tensor<3x8xf32>, %arg6: tensor<4x1xf32>,
    %arg7: tensor<4x2xf32>) {
  %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<1x2xf32>) -> tensor<1x2x3xf32>
  %1 = "stablehlo.reverse"(%arg0) {dimensions = array<i64: 0, 1>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %2 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<1x2xf32>) -> tensor<2x1xf32>
  %3 = "stablehlo.dynamic_slice"(%arg1, %arg2, %arg2) {slice_sizes = array<i64: 1, 4>} : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>
  %4 = "stablehlo.pad"(%arg3, %arg4) { edge_padding_high = array<i64: 4>, edge_padding_low = array<i64: 4>, interior_padding = array<i64: 0>} : (tensor<8xf32>, tensor<f32>) -> tensor<16xf32>
  %5 = "stablehlo.reshape"(%arg0) : (tensor<1x2xf32>) -> tensor<2xf32>
  %6 = "stablehlo.slice"(%arg5) {start_indices = array<i64: 1, 4>, limit_indices = array<i64: 3, 8>, strides = array<i64: 1, 2>} : (tensor<3x8xf32>) -> tensor<2x2xf32>
  %7 = "stablehlo.slice"(%arg5) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x8xf32>) -> tensor<1x1xf32>
  %8 = "stablehlo.concatenate"(%arg6, %arg7) {dimension = 1 : i64} : (tensor<4x1xf32>, tensor<4x2xf32>) -> tensor<4x3xf32>
  %9 = "stablehlo.get_dimension_size"(%arg7) {dimension = 1 : i64} : (tensor<4x2xf32>) -> tensor<i32>
  %10 = "stablehlo.dynamic_update_slice"(%arg1, %3, %arg2, %arg2) : (tensor<3x4xi32>, tensor<1x4xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
  func.return
}
"""

EXPECTED = [
    "%0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<1x2x3xf32>",
    "%1 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<1x2xf32>",
    "%2 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<1x2xf32>) -> tensor<2x1xf32>",
    "%3 = stablehlo.dynamic_slice %arg1, %arg2, %arg2, sizes = [1, 4] : (tensor<3x4xi32>, "
    "tensor<i64>, tensor<i64>) -> tensor<1x4xi32>",
    "%4 = stablehlo.pad %arg3, %arg4, low = [4], high = [4], interior = [0] : (tensor<8xf32>, "
    "tensor<f32>) -> tensor<16xf32>",
    "%5 = stablehlo.reshape %arg0 : (tensor<1x2xf32>) -> tensor<2xf32>",
    "%6 = stablehlo.slice %arg5 [1:3, 4:8:2] : (tensor<3x8xf32>) -> tensor<2x2xf32>",
    "%7 = stablehlo.slice %arg5 [0:1, 0:1] : (tensor<3x8xf32>) -> tensor<1x1xf32>",
    "%8 = stablehlo.concatenate %arg6, %arg7, dim = 1 : (tensor<4x1xf32>, tensor<4x2xf32>) -> "
    "tensor<4x3xf32>",
    "%9 = stablehlo.get_dimension_size %arg7, dim = 1 : (tensor<4x2xf32>) -> tensor<i32>",
    "%10 = stablehlo.dynamic_update_slice %arg1, %3, %arg2, %arg2 : (tensor<3x4xi32>, "
    "tensor<1x4xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>",
]


def test_custom_assembly_matches_upstream_and_reparses() -> None:
    printed = print_module(parse_source(GENERIC))
    lines = [line.strip() for line in printed.splitlines()]
    for line in EXPECTED:
        assert line in lines
    assert print_module(parse_source(printed)) == printed
    assert print_module(parse_source(printed), generic=True) == print_module(
        parse_source(GENERIC), generic=True)


def test_slice_with_explicit_unit_stride_and_extra_attrs() -> None:
    text = """func.func @f(%a: tensor<8xf32>) -> tensor<4xf32> {
  %0 = stablehlo.slice %a [0:4:1] {foo} : (tensor<8xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}"""
    printed = print_module(parse_source(text))
    assert "stablehlo.slice %arg0 [0:4] {foo} : (tensor<8xf32>) -> tensor<4xf32>" in printed


# ---- evaluators -----------------------------------------------------------------------------


def test_broadcast_in_dim_permuted_and_expanded() -> None:
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = broadcast.broadcast_in_dim(x, broadcast_dimensions=(2, 0), result_type=_t((3, 4, 2)))
    for i, j, k in np.ndindex(3, 4, 2):
        assert out[i, j, k] == x[k, i]
    ones = broadcast.broadcast_in_dim(np.array([[7]], np.int32), broadcast_dimensions=(0, 1),
                               result_type=_t((2, 3)))
    np.testing.assert_array_equal(ones, np.full((2, 3), 7))
    assert ones.flags.c_contiguous and ones.flags.writeable


def test_pad_negative_and_interior() -> None:
    x = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    low, high, interior = (0, 1), (2, -1), (1, 2)
    shape = tuple(lo + hi + n + (n - 1) * i for lo, hi, n, i in zip(low, high, x.shape, interior, strict=False))
    out = slicing.pad(x, np.array(0, np.int32), edge_padding_low=low, edge_padding_high=high,
                 interior_padding=interior, result_type=_t(shape))
    want = np.zeros(shape, np.int32)
    for (i, j), v in np.ndenumerate(x):
        r, c = low[0] + i * (interior[0] + 1), low[1] + j * (interior[1] + 1)
        if 0 <= r < shape[0] and 0 <= c < shape[1]:
            want[r, c] = v
    np.testing.assert_array_equal(out, want)
    cut = slicing.pad(np.arange(5, dtype=np.int32), np.array(-1, np.int32), edge_padding_low=(-2,),
                 edge_padding_high=(-1,), interior_padding=(0,), result_type=_t((2,)))
    np.testing.assert_array_equal(cut, [2, 3])


def test_dynamic_slice_clamps_start() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = slicing.dynamic_slice(x, np.array(5, np.int64), np.array(-3, np.int64), slice_sizes=(2, 2),
                           result_type=_t((2, 2)))
    np.testing.assert_array_equal(out, x[1:3, 0:2])


def test_dynamic_update_slice_clamps_and_copies() -> None:
    x = np.zeros((3, 4), np.int32)
    upd = np.ones((2, 2), np.int32)
    out = slicing.dynamic_update_slice(x, upd, np.array(9, np.int32), np.array(3, np.int32),
                                  result_type=_t((3, 4)))
    want = np.zeros((3, 4), np.int32)
    want[1:3, 2:4] = 1
    np.testing.assert_array_equal(out, want)
    assert not x.any()


def test_slice_reverse_transpose_reshape_concatenate() -> None:
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        slicing.slice_(x, start_indices=(0, 1, 0), limit_indices=(2, 3, 4), strides=(1, 1, 3),
                  result_type=_t((2, 2, 2))), x[:, 1:3, ::3])
    np.testing.assert_array_equal(reshaping.reverse(x, dimensions=(0, 2), result_type=_t(x.shape)),
                                  x[::-1, :, ::-1])
    np.testing.assert_array_equal(
        reshaping.transpose(x, permutation=(2, 0, 1), result_type=_t((4, 2, 3))), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(reshaping.reshape(x, result_type=_t((6, 4))), x.reshape(6, 4))
    np.testing.assert_array_equal(
        slicing.concatenate(x, x[:, :1], dimension=1, result_type=_t((2, 4, 4))),
        np.concatenate([x, x[:, :1]], axis=1))


def test_get_dimension_size_uses_result_type() -> None:
    out = reshaping.get_dimension_size(np.zeros((4, 7)), dimension=1, result_type=_t(()))
    assert out.dtype == np.int32 and out == 7


def test_shape_mismatch_is_an_evaluation_error() -> None:
    with pytest.raises(EvaluationError):
        reshaping.reshape(np.zeros(6), result_type=_t((4,)))


# ---- dynamic and legacy relatives -----------------------------------------------------------

RELATIVES = """func.func @f(%a: tensor<f32>, %s: tensor<1xi32>, %x: tensor<?x3xf32>, %i: tensor<2xi32>,
    %v: tensor<3xi32>, %m: tensor<4x2xf32>, %n: tensor<i32>, %p: tensor<f32>, %q: tensor<1xindex>,
    %y: tensor<?xf32>) {
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64>} : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
  %1 = "stablehlo.real_dynamic_slice"(%x, %i, %i, %i) : (tensor<?x3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x2xf32>
  %2 = "stablehlo.broadcast"(%v) {broadcast_sizes = array<i64: 1, 2>} : (tensor<3xi32>) -> tensor<1x2x3xi32>
  %3 = "stablehlo.set_dimension_size"(%m, %n) {dimension = 1 : i64} : (tensor<4x2xf32>, tensor<i32>) -> tensor<4x2xf32>
  %4 = "stablehlo.dynamic_pad"(%y, %p, %q, %q, %q) : (tensor<?xf32>, tensor<f32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?xf32>
  %5 = "stablehlo.dynamic_reshape"(%y, %q) : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
  func.return
}
"""


def test_relatives_assembly() -> None:
    printed = print_module(parse_source(RELATIVES))
    for line in (
        "%0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>",
        "%1 = stablehlo.real_dynamic_slice %arg2, %arg3, %arg3, %arg3 : (tensor<?x3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x2xf32>",
        "%2 = stablehlo.broadcast %arg4, sizes = [1, 2] : (tensor<3xi32>) -> tensor<1x2x3xi32>",
        "%3 = stablehlo.set_dimension_size %arg5, %arg6, dim = 1 : (tensor<4x2xf32>, tensor<i32>) -> tensor<4x2xf32>",
        "%4 = stablehlo.dynamic_pad %arg9, %arg7, %arg8, %arg8, %arg8 : (tensor<?xf32>, tensor<f32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?xf32>",
        "%5 = stablehlo.dynamic_reshape %arg9, %arg8 : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>",
    ):
        assert line in printed
    assert print_module(parse_source(printed)) == printed


def test_relatives_evaluate_like_their_static_ops() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    dyn_t = TensorType((-1, -1), scalar_type("i32"))
    np.testing.assert_array_equal(
        broadcast.dynamic_broadcast_in_dim(x[:, :1], np.array([3, 2, 5]), broadcast_dimensions=(0, 2),
                                    result_type=TensorType((3, 2, -1), scalar_type("i32"))),
        np.broadcast_to(x[:, :1].reshape(3, 1, 1), (3, 2, 5)))
    np.testing.assert_array_equal(
        slicing.real_dynamic_slice(x, np.array([1, 0]), np.array([3, 4]), np.array([1, 3]),
                              result_type=dyn_t), x[1:3, 0:4:3])
    np.testing.assert_array_equal(
        slicing.dynamic_pad(x, np.array(0, np.int32), np.array([1, -1]), np.array([0, 2]),
                       np.array([1, 0]), result_type=dyn_t),
        slicing.pad(x, np.array(0, np.int32), edge_padding_low=(1, -1), edge_padding_high=(0, 2),
               interior_padding=(1, 0), result_type=_t((6, 5))))
    np.testing.assert_array_equal(
        reshaping.dynamic_reshape(x, np.array([2, 6]), result_type=dyn_t), x.reshape(2, 6))
    np.testing.assert_array_equal(
        broadcast.broadcast(x[0], broadcast_sizes=(2,), result_type=_t((2, 4))), [x[0], x[0]])
    with pytest.raises(EvaluationError):
        slicing.real_dynamic_slice(x, np.array([2, 0]), np.array([1, 4]), np.array([1, 1]),
                              result_type=dyn_t)


# ---- verifiers ------------------------------------------------------------------------------


def _first_error(body: str, args: str) -> str | None:
    module = parse_source(f"func.func @f({args}) {{\n{body}\n  func.return\n}}")
    for op in module.op.walk():
        if op.opdef is not None and op.opdef.verify is not None:
            try:
                op.opdef.verify(op)
            except Diagnostic as d:
                return d.message
    return None


@pytest.mark.parametrize(("body", "message"), [
    ("%0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x4xf32>",
     None),
    ("%0 = stablehlo.broadcast_in_dim %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x3x4xf32>",
     "broadcast_dimensions should not have duplicates"),
    ("%0 = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<2x3x4xf32>",
     "size of operand dimension 0 (2) is not equal to 1 or size of result dimension 1 (3)"),
    ("%0 = stablehlo.transpose %a, dims = [1, 1] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
     "attribute permutation must be a permutation of [0, 1] but got 1, 1"),
    ("%0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>",
     "'stablehlo.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return "
     "type(s) of operation 'tensor<2x3xf32>'"),
    ("%0 = stablehlo.slice %a [0:2, 2:1] : (tensor<2x3xf32>) -> tensor<2x1xf32>",
     "start index 2 is larger than limit index 1 in dimension 1"),
    ("%0 = stablehlo.slice %a [0:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<2x2xf32>", None),
    ("%0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x2xf32>) -> "
     "tensor<4x3xf32>", "shapes of operand (0) and (1) are not compatible at non-concat index 1: "
                        "(2, 3) != (2, 2)"),
    ("%0 = stablehlo.pad %a, %s, low = [0, 0], high = [0, -4], interior = [0, 0] : "
     "(tensor<2x3xf32>, tensor<f32>) -> tensor<2x0xf32>",
     "Padding result in negative size for dimension 1"),
    ("%0 = stablehlo.pad %a, %s, low = [1, 0], high = [0, 0], interior = [1, 1] : "
     "(tensor<2x3xf32>, tensor<f32>) -> tensor<4x5xf32>", None),
    ("%0 = stablehlo.reverse %a, dims = [2] : tensor<2x3xf32>",
     "all dimensions should be between [0, 2). Got dimension: 2."),
    ("%0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<7xf32>",
     "number of output elements (7) doesn't match expected number of elements (6)"),
    ("%0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [1, 4] : (tensor<2x3xf32>, tensor<i32>, "
     "tensor<i32>) -> tensor<1x4xf32>",
     "has slice size 4 greater than dimension size 3 in dimension 1 of operand"),
    ("%0 = stablehlo.dynamic_update_slice %a, %b, %i, %i : (tensor<2x3xf32>, tensor<2x2xf32>, "
     "tensor<i32>, tensor<i32>) -> tensor<2x3xf32>", None),
    ("%0 = stablehlo.get_dimension_size %a, dim = 2 : (tensor<2x3xf32>) -> tensor<i32>",
     "requires dimension attribute in range [0, 2); found (2)"),
])
def test_verifiers(body: str, message: str | None) -> None:
    args = "%a: tensor<2x3xf32>, %b: tensor<2x2xf32>, %s: tensor<f32>, %i: tensor<i32>"
    got = _first_error("  " + body, args)
    assert got == message if message is None else (got is not None and message in got)
