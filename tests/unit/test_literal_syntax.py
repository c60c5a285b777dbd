"""A malformed `dense<...>` literal is reported as MLIR's TensorLiteralParser reports it:
its message at its place (each expectation checked with jaxlib's MLIR), not the one-pass
reader's "expected '>'" at the literal's end. Found fuzzing against jaxlib's MLIR."""

from __future__ import annotations

import pytest

from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source


def first_error(literal: str) -> tuple[int | None, int | None, str]:
    text = f"func.func @f() {{\n  %0 = stablehlo.constant {literal}\n  func.return\n}}\n"
    with pytest.raises(Diagnostic) as info:
        parse_source(text, "t.mlir")
    return info.value.line, info.value.col, info.value.message


@pytest.mark.parametrize(("literal", "col", "message"), [
    # cut short: the list wants its `]` right after the last element
    ("dense<[1.0, 2.0", 42, "expected ']'"),
    ("dense<[1.0, 2.0 : tensor<2xf32>", 42, "expected ']'"),
    ("dense<[1, 2> : tensor<2xf32>", 38, "expected ']'"),
    ("dense<[[1, 2], [3, 4]> : tensor<2x2xf32>", 48, "expected ']'"),
    ("dense<[1.0 2.0]> : tensor<2xf32>", 37, "expected ']'"),
    # a single element wants the `>` after it
    ("dense<1.0 : tensor<f32>", 36, "expected '>'"),
    ("dense<[1, 2]]> : tensor<2xf32>", 39, "expected '>'"),
    # a token that starts no element is reported where it stands
    ("dense<[1, inf]> : tensor<2xf32>", 37, "expected element literal of primitive type"),
    ("dense<[1, - ]> : tensor<2xf32>", 39, "expected integer or floating point literal"),
    # the lexer's own complaints come first
    ("dense<[1.00.0, 2.0]> : tensor<2xf32>", 39,
     "expected three consecutive dots for an ellipsis"),
    ('dense<"0x0000> : tensor<f32>', 55, "expected '\"' in string literal"),
    # complex pairs
    ("dense<(1.0 2.0)> : tensor<complex<f32>>", 37, "expected ',' between complex elements"),
    ("dense<(1.0, 2.0> : tensor<complex<f32>>", 42, "expected ')' after complex elements"),
    # item shapes, checked while reading
    ("dense<[1, [2]]> : tensor<2xf32>", 40,
     "tensor literal is invalid; ranks are not consistent between elements"),
])
def test_malformed_literal_is_reported_as_mlir_reports_it(literal: str, col: int,
                                                          message: str) -> None:
    assert first_error(literal) == (2, col, message)


def test_literal_cut_at_the_end_of_its_line() -> None:
    # the next token (on the next line) is the one that is no element
    assert first_error("dense<[1.0, ") == (3, 3, "expected element literal of primitive type")


def test_well_formed_literal_keeps_the_type_error() -> None:
    # a literal MLIR reads whole leaves the error to what follows it
    assert first_error("dense<[1, 2]> : tensor<2xf33>") == (2, 52, "expected non-function type")
    assert first_error("dense<[1, 2]> tensor<2xf32>") == (2, 40, "expected ':'")
