"""Float text exactly as MLIR prints it (printFloatValue over APFloat::toString)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.ir.diagnostics import SourceFile
from shlo_cli.ir.floats import apfloat_to_string, format_float, format_float_bits
from shlo_cli.ir.parser import Parser
from shlo_cli.ir.types import FloatType

# (type, value or raw bits as int, MLIR's text). Values from MLIR's own printer tests and
# the upstream testdata files.
CASES = [
    ("f32", 1.0, "1.000000e+00"),
    ("f32", 0.1, "1.000000e-01"),
    ("f64", 0.1, "1.000000e-01"),
    ("f64", 1e-10, "1.000000e-10"),
    ("f32", 123456789.0, "0x4CEB79A3"),
    ("f32", 3.4e38, "3.400000e+38"),
    ("f32", 0x7F7FFFFF, "3.40282347E+38"),
    ("f32", np.pi, "3.14159274"),
    ("f64", np.pi, "3.1415926535897931"),
    ("f32", 3.141592, "3.14159203"),
    ("f64", 3.141592, "3.1415920000000002"),
    ("f32", 299792.5, "299792.5"),
    ("f32", 2997925.0, "0x4A36FA94"),
    ("f32", 16777216.0, "0x4B800000"),
    ("f32", -1234567.0, "0xC996B438"),
    ("f64", 1234567.0, "0x4132D68700000000"),
    ("f64", 2.0 ** 60, "1.152921504606847E+18"),
    ("f32", 123456.0, "1.234560e+05"),
    ("f64", 1e300, "1.000000e+300"),
    ("f64", 0.1 + 0.2, "0.30000000000000004"),
    ("f64", 1 / 3, "0.33333333333333331"),
    ("f32", 2 / 3, "0.666666686"),
    ("f64", 123456.7, "123456.7"),
    ("f64", -1.5, "-1.500000e+00"),
    ("f32", -0.0, "-0.000000e+00"),
    ("f32", 0x00000001, "1.401300e-45"),
    ("f64", 1e-320, "9.999880e-321"),
    ("f16", 0x3C66, "1.099610e+00"),
    ("f16", 0x3555, "3.332520e-01"),
    ("bf16", 0x3EAB, "3.339840e-01"),
    ("bf16", 0x3F9E, "1.234380e+00"),
    ("f8E4M3FN", 0x7E, "4.480000e+02"),
    ("f8E5M2", 0x7B, "5.734400e+04"),
    ("f6E2M3FN", 0x1F, "7.500000e+00"),
    ("f4E2M1FN", 0x7, "6.000000e+00"),
    ("f32", float("inf"), "0x7F800000"),
    ("f64", float("-inf"), "0xFFF0000000000000"),
    ("f32", 0x7FC00000, "0x7FC00000"),
    ("f32", 0xFFC00000, "0xFFC00000"),
    ("f16", 0x7E00, "0x7E00"),
    ("bf16", 0xFF80, "0xFF80"),
    ("f8E4M3FN", 0x7F, "0x7F"),
    ("f8E5M2FNUZ", 0x80, "0x80"),
    ("f8E8M0FNU", 0x7F, "1.000000e+00"),
    ("f8E8M0FNU", 0x00, "5.877470e-39"),
    ("f8E8M0FNU", 0xFF, "0xFF"),
]


@pytest.mark.parametrize(("name", "value", "text"), CASES)
def test_mlir_float_text(name: str, value: float | int, text: str) -> None:
    if isinstance(value, int):
        assert format_float_bits(value, name) == text
    else:
        assert format_float(value, FloatType(name)) == text


def test_apfloat_default_form() -> None:
    from fractions import Fraction

    assert apfloat_to_string(False, Fraction(1), 24) == "1"
    assert apfloat_to_string(False, Fraction(1e-10), 53) == "1.0E-10"
    assert apfloat_to_string(True, Fraction(0), 24) == "-0"


NARROW = ["f16", "bf16", "f8E4M3FN", "f8E5M2", "f8E4M3", "f8E3M4", "f8E4M3FNUZ", "f8E5M2FNUZ",
          "f8E4M3B11FNUZ", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN"]


@pytest.mark.parametrize("name", NARROW)
def test_every_value_reads_back_to_the_same_bits(name: str) -> None:
    """Bit patterns of the narrow types (all of the 8-bit and smaller ones, a spread of the
    16-bit ones) print as text the parser turns back into the same bits."""
    ftype = FloatType(name)
    from shlo_cli.ir.types import numpy_dtype

    dtype = numpy_dtype(ftype)
    width = ftype.width
    bits = np.arange(0, 1 << width, 1 if width <= 8 else 37,
                     dtype=np.uint16 if width > 8 else np.uint8)
    values = bits.view(dtype) if width >= 8 else bits.astype(np.uint8).view(dtype)
    texts = [format_float_bits(int(b), name) for b in bits]
    literal = "dense<[" + ", ".join(texts) + f"]> : tensor<{len(texts)}x{name}>"
    parsed = Parser(SourceFile("x", literal)).parse_attribute().value
    same = parsed.view(np.uint8 if width <= 8 else np.uint16) == values.view(
        np.uint8 if width <= 8 else np.uint16)
    nan = np.isnan(values.astype(np.float32))
    assert bool(np.all(same | nan)), [t for t, ok in zip(texts, same | nan, strict=True)
                                      if not ok][:5]


def test_ml_dtypes_is_the_storage() -> None:
    assert FloatType("bf16").width == 16
    assert np.dtype(ml_dtypes.bfloat16).itemsize == 2


def test_narrow_literals_round_once() -> None:
    """bf16/f8 decimals round straight to nearest-even, not through f32 (double rounding)."""
    just_above_tie = "1.00390625000000001"  # f32 rounds this onto the bf16 midpoint
    literal = f"dense<[{just_above_tie}, 1.00390625]> : tensor<2xbf16>"
    values = Parser(SourceFile("x", literal)).parse_attribute().value.astype(np.float64)
    assert values.tolist() == [1.0, 1.0]  # the first is below f64 resolution: exactly the tie
    literal = "dense<[1.0039062500001, 1.0625000001]> : tensor<2xbf16>"
    values = Parser(SourceFile("x", literal)).parse_attribute().value.astype(np.float64)
    assert values.tolist() == [1.0078125, 1.0625]
    literal = "dense<1.0625000000001> : tensor<f8E4M3FN>"
    assert float(Parser(SourceFile("x", literal)).parse_attribute().value) == 1.125
