"""`--hlo-test-infer` and the inference table behind it (CHLO's broadcasting rules, the
verifier-reported inference of StableHLO ops, shape reification with the shape dialect)."""

from __future__ import annotations

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import DYNAMIC
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes, take_emitted
from shlo_cli.passes.infer_types import broadcast_extents, infer_types


def first_op(body: str, args: str):  # noqa: ANN201 - an Operation
    module = parse_source(f"func.func @f({args}) {{\n{body}\n  return\n}}", "t.mlir",
                          allow_unregistered=True)
    return module.functions()[0].regions[0].entry.operations[0]


@pytest.mark.parametrize(("a", "b", "expected"), [
    ((2, 1), (3,), [2, 3]),
    ((DYNAMIC,), (3,), [3]),
    ((DYNAMIC,), (1,), [DYNAMIC]),
    ((0,), (DYNAMIC, 1), [DYNAMIC, 0]),
    ((2,), (3,), None),
])
def test_broadcast_extents(a: tuple[int, ...], b: tuple[int, ...],
                           expected: list[int] | None) -> None:
    assert broadcast_extents(a, b) == expected


@pytest.mark.parametrize(("body", "expected"), [
    ("%0 = chlo.broadcast_add %a, %b : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>",
     "tensor<2x3xf32>"),
    ("%0 = chlo.broadcast_add %d, %s : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<f32>) "
     "-> tensor<?xf32, #stablehlo.bounds<4>>", "tensor<?xf32, #stablehlo.bounds<4>>"),
    ("%0 = chlo.broadcast_add %d, %u : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<?xf32>) "
     "-> tensor<?xf32>", "tensor<?xf32>"),
    ("%0 = chlo.broadcast_complex %a, %a : (tensor<3xf32>, tensor<3xf32>) "
     "-> tensor<3xcomplex<f32>>", "tensor<3xcomplex<f32>>"),
    ("%0 = chlo.is_inf %d : tensor<?xf32, #stablehlo.bounds<4>> -> "
     "tensor<?xi1, #stablehlo.bounds<4>>", "tensor<?xi1, #stablehlo.bounds<4>>"),
    ('%0 = "chlo.constant_like"(%r) { value = 1.0 : f32 } : (tensor<*xi64>) -> tensor<*xf32>',
     "tensor<*xf32>"),
    ("%0 = stablehlo.transpose %b, dims = [1, 0] : (tensor<2x1xf32>) -> tensor<1x2xf32>",
     "tensor<1x2xf32>"),
])
def test_infer_types(body: str, expected: str) -> None:
    args = ("%a: tensor<3xf32>, %b: tensor<2x1xf32>, %s: tensor<f32>, %u: tensor<?xf32>, "
            "%d: tensor<?xf32, #stablehlo.bounds<4>>, %r: tensor<*xi64>")
    types = infer_types(first_op(body, args))
    assert types is not None and [str(t) for t in types] == [expected]


def test_ops_without_inference_give_none() -> None:
    op = first_op('%0 = "x.y"(%a) : (tensor<3xf32>) -> tensor<3xf32>', "%a: tensor<3xf32>")
    assert infer_types(op) is None


def run(text: str) -> str:
    module = parse_source(text, "t.mlir", allow_unregistered=True)
    run_passes(module, ["hlo-test-infer"])
    return print_module(module)


def test_components_of_dot_general_have_index_elements() -> None:
    out = run("""func.func @f(%a: tensor<?x3xf32, #stablehlo.bounds<8, ?>>, %b: tensor<3x2xf32>)
    -> tensor<2xindex> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
     : (tensor<?x3xf32, #stablehlo.bounds<8, ?>>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %1 = "hlo_test_infer.get_return_type_components"(%0) : (tensor<?x2xf32>) -> tensor<2xindex>
  return %1 : tensor<2xindex>
}""")
    assert '"hlo_test_infer.return_type_components"(%0) {types0 = tensor<?x2xindex' in out


def test_reify_of_select_broadcasts_three_shapes() -> None:
    out = run("""func.func @f(%p: tensor<?xi1>, %a: tensor<?xf32>, %b: tensor<2x?xf32>)
    -> tensor<2xindex> {
  %0 = "chlo.broadcast_select"(%p, %a, %b)
     : (tensor<?xi1>, tensor<?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<2x?xf32>) -> tensor<2xindex>
  return %1 : tensor<2xindex>
}""")
    assert ("shape.broadcast %0, %1, %2 : tensor<1xindex>, tensor<1xindex>, tensor<2xindex> "
            "-> tensor<2xindex>") in out
    assert "chlo.broadcast_select" not in out
    assert take_emitted() == []


def test_shape_ops_verify_their_types() -> None:
    with pytest.raises(Diagnostic, match="incompatible with return type"):
        verify_module(parse_source(
            "func.func @f(%a: tensor<?xf32>) -> tensor<2xindex> {\n"
            "  %0 = shape.shape_of %a : tensor<?xf32> -> tensor<2xindex>\n"
            "  return %0 : tensor<2xindex>\n}", "t.mlir"))


@pytest.mark.parametrize(("body", "expected"), [
    ("%0 = stablehlo.transpose %b, dims = [1, 0] : (tensor<?x2xf32, #stablehlo.bounds<4, ?>>)"
     " -> tensor<2x?xf32>", "tensor<2x?xf32, #stablehlo.bounds<?, 4>>"),
    ('%0 = "stablehlo.set_dimension_size"(%s, %i) {dimension = 0 : i64} '
     ": (tensor<3x5xf32>, tensor<i32>) -> tensor<?x5xf32>",
     "tensor<?x5xf32, #stablehlo.bounds<3, ?>>"),
    ('%0 = "stablehlo.if"(%p) ({\n  stablehlo.return %s : tensor<3x5xf32>\n}, {\n'
     "  stablehlo.return %d : tensor<?x5xf32>\n}) : (tensor<i1>) -> tensor<?x5xf32>",
     "tensor<?x5xf32>"),
    ("%0 = stablehlo.concatenate %b, %b, dim = 0 : (tensor<?x2xf32, #stablehlo.bounds<4, ?>>, "
     "tensor<?x2xf32, #stablehlo.bounds<4, ?>>) -> tensor<?x2xf32>",
     "tensor<?x2xf32, #stablehlo.bounds<8, ?>>"),
])
def test_stablehlo_inference_keeps_bounds(body: str, expected: str) -> None:
    args = ("%b: tensor<?x2xf32, #stablehlo.bounds<4, ?>>, %s: tensor<3x5xf32>, "
            "%i: tensor<i32>, %p: tensor<i1>, %d: tensor<?x5xf32>")
    types = infer_types(first_op(body, args))
    assert types is not None and [str(t) for t in types] == [expected]


def test_size_above_a_bound_fails_inference() -> None:
    with pytest.raises(Diagnostic, match="Mismatched dimension size 3 and bound 2 in dimension 0"):
        verify_module(parse_source(
            "func.func @f(%a: tensor<3xf32>, %b: tensor<?xf32, #stablehlo.bounds<2>>) "
            "-> tensor<?xf32> {\n  %0 = stablehlo.add %a, %b : (tensor<3xf32>, "
            "tensor<?xf32, #stablehlo.bounds<2>>) -> tensor<?xf32>\n"
            "  return %0 : tensor<?xf32>\n}", "t.mlir"))
