"""Kernels for 0-d tensors (scalar loops: RNN steps, loop counters), chosen once per op when
the plan is built (an engine binding hook, beside specialize.py).

A numpy ufunc called on 0-d arrays or numpy scalars costs about a microsecond, mostly
argument parsing; Python's operators on numpy scalars reach the same C arithmetic of the
same type in a few tens of nanoseconds. So when every operand and result of an op is a 0-d
tensor of one native numpy type, the kernel is the operator itself (numpy scalar math: the
element type's arithmetic, rounded once; a NaN result is redone by the ufunc, whose choice
between two NaN operands can differ), transcendental
functions are the C library's on a Python float rounded once to the element type (what
dialects/libm does per element; sqrt, rsqrt and logistic as specialize.py computes them),
float maximum/minimum of unequal operands are comparisons, float -> int converts truncate a
Python float, integer negate/abs/sign are numpy's ufuncs (no overflow warning), and size-1
reshapes to 0-d return the element as a numpy scalar. Float power, fmod and atan2 of finite
operands are the C library's (through `math`) rounded once, floor/ceil/round the integer
`math` picks with the operand's sign, clamp in a strict order the value or bound it picks,
chlo.erf/erfc `math`'s function rounded once (as chlo/special_math computes each element),
same-width bitcasts a view,
is_finite a range test, and f32 <-> bf16/f16/f8 conversions numpy's cast; their edge cases
(NaN, infinities, zeros whose sign matters) go on to the general evaluators. Anything else
(quantized, bool arithmetic; narrow ml_dtypes floats' arithmetic: specialize_scalar_narrow.py;
integer division: specialize_int.py) stays with the general evaluators or the other hooks.
"""

from __future__ import annotations

import functools
import math
import operator
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from ...ir.types import TensorType
from ...lazy_imports import lazy
from .. import libm
from .elementwise_numerics import NATIVE_FLOATS, NATIVE_INTS, is_float
from .specialize import _native_types

Kernel = Callable[..., Any]

# elementwise add/subtract/multiply on native ints and floats are the plain ufuncs (see
# specialize._ARITH); numpy scalar operators run the same typed C loops.
_ARITH = {"stablehlo.add": operator.add, "stablehlo.subtract": operator.sub,
          "stablehlo.multiply": operator.mul}
_COMPARE = {"EQ": operator.eq, "NE": operator.ne, "GE": operator.ge, "GT": operator.gt,
            "LE": operator.le, "LT": operator.lt}
# The libm functions elementwise_math registers for these ops (evaluated in double, rounded
# once to the element type by upcast_to_double).
_LIBM = {"stablehlo.exponential": libm.exp, "stablehlo.exponential_minus_one": libm.expm1,
         "stablehlo.log": libm.log, "stablehlo.log_plus_one": libm.log1p,
         "stablehlo.sine": libm.sin, "stablehlo.cosine": libm.cos, "stablehlo.tan": libm.tan,
         "stablehlo.tanh": libm.tanh, "stablehlo.cbrt": libm.cbrt}
# chlo.erf and chlo.erfc: chlo/special_math's kernels give each element `math`'s function
# in double (which never raises for these two) rounded once to the element type.
_SPECIAL = {"chlo.erf": math.erf, "chlo.erfc": math.erfc}
_NUMBERS = lazy(lambda: NATIVE_INTS | NATIVE_FLOATS)
# Integer negate/abs/sign: numpy's ufuncs on a scalar wrap as the spec's (-INT_MIN and
# |INT_MIN| are INT_MIN) without the overflow warning numpy's scalar operators give.
_INT_UNARY = lazy(lambda: {"stablehlo.negate": np.negative, "stablehlo.abs": np.abs,
                           "stablehlo.sign": np.sign})
# numpy scalar arithmetic warns (inf - inf, overflow) from these kernels' frames: those
# results are the ops' defined ones (as in codegen's filter for bare ufunc kernels).
warnings.filterwarnings("ignore", category=RuntimeWarning,
                        module=r"shlo_cli\.dialects\.stablehlo\.specialize_scalar$")


