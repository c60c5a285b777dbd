"""stablehlo-convert-to-signless: every signed/unsigned integer type becomes signless, values
unchanged bit for bit."""

from __future__ import annotations

import numpy as np

from shlo_cli import interpret
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module
from shlo_cli.ir.types import IntegerType, OpaqueType, TensorType, TupleType
from shlo_cli.passes import run_passes
from shlo_cli.passes.convert_to_signless import signless

PROGRAM = """func.func @main(%a: tensor<3xui8>, %b: tensor<si32>) -> (tensor<3xui8>, tensor<si32>) {
  %c = stablehlo.constant dense<[0, 1, 255]> : tensor<3xui8>
  %0 = stablehlo.add %a, %c : tensor<3xui8>
  %1 = stablehlo.negate %b : tensor<si32>
  return %0, %1 : tensor<3xui8>, tensor<si32>
}
"""


def test_types_lose_their_sign() -> None:
    assert signless(IntegerType(8, "u")) == IntegerType(8)
    assert signless(TensorType((2,), IntegerType(4, "s"))) == TensorType((2,), IntegerType(4))
    assert signless(OpaqueType("memref<4x?xui16>")) == OpaqueType("memref<4x?xi16>")
    kept = TupleType((TensorType((), IntegerType(8, "u")),))
    assert signless(kept) is kept


def test_program_is_retyped_and_computes_the_same_bits() -> None:
    module = parse_source(PROGRAM)
    run_passes(module, ["stablehlo-convert-to-signless"])
    out = print_module(module)
    assert "ui8" not in out and "si32" not in out
    assert "func.func @main(%arg0: tensor<3xi8>, %arg1: tensor<i32>) -> (tensor<3xi8>, " \
           "tensor<i32>)" in out
    assert "stablehlo.constant dense<[0, 1, -1]> : tensor<3xi8>" in out
    a = np.array([1, 200, 255], np.uint8)
    want = interpret(PROGRAM, a, np.int32(7))
    got = interpret(out, a.view(np.int8), np.int32(7))
    np.testing.assert_array_equal(got[0].view(np.uint8), want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_canonicalize_removes_the_identity_casts_left_behind() -> None:
    text = """func.func @main(%m: memref<4xui16>) -> memref<4xui16> {
  %0 = builtin.unrealized_conversion_cast %m : memref<4xui16> to memref<4xi16>
  %1 = memref.cast %0 : memref<4xi16> to memref<?xi16>
  %2 = builtin.unrealized_conversion_cast %1 : memref<?xi16> to memref<?xui16>
  %3 = bufferization.to_tensor %2 : memref<?xui16> to tensor<?xui16>
  %4 = bufferization.to_buffer %3 : tensor<?xui16> to memref<?xui16>
  %5 = memref.cast %4 : memref<?xui16> to memref<4xui16>
  return %5 : memref<4xui16>
}
"""
    module = parse_source(text)
    run_passes(module, ["stablehlo-convert-to-signless", "canonicalize"])
    body = print_module(module).splitlines()[2:5]
    assert body == ["    %cast = memref.cast %arg0 : memref<4xi16> to memref<?xi16>",
                    "    %cast_0 = memref.cast %cast : memref<?xi16> to memref<4xi16>",
                    "    return %cast_0 : memref<4xi16>"]


def test_cast_pairs_fold_only_when_they_undo_each_other() -> None:
    text = """func.func @main(%a: tensor<2xi8>) -> (tensor<2xi8>, tensor<2xui8>) {
  %0 = builtin.unrealized_conversion_cast %a : tensor<2xi8> to tensor<2xsi8>
  %1 = builtin.unrealized_conversion_cast %0 : tensor<2xsi8> to tensor<2xi8>
  %2 = builtin.unrealized_conversion_cast %0 : tensor<2xsi8> to tensor<2xui8>
  return %1, %2 : tensor<2xi8>, tensor<2xui8>
}
"""
    module = parse_source(text)
    run_passes(module, ["canonicalize"])
    out = print_module(module)
    assert "return %arg0, %1" in out
    assert out.count("unrealized_conversion_cast") == 2
