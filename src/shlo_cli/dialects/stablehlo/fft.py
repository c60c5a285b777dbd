"""`stablehlo.fft`: FFT, IFFT, RFFT and IRFFT over the trailing `len(fft_length)` dimensions.

The spec leaves the algorithm to the implementation. Every element type is transformed in
double precision by numpy.fft (a mixed-radix Cooley-Tukey FFT with Bluestein's algorithm
for large prime factors) and rounded once to the result element type. For f32/complex64
that rounding dominates: results are within 1 ULP of the exactly rounded transform
(`benchmarks/fft_accuracy.py` measures it), where a float32 FFT such as XLA:CPU's drifts by
thousands of ULP on small-magnitude outputs. f64/complex128 results carry numpy's double
rounding errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.diagnostics import EvaluationError
from ...ir.types import Type, element_type, numpy_dtype
from ...lazy_imports import lazy
from ..asm import Format
from ..registry import define_op
from .linalg_verify import verify_fft

# fft_type -> (numpy transform over `axes` with output lengths `s`, input dtype it reads)
_TRANSFORMS: dict[str, tuple[Callable[..., np.ndarray], type]] = lazy(lambda: {
    "FFT": (np.fft.fftn, np.complex128),
    "IFFT": (np.fft.ifftn, np.complex128),
    "RFFT": (np.fft.rfftn, np.float64),
    "IRFFT": (np.fft.irfftn, np.complex128),
})


def transform(operand: np.ndarray, kind: str, lengths: list[int], dtype: Any) -> np.ndarray:
    """`kind` over the trailing len(lengths) axes of `operand`, computed in double precision
    and rounded once to `dtype`; the inverse transforms are scaled by 1/prod(lengths)."""
    if kind not in _TRANSFORMS:
        raise EvaluationError(f"unsupported fft_type {kind}")
    fn, wide = _TRANSFORMS[kind]
    axes = tuple(range(operand.ndim - len(lengths), operand.ndim))
    with np.errstate(all="ignore"):
        out = fn(operand.astype(wide), s=lengths, axes=axes)
    return np.ascontiguousarray(out.astype(dtype))


@define_op("stablehlo.fft", operands=("operand",), results=1, attributes=("fft_type", "fft_length"),
           syntax=Format("$operand `,` `type` `=` $fft_type `,` `length` `=` $fft_length",
                         operands=("operand",), types="functional",
                         attrs={"fft_type": "enum:fft_type", "fft_length": "array"}),
           verify=verify_fft)
def fft(operand: np.ndarray, *, fft_type: Any, fft_length: Any,
        result_type: Type) -> np.ndarray:
    """spec fft: the forward/inverse complex transform (FFT/IFFT, inverse scaled by 1/n),
    the real-to-complex transform keeping the n//2+1 non-negative frequencies (RFFT), or
    its inverse producing `fft_length[-1]` real values (IRFFT)."""
    lengths = [int(n) for n in (fft_length or ())]
    rank = len(lengths)
    if rank == 0 or rank > operand.ndim:
        raise EvaluationError("fft_length must name 1 to rank(operand) trailing dimensions")
    check_lengths(operand.shape, str(fft_type), lengths)
    dtype = numpy_dtype(element_type(result_type))
    shape = tuple(result_type.shape) if hasattr(result_type, "shape") else operand.shape
    if operand.size == 0 or 0 in shape:
        return np.zeros(shape, dtype)
    return transform(operand, str(fft_type), lengths, dtype)


def check_lengths(shape: tuple[int, ...], kind: str, lengths: list[int]) -> None:
    """The operand's trailing dimensions must be the transform's lengths (IRFFT: the last
    one L//2+1 for L = fft_length[-1]). Upstream's verifier checks only RFFT/IRFFT, and a
    dynamic operand or a length read as a dynamic size (INT64_MIN) passes it."""
    trailing = list(shape[len(shape) - len(lengths):])
    expected = list(lengths)
    if kind == "IRFFT":
        expected[-1] = lengths[-1] // 2 + 1
    if any(n < 0 for n in lengths):
        raise EvaluationError(f"fft_length {lengths} has a negative length")
    if trailing != expected:
        raise EvaluationError(f"{kind} of an operand of shape {list(shape)} with fft_length "
                              f"{lengths}: its trailing dimensions must be {expected}")