def _float_op(op: Kernel, ufunc: np.ufunc) -> Kernel:
    """Scalar float arithmetic with the ufunc's NaN: numpy's scalar path and its SIMD loop
    can return different ones of two NaN operands (the sign bit), so a NaN result is
    recomputed by the ufunc (any other result is IEEE's, the same either way). Arrays (a
    region run on whole arrays at once, e.g. a vectorized reducer body) reach the ufunc
    through the operator itself."""
    floats = frozenset((np.float16, np.float32, np.float64))  # built with numpy loaded

    def kernel(a: Any, b: Any) -> Any:
        r = op(a, b)
        if r.__class__ in floats and r != r:
            return ufunc(a, b)
        return r
    # codegen writes the operator inline, then this test (interpreter/codegen.py)
    kernel.inline = (_SYMBOLS[op], floats)  # type: ignore[attr-defined]
    return kernel


_SYMBOLS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/"}


_FLOAT_KERNELS = lazy(lambda: {name: _float_op(fn, uf) for name, fn, uf in (
    ("stablehlo.add", operator.add, np.add), ("stablehlo.subtract", operator.sub, np.subtract),
    ("stablehlo.multiply", operator.mul, np.multiply),
    # divide: float_op's native branch is np.divide
    ("stablehlo.divide", operator.truediv, np.divide))})


def _is_scalar(t: Any) -> bool:
    return isinstance(t, TensorType) and t.is_static and not t.shape


def _transcendental(scalar: Callable[[float], float], to: type, general: Kernel) -> Kernel:
    """The C library's result rounded once to `to`: stored into a 0-d array of that type
    (the same C cast as `to(value)`, which costs three times as much: the scalar type's
    constructor parses its arguments), read back as a new numpy scalar. The array is this
    kernel's own (one bound op of one interpreter, which runs on one thread) and nothing
    runs between the store and the read."""
    cell: np.ndarray = np.empty((), to)

    def kernel(x: Any) -> Any:
        if x.ndim:  # a region run on whole arrays at once (a vectorized reducer body)
            return general(x)
        cell[()] = scalar(float(x))
        return cell[()]
    # codegen's Python-scalar loops (interpreter/pyscalar.py) call the double function
    # themselves and round its result as the cell does
    kernel.scalar = scalar  # type: ignore[attr-defined]
    return kernel


def _root(reciprocal: bool, to: type, general: Kernel) -> Kernel:
    """sqrt or 1/sqrt of a positive value in double, rounded once (specialize_math.root's steps
    on one Python float); zeros, negatives and NaN take the general path (their signs)."""
    cell: np.ndarray = np.empty((), to)
    sqrt = math.sqrt

    def kernel(x: Any) -> Any:
        if x.ndim:
            return general(x)
        v = float(x)
        if not v > 0.0:
            return general(x)
        r = sqrt(v)
        cell[()] = 1.0 / r if reciprocal else r
        return cell[()]
    kernel.root = reciprocal  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def _logistic(to: type, general: Kernel) -> Kernel:
    """1 / (1 + exp(-x)) as specialize_math.logistic computes it: exp in double rounded once
    to the type, then the add and the divide in the type (numpy scalar arithmetic)."""
    cell: np.ndarray = np.empty((), to)
    exp, one = libm.exp.scalar, to(1)  # type: ignore[attr-defined]

    def kernel(x: Any) -> Any:
        if x.ndim:
            return general(x)
        cell[()] = exp(-float(x))
        return one / (one + cell[()])
    kernel.logistic_exp = exp  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def finite_pow(a: float, b: float) -> float:
    """math.pow of finite a and b, which is the C library's pow (CPython calls it for
    finite arguments), or NaN where math.pow raises (an overflow; a negative base to a
    non-integer power): the callers redo those with the general evaluator."""
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError):
        return math.nan


def _power(to: type, general: Kernel) -> Kernel:
    """x ** y of finite operands as the C library's pow rounded once to `to`, which is what
    the general evaluator computes (an Adam step's bias corrections `b1 ** t`: a dozen
    whole-array passes there). Non-finite operands (signalling NaNs, C99's special cases)
    and the results `finite_pow` leaves NaN take the general path."""
    cell: np.ndarray = np.empty((), to)
    finite = math.isfinite

    def kernel(x: Any, y: Any) -> Any:
        if x.ndim or y.ndim:
            return general(x, y)
        a, b = float(x), float(y)
        if not (finite(a) and finite(b)):
            return general(x, y)
        r = finite_pow(a, b)
        if r != r:
            return general(x, y)
        cell[()] = r
        return cell[()]
    kernel.finite_pow = finite_pow  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


