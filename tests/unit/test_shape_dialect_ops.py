"""The shape dialect (dialects/shape.py): syntax as MLIR prints it, assuming regions run by
the interpreter, and the folders and canonicalization patterns of MLIR's Shape.cpp."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.verifier import verify_module
from shlo_cli.passes import run_passes


def round_trip(text: str) -> str:
    return print_module(parse_source(text, "t.mlir"))


def test_const_shape_prints_its_attribute_dictionary_as_mlir_does() -> None:
    text = """func.func @f() -> (tensor<2xindex>, tensor<1xindex>) {
      %0 = shape.const_shape {a = 1 : i32} [4, 8] : tensor<2xindex>
      %1 = shape.const_shape [4] : tensor<1xindex>
      return %0, %1 : tensor<2xindex>, tensor<1xindex>
    }"""
    printed = round_trip(text)
    assert "%0 = shape.const_shape  {a = 1 : i32}[4, 8] : tensor<2xindex>" in printed
    assert "%1 = shape.const_shape [4] : tensor<1xindex>" in printed
    assert round_trip(printed) == printed


def canonicalize(text: str) -> list[str]:
    module = parse_source(text, "t.mlir")
    run_passes(module, ["canonicalize"])
    return [line.strip() for line in print_module(module).splitlines()[2:-2]]


ASSUMING = """func.func @f(%arg0: tensor<?xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = shape.shape_of %arg0 : tensor<?xf32> -> tensor<1xindex>
  %1 = shape.shape_of %arg1 : tensor<?x?xf32> -> tensor<2xindex>
  %2 = shape.cstr_broadcastable %0, %1 : tensor<1xindex>, tensor<2xindex>
  %3 = shape.assuming %2 -> (tensor<?x?xf32>) {
    %4 = shape.broadcast %0, %1 : tensor<1xindex>, tensor<2xindex> -> tensor<2xindex>
    %5 = stablehlo.dynamic_broadcast_in_dim %arg0, %4, dims = [1]
        : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
    %6 = stablehlo.dynamic_broadcast_in_dim %arg1, %4, dims = [0, 1]
        : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
    %7 = stablehlo.add %5, %6 : tensor<?x?xf32>
    shape.assuming_yield %7 : tensor<?x?xf32>
  }
  %w = shape.const_witness true
  shape.assuming %w {
    %9 = stablehlo.constant dense<1.0> : tensor<f32>
  }
  return %3 : tensor<?x?xf32>
}"""


def test_assuming_round_trips_with_an_implied_yield_when_it_has_no_results() -> None:
    printed = round_trip(ASSUMING)
    assert "%3 = shape.assuming %2 -> (tensor<?x?xf32>) {" in printed
    assert "shape.assuming_yield %8 : tensor<?x?xf32>" in printed
    assert "%4 = shape.const_witness true" in printed
    assert "shape.assuming %4 {\n" in printed
    assert printed.count("shape.assuming_yield") == 1  # the empty one is implied
    assert round_trip(printed) == printed


def test_assuming_runs_its_region_and_fails_on_a_failed_witness() -> None:
    a = np.array([1, 2], np.float32)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    (got,) = shlo_cli.interpret(ASSUMING, a, b)
    assert np.array_equal(got, a + b)
    with pytest.raises(Diagnostic, match="witness of 'shape.assuming' failed"):
        shlo_cli.interpret(ASSUMING, np.ones(3, np.float32), b)


def test_yield_outside_assuming_is_an_error() -> None:
    text = """func.func @f() {
      shape.assuming_yield
    }"""
    module = parse_source(text, "t.mlir")
    with pytest.raises(Diagnostic, match="expects parent op 'shape.assuming'"):
        verify_module(module)


def test_static_broadcastable_witness_folds_and_the_assuming_is_inlined() -> None:
    text = """func.func @f(%arg0: tensor<4xf32>, %arg1: tensor<?x4xf32>) -> tensor<2xindex> {
      %0 = shape.shape_of %arg0 : tensor<4xf32> -> tensor<1xindex>
      %1 = shape.shape_of %arg1 : tensor<?x4xf32> -> tensor<2xindex>
      %2 = shape.cstr_broadcastable %0, %1 : tensor<1xindex>, tensor<2xindex>
      %3 = shape.assuming %2 -> (tensor<2xindex>) {
        %4 = shape.broadcast %0, %1 : tensor<1xindex>, tensor<2xindex> -> tensor<2xindex>
        shape.assuming_yield %4 : tensor<2xindex>
      }
      return %3 : tensor<2xindex>
    }"""
    # shape_of [4] folds to a const_shape; [4] with [?, 4] is known broadcastable; the
    # commutative broadcast moves its constant operand last.
    assert canonicalize(text) == [
        "%0 = shape.const_shape [4] : tensor<1xindex>",
        "%1 = shape.shape_of %arg1 : tensor<?x4xf32> -> tensor<2xindex>",
        "%2 = shape.broadcast %1, %0 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>",
        "return %2 : tensor<2xindex>"]


def test_broadcast_folds_constant_operands_and_concretizes_its_result_type() -> None:
    text = """func.func @f(%arg0: tensor<?x?x8xf32>) -> tensor<3xindex> {
      %0 = shape.const_shape [1] : tensor<1xindex>
      %1 = shape.shape_of %arg0 : tensor<?x?x8xf32> -> tensor<3xindex>
      %2 = shape.const_shape [2, 8, 8] : tensor<3xindex>
      %3 = shape.broadcast %0, %1, %2 : tensor<1xindex>, tensor<3xindex>, tensor<3xindex>
          -> tensor<?xindex>
      %4 = tensor.cast %3 : tensor<?xindex> to tensor<3xindex>
      return %4 : tensor<3xindex>
    }"""
    assert canonicalize(text) == [
        "%0 = shape.const_shape [2, 8, 8] : tensor<3xindex>",
        "%1 = shape.shape_of %arg0 : tensor<?x?x8xf32> -> tensor<3xindex>",
        "%2 = shape.broadcast %1, %0 : tensor<3xindex>, tensor<3xindex> -> tensor<3xindex>",
        "return %2 : tensor<3xindex>"]


@pytest.mark.parametrize(("yielded", "message"), [
    ("", "source has 0 operands, but target successor needs 1"),
    ("%x", "source type #0 'tensor<i32>' should match input type #0 'tensor<f32>'")])
def test_assuming_results_must_match_what_its_region_yields(yielded: str, message: str) -> None:
    types = "(tensor<i32>)" if yielded else "()"
    text = f"""func.func @f(%w: !shape.witness, %x: tensor<i32>) {{
      %r = "shape.assuming"(%w) ({{ "shape.assuming_yield"({yielded}) : {types} -> () }})
          : (!shape.witness) -> tensor<f32>
      return
    }}"""
    with pytest.raises(Diagnostic, match=message):
        verify_module(parse_source(text, "t.mlir"))
