"""Dense elements held as MLIR's storage bytes (ir/storage.py) behave exactly as the numpy
arrays they stand for: same rounding of decimal literals, same printed text, same bytecode,
equal and hashed alike."""

from __future__ import annotations

import math
import random

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.ir import storage
from shlo_cli.ir.attributes import DenseElementsAttr, int_matrix
from shlo_cli.ir.dense import (
    decode_raw_dense,
    encode_raw_dense,
    parse_dense,
    parse_dense_literal,
    round_to_dtype,
)
from shlo_cli.ir.parser import parse_attribute_text
from shlo_cli.ir.types import FloatType, TensorType, numpy_dtype

FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64,
          "bf16": ml_dtypes.bfloat16}


def _values(seed: int, count: int) -> list[float]:
    rng = random.Random(seed)
    out = [rng.uniform(-1, 1) * 2.0 ** rng.randint(-150, 130) for _ in range(count)]
    return out + [0.0, -0.0, math.inf, -math.inf, 65504.0, 65520.0, 65519.99, 3.4e38,
                  3.3895313892515355e38, 1e39, 5e-324, 6e-8, 2.9802322387695312e-08]


@pytest.mark.parametrize("name", sorted(FLOATS))
def test_float_bits_round_as_the_numpy_path(name: str) -> None:
    values = _values(1, 20000)
    dtype = np.dtype(FLOATS[name])
    with np.errstate(all="ignore"):
        want = round_to_dtype(np.array(values), dtype).view(f"u{dtype.itemsize}").tolist()
    assert [storage.float_bits(v, name) for v in values] == want


def test_bf16_ties_go_to_even() -> None:
    bf16 = np.dtype(ml_dtypes.bfloat16)
    for bits in range(0, 0x7F7F, 97):
        low, high = np.array([bits, bits + 1], np.uint16).view(bf16).astype(np.float64)
        mid = (float(low) + float(high)) / 2
        assert storage.float_bits(mid, "bf16") == (bits if bits % 2 == 0 else bits + 1)
        assert storage.float_bits(math.nextafter(mid, math.inf), "bf16") == bits + 1


@pytest.mark.parametrize("name", sorted(FLOATS))
def test_bits_float_is_the_stored_value(name: str) -> None:
    dtype = np.dtype(FLOATS[name])
    width = dtype.itemsize * 8
    patterns = [b for b in range(0, 1 << min(width, 16), 13)]
    if width > 16:
        patterns = [random.Random(2).getrandbits(width) for _ in range(3000)]
    with np.errstate(invalid="ignore"):
        arr = np.array(patterns, f"u{dtype.itemsize}").view(dtype).astype(np.float64)
    for bits, want in zip(patterns, arr.tolist(), strict=True):
        got = storage.bits_float(bits, name)
        assert got == want or (math.isnan(got) and math.isnan(want))


LITERALS = [
    ("[1.0, 2.5, -0.0, 1.0e-8]", "tensor<4xf32>"),
    ("[1.0, 2.5, 65504.0, 1.0e9]", "tensor<4xf16>"),
    ("[1.0, 3.14159, 1.0e-40, 3.39e38, 1.0e39]", "tensor<5xbf16>"),
    ("[0x7FC00000, 1.0, 0xFF800000]", "tensor<3xf32>"),
    ("[0x7E00, 1.5]", "tensor<2xf16>"),
    ("[[1, -2], [3, 4]]", "tensor<2x2xi32>"),
    ("[255, 0x10]", "tensor<2xui8>"),
    ("[-1, 128]", "tensor<2xi8>"),
    ("[true, false, 1]", "tensor<3xi1>"),
    ("7", "tensor<3x2xi64>"),
    ("[(1.0, -2.0), (0.5, 0.25)]", "tensor<2xcomplex<f32>>"),
    ('"0x0000803F00000040"', "tensor<2xf32>"),
    ('"0x01000000"', "tensor<3xi32>"),
    ('"0x0100FF"', "tensor<3xi1>"),
    ("", "tensor<0xf32>"),
    ("[1, 2]", "tensor<2xindex>"),
    ("3.0", "tensor<f64>"),
]


@pytest.mark.parametrize("body, type_text", LITERALS)
def test_stored_literals_match_numpy_arrays(body: str, type_text: str) -> None:
    type = parse_attribute_text(type_text).value
    stored = parse_dense(body, type)
    assert stored.held_storage is not None
    data, splat = parse_dense_literal(body, type)
    array = DenseElementsAttr(type, data, splat)
    assert str(stored) == str(array)
    assert stored == array and hash(stored) == hash(array)
    assert encode_raw_dense(stored) == encode_raw_dense(array)
    assert stored.data.dtype == array.data.dtype
    assert stored.data.tobytes() == array.data.tobytes()
    if "complex" not in type_text:
        np.testing.assert_array_equal(stored.flat_values(),
                                      np.asarray(array.value).reshape(-1).tolist())
    raw = encode_raw_dense(stored)
    assert raw is not None
    again = decode_raw_dense(raw, type)
    assert again is not None and str(again) == str(stored)


def test_complex_with_hex_parts_parses() -> None:
    """(The numpy path failed on a hex part: a dtype view of mixed scalars.)"""
    type = parse_attribute_text("tensor<2xcomplex<f32>>").value
    text = str(parse_dense("[(1.0, -2.0), (0.5, 0x7FC00000)]", type))
    assert text == ("dense<[(1.000000e+00,-2.000000e+00), (5.000000e-01,0x7FC00000)]> : "
                    "tensor<2xcomplex<f32>>")


def test_many_elements_print_as_hex_from_storage() -> None:
    type = TensorType((120,), FloatType("f32"))
    body = "[" + ", ".join(str(float(i)) for i in range(120)) + "]"
    text = str(parse_dense(body, type))
    assert text.startswith('dense<"0x000000000000803F') and text.endswith('"> : tensor<120xf32>')


def test_int_matrix_reads_arrays_and_dense_without_numpy_values() -> None:
    assert int_matrix(parse_attribute_text("array<i64: 1, 2, 3>")) == ((3,), [1, 2, 3])
    padding = parse_attribute_text("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>")
    assert int_matrix(padding) == ((2, 2), [0, 1, 2, 3])


def test_storage_layout_of_types_numpy_must_hold() -> None:
    assert storage.layout(FloatType("f8E4M3FN")) is None
    assert numpy_dtype(FloatType("bf16")).itemsize == 2