EXACT_FROM = 2.0 ** 52  # doubles (and narrower floats) this large are integers already


def _away(v: float) -> int:
    """v (|v| < 2^52) rounded to the nearest integer, halves away from zero (the fraction
    m - floor(m) of m = |v| is exact)."""
    m = abs(v)
    r = math.floor(m)
    if m - r >= 0.5:
        r += 1
    return r if v >= 0 else -r


# The integer each rounding op picks for a double below 2^52 in magnitude (Python's round
# breaks ties to even).
ROUNDINGS: dict[str, Callable[[float], int]] = {
    "stablehlo.floor": math.floor, "stablehlo.ceil": math.ceil,
    "stablehlo.round_nearest_even": round, "stablehlo.round_nearest_afz": _away}


def _rounding(to_integer: Callable[[float], int], to: type, general: Kernel) -> Kernel:
    """floor, ceil or a round-to-integer of a value below 2^52 in magnitude: the integer as
    a float, given the operand's sign (IEEE's sign of a zero result: floor(0.5) is +0,
    ceil(-0.5) and round(-0.3) are -0), exact in every float type. Larger values,
    infinities and NaN take the general path."""
    cell: np.ndarray = np.empty((), to)
    copysign = math.copysign

    def kernel(x: Any) -> Any:
        if x.ndim:
            return general(x)
        v = float(x)
        if -EXACT_FROM < v < EXACT_FROM:
            cell[()] = copysign(float(to_integer(v)), v)
            return cell[()]
        return general(x)
    kernel.rounding = to_integer  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def _extremum(largest: bool, general: Kernel) -> Kernel:
    """max/min of two floats that compare unequal: the larger (smaller) operand itself; equal
    values (±0, whose sign the spec fixes), NaN and whole arrays take the next kernel."""
    def kernel(a: Any, b: Any) -> Any:
        if a.ndim or b.ndim:
            return general(a, b)
        if a > b:
            return a if largest else b
        if b > a:
            return b if largest else a
        return general(a, b)
    return kernel


def _clamp(general: Kernel) -> Kernel:
    """clamp(low, x, high) = min(max(x, low), high) of floats where the order is strict:
    x itself strictly inside, low below it, high above it (low < high); equal values
    (zeros' signs), NaN and low >= high take the next kernel."""
    def kernel(low: Any, x: Any, high: Any) -> Any:
        if low.ndim or x.ndim or high.ndim:
            return general(low, x, high)
        if low < x < high:
            return x
        if x < low < high:
            return low
        if low < high < x:
            return high
        return general(low, x, high)
    kernel.float_clamp = True  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def _remainder(to: type, general: Kernel) -> Kernel:
    """fmod of finite floats, the divisor nonzero: math.fmod is the C function, whose
    result is exact (and representable in the operands' type); the rest (a zero divisor,
    infinities, NaN) takes the general path."""
    cell: np.ndarray = np.empty((), to)
    fmod, top = math.fmod, sys.float_info.max

    def kernel(a: Any, b: Any) -> Any:
        if a.ndim or b.ndim:
            return general(a, b)
        x, y = float(a), float(b)
        if -top <= x <= top and -top <= y <= top and y != 0.0:
            cell[()] = fmod(x, y)
            return cell[()]
        return general(a, b)
    kernel.fmod = fmod  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def _atan2(to: type, general: Kernel) -> Kernel:
    """atan2(y, x) of finite operands, y nonzero: math.atan2 calls the C library's atan2
    there (its zeros and infinities it answers itself: those take the general path, the C
    library's), rounded once as the general evaluator rounds it."""
    cell: np.ndarray = np.empty((), to)
    atan2, top = math.atan2, sys.float_info.max

    def kernel(y: Any, x: Any) -> Any:
        if y.ndim or x.ndim:
            return general(y, x)
        a, b = float(y), float(x)
        if a != 0.0 and -top <= a <= top and -top <= b <= top:
            cell[()] = atan2(a, b)
            return cell[()]
        return general(y, x)
    kernel.atan2 = atan2  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def _is_finite(general: Kernel) -> Kernel:
    """is_finite of a 0-d native float: whether it lies within double's range (NaN does
    not), as a numpy bool."""
    top, true, false = sys.float_info.max, np.bool_(True), np.bool_(False)

    def kernel(x: Any) -> Any:
        if x.ndim:
            return general(x)
        return true if -top <= float(x) <= top else false
    kernel.is_finite = True  # type: ignore[attr-defined]  # (pyscalar.py writes it out)
    return kernel


