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


@pytest.mark.parametrize(("op", "message"), [
    # AllMatchSameOperatorTrait, before the op's own size checks
    ('"stablehlo.pad"(%b, %z) {edge_padding_low = array<i64: 0>, edge_padding_high = '
     "array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x2xf32>, tensor<f32>) "
     "-> tensor<2x2xf32>", "'stablehlo.pad' op failed to verify that all of {edge_padding_low, "
     "edge_padding_high, interior_padding} have same size"),
    ('"stablehlo.slice"(%b) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2>, '
     "strides = array<i64: 1, 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>",
     "'stablehlo.slice' op failed to verify that all of {start_indices, limit_indices, "
     "strides} have same size"),
    # HLO_PredTensor is described as `bool` since upstream's March 2025 Base.td
    ('"stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction EQ>}'
     " : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>",
     "'stablehlo.compare' op result #0 must be ranked tensor of bool values, but got "
     "'tensor<2xi32>'"),
    # select's predicate must be i1 (it was accepted)
    ('"stablehlo.select"(%i, %a, %a) : (tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) -> '
     "tensor<2xf32>", "'stablehlo.select' op operand #0 must be ranked tensor of bool values, "
     "but got 'tensor<2xi32>'"),
    # chlo.top_k's results are inferred from k (another k was accepted)
    ("chlo.top_k(%b, k = 1) : tensor<2x2xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)",
     "'chlo.top_k' op inferred type(s) 'tensor<2x1xf32>', 'tensor<2x1xi32>' are incompatible "
     "with return type(s) of operation 'tensor<2x2xf32>', 'tensor<2x2xi32>'"),
    # a negative k is a static size in MLIR's inferred types: only `?` is compatible with it
    # (shlo's dynamic size is -1, so these were accepted)
    ("chlo.top_k(%b, k = -1) : tensor<2x2xf32> -> (tensor<2x1xf32>, tensor<2x1xi32>)",
     "'chlo.top_k' op inferred type(s) 'tensor<2x-1xf32>', 'tensor<2x-1xi32>' are incompatible "
     "with return type(s) of operation 'tensor<2x1xf32>', 'tensor<2x1xi32>'"),
    # an unranked operand: unranked results of its element type and i32 (swapped: accepted)
    ("chlo.top_k(%u, k = 1) : tensor<*xf32> -> (tensor<*xi32>, tensor<*xf32>)",
     "'chlo.top_k' op inferred type(s) 'tensor<*xf32>', 'tensor<*xi32>' are incompatible "
     "with return type(s) of operation 'tensor<*xi32>', 'tensor<*xf32>'"),
    # dot_general's result shape is inferred (any shape was accepted)
    ("stablehlo.dot_general %b, %b, batching_dims = [0] x [0], contracting_dims = [1] x [1] : "
     "(tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
     "inferred shape '[2]' is incompatible with return type of operation 'tensor<2x2xf32>'"),
    # get_dimension_size returns tensor<i32> (any result was accepted)
    ("stablehlo.get_dimension_size %b, dim = 1 : (tensor<2x2xf32>) -> tensor<i64>",
     "'stablehlo.get_dimension_size' op result #0 must be ranked tensor of 32-bit signless "
     "integer values, but got 'tensor<i64>'"),
    ("stablehlo.get_dimension_size %b, dim = 1 : (tensor<2x2xf32>) -> tensor<1xi32>",
     "'stablehlo.get_dimension_size' op inferred type(s) 'tensor<i32>' are incompatible with "
     "return type(s) of operation 'tensor<1xi32>'"),
])
def test_ods_constraints_found_by_fuzzing(op: str, message: str) -> None:
    head = "%0:2" if "top_k" in op else "%0"
    args = ARGS + ", %z: tensor<f32>, %u: tensor<*xf32>"
    assert errors(function(f"  {head} = {op}", args))[0] == (2, message)


