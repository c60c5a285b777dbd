"""Shape reification of StableHLO ops (passes/reify_shapes.py) and the index ops it builds
(tensor.dim / extract / from_elements, arith.cmpi / select / divsi: parse and print)."""

from __future__ import annotations

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.passes import run_passes


def reified(body: str, args: str, result: str) -> str:
    text = (f"func.func @f({args}) -> {result} {{\n{body}\n"
            f'  %r = "hlo_test_infer.reify_return_type_shapes"(%0) : ({_type_of(body)}) '
            f"-> {result}\n  return %r : {result}\n}}")
    module = parse_source(text, "t.mlir", allow_unregistered=True)
    run_passes(module, ["hlo-test-infer"])
    return print_module(module)


def _type_of(body: str) -> str:
    return body.rsplit("-> ", 1)[1].strip()


def test_transpose_permutes_dims() -> None:
    out = reified("  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x?xf32>) "
                  "-> tensor<?x?xf32>", "%a: tensor<?x?xf32>", "tensor<2xindex>")
    assert "%dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>" in out
    assert "%dim_0 = tensor.dim %arg0, %c1 : tensor<?x?xf32>" in out
    assert "tensor.from_elements %dim_0, %dim : tensor<2xindex>" in out
    assert "stablehlo.transpose" not in out  # unused afterwards


def test_static_sizes_fold_to_constants() -> None:
    out = reified("  %0 = stablehlo.broadcast %a, sizes = [4] : (tensor<?xi32>) "
                  "-> tensor<4x?xi32>", "%a: tensor<?xi32>", "tensor<2xindex>")
    assert "%c4 = arith.constant 4 : index" in out
    assert "tensor.from_elements %c4, %dim : tensor<2xindex>" in out


def test_pad_arithmetic_folds_zero_padding() -> None:
    out = reified('  %z = stablehlo.constant dense<0.0> : tensor<f32>\n'
                  '  %0 = stablehlo.pad %a, %z, low = [0, 1], high = [0, 2], interior = [0, 0]'
                  " : (tensor<?x3xf32>, tensor<f32>) -> tensor<?x6xf32>",
                  "%a: tensor<?x3xf32>", "tensor<2xindex>")
    assert "arith.addi" not in out and "arith.muli" not in out
    assert "%c6 = arith.constant 6 : index" in out
    assert "tensor.from_elements %dim, %c6 : tensor<2xindex>" in out


def test_index_ops_round_trip() -> None:
    text = ("func.func @f(%a: tensor<?xf32>, %s: tensor<1xindex>) -> tensor<2xindex> {\n"
            "  %c0 = arith.constant 0 : index\n"
            "  %0 = tensor.dim %a, %c0 : tensor<?xf32>\n"
            "  %1 = tensor.extract %s[%c0] : tensor<1xindex>\n"
            "  %2 = arith.cmpi sge, %0, %1 : index\n"
            "  %3 = arith.select %2, %0, %1 : index\n"
            "  %4 = arith.divsi %3, %1 : index\n"
            "  %5 = tensor.from_elements %4, %0 : tensor<2xindex>\n"
            "  return %5 : tensor<2xindex>\n}")
    out = print_module(parse_source(text, "t.mlir"))
    # Printed with MLIR's result names (tensor.dim -> %dim, tensor.extract -> %extracted,
    # tensor.from_elements -> %from_elements); the arith ops are numbered.
    assert out.splitlines()[2:10] == [
        "    %c0 = arith.constant 0 : index",
        "    %dim = tensor.dim %arg0, %c0 : tensor<?xf32>",
        "    %extracted = tensor.extract %arg1[%c0] : tensor<1xindex>",
        "    %0 = arith.cmpi sge, %dim, %extracted : index",
        "    %1 = arith.select %0, %dim, %extracted : index",
        "    %2 = arith.divsi %1, %extracted : index",
        "    %from_elements = tensor.from_elements %2, %dim : tensor<2xindex>",
        "    return %from_elements : tensor<2xindex>"]


def test_unknown_cmpi_predicate_is_a_diagnostic() -> None:
    with pytest.raises(Diagnostic, match='unknown comparison predicate "bigger"'):
        parse_source("func.func @f(%a: index) -> i1 {\n  %0 = arith.cmpi bigger, %a, %a : index"
                     "\n  return %0 : i1\n}", "t.mlir")