def _sign(to: type, general: Kernel) -> Kernel:
    """sign of a nonzero number: ±1 of the type; zeros (their sign kept) and NaN take the
    next kernel."""
    plus, minus = to(1), to(-1)

    def kernel(x: Any) -> Any:
        if x.ndim:
            return general(x)
        if x > 0:
            return plus
        if x < 0:
            return minus
        return general(x)
    return kernel


def _float_to_int(to: np.dtype, general: Kernel) -> Kernel:
    """convert's float -> int: toward zero, saturating at the type's range, NaN -> 0."""
    make, info = to.type, np.iinfo(to)
    low, high, zero = make(info.min), make(info.max), make(0)
    below, above = info.min - 1, info.max + 1  # (Python compares these exactly with floats)

    def kernel(x: Any) -> Any:
        if x.ndim:
            return general(x)
        v = float(x)
        if v != v:
            return zero
        if v >= above:
            return high
        if v <= below:
            return low
        return make(int(v))
    return kernel


def _narrow_float_pair(source: np.dtype, target: np.dtype) -> bool:
    """f32 to a float narrower than f32 (bf16, f16, the f8 types: the general path rounds
    f32 itself once, with astype), or such a float to f32 or f64 (exact)."""
    def narrow(d: np.dtype) -> bool:
        return d.kind == "V" or d.kind == "f" and d.itemsize < 4  # (ml_dtypes' kind is V)

    return (source == np.float32 and is_float(target) and narrow(target)) or (
        is_float(source) and narrow(source) and target in (np.float32, np.float64))


def _narrow_float_convert(to: np.dtype, general: Kernel) -> Kernel:
    """A 0-d float conversion `_narrow_float_pair` admits, as numpy's cast (what the general
    path's rounding is for these pairs); NaN, whose payload the general path's double
    widening may quiet, takes the next kernel (a bf16 RNN's state converted twice a step)."""
    def kernel(x: Any) -> Any:
        if x.ndim or x != x:
            return general(x)
        return x.astype(to)
    return kernel


def _bitcast(to: np.dtype, general: Kernel) -> Kernel:
    """A 0-d bitcast between numbers of one width: the same bits viewed as `to` (what the
    general evaluator's whole-array view gives, without its shape work)."""
    def kernel(x: Any) -> Any:
        return x.view(to) if x.ndim == 0 else general(x)
    return kernel


def _element(index: tuple[int, ...], general: Kernel) -> Kernel:
    """A size-1 tensor's only element as a numpy scalar (a copy: nothing aliases it)."""
    def kernel(x: Any) -> Any:
        if x.size != 1:  # a region run on whole arrays at once: the general kernel's error
            return general(x)
        return x[index]
    # codegen may run a size-1 dynamic_slice feeding only this op as one element read
    kernel.reads_element = True  # type: ignore[attr-defined]
    return kernel


