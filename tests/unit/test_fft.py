"""stablehlo.fft: the four transform types over trailing dimensions, and its syntax."""
# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import re

import numpy as np
import pytest

from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.printer import print_module


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    module = parse_source(text)
    interpreter = Interpreter(module)
    return interpreter.call(interpreter.lookup_function("main"), list(args))


def test_fft_types_round_trip() -> None:
    x = np.random.default_rng(0).standard_normal((3, 4, 6))
    text = """func.func @main(%x: tensor<3x4x6xf64>) -> (tensor<3x4x4xcomplex<f64>>, tensor<3x4x4xcomplex<f64>>, tensor<3x4x4xcomplex<f64>>, tensor<3x4x6xf64>) {
  %0 = stablehlo.fft %x, type = RFFT, length = [4, 6] : (tensor<3x4x6xf64>) -> tensor<3x4x4xcomplex<f64>>
  %1 = stablehlo.fft %0, type = FFT, length = [4] : (tensor<3x4x4xcomplex<f64>>) -> tensor<3x4x4xcomplex<f64>>
  %2 = stablehlo.fft %1, type = IFFT, length = [4] : (tensor<3x4x4xcomplex<f64>>) -> tensor<3x4x4xcomplex<f64>>
  %3 = stablehlo.fft %2, type = IRFFT, length = [4, 6] : (tensor<3x4x4xcomplex<f64>>) -> tensor<3x4x6xf64>
  return %0, %1, %2, %3 : tensor<3x4x4xcomplex<f64>>, tensor<3x4x4xcomplex<f64>>, tensor<3x4x4xcomplex<f64>>, tensor<3x4x6xf64>
}"""
    r, f, i, back = _run(text, x)
    np.testing.assert_allclose(r, np.fft.rfftn(x, axes=(1, 2)))
    np.testing.assert_allclose(f, np.fft.fft(r, axis=-1))
    np.testing.assert_allclose(i, r, atol=1e-12)
    np.testing.assert_allclose(back, x, atol=1e-12)
    printed = print_module(parse_source(text))
    assert "stablehlo.fft %0, type = FFT, length = [4] : (tensor<3x4x4xcomplex<f64>>) -> tensor<3x4x4xcomplex<f64>>" in printed


def test_fft_result_in_element_type() -> None:
    text = """func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}"""
    (out,) = _run(text, np.array([1, 2, 3, 4], np.complex64))
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, [10, -2 + 2j, -2, -2 - 2j])


def test_fft_verifier_messages() -> None:
    import pytest

    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    text = """func.func @main(%x: tensor<3x9xf32>) -> tensor<3x5xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = RFFT, length = [9, 9] : (tensor<3x9xf32>) -> tensor<3x5xcomplex<f32>>
  return %0 : tensor<3x5xcomplex<f32>>
}"""
    with pytest.raises(Diagnostic) as info:
        verify_module(parse_source(text))
    assert ("RFFT requires innermost dimensions to be compatible with fft_length. Got: 3, 9 "
            "but wanted 9, 9.") in info.value.render()


def _exact(x: np.ndarray, kind: str, lengths: list[int], dtype: type) -> np.ndarray:
    """The transform in long double (64-bit significand on x86), rounded to `dtype`."""
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    fn = {"FFT": np.fft.fftn, "IFFT": np.fft.ifftn, "RFFT": np.fft.rfftn,
          "IRFFT": np.fft.irfftn}[kind]
    wide = np.longdouble if kind == "RFFT" else np.clongdouble
    return fn(x.astype(wide), s=lengths, axes=axes).astype(dtype)


def _ulp(a: np.ndarray, b: np.ndarray) -> int:
    """Largest ULP distance between float32 parts of `a` and `b` (same signs here)."""
    parts = (a.real, b.real, a.imag, b.imag) if np.iscomplexobj(a) else (a, b, a, b)
    ia, ib, ja, jb = (np.ascontiguousarray(p, np.float32).view(np.int32).astype(np.int64)
                      for p in parts)
    flip = lambda v: np.where(v < 0, -(v & 0x7FFFFFFF), v)  # noqa: E731  (monotone order)
    return int(max(np.abs(flip(ia) - flip(ib)).max(), np.abs(flip(ja) - flip(jb)).max()))


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="needs a wide long double")
@pytest.mark.parametrize("kind", ["FFT", "IFFT", "RFFT", "IRFFT"])
@pytest.mark.parametrize("lengths", [[n] for n in (1, 3, 12, 17, 64, 97, 1009, 1024)]
                         + [[15, 16, 32], [5, 6]])