def test_naming_an_op_without_results() -> None:
    text = function('  %0 = "stablehlo.custom_call"(%a) {call_target_name = "f"} : '
                    "(tensor<2xf32>) -> ()", ARGS)
    assert errors(text) == [(2, "cannot name an operation with no results")]


@pytest.mark.parametrize(("op", "description"), [
    ("abs", "2/4/8/16/32/64-bit signless integer or 4/6/8/16/32/64-bit float or complex type "
            "with 32/64-bit float elements or per-tensor integer quantized"),
    ("convert", "4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex "
                "type with 32/64-bit float elements"),
    ("not", "bool or 2/4/8/16/32/64-bit integer"),
    ("ceil", "4/6/8/16/32/64-bit float or per-tensor integer quantized"),
])
def test_ods_type_descriptions(op: str, description: str) -> None:
    """Base.td's descriptions of the element constraints, in their order."""
    text = function(f'  %0 = "stablehlo.{op}"(%x) : (tensor<2xindex>) -> tensor<2xindex>',
                    "%x: tensor<2xindex>")
    assert errors(text)[0] == (2, f"'stablehlo.{op}' op operand #0 must be ranked tensor of "
                                  f"{description} values, but got 'tensor<2xindex>'")


@pytest.mark.parametrize("op", ["multiply", "maximum", "minimum"])
def test_per_axis_quantized_operands_need_an_op_that_takes_them(op: str) -> None:
    """HLO_Tensor (StablehloOps.td: the binary class's default) has no per-axis kind; add's
    HLO_TensorOrPerAxisQuantizedTensor has."""
    t = "tensor<2x!quant.uniform<i8:f32:0, {0.1:-30, 0.5:-20}>>"
    message = errors(function(f'  %0 = "stablehlo.{op}"(%q, %q) : ({t}, {t}) -> {t}',
                              f"%q: {t}"))[0][1]
    assert message.startswith(
        f"'stablehlo.{op}' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or "
        "bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or "
        "per-tensor integer quantized values, but got ")
    assert errors(function(f'  %0 = "stablehlo.add"(%q, %q) : ({t}, {t}) -> {t}',
                           f"%q: {t}")) == []


@pytest.mark.parametrize(("op", "message"), [
    # a PredOpTrait (checked with the op's invariants) before the element-type trait
    ('"stablehlo.pad"(%b, %i0) {edge_padding_low = array<i64: 0>, edge_padding_high = '
     "array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x2xf32>, tensor<i32>) "
     "-> tensor<2x2xf32>", "'stablehlo.pad' op failed to verify that all of {edge_padding_low, "
     "edge_padding_high, interior_padding} have same size"),
    # AllElementTypesMatch (the inferred type was reported instead)
    ("stablehlo.dynamic_slice %b, %i0, %i0, sizes = [1, 1] : (tensor<2x2xf32>, tensor<i32>, "
     "tensor<i32>) -> tensor<1x1xi32>", "'stablehlo.dynamic_slice' op failed to verify that all "
     "of {operand, result} have same element type"),
    ("stablehlo.dynamic_update_slice %b, %u, %i0, %i0 : (tensor<2x2xf32>, tensor<1x1xi32>, "
     "tensor<i32>, tensor<i32>) -> tensor<2x2xf32>", "'stablehlo.dynamic_update_slice' op "
     "failed to verify that all of {operand, update, result} have same element type"),
])
def test_pred_op_traits_come_first(op: str, message: str) -> None:
    args = ARGS + ", %i0: tensor<i32>, %u: tensor<1x1xi32>"
    assert errors(function(f"  %0 = {op}", args))[0] == (2, message)


