"""Result printing of the interpreter matches upstream stablehlo-translate byte for byte."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.interpreter.printing import format_dense, format_tensor, format_value
from shlo_cli.ir.types import ComplexType, FloatType, IntegerType, TensorType


def tensor(shape: tuple[int, ...], element: object) -> TensorType:
    return TensorType(shape, element)  # type: ignore[arg-type]


def test_rank0_prints_inline() -> None:
    value = np.array(1, dtype=np.uint8)
    assert format_tensor(value, tensor((), IntegerType(8, "u"))) == "tensor<ui8> {1}"


def test_vector_and_matrix_layout() -> None:
    ints = np.array([1, 2, -3, -4], dtype=np.int8)
    assert format_tensor(ints, tensor((4,), IntegerType(8))) == \
        "tensor<4xi8> {\n  [1, 2, -3, -4]\n}"
    matrix = np.array([[1, 2], [3, 4]], dtype=np.int8)
    assert format_tensor(matrix, tensor((2, 2), IntegerType(8))) == \
        "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}"


def test_rank3_layout() -> None:
    value = np.array([[[0, 1], [2, 3]], [[4, 0], [1, 2]]], dtype=np.int64)
    expected = ("tensor<2x2x2xi64> {\n  [\n    [\n      [0, 1],\n      [2, 3]\n    ],\n"
                "    [\n      [4, 0],\n      [1, 2]\n    ]\n  ]\n}")
    assert format_tensor(value, tensor((2, 2, 2), IntegerType(64))) == expected


@pytest.mark.parametrize(("shape", "text"), [
    ((0,), "tensor<0xui8> {\n  []\n}"),
    ((0, 2), "tensor<0x2xui8> {\n  []\n}"),
    ((2, 0), "tensor<2x0xui8> {\n  [\n    [],\n    []\n  ]\n}"),
])
def test_empty_tensors(shape: tuple[int, ...], text: str) -> None:
    value = np.zeros(shape, dtype=np.uint8)
    assert format_tensor(value, tensor(shape, IntegerType(8, "u"))) == text


def test_element_families() -> None:
    bools = np.array([True, False])
    assert format_tensor(bools, tensor((2,), IntegerType(1))) == \
        "tensor<2xi1> {\n  [true, false]\n}"
    unsigned = np.array([255, 0], dtype=np.uint8)
    assert "[255, 0]" in format_tensor(unsigned, tensor((2,), IntegerType(8, "u")))
    i2 = np.array([1, -2], dtype=ml_dtypes.int2)
    assert "[1, -2]" in format_tensor(i2, tensor((2,), IntegerType(2)))
    halves = np.array([1.0, 2.0, -3.0, -4.0], dtype=np.float16)
    assert "[1.000000e+00, 2.000000e+00, -3.000000e+00, -4.000000e+00]" in \
        format_tensor(halves, tensor((4,), FloatType("f16")))
    f8 = np.array([1.0, -4.0], dtype=ml_dtypes.float8_e3m4)
    assert "[1.000000e+00, -4.000000e+00]" in format_tensor(f8, tensor((2,), FloatType("f8E3M4")))
    specials = np.array([np.nan, -np.inf, np.pi], dtype=np.float32)
    assert "[0x7FC00000, 0xFF800000, 3.14159274]" in \
        format_tensor(specials, tensor((3,), FloatType("f32")))


def test_complex_elements_use_brackets() -> None:
    value = np.array([3.14 + 1j, 3.14 + 1j], dtype=np.complex64)
    text = format_tensor(value, tensor((2,), ComplexType(FloatType("f32"))))
    assert text == ("tensor<2xcomplex<f32>> {\n"
                    "  [[3.140000e+00, 1.000000e+00], [3.140000e+00, 1.000000e+00]]\n}")


def test_dense_form_splat_empty_and_nested() -> None:
    i8 = IntegerType(8)
    assert format_dense(np.array([1], dtype=np.int8), tensor((1,), i8)) == \
        "dense<1> : tensor<1xi8>"
    assert format_dense(np.zeros((0, 2), dtype=np.int8), tensor((0, 2), i8)) == \
        "dense<> : tensor<0x2xi8>"
    assert format_dense(np.array([[1, 2], [3, 4]], dtype=np.int8), tensor((2, 2), i8)) == \
        "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>"
    c = np.array([3.14 + 1j] * 4, dtype=np.complex64)
    assert format_dense(c, tensor((4,), ComplexType(FloatType("f32")))) == \
        "dense<(3.140000e+00,1.000000e+00)> : tensor<4xcomplex<f32>>"


def test_runtime_shape_replaces_dynamic_dims() -> None:
    value = np.array([1, 2, 3], dtype=np.int32)
    assert format_value(value, TensorType((-1,), IntegerType(32))).startswith("tensor<3xi32> {")


def test_tuple_prints_its_elements_like_upstreams_tuple_print() -> None:
    """The type, then each element on its own line, comma separated, in parentheses; a
    nested or empty tuple the same way, a token as its type."""
    from shlo_cli.ir.types import TokenType, TupleType

    inner = TupleType((tensor((), IntegerType(32)), TupleType(()), TokenType()))
    outer = TupleType((tensor((2,), IntegerType(8)), inner))
    value = (np.array([1, 2], dtype=np.int8), (np.array(7, dtype=np.int32), (), None))
    assert format_value(value, outer) == (
        f"{outer} (\ntensor<2xi8> {{\n  [1, 2]\n}},\n"
        f"{inner} (\ntensor<i32> {{7}},\ntuple<> (\n),\n!stablehlo.token\n)\n)")
