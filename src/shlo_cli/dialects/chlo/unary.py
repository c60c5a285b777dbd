"""CHLO unary math ops (acos ... tan, special functions, is_inf predicates, conj, square).

Each is evaluated in double (complex<double>) and rounded once to the element type; glibc's
real and complex inverse trigonometric functions are accurate to about one ULP in double,
which upstream's math conformance files (max 3 ULP) require."""

from __future__ import annotations

import numpy as np

from ...ir.core import Operation
from ...ir.types import BOOL
from ...lazy_imports import numpy_function
from .. import libm
from ..registry import define_op
from ..stablehlo.elementwise_numerics import (
    NATIVE_FLOATS,
    is_complex,
    is_float,
    make_complex,
    upcast_to_double,
)
from ..stablehlo.elementwise_verify import (
    COMPLEX,
    FLOAT,
    PRED,
    check_elementwise_shapes,
    check_inferred,
    check_tensor_of,
    with_element,
)
from . import special_math
from .numeric import Kernel, in_double, real_in_double, unsupported
from .syntax import UNARY
from .verify import check_elementwise_base, verify_compatible_operands_and_result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# ChloOps.td's operand (and result) constraints: HLO_AnyFpTensor, HLO_AnyFpOrComplexTensor,
# HLO_AnyComplexTensor (tensors, ranked or not), checked before the ops' traits.
_FP = frozenset((FLOAT,))
_FP_OR_COMPLEX = frozenset((FLOAT, COMPLEX))
_REAL_ONLY = frozenset(("lgamma", "digamma", "erf", "erfc", "erf_inv"))


def _verifier(kinds: frozenset[str]) -> Callable[[Operation], None]:
    """ODS's constraints on operand and result, then HLO_CompatibleOperandsAndResultType."""
    def verify(op: Operation) -> None:
        check_tensor_of(op, kinds, kinds)
        verify_compatible_operands_and_result(op, elementwise=True)

    return verify


def _register(name: str, kernel: Kernel, doc: str) -> None:
    kernel.__doc__ = doc
    define_op(f"chlo.{name}", operands=("operand",), results=1, syntax=UNARY,
              verify=_verifier(_FP if name in _REAL_ONLY else _FP_OR_COMPLEX))(kernel)


_register("acos", in_double("acos", libm.arccos, libm.arccos), "Inverse cosine.")
_register("acosh", in_double("acosh", libm.arccosh, libm.arccosh), "Inverse hyperbolic cosine.")
_register("asin", in_double("asin", libm.arcsin, libm.arcsin), "Inverse sine.")
_register("asinh", in_double("asinh", libm.arcsinh, libm.arcsinh), "Inverse hyperbolic sine.")
_register("atan", in_double("atan", libm.arctan, libm.arctan), "Inverse tangent.")
_register("atanh", in_double("atanh", libm.arctanh, libm.arctanh), "Inverse hyperbolic tangent.")


def _hyperbolic(op: str, complex_fn: Kernel) -> Kernel:
    """cosh/sinh of real x by upstream's (and XLA's) formula, in its working precision (f32
    for f16/bf16/f32): e^(x + log 1/2) +- e^(-x + log 1/2), where rounding x + log 1/2 costs
    up to ~|x| ulp. Programs' expected values come from that formula, so an exactly rounded
    cosh misses them by more than their 3-ulp tolerance; each exp is the C library's, exact
    to rounding.
    Small |x| sinh uses (expm1 x + expm1 x / (expm1 x + 1)) / 2 (no cancellation)."""
    double = in_double(op, libm.cosh if op == "cosh" else libm.sinh, complex_fn)

    def kernel(operand: np.ndarray) -> np.ndarray:
        dtype = operand.dtype
        if not is_float(dtype):
            return double(operand)
        w = np.float64 if dtype == np.float64 else np.float32
        x = operand.astype(w)
        with np.errstate(all="ignore"):
            log_half = w(np.log(0.5))
            up = libm.exp((x + log_half).astype(np.float64)).astype(w)
            down = libm.exp((log_half - x).astype(np.float64)).astype(w)
            if op == "cosh":
                result = up + down
            else:
                e = libm.expm1(x.astype(np.float64)).astype(w)
                small = w(0.5) * (e + e / (e + w(1)))
                result = np.where(np.abs(x) < 1, small, up - down)
        return np.asarray(result, dtype=w).astype(dtype)

    return kernel


