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


_SPLITTER = 134217729.0  # 2^27 + 1: Dekker's split of a double into two 26-bit halves


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p + e == a * b exactly (Dekker), for |a|, |b| well inside the double range."""
    p = a * b
    ca, cb = _SPLITTER * a, _SPLITTER * b
    a_high, b_high = ca - (ca - a), cb - (cb - b)
    a_low, b_low = a - a_high, b - b_high
    return p, ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s + e == a + b exactly (Knuth)."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _complex_log1p(z: np.ndarray) -> np.ndarray:
    """log(1 + z) without rounding 1 + z where it matters. Re = log|1 + z|: where |1 + z|
    is below 1/2 or above 2, log(hypot(1 + x, y)) (1 + x is exact when x is near -1, and
    relatively exact enough when |1 + z| is large); in between, log1p(u) / 2 with
    u = 2x + x^2 + y^2 summed in double-double from exact products (u cancels to nearly 0
    on the circle |1 + z| = 1, and near z = 0 where |1 + z| rounds to 1).
    Im = atan2(y, 1 + x), which keeps the sign of a zero y on the branch cut, corrected for
    the rounding of 1 + x."""
    x = np.asarray(z.real, np.float64)
    y = np.asarray(z.imag, np.float64)
    with np.errstate(all="ignore"):
        x_plus_one = 1 + x
        modulus = np.hypot(x_plus_one, y)
        far = ~((modulus >= 0.5) & (modulus <= 2.0))
        xx, xx_error = _two_product(x, x)
        yy, yy_error = _two_product(y, y)
        u, u_error = _two_sum(2 * x, xx)
        u, error = _two_sum(u, yy)
        u_error = u_error + error + xx_error + yy_error
        u, u_error = _two_sum(u, u_error)
        near = 0.5 * (libm.log1p(u) + u_error / (1 + u))
        # hypot overflows (or goes subnormal) before log|1 + z| does: scale by the larger part.
        larger = np.maximum(np.abs(x_plus_one), np.abs(y))
        ratio = np.minimum(np.abs(x_plus_one), np.abs(y)) / larger
        scaled = libm.log(larger) + 0.5 * libm.log1p(ratio * ratio)
        extreme = (modulus > 1e300) | (modulus < 1e-300)
        far_value = libm.log(np.where(far & ~extreme, modulus, 1.0))
        real = np.where(far, np.where(extreme, scaled, far_value), near)
        real = np.where(np.isinf(x) | np.isinf(y), np.inf, real)
        # 1 + x rounds off its low part: atan2's derivative in the second argument
        # puts it back (-y / |1 + z|^2 per unit).
        _, x_plus_one_error = _two_sum(np.ones_like(x), x)
        shift = np.where(np.isfinite(x_plus_one_error) & (x_plus_one_error != 0) & (y != 0)
                         & np.isfinite(y) & np.isfinite(modulus),
                         y * x_plus_one_error / (modulus * modulus), 0.0)
        imag = libm.arctan2(y, x_plus_one) - shift
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


# The C library's tanh (numpy's real tanh is its own SIMD code on every CPU); libm.tanh
# hands complex arguments to numpy's complex tanh. Being a libm function (it has `.ufunc`),
# narrower floats take upcast_to_double's libm.rounded path: same bits at numpy's speed.
_tanh = libm.tanh


def _rsqrt(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":  # 1.0 / std::sqrt(z) divides as complex<double> does
        return divide_complex(np.ones(x.shape, x.dtype), np.sqrt(x))
    return 1.0 / np.sqrt(x)


def _register(name: str, fn: Callable[[np.ndarray], np.ndarray],
              complex_fn: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
    kernel = _transcendental(fn, complex_fn)
    kernel.__doc__ = f"Elementwise {name.split('.')[-1]}, in double, rounded once."
    define_op(name, operands=("operand",), results=1, attributes=ACCURACY, syntax=UNARY,
              verify=elementwise(FLOATING))(kernel)


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


@define_op("stablehlo.logistic", operands=("operand",), results=1, attributes=("result_accuracy?",),
           syntax=UNARY, verify=elementwise(FLOATING))
def logistic(operand: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)): exp in double, then the add and divide in the element type."""
    dtype = operand.dtype
    if not (is_float(dtype) or is_complex(dtype)):
        raise unsupported("logistic", dtype)
    one = np.ones(operand.shape, dtype)
    exp = upcast_to_double(libm.exp, dtype, negate(operand))
    return divide(one, add(one, exp))


@define_op("stablehlo.atan2", operands=("lhs", "rhs"), results=1, syntax=BINARY,
           verify=elementwise(FLOATING))
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
