"""Plan-time kernels for the narrow float types numpy holds through ml_dtypes (bfloat16, the
f8/f6/f4 types) and for f16 conversions (an engine binding hook).

The general evaluators reach these types through per-call type dispatch and `np.errstate`
blocks, which cost more than the arithmetic on a recurrent layer's gates: a bf16 add of 256
elements took 6.5 us, of which its numpy calls are 2 (Keras' `mixed_bfloat16` policy runs
every layer so). Each kernel here makes exactly the numpy calls the general evaluator makes
for its element type, chosen once per op, with errors quieted by the cheap `switches` pair;
anything else (another dtype or class at run time, 0-d values) goes to the general evaluator:

- add/subtract/multiply/divide: `elementwise_numerics.float_op`: both operands widened to
  f32, the ufunc, one rounding back (`round_float` of an f32 array is its astype); small
  arrays by ml_dtypes' own loop, which computes the same, where a check of its NaN
  handling at first use shows it gives the same bits;
- maximum/minimum (bf16): the f32 kernel of `specialize_extremum` on the exactly widened
  operands, rounded back (the general evaluator's f64 widening gives the same elements,
  NaN payloads included: tests/unit/test_specialize_narrow.py checks every bf16 value);
- negate/abs (bf16): the sign bit flipped or cleared, as `elementwise.negate`/`abs_` do
  (ml_dtypes' own loop where it does exactly that to every value);
- (compare: specialize_compare.py;)
- convert between them and f32/f64 (and f16 <-> f32/f64): `conversions.convert_array`'s
  float branches (f32 -> narrow: astype; the rest through an f64 copy);
- exp, log, tanh, ... (bf16): `libm.native_kernel` with `rounder`, the object
  `upcast_to_double` calls; logistic composed of it as `elementwise_math.logistic` is;
  sqrt/rsqrt in f32 (the same bf16 results, value for value).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from ...ir.core import Operation
from ...ir.registry import bind_after, register_bind_hook
from ...lazy_imports import lazy
from .. import libm
from ..quiet import switches
from .elementwise_numerics import is_float, rounder
from .specialize import _LIBM_OPS, _MAXIMUM, _native_types

Kernel = Callable[..., Any]

# (built on first use: importing an op module never loads numpy)
_DTYPES = lazy(lambda: {"bf16": np.dtype(ml_dtypes.bfloat16), "f16": np.dtype(np.float16),
                        "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
                        "u16": np.dtype(np.uint16)})
_SIGN = lazy(lambda: {"flip": np.array(0x8000, np.uint16), "keep": np.array(0x7FFF, np.uint16)})
_ARITH = lazy(lambda: {"stablehlo.add": np.add, "stablehlo.subtract": np.subtract,
                       "stablehlo.multiply": np.multiply, "stablehlo.divide": np.divide})


def is_narrow(dtype: np.dtype) -> bool:
    """A real float type narrower than f32 that numpy has no loops of its own for."""
    return is_float(dtype) and dtype.itemsize <= 2 and dtype.name != "float16"


def _arithmetic(ufunc: np.ufunc, dtype: np.dtype, general: Kernel) -> Kernel:
    """float_op(ufunc, dtype, a, b): in f32, rounded once. Arrays of up to `_NATIVE_UP_TO`
    elements take ml_dtypes' own loop where it gives exactly that (`_native_order`): one
    numpy call instead of four (a bf16 LSTM's gates are all call overhead)."""
    quiet, loud = switches()
    array, f32 = np.ndarray, _DTYPES["f32"]
    order = _native_order(ufunc, dtype)
    native_up_to = _NATIVE_UP_TO if order else -1

    def kernel(a: Any, b: Any) -> Any:
        if (a.__class__ is not array or b.__class__ is not array or a.dtype != dtype
                or b.dtype != dtype or not a.ndim):
            return general(a, b)
        token = quiet()
        try:
            if a.size <= native_up_to and b.size <= native_up_to:
                return ufunc(a, b) if order > 0 else ufunc(b, a)
            wide = a.astype(f32)
            ufunc(wide, b.astype(f32), wide)
            return wide.astype(dtype)
        finally:
            loud(token)

    def unquieted(a: Any, b: Any) -> Any:
        """`kernel` with numpy's errors ignored already (quiet.py)."""
        if (a.__class__ is not array or b.__class__ is not array or a.dtype != dtype
                or b.dtype != dtype or not a.ndim):
            return general(a, b)
        if a.size <= native_up_to and b.size <= native_up_to:
            return ufunc(a, b) if order > 0 else ufunc(b, a)
        wide = a.astype(f32)
        ufunc(wide, b.astype(f32), wide)
        return wide.astype(dtype)
    kernel.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
    kernel.unquieted = unquieted  # type: ignore[attr-defined]
    return kernel


# Elements up to which ml_dtypes' own arithmetic loop (scalar C++, one call) is faster than
# widening to f32 (numpy's vector loops, four calls): the measured crossover is about 1500.
_NATIVE_UP_TO = 1024


@functools.cache
def _native_order(ufunc: np.ufunc, dtype: np.dtype) -> int:
    """Whether ml_dtypes' own loop of `ufunc` for `dtype` gives float_op's result bit for
    bit: 1 as called, -1 with the operands swapped, 0 not at all. Its elements are the f32
    operation rounded once, as float_op's; but where both operands are NaN its compiled
    code may keep the other one (the compiler may swap a commutative operation's
    operands), and the swapped call then gives float_op's NaN (add and multiply are
    otherwise commutative to the bit). The loop is another library's build, so this is
    checked on every pairing of a sample of the type's values (`_sample`); a type or loop
    that differs anywhere (the NaN signs of some f8 types) or raises keeps the widening."""
    f32 = _DTYPES["f32"]
    quiet, loud = switches()
    token = quiet()
    try:
        values = _sample(dtype)
        a, b = np.repeat(values, values.size), np.tile(values, values.size)
        want = ufunc(a.astype(f32), b.astype(f32)).astype(dtype).tobytes()
        for order in (1, -1) if ufunc in (np.add, np.multiply) else (1,):
            got = ufunc(a, b) if order > 0 else ufunc(b, a)
            if got.dtype == dtype and got.tobytes() == want:
                return order
    except Exception:  # noqa: BLE001 - no loop for this type, or one that fails: widen
        return 0
    finally:
        loud(token)
    return 0


def _sample(dtype: np.dtype) -> np.ndarray:
    """Values of a narrow float type for `_native_order`: its NaNs of both signs (a 16-bit
    type's with several payloads, quiet and signalling) and infinities, zeros, subnormals,
    extremes and ordinary values (an 8-bit type's every third bit pattern)."""
    bits = np.dtype(f"u{dtype.itemsize}")
    patterns = np.arange(1 << (8 * dtype.itemsize), dtype=bits)
    odd = patterns[~np.isfinite(patterns.view(dtype).astype(_DTYPES["f64"]))]
    if dtype.itemsize == 1:
        return np.concatenate([odd, patterns[::3]]).view(dtype)
    info = ml_dtypes.finfo(dtype)
    edges = [0.0, -0.0, 1.0, -1.5, 3.0, 0.1, float(info.tiny), -float(info.tiny),
             float(info.smallest_subnormal), -float(info.smallest_subnormal) * 3,
             float(info.max), -float(info.max)]
    return np.concatenate([odd[:4], odd[::16], odd[-4:],
                           np.array(edges).astype(dtype).view(bits)]).view(dtype)


def _extremum(f32_kernel: Kernel, dtype: np.dtype, general: Kernel) -> Kernel:
    """maximum/minimum by the f32 kernel on the widened operands, rounded back (exact)."""
    array, f32 = np.ndarray, _DTYPES["f32"]

    def kernel(a: Any, b: Any) -> Any:
        if (a.__class__ is not array or b.__class__ is not array or a.dtype != dtype
                or b.dtype != dtype or not a.ndim):
            return general(a, b)
        return np.asarray(f32_kernel(a.astype(f32), b.astype(f32))).astype(dtype)
    kernel.blockwise = True  # type: ignore[attr-defined]
    return kernel


def _sign_bit(clear: bool, general: Kernel) -> Kernel:
    """bf16 negate (`clear` False) or abs on the bit pattern, NaN payloads kept: arrays of
    up to `_NATIVE_UP_TO` elements by ml_dtypes' own loop where it does exactly that to
    each of the 65536 values (one call; its scalar loop is slower on large arrays), else on
    the bits viewed as integers (three)."""
    array, bits, dtype = np.ndarray, _DTYPES["u16"], _DTYPES["bf16"]
    op, mask = (np.bitwise_and, _SIGN["keep"]) if clear else (np.bitwise_xor, _SIGN["flip"])
    native = np.absolute if clear else np.negative
    native_up_to = _NATIVE_UP_TO if _native_sign(clear) else -1

    def kernel(x: Any) -> Any:
        if x.__class__ is not array or x.dtype != dtype:
            return general(x)
        if x.size <= native_up_to:
            return native(x)
        return op(x.view(bits), mask).view(dtype)
    kernel.blockwise = True  # type: ignore[attr-defined]
    kernel.flips_sign = not clear  # type: ignore[attr-defined]  # (pyscalar.py: `-x`)
    return kernel


@functools.cache
def _native_sign(clear: bool) -> bool:
    """Whether ml_dtypes' bf16 absolute (`clear`) or negative clears or flips the sign bit
    of every one of the 65536 bf16 values and nothing else."""
    every = np.arange(1 << 16, dtype=np.uint16)
    op, mask = (np.bitwise_and, _SIGN["keep"]) if clear else (np.bitwise_xor, _SIGN["flip"])
    try:
        native = (np.absolute if clear else np.negative)(every.view(_DTYPES["bf16"]))
    except Exception:  # noqa: BLE001 - no such loop: the bits
        return False
    return native.dtype == _DTYPES["bf16"] and native.tobytes() == op(every, mask).tobytes()


def _convert(source: np.dtype, target: np.dtype, general: Kernel) -> Kernel | None:
    """convert_array's float-to-float branches for these pairs; None for others."""
    quiet, loud = switches()
    array, f16, f32, f64 = np.ndarray, _DTYPES["f16"], _DTYPES["f32"], _DTYPES["f64"]
    if source == f32 and is_narrow(target):
        steps: tuple[np.dtype, ...] = (target,)
    elif (is_narrow(source) and source.itemsize == 2 or source == f16) and target in (
            f32, f64):
        steps = (f64,) if target == f64 else (f64, target)
    elif source == f32 and target == f16:
        steps = (f64, target)
    else:
        return None

    def kernel(x: Any) -> Any:
        if x.__class__ is not array or x.dtype != source:
            return general(x)
        token = quiet()
        try:
            for step in steps:
                x = x.astype(step)
            return x
        finally:
            loud(token)

    def unquieted(x: Any) -> Any:
        """`kernel` with numpy's errors ignored already (quiet.py)."""
        if x.__class__ is not array or x.dtype != source:
            return general(x)
        for step in steps:
            x = x.astype(step)
        return x
    kernel.blockwise = True  # type: ignore[attr-defined]
    kernel.unquieted = unquieted  # type: ignore[attr-defined]
    return kernel


def _logistic(general: Kernel) -> Kernel:
    """elementwise_math.logistic for bf16: 1 / (1 + exp(-x)), exp in double rounded once,
    the add and the divide each in f32 rounded once (as float_op)."""
    dtype, f32, bits, flip = _DTYPES["bf16"], _DTYPES["f32"], _DTYPES["u16"], _SIGN["flip"]
    exp = libm.native_kernel(libm.exp, dtype, rounder(dtype))
    one = np.array(1.0, np.float32)
    add, divide, xor = np.add, np.divide, np.bitwise_xor
    quiet, loud = switches()
    array = np.ndarray

    def kernel(x: Any) -> Any:
        if x.__class__ is not array or x.dtype != dtype or not x.ndim:
            return general(x)
        e = exp(xor(x.view(bits), flip).view(dtype))  # (the negation on the sign bit)
        token = quiet()
        try:
            wide = e.astype(f32)
            add(one, wide, wide)
            wide = wide.astype(dtype).astype(f32)
            divide(one, wide, wide)
            return wide.astype(dtype)
        finally:
            loud(token)
    kernel.blockwise = True  # type: ignore[attr-defined]
    return kernel


def _root(reciprocal: bool, general: Kernel) -> Kernel:
    """bf16 sqrt or 1/sqrt in f32, rounded once: for every one of the 65536 bf16 values the
    same as the general evaluator's double result rounded once (f32 has more than twice
    bf16's precision plus two bits, so a correctly rounded f32 sqrt rounds to the correctly
    rounded bf16 one; the reciprocal is checked value by value in the tests)."""
    dtype, f32 = _DTYPES["bf16"], _DTYPES["f32"]
    sqrt, divide, one = np.sqrt, np.divide, np.array(1.0, np.float32)
    quiet, loud = switches()
    array = np.ndarray

    def kernel(x: Any) -> Any:
        if x.__class__ is not array or x.dtype != dtype or not x.ndim:
            return general(x)
        wide = x.astype(f32)
        token = quiet()
        try:
            sqrt(wide, wide)
            if reciprocal:
                divide(one, wide, wide)
            return wide.astype(dtype)
        finally:
            loud(token)
    kernel.blockwise = True  # type: ignore[attr-defined]
    return kernel


def bind_narrow(op: Operation, opdef: Any, kwargs: dict[str, Any]) -> Kernel | None:
    """A kernel for `op` on narrow floats, or None (the next hook / the general evaluator)."""
    name = op.name
    if name not in _HANDLED:
        return None
    dtypes = _native_types(op)
    if dtypes is None:
        return None
    operand = dtypes[0]
    if name == "stablehlo.convert":
        if operand == dtypes[1]:
            return None
        return _convert(operand, dtypes[1], bind_after(bind_narrow, op, opdef, kwargs))
    if not is_narrow(operand):
        return None
    if any(d != operand for d in dtypes):
        return None
    general = bind_after(bind_narrow, op, opdef, kwargs)
    if name in _ARITH:
        return _arithmetic(_ARITH[name], operand, general)
    if operand.name != "bfloat16":
        return None
    if name in _MAXIMUM:
        return _extremum(_MAXIMUM[name], operand, general)
    if name in ("stablehlo.negate", "stablehlo.abs"):
        return _sign_bit(name == "stablehlo.abs", general)
    if name in _LIBM_OPS:
        return libm.native_kernel(_LIBM_OPS[name], operand, rounder(operand))
    # (answered from a table of all 65536 results once that many elements were computed)
    if name == "stablehlo.logistic":
        return libm.tabulated(_logistic(general), operand)
    if name in ("stablehlo.sqrt", "stablehlo.rsqrt"):
        return libm.tabulated(_root(name == "stablehlo.rsqrt", general), operand)
    return None


_HANDLED = frozenset(("stablehlo.add", "stablehlo.subtract", "stablehlo.multiply",
                      "stablehlo.divide", "stablehlo.maximum", "stablehlo.minimum",
                      "stablehlo.negate", "stablehlo.abs",
                      "stablehlo.convert", "stablehlo.logistic", "stablehlo.sqrt",
                      "stablehlo.rsqrt", *_LIBM_OPS))

register_bind_hook(bind_narrow, 58, ops=_HANDLED)