@pytest.mark.parametrize(("op", "message"), [
    # reverse's result is its operand's type (another shape was accepted)
    ("stablehlo.reverse %b, dims = [0] : (tensor<2x2xf32>) -> tensor<3x2xf32>",
     "'stablehlo.reverse' op inferred type(s) 'tensor<2x2xf32>' are incompatible with return "
     "type(s) of operation 'tensor<3x2xf32>'"),
    # sort's SameOperandsAndResultShape (another result shape was accepted)
    ('"stablehlo.sort"(%b) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
     "    %c = stablehlo.compare GT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
     "    stablehlo.return %c : tensor<i1>\n  }) {dimension = 0 : i64} : (tensor<2x2xf32>) -> "
     "tensor<3x2xf32>", "'stablehlo.sort' op requires the same shape for all operands and "
     "results"),
    # ... and its results are its inputs' types (another element type was accepted)
    ('"stablehlo.sort"(%b) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
     "    %c = stablehlo.compare GT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
     "    stablehlo.return %c : tensor<i1>\n  }) {dimension = 0 : i64} : (tensor<2x2xf32>) -> "
     "tensor<2x2xi32>", "'stablehlo.sort' op inferred type(s) 'tensor<2x2xf32>' are "
     "incompatible with return type(s) of operation 'tensor<2x2xi32>'"),
])
def test_result_shapes_found_by_fuzzing(op: str, message: str) -> None:
    assert errors(function(f"  %0 = {op}", ARGS))[0] == (2, message)


@pytest.mark.parametrize(("op", "message"), [
    # while's results are its operands' types (another result type was accepted)
    ('"stablehlo.while"(%a) ({\n  ^bb0(%x: tensor<2xf32>):\n'
     "    %c = stablehlo.constant dense<true> : tensor<i1>\n    stablehlo.return %c : tensor<i1>\n"
     "  }, {\n  ^bb0(%x: tensor<2xf32>):\n    stablehlo.return %x : tensor<2xf32>\n"
     "  }) : (tensor<2xf32>) -> tensor<2xi32>",
     "'stablehlo.while' op inferred type(s) 'tensor<2xf32>' are incompatible with return "
     "type(s) of operation 'tensor<2xi32>'"),
    # upstream's verifyCollectiveBroadcastOp: no negative replica id, rank-2 groups
    ('"stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, -1]]> : '
     "tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>",
     "replica_groups values must be positive, but was given -1"),
    ('"stablehlo.collective_broadcast"(%a) {replica_groups = dense<[0, 1]> : tensor<2xi64>} '
     ": (tensor<2xf32>) -> tensor<2xf32>",
     "replica groups should be a rank 2 tensor,but instead it is of rank 1"),
])
def test_region_and_collective_ops_found_by_fuzzing(op: str, message: str) -> None:
    assert errors(function(f"  %0 = {op}", ARGS))[0] == (2, message)


def test_collective_broadcast_takes_empty_groups() -> None:
    """Upstream does not refuse them (only all_reduce-like ops do)."""
    assert errors(function('  %0 = "stablehlo.collective_broadcast"(%a) {replica_groups = '
                           "dense<> : tensor<0x0xi64>} : (tensor<2xf32>) -> tensor<2xf32>",
                           ARGS)) == []


def test_required_attributes_are_checked_in_name_order() -> None:
    # ODS checks required attributes in name order: transpose_a before unit_diagonal
    op = ('"stablehlo.triangular_solve"(%b, %b) {left_side = true, lower = true} : '
          "(tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>")
    assert errors(function(f"  %0 = {op}", ARGS))[0] == (
        2, "'stablehlo.triangular_solve' op requires attribute 'transpose_a'")


FP_OR_COMPLEX = "4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements"