def bind_scalar(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A 0-d kernel for `op`, or None (the next hook or the general evaluator)."""
    name = op.name
    if name not in _HANDLED or not op.results or not _is_scalar(op.result_types[0]):
        return None
    if name == "stablehlo.reshape":  # any size-1 static operand: its element
        source = op.operand_types[0]
        dtypes = _native_types(op)
        if (dtypes is None or dtypes[0] != dtypes[1]
                or (dtypes[0] not in _NUMBERS and dtypes[0] != np.bool_  # (a mask's x[i])
                    and not is_float(dtypes[0]))  # (a bf16 state's)
                or not isinstance(source, TensorType) or source.num_elements != 1):
            return None
        if opdef.evaluate is None:
            return None
        general = functools.partial(opdef.evaluate, **kwargs) if kwargs else opdef.evaluate
        return _element((0,) * len(source.shape), general)
    if not all(_is_scalar(t) for t in op.operand_types):
        return None
    dtypes = _native_types(op)
    if dtypes is None:
        return None
    operand = dtypes[0]
    if name == "stablehlo.compare":
        kind, direction = kwargs.get("compare_type"), kwargs.get("comparison_direction")
        if (operand in _NUMBERS and dtypes[1] == operand and kind != "TOTALORDER"
                and direction in _COMPARE):
            return _COMPARE[direction]
        return None
    if name == "stablehlo.is_finite":
        if operand in NATIVE_FLOATS and dtypes[1] == np.bool_ and opdef.evaluate is not None:
            return _is_finite(opdef.evaluate)
        return None
    if name == "stablehlo.convert":
        if operand in NATIVE_FLOATS and dtypes[1] in NATIVE_INTS:
            return _float_to_int(dtypes[1], bind_after(bind_scalar, op, opdef, kwargs))
        if _narrow_float_pair(operand, dtypes[1]):
            return _narrow_float_convert(dtypes[1], bind_after(bind_scalar, op, opdef, kwargs))
        return None
    if name == "stablehlo.bitcast_convert":
        if operand in _NUMBERS and dtypes[1] in _NUMBERS and \
                operand.itemsize == dtypes[1].itemsize:
            return _bitcast(dtypes[1], bind_after(bind_scalar, op, opdef, kwargs))
        return None
    if any(d != operand for d in dtypes):
        return None
    if operand in NATIVE_INTS:
        if name in _ARITH:
            return _ARITH[name]
        return _INT_UNARY.get(name)
    if operand not in NATIVE_FLOATS:
        return None
    if name in _FLOAT_KERNELS:
        return _FLOAT_KERNELS[name]
    if name == "stablehlo.negate":
        return operator.neg
    if opdef.evaluate is None:
        return None
    general = functools.partial(opdef.evaluate, **kwargs) if kwargs else opdef.evaluate
    if name in ("stablehlo.sqrt", "stablehlo.rsqrt"):
        return _root(name == "stablehlo.rsqrt", operand.type, general)
    if name == "stablehlo.logistic":
        return _logistic(operand.type, general)
    if name == "stablehlo.power":
        return _power(operand.type, general)
    if name in ROUNDINGS:
        return _rounding(ROUNDINGS[name], operand.type, general)
    if name == "stablehlo.clamp":
        return _clamp(bind_after(bind_scalar, op, opdef, kwargs))
    if name == "stablehlo.remainder":
        return _remainder(operand.type, general)
    if name == "stablehlo.atan2":
        return _atan2(operand.type, general)
    if name in ("stablehlo.maximum", "stablehlo.minimum"):
        return _extremum(name == "stablehlo.maximum", bind_after(bind_scalar, op, opdef, kwargs))
    if name == "stablehlo.sign":
        return _sign(operand.type, bind_after(bind_scalar, op, opdef, kwargs))
    if name in _SPECIAL:
        return _transcendental(_SPECIAL[name], operand.type, general)
    if name not in _LIBM:
        return None
    return _transcendental(_LIBM[name].scalar, operand.type,  # type: ignore[attr-defined]
                           opdef.evaluate)


# _FLOAT_KERNELS' names written out: reading its keys here would load numpy at import.
_HANDLED = frozenset(("stablehlo.add", "stablehlo.subtract", "stablehlo.multiply",
                      "stablehlo.divide", *_LIBM, "stablehlo.negate", "stablehlo.compare",
                      "stablehlo.reshape", "stablehlo.sqrt", "stablehlo.rsqrt",
                      "stablehlo.logistic", "stablehlo.maximum", "stablehlo.minimum",
                      "stablehlo.convert", "stablehlo.abs", "stablehlo.sign",
                      "stablehlo.power", "stablehlo.floor", "stablehlo.ceil",
                      "stablehlo.round_nearest_even", "stablehlo.round_nearest_afz",
                      "stablehlo.clamp", "stablehlo.remainder", "stablehlo.atan2",
                      "stablehlo.is_finite", "stablehlo.bitcast_convert", *_SPECIAL))

register_bind_hook(bind_scalar, 20, ops=_HANDLED)