def test_float32_within_one_ulp_of_exact(kind: str, lengths: list[int]) -> None:
    rng = np.random.default_rng(len(lengths) * 1000 + lengths[-1])
    shape = [2, *lengths]
    if kind == "IRFFT":
        shape[-1] = lengths[-1] // 2 + 1
    x = rng.standard_normal(shape).astype(np.float32)
    if kind != "RFFT":
        x = (x + 1j * rng.standard_normal(shape)).astype(np.complex64)
    out_dtype = np.float32 if kind == "IRFFT" else np.complex64
    in_t = f"tensor<{'x'.join(map(str, shape))}x{'f32' if kind == 'RFFT' else 'complex<f32>'}>"
    expected = _exact(x, kind, lengths, out_dtype)
    out_t = f"tensor<{'x'.join(map(str, expected.shape))}x{'f32' if kind == 'IRFFT' else 'complex<f32>'}>"
    text = f"""func.func @main(%x: {in_t}) -> {out_t} {{
  %0 = stablehlo.fft %x, type = {kind}, length = {lengths} : ({in_t}) -> {out_t}
  return %0 : {out_t}
}}"""
    (out,) = _run(text, x)
    assert out.dtype == out_dtype and out.shape == expected.shape
    assert _ulp(out, expected) <= 1


def test_known_values_are_exact() -> None:
    text = """func.func @main(%x: tensor<4xf32>, %d: tensor<8xcomplex<f32>>, %h: tensor<3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<8xcomplex<f32>>, tensor<4xf32>) {
  %0 = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  %1 = stablehlo.fft %d, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  %2 = stablehlo.fft %h, type = IRFFT, length = [4] : (tensor<3xcomplex<f32>>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<3xcomplex<f32>>, tensor<8xcomplex<f32>>, tensor<4xf32>
}"""
    impulse = np.zeros(8, np.complex64)
    impulse[0] = 1
    r, f, back = _run(text, np.array([1, 2, 3, 4], np.float32), impulse,
                      np.array([4, 0, 0], np.complex64))
    assert r.dtype == np.complex64 and f.dtype == np.complex64 and back.dtype == np.float32
    assert r.tolist() == [10, -2 + 2j, -2]
    assert f.tolist() == [1] * 8
    assert back.tolist() == [1, 1, 1, 1]


def test_rfft_of_length_zero_keeps_the_empty_dimension() -> None:
    """Upstream's inference (and XLA) give RFFT with fft_length [0] an innermost size 0, not
    0/2+1 = 1: the 2x0 result verifies and runs, the 2x1 one is refused."""
    from shlo_cli.ir.diagnostics import Diagnostic
    from shlo_cli.ir.verifier import verify_module

    text = """func.func @main(%x: tensor<2x0xf32>) -> tensor<2x0xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = RFFT, length = [0] : (tensor<2x0xf32>) -> tensor<2x0xcomplex<f32>>
  return %0 : tensor<2x0xcomplex<f32>>
}"""
    verify_module(parse_source(text))
    (out,) = _run(text, np.zeros((2, 0), np.float32))
    assert out.shape == (2, 0) and out.dtype == np.complex64
    with pytest.raises(Diagnostic):
        verify_module(parse_source(text.replace("2x0xcomplex", "2x1xcomplex")))


@pytest.mark.parametrize("kind,shape,lengths,message", [
    ("IFFT", "2x2x2xcomplex<f64>", "2, 2, -9223372036854775808", "has a negative length"),
    ("FFT", "2x4xcomplex<f32>", "8", "its trailing dimensions must be [8]"),
    ("IRFFT", "2x4xcomplex<f32>", "8", "its trailing dimensions must be [5]"),
])
def test_lengths_that_do_not_fit_the_operand_are_a_diagnostic(kind: str, shape: str,
                                                              lengths: str,
                                                              message: str) -> None:
    """Upstream's verifier lets these through (FFT/IFFT lengths are not checked, a length
    of INT64_MIN reads as a dynamic size): evaluation stops with a diagnostic."""
    from shlo_cli.ir.diagnostics import Diagnostic

    result = shape if kind != "IRFFT" else "2x8xf32"
    text = (f"func.func @main(%a: tensor<{shape}>) -> tensor<{result}> {{\n"
            f"  %0 = stablehlo.fft %a, type = {kind}, length = [{lengths}] : "
            f"(tensor<{shape}>) -> tensor<{result}>\n  func.return %0 : tensor<{result}>\n}}\n")
    module = parse_source(text)
    dims = [int(d) for d in shape.split("xcomplex")[0].split("x")]
    operand = np.zeros(dims, np.complex128 if "f64" in shape else np.complex64)
    interpreter = Interpreter(module)
    with pytest.raises(Diagnostic, match=re.escape(message)):
        interpreter.call(interpreter.lookup_function("main"), [operand])