@pytest.mark.parametrize(("op", "message"), [
    # ChloOps.td's operand constraints (all these were ACCEPTED) ...
    ("chlo.square %i : tensor<2xi32> -> tensor<2xi32>",
     f"'chlo.square' op operand #0 must be tensor of {FP_OR_COMPLEX} values, but got "
     "'tensor<2xi32>'"),
    ("chlo.erf %c : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>",
     "'chlo.erf' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got "
     "'tensor<2xcomplex<f32>>'"),
    ("chlo._asin_acos_kernel %a : tensor<2xf32> -> tensor<2xf32>",
     "'chlo._asin_acos_kernel' op operand #0 must be tensor of complex type with 32/64-bit "
     "float elements values, but got 'tensor<2xf32>'"),
    ("chlo.is_inf %i : tensor<2xi32> -> tensor<2xi1>",
     "'chlo.is_inf' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got "
     "'tensor<2xi32>'"),
    # ... and result constraints, before the compatible-types trait
    ("chlo.tan %a : tensor<2xf32> -> tensor<2xi64>",
     f"'chlo.tan' op result #0 must be tensor of {FP_OR_COMPLEX} values, but got "
     "'tensor<2xi64>'"),
    ("chlo.is_inf %a : tensor<2xf32> -> tensor<2xf32>",
     "'chlo.is_inf' op result #0 must be tensor of bool values, but got 'tensor<2xf32>'"),
    # the Elementwise trait: ranked and unranked tensors are different base types
    ("chlo.is_inf %u : tensor<*xf32> -> tensor<2xi1>",
     "'chlo.is_inf' op all non-scalar operands/results must have the same shape and base type"),
    # broadcast_in_dim's result constraint describes its element types
    ("stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<2xf32>) -> tensor<?x2xf32>",
     "'stablehlo.broadcast_in_dim' op result #0 must be statically shaped or single bounded "
     "dimension tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or "
     f"{FP_OR_COMPLEX[len('4/6/8/16/32/64-bit float or '):]} or per-tensor integer quantized "
     "or per-axis integer quantized values, but got 'tensor<?x2xf32>'"),
])
def test_chlo_type_constraints(op: str, message: str) -> None:
    args = ARGS + ", %c: tensor<2xcomplex<f32>>, %u: tensor<*xf32>"
    assert errors(function(f"  %0 = {op}", args))[0] == (2, message)


@pytest.mark.parametrize(("op", "message"), [
    # ChloOps.td's constraints of the other CHLO ops (all these were ACCEPTED)
    ("chlo.broadcast_and %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
     "'chlo.broadcast_and' op operand #0 must be tensor of bool or 2/4/8/16/32/64-bit integer "
     "values, but got 'tensor<2xf32>'"),
    ("chlo.next_after %i, %i : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>",
     "'chlo.next_after' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but "
     "got 'tensor<2xi32>'"),
    ("chlo.broadcast_complex %i, %i : (tensor<2xi32>, tensor<2xi32>) -> "
     "tensor<2xcomplex<f32>>", "'chlo.broadcast_complex' op operand #0 must be tensor of "
     "4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'"),
    ("chlo.broadcast_compare %a, %a {comparison_direction = #chlo<comparison_direction EQ>} : "
     "(tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
     "'chlo.broadcast_compare' op result #0 must be tensor of bool values, but got "
     "'tensor<2xf32>'"),
    # SameOperandsAndResultElementType of most broadcasting ops (next_after's was missing)
    ("chlo.broadcast_next_after %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf64>",
     "'chlo.broadcast_next_after' op requires the same element type for all operands and "
     "results"),
    ("chlo.broadcast_subtract %i, %i : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xf32>",
     "'chlo.broadcast_subtract' op requires the same element type for all operands and "
     "results"),
    # the logical ops and compare have no element trait: their inference decides
    ("chlo.broadcast_and %i, %i : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xf32>",
     "'chlo.broadcast_and' op inferred type(s) 'tensor<2xi32>' are incompatible with return "
     "type(s) of operation 'tensor<2xf32>'"),
    ("chlo.broadcast_xor %p, %i : (tensor<2xi1>, tensor<2xi32>) -> tensor<2xi1>",
     "mismatched operand types"),
])
def test_chlo_binary_constraints(op: str, message: str) -> None:
    args = ARGS + ", %p: tensor<2xi1>"
    assert errors(function(f"  %0 = {op}", args))[0] == (2, message)


