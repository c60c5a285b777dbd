"""The element-type and shape traits of StableHLO/CHLO ops, and their order, as MLIR
reports them (found by differential fuzzing against jaxlib's MLIR): an op's own traits
before its class's, native traits before the inferred-type check. Without the element
traits `reshape`, `broadcast_in_dim` and `reverse` to another element type were accepted."""

from __future__ import annotations

import pytest
from verify_helpers import errors, function

ARGS = "%a: tensor<2xf32>, %b: tensor<2x2xf32>, %i: tensor<2xi32>"
SAME = "requires the same element type for all operands and results"
COMPATIBLE = "requires compatible element types for all operands and results"


@pytest.mark.parametrize(("op", "message"), [
    ('"stablehlo.reshape"(%a) : (tensor<2xf32>) -> tensor<2xi32>', COMPATIBLE),
    ('"stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 0>} : '
     "(tensor<2xf32>) -> tensor<2xi32>", COMPATIBLE),
    ('"stablehlo.transpose"(%a) {permutation = array<i64: 0>} : (tensor<2xf32>) -> '
     "tensor<2xi32>", COMPATIBLE),
    ('"stablehlo.cholesky"(%b) : (tensor<2x2xf32>) -> tensor<2x2xf64>', COMPATIBLE),
    ('"stablehlo.clamp"(%a, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> '
     "tensor<2xf64>", COMPATIBLE),
    ('"stablehlo.triangular_solve"(%b, %b) {left_side = true, lower = true, unit_diagonal = '
     "false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf32>, "
     "tensor<2x2xf32>) -> tensor<2x2xf64>", COMPATIBLE),
    ('"stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<2xf32>) -> '
     "tensor<2xi32>", SAME),
    ('"stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, '
     "strides = array<i64: 1>} : (tensor<2xf32>) -> tensor<2xi32>", SAME),
    ('"stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 3>} : (tensor<2xf32>) -> '
     "tensor<3x2xi32>", SAME),
    ('"stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<2xf32>, '
     "tensor<2xf32>) -> tensor<4xi32>", SAME),
])
def test_element_type_traits(op: str, message: str) -> None:
    name = op.split('"')[1]
    assert errors(function(f"  %0 = {op}", ARGS))[0] == (2, f"'{name}' op {message}")


SHAPE = "requires the same shape for all operands and results"
ELEMENTWISE = "all non-scalar operands/results must have the same shape and base type"
TYPES = "requires compatible types for all operands and results"


@pytest.mark.parametrize(("op", "message"), [
    # HLO_CompatibleOperandsAndResultType listed by the op: before the class's traits
    ('"stablehlo.exponential"(%a) : (tensor<2xf32>) -> tensor<3xf32>', TYPES),
    ('"stablehlo.atan2"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>', TYPES),
    ('"stablehlo.and"(%i, %i) : (tensor<2xi32>, tensor<2xi32>) -> tensor<3xi32>', TYPES),
    # convert lists SameOperandsAndResultShape itself
    ('"stablehlo.convert"(%a) : (tensor<2xf32>) -> tensor<3xf64>', SHAPE),
    # the class's own order: binary ops' shape trait, unary ops' Elementwise
    ('"stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>', SHAPE),
    ('"stablehlo.abs"(%a) : (tensor<2xf32>) -> tensor<3xf32>', ELEMENTWISE),
    # CHLO: native traits before the inferred type
    ('"chlo.acosh"(%a) : (tensor<2xf32>) -> tensor<3xf32>', TYPES),
    ('"chlo.is_inf"(%a) : (tensor<2xf32>) -> tensor<3xi1>', ELEMENTWISE),
])
def test_shape_mismatch_is_reported_by_the_first_trait(op: str, message: str) -> None:
    name = op.split('"')[1]
    assert errors(function(f"  %0 = {op}", ARGS))[0] == (2, f"'{name}' op {message}")


def test_same_element_types_still_verify() -> None:
    assert errors(function('  %0 = "stablehlo.reshape"(%b) : (tensor<2x2xf32>) -> '
                           "tensor<4xf32>", ARGS)) == []
