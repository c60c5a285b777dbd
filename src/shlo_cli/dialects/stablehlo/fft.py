"""`stablehlo.fft`: FFT, IFFT, RFFT and IRFFT over the trailing `len(fft_length)` dimensions.

Transforms use numpy's pocketfft in double precision, rounded once to the result element
type (the spec leaves the algorithm to the implementation; XLA's single-precision DUCC
results differ from these by a few ulps).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...interpreter.engine import EvaluationError
from ...ir.types import Type, element_type, numpy_dtype
from ..asm import Format
from ..registry import define_op
from .linalg_verify import verify_fft


@define_op("stablehlo.fft",
           syntax=Format("$operand `,` `type` `=` $fft_type `,` `length` `=` $fft_length",
                         operands=("operand",), types="functional",
                         attrs={"fft_type": "enum:fft_type", "fft_length": "array"}),
           properties=("fft_type", "fft_length"), verify=verify_fft)
def fft(operand: np.ndarray, *, fft_type: Any, fft_length: Any,
        result_type: Type) -> np.ndarray:
    """spec fft: the forward/inverse complex transform (FFT/IFFT, inverse scaled by 1/n),
    the real-to-complex transform keeping the n//2+1 non-negative frequencies (RFFT), or
    its inverse producing `fft_length[-1]` real values (IRFFT)."""
    lengths = [int(n) for n in (fft_length or ())]
    kind = str(fft_type)
    rank = len(lengths)
    if rank == 0 or rank > operand.ndim:
        raise EvaluationError("fft_length must name 1 to rank(operand) trailing dimensions")
    axes = tuple(range(operand.ndim - rank, operand.ndim))
    dtype = numpy_dtype(element_type(result_type))
    shape = tuple(result_type.shape) if hasattr(result_type, "shape") else operand.shape
    if operand.size == 0 or 0 in shape:
        return np.zeros(shape, dtype)
    real, cplx = np.float64, np.complex128
    with np.errstate(all="ignore"):
        if kind == "FFT":
            out = np.fft.fftn(operand.astype(cplx), s=lengths, axes=axes)
        elif kind == "IFFT":
            out = np.fft.ifftn(operand.astype(cplx), s=lengths, axes=axes)
        elif kind == "RFFT":
            out = np.fft.rfftn(operand.astype(real), s=lengths, axes=axes)
        elif kind == "IRFFT":
            out = np.fft.irfftn(operand.astype(cplx), s=lengths, axes=axes)
        else:
            raise EvaluationError(f"unsupported fft_type {kind}")
    return np.ascontiguousarray(out.astype(dtype))