_register("cosh", _hyperbolic("cosh", numpy_function("cosh")), "Hyperbolic cosine.")
_register("sinh", _hyperbolic("sinh", numpy_function("sinh")), "Hyperbolic sine.")
_register("tan", in_double("tan", libm.tan, libm.tan), "Tangent.")
_register("lgamma", real_in_double("lgamma", special_math.lgamma), "log|Gamma(x)|.")
_register("digamma", real_in_double("digamma", special_math.digamma), "Digamma function.")
_register("erf", real_in_double("erf", special_math.erf), "Error function.")
_register("erfc", real_in_double("erfc", special_math.erfc), "Complementary error function.")
_register("erf_inv", real_in_double("erf_inv", special_math.erf_inv), "Inverse of erf.")
_register("bessel_i1e", real_in_double("bessel_i1e", special_math.bessel_i1e),
          "Exponentially scaled modified Bessel function of order one.")


def _asin_acos_kernel(z: np.ndarray) -> np.ndarray:
    """w with asin(z) = atan2(Re z, Re w) + i sign(Im z) Im w: Re w = Re sqrt(1 - z^2),
    Im w = |Im asin(z)|. Re w is Kahan's Re(sqrt(1 - z) sqrt(1 + z)), a sum of two
    non-negative products (Im sqrt(1 - z) and Im sqrt(1 + z) have opposite signs): no
    cancellation and no overflow of z^2 (cos(Re asin z) cosh(Im asin z) loses all digits
    near Re asin z = pi/2, e.g. 2e22 instead of 0 at z = 3.4e38)."""
    with np.errstate(all="ignore"):
        a, b = np.sqrt(1 - z), np.sqrt(1 + z)
        real = a.real * b.real - a.imag * b.imag
        imag = np.abs(libm.arcsin(z).imag)
    return make_complex(real, imag, np.dtype(np.complex128))


@define_op("chlo._asin_acos_kernel", operands=("operand",), results=1, syntax=UNARY,
           verify=_verifier(frozenset((COMPLEX,))))
def asin_acos_kernel(operand: np.ndarray) -> np.ndarray:
    """The shared kernel of the complex asin/acos decompositions."""
    if not is_complex(operand.dtype):
        raise unsupported("_asin_acos_kernel", operand.dtype)
    return upcast_to_double(_asin_acos_kernel, operand.dtype, operand)


def _complex_square(z: np.ndarray) -> np.ndarray:
    """(x + iy)^2 = (x - y)(x + y) + 2ixy, with an exact zero real part when |x| = |y| is finite."""
    x, y = z.real, z.imag
    real = np.where(np.isfinite(x) & (np.abs(x) == np.abs(y)), 0.0, (x - y) * (x + y))
    return make_complex(real, (x * y) * 2.0, np.dtype(np.complex128))


@define_op("chlo.square", operands=("operand",), results=1, syntax=UNARY,
           verify=_verifier(_FP_OR_COMPLEX))
def square(operand: np.ndarray) -> np.ndarray:
    """operand * operand (f16/f32/f64: numpy's correctly rounded product in the type itself,
    the float64 square rounded once, as it is exact in float64)."""
    dtype = operand.dtype
    if is_complex(dtype):
        return upcast_to_double(_complex_square, dtype, operand)
    if dtype in NATIVE_FLOATS:
        with np.errstate(all="ignore"):
            return np.square(operand)
    if is_float(dtype):
        return upcast_to_double(np.square, dtype, operand)
    with np.errstate(all="ignore"):
        return np.multiply(operand, operand, dtype=dtype)


@define_op("chlo.conj", operands=("operand",), results=1, syntax=UNARY,
           verify=_verifier(_FP_OR_COMPLEX))
def conj(operand: np.ndarray) -> np.ndarray:
    """Complex conjugate (identity on real element types)."""
    return np.conj(operand) if is_complex(operand.dtype) else operand


def _verify_predicate(op: Operation) -> None:
    """The result is the operand's shape with i1 elements: the class's Elementwise trait
    reports a shape mismatch before the inferred type is compared (MLIR's order); ODS's
    float operand and bool result constraints come first."""
    check_tensor_of(op, _FP, frozenset((PRED,)))
    check_elementwise_base(op)
    check_elementwise_shapes(op, False)
    check_inferred(op, [with_element(op.operand_types[0], BOOL)])


def _predicate(name: str, fn: Kernel, doc: str) -> None:
    def kernel(operand: np.ndarray) -> np.ndarray:
        if not is_float(operand.dtype):
            raise unsupported(name, operand.dtype)
        return np.asarray(fn(operand.astype(np.float64)))

    kernel.__doc__ = doc
    define_op(f"chlo.{name}", operands=("operand",), results=1, syntax=UNARY,
              verify=_verify_predicate)(kernel)


_predicate("is_inf", numpy_function("isinf"), "True for +-infinity.")
_predicate("is_neg_inf", lambda x: x == -np.inf, "True for -infinity.")
_predicate("is_pos_inf", lambda x: x == np.inf, "True for +infinity.")