@pytest.mark.parametrize(("op", "message"), [
    # upstream's verifyDynamicReshapeOp: the types named, the count given, in its order
    ("stablehlo.dynamic_reshape %b, %s : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<5xf32>",
     "number of output elements (5) doesn't match expected number of elements (4)"),
    ("stablehlo.dynamic_reshape %b, %s : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<4xi32>",
     "expects operand and result to have compatible element type. Got: 'tensor<2x2xf32>' and "
     "'tensor<4xi32>'"),
    ("stablehlo.dynamic_reshape %b, %t : (tensor<2x2xf32>, tensor<3xi64>) -> tensor<5xf32>",
     "number of output elements (5) doesn't match expected number of elements (4)"),
])
def test_dynamic_reshape_checks(op: str, message: str) -> None:
    args = ARGS + ", %s: tensor<2xi64>, %t: tensor<3xi64>"
    assert errors(function(f"  %0 = {op}", args))[0] == (2, message)


TS_ATTRS = ("{left_side = true, lower = true, unit_diagonal = false, transpose_a = "
            "#stablehlo<transpose NO_TRANSPOSE>}")


@pytest.mark.parametrize(("op", "message"), [
    # operand and result constraints come before the element-type traits
    (f'"stablehlo.triangular_solve"(%b, %b) {TS_ATTRS} : (tensor<2x2xf32>, tensor<2x2xf32>) '
     "-> tensor<2x2xi1>", "'stablehlo.triangular_solve' op result #0 must be ranked tensor of "
     f"{FP_OR_COMPLEX} values, but got 'tensor<2x2xi1>'"),
    # integer operands were ACCEPTED when the result was an integer too
    (f'"stablehlo.triangular_solve"(%j, %j) {TS_ATTRS} : (tensor<2x2xi32>, tensor<2x2xi32>) '
     "-> tensor<2x2xi32>", "'stablehlo.triangular_solve' op operand #0 must be ranked tensor "
     f"of {FP_OR_COMPLEX} values, but got 'tensor<2x2xi32>'"),
    ('"stablehlo.cholesky"(%j) {lower = true} : (tensor<2x2xi32>) -> tensor<2x2xi32>',
     f"'stablehlo.cholesky' op operand #0 must be ranked tensor of {FP_OR_COMPLEX} or "
     "per-tensor integer quantized values, but got 'tensor<2x2xi32>'"),
    ("stablehlo.reshape %b : (tensor<2x2xf32>) -> tensor<?xi32>",
     "'stablehlo.reshape' op result #0 must be statically shaped or single bounded dimension "
     "tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type "
     "with 32/64-bit float elements or per-tensor integer quantized or per-axis integer "
     "quantized values, but got 'tensor<?xi32>'"),
])
def test_type_constraints_before_element_traits(op: str, message: str) -> None:
    args = ARGS + ", %j: tensor<2x2xi32>"
    assert errors(function(f"  %0 = {op}", args))[0] == (2, message)


def test_select_and_scatter_result_is_inferred() -> None:
    # the operand's shape with the scatter region's element type (another shape was accepted)
    op = ('"stablehlo.select_and_scatter"(%a4, %s2, %z) ({\n  ^bb0(%x: tensor<f32>, '
          "%y: tensor<f32>):\n"
          "    %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
          "    stablehlo.return %c : tensor<i1>\n  }, {\n  ^bb0(%x: tensor<f32>, "
          "%y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n"
          "    stablehlo.return %s : tensor<f32>\n  }) {window_dimensions = array<i64: 2>, "
          "window_strides = array<i64: 2>} : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> "
          "tensor<5xf32>")
    text = function(f"  %0 = {op}", "%a4: tensor<4xf32>, %s2: tensor<2xf32>, %z: tensor<f32>")
    assert errors(text)[0] == (2, "'stablehlo.select_and_scatter' op inferred type(s) "
                                  "'tensor<4xf32>' are incompatible with return type(s) of "
                                  "operation 'tensor<5xf32>'")
