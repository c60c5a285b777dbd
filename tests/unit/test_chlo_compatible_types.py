"""HLO_CompatibleOperandsAndResultType on the non-broadcasting CHLO ops (upstream's
ChloOps.td lists 22): every operand and result type must be compatible (the native trait,
which MLIR checks first, as jaxlib's MLIR shows), and the result type inferred from the
operands (their most specific type, ChloOps.cpp) must fit the declared one. A mismatch used
to pass verification and fail inside numpy at evaluation."""

from __future__ import annotations

import numpy as np
import pytest

import shlo_cli
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.verifier import verify_module

UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e", "conj", "cosh",
         "sinh", "tan", "digamma", "erf", "erf_inv", "erfc", "lgamma", "square",
         "_asin_acos_kernel"]
BINARY = ["next_after", "polygamma", "zeta", "mulhi"]


def _element(op: str) -> str:
    return "i32" if op == "mulhi" else "complex<f32>" if op == "_asin_acos_kernel" else "f32"


def _errors(text: str) -> list[str]:
    with pytest.raises(Diagnostic) as caught:
        verify_module(parse_source(text))
    return [caught.value.message] + [n.message for n in caught.value.notes]


def _program(op: str, operands: list[str], result: str) -> str:
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operands))
    names = ", ".join(f"%a{i}" for i in range(len(operands)))
    return (f"func.func @main({args}) -> {result} {{\n"
            f"  %0 = \"chlo.{op}\"({names}) : ({', '.join(operands)}) -> {result}\n"
            f"  return %0 : {result}\n}}\n")


@pytest.mark.parametrize("op", UNARY + BINARY)
def test_a_result_shape_the_operands_do_not_give(op: str) -> None:
    e = _element(op)
    operands = [f"tensor<16x{e}>"] * (2 if op in BINARY else 1)
    errors = _errors(_program(op, operands, f"tensor<4x{e}>"))
    assert errors == [f"'chlo.{op}' op requires compatible types for all operands and results"]


@pytest.mark.parametrize("op", BINARY)
def test_operands_of_different_shapes(op: str) -> None:
    e = _element(op)
    for operands, result in (([f"tensor<16x{e}>", f"tensor<4x{e}>"], f"tensor<4x{e}>"),
                             ([f"tensor<2x{e}>", f"tensor<2x2x{e}>"], f"tensor<2x{e}>")):
        assert _errors(_program(op, operands, result))[0] == (
            f"'chlo.{op}' op requires compatible types for all operands and results")


def test_operands_of_different_element_types() -> None:
    text = _program("mulhi", ["tensor<4xi32>", "tensor<4xi64>"], "tensor<4xi32>")
    assert _errors(text)[0] == ("'chlo.mulhi' op requires compatible types for all operands "
                                "and results")


@pytest.mark.parametrize("operands,result", [
    (["tensor<?xf32>", "tensor<4xf32>"], "tensor<4xf32>"),  # the static size wins
    (["tensor<?xf32>", "tensor<?xf32>"], "tensor<4xf32>"),
    (["tensor<4xf32>", "tensor<4xf32>"], "tensor<?xf32>"),
])
def test_dynamic_sizes_are_compatible(operands: list[str], result: str) -> None:
    verify_module(parse_source(_program("next_after", operands, result)))


def test_evaluation_of_the_fuzzed_program_is_a_diagnostic() -> None:
    """The program the fuzzer found (seed 88888): a diagnostic, not a numpy error."""
    text = _program("mulhi", ["tensor<16xi64>", "tensor<4xi64>"], "tensor<4xi64>")
    with pytest.raises(Diagnostic, match="requires compatible types"):
        shlo_cli.interpret(text, np.zeros(16, np.int64), np.zeros(4, np.int64))
