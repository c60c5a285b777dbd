"""Transcendental elementwise ops: as upstream's interpreter does, each is evaluated in double
(or complex<double>) and rounded once to the element type."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...lazy_imports import numpy_function
from .. import libm
from ..registry import define_op
from .elementwise import ACCURACY, BINARY, UNARY, add, complex_multiply, divide, negate, unsupported
from .elementwise_numerics import divide_complex, is_complex, is_float, upcast_to_double
from .elementwise_verify import FLOATING, elementwise


def _transcendental(fn: Callable[[np.ndarray], np.ndarray],
                    complex_fn: Callable[[np.ndarray], np.ndarray] | None = None
                    ) -> Callable[[np.ndarray], np.ndarray]:
    def kernel(operand: np.ndarray) -> np.ndarray:
        dtype = operand.dtype
        if is_complex(dtype):
            return upcast_to_double(complex_fn or fn, dtype, operand)
        if is_float(dtype):
            return upcast_to_double(fn, dtype, operand)
        raise unsupported("this operation", dtype)

    return kernel


def _complex_cbrt(z: np.ndarray) -> np.ndarray:
    """Principal cube root: |z|^(1/3) * e^(i arg(z) / 3), as upstream writes it."""
    theta = libm.arctan2(z.imag, z.real) / 3.0
    modulus = libm.power(libm.power(z.real, 2.0) + libm.power(z.imag, 2.0), 1.0 / 6.0)
    return modulus * (libm.cos(theta) + 1j * libm.sin(theta))


def _complex_log1p(z: np.ndarray) -> np.ndarray:
    """log(1 + z) without forming 1 + z: Re = log1p(2x + x^2 + y^2) / 2 in extended
    precision (exact near z = 0, where |1 + z| rounds to 1), Im = atan2(y, 1 + x), which
    keeps the sign of a zero y on the branch cut."""
    x, y = z.real.astype(np.longdouble), z.imag.astype(np.longdouble)
    with np.errstate(all="ignore"):
        real = 0.5 * libm.log1p(2 * x + x * x + y * y)
        real = np.where(np.isinf(x) | np.isinf(y), np.inf, real)  # inf - inf inside log1p
        imag = libm.arctan2(y, 1 + x)
    return _from_parts(real, imag, z.dtype)


def _complex_expm1(z: np.ndarray) -> np.ndarray:
    """exp(z) - 1 without cancellation near z = 0:
    Re = expm1(x) cos(y) - 2 sin(y/2)^2, Im = exp(x) sin(y)."""
    x, y = z.real, z.imag
    with np.errstate(all="ignore"):
        real = libm.expm1(x) * libm.cos(y) - 2.0 * libm.sin(0.5 * y) ** 2
        imag = libm.exp(x) * libm.sin(y)
        imag = np.where(y == 0, y, imag)  # exp(inf) * 0 would be NaN
    return _from_parts(real, imag, z.dtype)


def _from_parts(real: np.ndarray, imag: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A complex array from its parts (`real + 1j * imag` would turn -0.0 into +0.0)."""
    out = np.empty(np.shape(real), dtype)
    out.real, out.imag = real, imag
    return out


def _tanh(x: np.ndarray) -> np.ndarray:
    """The C library's tanh (numpy's real tanh is its own SIMD code on every CPU)."""
    return np.tanh(x) if x.dtype.kind == "c" else libm.tanh(x)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":  # 1.0 / std::sqrt(z) divides as complex<double> does
        return divide_complex(np.ones(x.shape, x.dtype), np.sqrt(x))
    return 1.0 / np.sqrt(x)


def _register(name: str, fn: Callable[[np.ndarray], np.ndarray],
              complex_fn: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
    kernel = _transcendental(fn, complex_fn)
    kernel.__doc__ = f"Elementwise {name.split('.')[-1]}, in double, rounded once."
    define_op(name, syntax=UNARY, properties=ACCURACY, verify=elementwise(FLOATING))(kernel)


_register("stablehlo.exponential", libm.exp)
_register("stablehlo.exponential_minus_one", libm.expm1, _complex_expm1)
_register("stablehlo.log", libm.log)
_register("stablehlo.log_plus_one", libm.log1p, _complex_log1p)
_register("stablehlo.sine", libm.sin)
_register("stablehlo.cosine", libm.cos)
_register("stablehlo.tan", libm.tan)
_register("stablehlo.tanh", _tanh)
_register("stablehlo.sqrt", numpy_function("sqrt"))
_register("stablehlo.rsqrt", _rsqrt)
_register("stablehlo.cbrt", libm.cbrt, _complex_cbrt)


@define_op("stablehlo.logistic", syntax=UNARY, properties=ACCURACY,
           verify=elementwise(FLOATING))
def logistic(operand: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)): exp in double, then the add and divide in the element type."""
    dtype = operand.dtype
    if not (is_float(dtype) or is_complex(dtype)):
        raise unsupported("logistic", dtype)
    one = np.ones(operand.shape, dtype)
    exp = upcast_to_double(libm.exp, dtype, negate(operand))
    return divide(one, add(one, exp))


@define_op("stablehlo.atan2", syntax=BINARY, verify=elementwise(FLOATING))
def atan2(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """atan2(y=lhs, x=rhs); complex: -i * log((x + i y) / sqrt(x^2 + y^2))."""
    dtype = lhs.dtype
    if is_complex(dtype):
        y, x = lhs, rhs
        i = np.full(y.shape, 1j, dtype)
        numerator = add(x, complex_multiply(i, y))
        radius = upcast_to_double(np.sqrt, dtype,
                                  add(complex_multiply(x, x), complex_multiply(y, y)))
        log = upcast_to_double(libm.log, dtype, divide(numerator, radius))
        return complex_multiply(negate(i), log)
    if is_float(dtype):
        return upcast_to_double(libm.arctan2, dtype, lhs, rhs)
    raise unsupported("atan2", dtype)
