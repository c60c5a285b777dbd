"""Element-type plumbing for the CHLO kernels: evaluate in double (complex<double>) and
round once to the element type, as upstream's interpreter does for transcendental ops."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ir.diagnostics import EvaluationError
from ..stablehlo.elementwise_numerics import is_complex, is_float, mlir_type_name, upcast_to_double

Kernel = Callable[..., "np.ndarray"]


def unsupported(op: str, dtype: np.dtype) -> EvaluationError:
    return EvaluationError(f"{op} is unsupported for element type {mlir_type_name(dtype)}")


def real_in_double(op: str, fn: Kernel) -> Kernel:
    """A kernel for float element types only: `fn` on float64, rounded once."""

    def kernel(*operands: np.ndarray) -> np.ndarray:
        dtype = operands[0].dtype
        if not is_float(dtype):
            raise unsupported(op, dtype)
        return upcast_to_double(fn, dtype, *operands)

    return kernel


def in_double(op: str, real_fn: Kernel, complex_fn: Kernel | None) -> Kernel:
    """A kernel for float (and, with `complex_fn`, complex) element types."""

    def kernel(operand: np.ndarray) -> np.ndarray:
        dtype = operand.dtype
        if is_float(dtype):
            return upcast_to_double(real_fn, dtype, operand)
        if is_complex(dtype) and complex_fn is not None:
            return upcast_to_double(complex_fn, dtype, operand)
        raise unsupported(op, dtype)

    return kernel
