"""0-d values of a generated loop held as Python floats, ints and bools (codegen.py's
scalar mode, used by loopgen.py).

A scalar loop step (an RNN's `tanh(w*h + u*x[i] + b)`, a counter) on numpy scalars costs
tens of nanoseconds per operator in numpy's scalar machinery; on Python floats and ints the
same operators cost a few. The results stay the element type's, bit for bit:
- f32 `+ - * /` are computed in double and rounded once to f32 (a C cast: a store into a
  0-d float memoryview, read back; cheaper than an `array('f')` item or a 1-d view's). The
  double result is exact for + - * of two f32 values, and double rounding is innocuous for /
  (53 >= 2*24 + 2), subnormals included; overflow gives the infinity the cast gives. f64
  is Python's float arithmetic itself.
- A NaN result is redone by the numpy ufunc on numpy scalars (which of two NaN operands
  numpy returns is its loop's choice, as specialize_scalar._float_op redoes it); so is a
  division by zero, which Python refuses.
- Integers are Python ints wrapped to the type's width where they leave its range.
- Transcendentals call the same double function the 0-d kernel calls (libm's `scalar`,
  written out: `math`'s function inside the domain interval, the C function outside it)
  and round its result as the kernel's 0-d cell does; logistic rounds as its kernel does.
- bf16 and f16 values are Python floats too (every value of theirs is a double), rounded
  as their kernels round (narrow_scalars.py); reduce_precision and bitcasts work on the
  bits of a cell (scalar_ops.py).
Floats converted from numpy (`float(x)`) may have lost a signalling NaN's quiet bit, so
such "unclean" values only feed ops computing new values (arithmetic, comparisons,
transcendentals); selects, negations and maximums (which pass a value on as it is) take
only values computed here (or constants other than NaN), and only those are converted back
to numpy; a bitcast reads the bits only of such a value, and the float it makes of bits is
never one (a signalling NaN's would lose its quiet bit: `UNCLEAN`). Integers and bools
converted with `int(x)` are exact: passed on as they are (a gcd step's `a, b = b, a % b`),
they leave as numpy scalars of their dtype, where one may have come in as a 0-d array (the
same bits; every kernel takes both).
"""

from __future__ import annotations

import functools
import math
import operator
import sys
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ..dialects.stablehlo.specialize_scalar import EXACT_FROM
from ..ir.attributes import entries_key
from ..ir.core import Value
from ..ir.types import TensorType, element_type, numpy_dtype
from . import narrow_scalars, scalar_ops

# numpy scalar arithmetic in the NaN and zero-division redos warns from this module: those
# results are the ops' defined ones
warnings.filterwarnings("ignore", category=RuntimeWarning,
                        module=r"shlo_cli\.interpreter\.pyscalar$")


class Kind:
    """How a 0-d element type is held as a Python scalar: `to_py` converts a numpy value,
    `to_numpy` converts back; ints have their range (`low`, `high`); bf16 and f16 are
    `narrow` (their name: narrow_scalars.py rounds to them)."""

    __slots__ = ("dtype", "to_py", "to_numpy", "is_float", "f32", "narrow", "low", "high")

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype
        self.narrow = dtype.name if dtype.name in narrow_scalars.NARROW else ""
        self.to_numpy: Callable[[Any], Any] = (narrow_scalars.to_numpy(dtype) if self.narrow
                                               else dtype.type)
        self.is_float = dtype.kind == "f" or bool(self.narrow)
        self.f32 = dtype == np.float32
        self.to_py: Callable[[Any], Any] = (float if self.is_float
                                            else bool if dtype.kind == "b" else int)
        self.low = self.high = 0
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            self.low, self.high = int(info.min), int(info.max)


_KINDS: dict[np.dtype, Kind] = {}
# The types a memoryview holds (scalar_writes.py's item views); kind_of holds the narrow
# floats too (narrow_scalars.NARROW).
HELD = ("float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
        "uint32", "uint64", "bool")


def kind_of(value: Value) -> Kind | None:
    """The Python-scalar kind of a static 0-d value of a held type, else None."""
    t = value.type
    if not isinstance(t, TensorType) or not t.is_static or t.shape:
        return None
    try:
        dtype = np.dtype(numpy_dtype(element_type(t)))
    except Exception:  # noqa: BLE001 - a type numpy cannot hold
        return None
    if dtype.name not in HELD and dtype.name not in narrow_scalars.NARROW:
        return None
    kind = _KINDS.get(dtype)
    if kind is None:
        kind = _KINDS[dtype] = Kind(dtype)
    return kind


_ARITH = {operator.add: "+", operator.sub: "-", operator.mul: "*"}
_BINARY = frozenset(("div", "shl", "shr", "sra", "fmax", "fmin"))
_FLOAT_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}
_COMPARE = {operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
            operator.eq: "==", operator.ne: "!=",
            # (bool comparisons' kernels: the ufuncs, on the values as Python's operators)
            np.less: "<", np.less_equal: "<=", np.greater: ">", np.greater_equal: ">=",
            np.equal: "==", np.not_equal: "!="}
# Integer (and bool) ops whose Python lines are in `_integer_lines`.
_INTEGER_OPS = {"stablehlo.maximum": "max", "stablehlo.minimum": "min",
                "stablehlo.clamp": "clamp", "stablehlo.remainder": "rem",
                "stablehlo.and": "logic", "stablehlo.or": "logic", "stablehlo.xor": "logic",
                "stablehlo.not": "logic"}
# Results that are quiet whatever their operands (a converted operand may be unclean); the
# integer ops' 0-d kernels return numpy scalars even of 0-d arrays, and an integer has no
# bit a conversion loses.
QUIETING = frozenset(("arith", "compare", "unary", "logistic", "convert", "round", "pow", "root",
                      "fmod", "atan2", "isfinite",
                      *_INTEGER_OPS.values(), *scalar_ops.INTEGER.values()))
# Tags whose results are never clean: the float of bits a signalling NaN's may be.
UNCLEAN = frozenset(("from_bits",))
# Float tags whose lines `_written` gives.
_WRITTEN = ("round", "pow", "root", "fmod", "atan2", "fclamp")
# Tags whose rare cases run the step's kernel on numpy scalars (`_kernel`).
_KERNEL_REDO = frozenset(("convert", "nan_convert", "logistic", "reduce_precision", *_WRITTEN,
                          *_INTEGER_OPS.values(), *scalar_ops.INTEGER.values(),
                          *scalar_ops.FLOAT.values()))


def classify(step: Any) -> str | None:
    """What a step computes on Python scalars: "arith" (+ - * /), "negate", "compare",
    "select", "unary" (a transcendental), "logistic", "convert" ("nan_convert": one that
    may pass a signalling NaN on), "reduce_precision", "to_bits" and "from_bits" (bitcasts
    to an integer, to a float), and on integers and bools "max",
    "min", "clamp", "rem", "logic" (and, or, xor, not), scalar_ops.py's integer and float
    tags, or None (its kernel runs). Every operand and result must be 0-d of a held kind,
    and the kernel the 0-d one (specialize_scalar)."""
    op = step.op
    if len(op.results) != 1:
        return None
    maybe = [kind_of(v) for v in (*op.operands, op.results[0])]
    kinds = [k for k in maybe if k is not None]
    if len(kinds) != len(maybe):
        return None
    fn = step.fn
    result = kinds[-1]
    name = op.name
    try:
        if name in ("stablehlo.add", "stablehlo.subtract", "stablehlo.multiply",
                    "stablehlo.divide"):
            if len(op.operands) != 2 or not all(k is result for k in kinds):
                return None
            if result.is_float:
                inline = getattr(fn, "inline", None)
                symbol = inline[0] if inline is not None else getattr(fn, "arith_symbol", None)
                return "arith" if symbol in _FLOAT_ARITH else None
            if fn in _ARITH and result.dtype.kind in "iu":
                return "arith"
            return "div" if name == "stablehlo.divide" and result.dtype.kind in "iu" else None
        if name == "stablehlo.compare":
            return ("compare" if fn in _COMPARE and len(op.operands) == 2
                    and kinds[0] is kinds[1] else None)
        if name == "stablehlo.select":
            return ("select" if getattr(fn, "picks", False) and len(op.operands) == 3
                    and kinds[0].dtype.kind == "b" and kinds[1] is kinds[2] is result
                    else None)
        if name == "stablehlo.negate":
            return ("negate" if (fn is operator.neg or getattr(fn, "flips_sign", False))
                    and result.is_float
                    and kinds[0] is result else None)
    except TypeError:  # an unhashable kernel
        return None
    if name == "stablehlo.convert" and len(op.operands) == 1:
        return "convert" if _quiets(kinds[0], result) else "nan_convert"
    if name == "stablehlo.bitcast_convert" and len(op.operands) == 1:
        return scalar_ops.bitcast_tag(kinds[0], result)
    tag = _INTEGER_OPS.get(name)
    if tag is not None and all(k.dtype.kind in "iub" for k in kinds) \
            and all(k is result for k in kinds) and (tag != "rem" or result.dtype.kind != "b"):
        return tag
    if (name == "stablehlo.is_finite" and getattr(fn, "is_finite", False)
            and kinds[0].is_float and result.dtype.kind == "b"):
        return "isfinite"
    if not all(k is result for k in kinds):
        return None
    tag = (scalar_ops.FLOAT if result.is_float else scalar_ops.INTEGER
           if result.dtype.kind in "iu" else {}).get(name)
    if tag is not None and len(op.operands) == (2 if tag in _BINARY else 1):
        return tag
    if len(op.operands) == 1 and result.is_float and kinds[0] is result:
        if getattr(fn, "scalar", None) is not None or getattr(fn, "rounded_once", None):
            return "unary"
        if getattr(getattr(fn, "logistic_exp", None), "interval", None) is not None:
            return "logistic"
        if getattr(fn, "rounding", None) is not None:
            return "round"
        if getattr(fn, "root", None) is not None:
            return "root"
    if len(op.operands) == 2 and result.is_float and getattr(fn, "finite_pow", None):
        return "pow"
    if len(op.operands) == 2 and result.is_float and getattr(fn, "fmod", None):
        return "fmod"
    if len(op.operands) == 2 and result.is_float and getattr(fn, "atan2", None):
        return "atan2"
    if len(op.operands) == 3 and result.is_float and getattr(fn, "float_clamp", False):
        return "fclamp"
    if (getattr(fn, "on_bits", None) is not None and len(op.operands) == 1
            and result.dtype.name in ("float32", "float64")):
        return "reduce_precision"
    return None


def _quiets(source: Kind, result: Kind) -> bool:
    """Whether a conversion's NaN result is quiet whatever the operand's quiet bit (a
    converted operand may have lost it): numpy's and ml_dtypes' conversions from f16 and
    bf16 and numpy's to f16 pass a signalling NaN on."""
    return not (source.is_float and result.is_float
                and (source.narrow or result.narrow == "float16"))


def plan_scalars(arguments: Sequence[Value], scalars: Collection[int], steps: Sequence[Any],
                 terminator: Sequence[Value], returned_scalars: Collection[int],
                 captured: set[Value], skipped: set[int], reads: dict[int, int],
                 same: Callable[[Any], bool], writes: Mapping[int, Any] | None = None,
                 exact: Collection[int] = ()) -> tuple[dict[int, str], set[Value], set[int]]:
    """Scalar mode's plan of a block (codegen.block_code): the steps run on Python scalars
    (index -> what `classify` says, "same" for an identity `same(step)` on one), the values
    some use reads as numpy values (other steps, nested regions, the terminator outside
    `returned_scalars`), and the `scalars` arguments (indices) no such use reads. `skipped`
    steps run as they are; `reads` are codegen's fused element reads, whose start indices
    may be Python ints, as may a kernel's operands from its `int_starts` on. `writes`
    (scalar_writes.py: update step -> Write) take their index and a value computed here (or
    an exact argument) as Python scalars: the value must be clean, as for a numpy use, but
    it is not converted. The `exact` float arguments are known to be no NaN (the loop tests
    them): exact as Python floats, as integer arguments are.

    A step runs on Python scalars when one of its operands is one already (chains grow from
    the loop's carried scalars: converting operands costs about what the step saves), or
    when only such steps read its result (x[i] * w in an RNN step: its operands are
    converted instead). What a select, a negate or an identity passes on from an unclean
    value (a carried float as it came in included) is unclean too: such a step runs as
    its kernel where a numpy use reads its result (converted back, a signalling NaN's quiet
    bit would be lost)."""
    held = {arguments[i] for i in scalars}
    exact_held = {v for v in held if exact_on_entry(v)} | {arguments[i] for i in exact}
    banned: set[int] = set()
    indexed = {}  # element reads by a Python int (codegen: `x.item(i)`): index, result
    for i, j in reads.items():
        top = getattr(getattr(steps[i].fn, "element", None), "top", None)
        if j > i and top is not None and steps[i].op.operands:
            indexed[i] = (steps[i].op.operands[-1], steps[j].op.results[0])
    while True:
        chosen, clean = _choose(held, exact_held, steps, terminator, captured,
                                skipped | banned, same, indexed)
        numpy_read: set[Value] = set()
        computed = {steps[i].op.results[0] for i in chosen}
        written = {w.value for w in (writes or {}).values()} & (computed | exact_held)
        python_reads: dict[int, set[Value]] = {}  # (the update step and the one-element maker)
        for j, w in (writes or {}).items():
            taken = {w.index} | ({w.value} & written)
            python_reads.setdefault(j, set()).update(taken)
            python_reads.setdefault(w.maker, set()).update(taken)
        for i, step in enumerate(steps):
            # element reads and kernels marked `int_starts` take Python int indices
            ints = 1 if reads.get(i, -1) > i else getattr(step.fn, "int_starts", None)
            for k, v in enumerate(step.op.operands):
                if not (i in chosen or (ints is not None and k >= ints)
                        or v in python_reads.get(i, ())):
                    numpy_read.add(v)
        numpy_read.update(v for k, v in enumerate(terminator) if k not in returned_scalars)
        numpy_read |= captured
        unclean = {i for i in chosen if (steps[i].op.results[0] in numpy_read
                                         or steps[i].op.results[0] in written)
                   and steps[i].op.results[0] not in clean}
        if not unclean:
            return chosen, numpy_read, {i for i in scalars if arguments[i] not in numpy_read}
        banned |= unclean


def _choose(held: set[Value], exact: set[Value], steps: Sequence[Any],
            terminator: Sequence[Value], captured: set[Value], skipped: set[int],
            same: Callable[[Any], bool], indexed: dict[int, tuple[Value, Value]]
            ) -> tuple[dict[int, str], set[Value]]:
    """plan_scalars' steps on Python scalars (not those `skipped`) and their clean results
    (the `exact` held values are); `indexed` element reads give Python scalars where their
    index is one (an integer's item is exact: clean; a float's may have lost a signalling
    NaN's bit)."""
    clean = set(exact)
    py = set(held)
    chosen: dict[int, str] = {}
    for i, step in enumerate(steps):
        operands = step.op.operands
        if step.op.name == "stablehlo.constant" and not operands and _clean_constant(step):
            clean.add(step.op.results[0])  # (codegen.block_code folds it, clean there too)
        if i in indexed and indexed[i][0] in py:
            index, read = indexed[i]
            kind = kind_of(read)
            if kind is not None and kind_of(index) is not None:
                py.add(read)
                if not kind.is_float:
                    clean.add(read)
        if i in skipped or not step.op.results:
            continue
        result = step.op.results[0]
        tag = "same" if same(step) and operands[0] in py else classify(step)
        if tag is None or result in captured or not any(v in py for v in operands):
            continue
        if tag == "to_bits" and operands[0] not in clean:  # (integers are exact: clean)
            continue
        passed = operands[1:] if tag == "select" else operands  # values passed on as is
        if tag not in UNCLEAN and (tag in QUIETING or all(v in clean for v in passed)):
            clean.add(result)
        chosen[i] = tag
        py.add(result)
    readers: dict[Value, list[int]] = {}
    for i, step in enumerate(steps):
        for v in step.op.operands:
            readers.setdefault(v, []).append(i)
    returned = set(terminator)
    for i in range(len(steps) - 1, -1, -1):
        step = steps[i]
        if i in chosen or i in skipped or not step.op.results:
            continue
        result = step.op.results[0]
        tag = classify(step)
        users = readers.get(result, [])
        if (tag in QUIETING and result not in captured and result not in returned and users
                and all(chosen.get(j, "same") != "same" for j in users)):
            chosen[i] = tag
            py.add(result)
            clean.add(result)
    return chosen, clean


def exact_on_entry(value: Value) -> bool:
    """A held integer or bool argument: `int(x)` of a numpy value is exact, so passed on
    (a gcd step's `a, b = b, a % b`) and converted back it is the same value (of the same
    dtype; a numpy scalar where the entry value may have been a 0-d array)."""
    kind = kind_of(value)
    return kind is not None and not kind.is_float


def _clean_constant(step: Any) -> bool:
    """A 0-d constant of a held kind that is no NaN: exact as a Python scalar (a NaN's
    signalling bit may not be), so what a select or a maximum passes on from it is too."""
    if len(step.op.results) != 1 or kind_of(step.op.results[0]) is None:
        return False
    try:
        return clean_value(step.fn())
    except Exception:  # noqa: BLE001 - not evaluable now: its kernel says so at run time
        return False


def clean_value(value: Any) -> bool:
    """Whether a folded value is 0-d and converts to a Python scalar and back exactly (no
    NaN)."""
    a = np.asarray(value)
    return a.ndim == 0 and bool(a == a)


def _redo(ufunc: np.ufunc, to: Callable[[Any], Any], a: float, b: float) -> float:
    """The ufunc's result on numpy scalars, as a Python float (a NaN or a division by
    zero)."""
    return float(ufunc(to(a), to(b)))


def _wrapped(kind: Kind, v: str) -> str:
    """The expression of the int `v` wrapped to `kind`'s range (two's complement: the
    range's size is a power of two)."""
    mask = kind.high - kind.low
    return f"{v} & {mask}" if kind.low == 0 else f"(({v} + {-kind.low}) & {mask}) - {-kind.low}"


def expression(tag: str, step: Any, args: Sequence[str], target: str, ns: dict[str, Any],
               key: str, constant: int | None = None, wraps: bool = True) -> list[str]:
    """The lines setting `target` (a Python scalar) from the operands' Python-scalar names
    `args` (the rare redo on a line of its own: the usual path only tests); `key` names
    the globals they need in `ns`. `constant`: the second operand's value when it is a
    constant integer (a sum then only needs the range test on one side); not `wraps`: an
    integer result known to stay in range (ranges.py) needs no test."""
    op = step.op
    kind = kind_of(op.results[0])
    assert kind is not None
    if tag == "compare":
        return [f"{target} = {args[0]} {_COMPARE[step.fn]} {args[1]}"]
    if tag == "select":
        return [f"{target} = {args[1]} if {args[0]} else {args[2]}"]
    if tag == "negate":
        return [f"{target} = -{args[0]}"]
    if tag in ("to_bits", "from_bits"):
        return scalar_ops.bitcast_lines(kind_of(op.operands[0]), kind, args[0], target, ns)
    if tag == "isfinite":  # (NaN and the infinities fail)
        top = sys.float_info.max
        return [f"{target} = {-top!r} <= {args[0]} <= {top!r}"]
    if kind.f32:
        if "_cell" not in ns:  # (0-d: indexed by (), its cheapest item access)
            ns["_cell"] = memoryview(bytearray(4)).cast("f", shape=[])
    if kind.narrow:
        narrow_scalars.add_cells(ns)
    if tag in _KERNEL_REDO:
        ns[key] = functools.partial(_kernel, step.fn, [kind_of(v).to_numpy  # type: ignore[union-attr]
                                                        for v in op.operands], kind.to_py)
        if tag == "logistic":
            return _logistic(kind, step.fn.logistic_exp, args[0], target, key, ns)
        if tag in ("convert", "nan_convert"):
            return _converted(step, args, target, key)
        if tag == "reduce_precision":
            ns[f"{key}B"] = step.fn.on_bits
            return scalar_ops.reduce_precision_lines(kind, args[0], target, key, ns)
        if tag in _WRITTEN:
            return _written(tag, kind, step.fn, args, target, key, ns)
        if tag in scalar_ops.INTEGER.values():
            return scalar_ops.integer_lines(tag, kind, list(args), target, key, constant)
        if tag in scalar_ops.FLOAT.values():
            return scalar_ops.float_lines(tag, list(args), target, key)
        return _integer_lines(tag, step, args, target, key, constant)
    if tag == "unary" and kind.narrow == "bfloat16":
        return _bf16_unary(step, args[0], target, key, ns)
    if tag == "unary":
        scalar = step.fn.scalar
        call = f"{key}({args[0]})"
        ns[key] = scalar
        finite = getattr(scalar, "finite", None)
        if finite is not None:  # libm's scalar written out
            low, high = scalar.interval
            if -low == high == sys.float_info.max and _total(finite, scalar.slow):
                # every finite argument is in: only a NaN needs `slow`, redone as NaNs are
                ns[key], ns[f"{key}S"] = finite, scalar.slow
                return [_rounded(kind, call, target), f"if {target} != {target}: "
                        f"{_rounded(kind, f'{key}S({args[0]})', target)}"]
            call = _libm_call(scalar, args[0], key, ns)
        return [_rounded(kind, call, target)]
    a, b = args
    if not kind.is_float:
        symbol = _ARITH[step.fn]
        if not wraps:
            return [f"{target} = {a} {symbol} {b}"]
        test = f"not {kind.low} <= {target} <= {kind.high}"
        if constant is not None and symbol != "*":  # x + 1 can only pass the top
            test = (f"{target} > {kind.high}" if (constant >= 0) == (symbol == "+")
                    else f"{target} < {kind.low}")
        return [f"{target} = {a} {symbol} {b}", f"if {test}: {target} = {_wrapped(kind, target)}"]
    inline = getattr(step.fn, "inline", None)
    symbol = inline[0] if inline is not None else step.fn.arith_symbol
    if kind.narrow == "bfloat16":  # (its NaN is the general evaluator's: the kernel's)
        ns[key] = functools.partial(_kernel, step.fn, [kind.to_numpy] * 2, kind.to_py)
    else:
        ns[key] = functools.partial(_redo, _FLOAT_ARITH[symbol], kind.to_numpy)
    value = f"{a} {symbol} {b}"
    if symbol == "/":
        value = f"{value} if {b} else {key}({a}, {b})"
    fix = f"if {target} != {target}: {target} = {key}({a}, {b})"
    if kind.f32:
        return [f"_cell[()] = {value}; {target} = _cell[()]", fix]
    if kind.narrow:  # (the arithmetic kernels' rounding: bf16's through f32)
        return [narrow_scalars.rounded(kind.narrow, value, target, False), fix]
    return [f"{target} = {value}", fix]


def _bf16_unary(step: Any, a: str, t: str, key: str, ns: dict[str, Any]) -> list[str]:
    """A bf16 transcendental as its kernel (specialize_scalar_narrow) computes it: the
    double function's result rounded once; a NaN result is the kernel's (`key`)."""
    kind = kind_of(step.op.results[0])
    assert kind is not None
    ns[key] = functools.partial(_kernel, step.fn, [kind.to_numpy], kind.to_py)
    scalar = step.fn.rounded_once
    ns[f"{key}L"] = scalar
    call = f"{key}L({a})"
    if getattr(scalar, "finite", None) is not None:  # libm's scalar written out
        call = _libm_call(scalar, a, f"{key}L", ns)
    return [_rounded(kind, call, t), f"if {t} != {t}: {t} = {key}({a})"]


def _libm_call(scalar: Any, arg: str, key: str, ns: dict[str, Any]) -> str:
    """libm's `scalar` of `arg` written out: `math`'s function within its domain interval,
    the C function (`slow`) outside it; `key` and `key`S name them in `ns`."""
    ns[key], ns[f"{key}S"] = scalar.finite, scalar.slow
    low, high = scalar.interval
    return f"({key}({arg}) if {low!r} <= {arg} <= {high!r} else {key}S({arg}))"


def _logistic(kind: Kind, exp: Any, a: str, t: str, key: str, ns: dict[str, Any]
              ) -> list[str]:
    """`t` = 1 / (1 + exp(-a)) as the 0-d kernel computes it (specialize_scalar._logistic):
    exp in double rounded once to the type, then the add and the divide each rounded once
    (the double result of an f32 + or / rounded to f32 is the f32 operation's); a NaN
    result is redone by the kernel (`key`), which picks its NaN."""
    call = _libm_call(exp, t, f"{key}E", ns)
    return [f"{t} = -{a}", _rounded(kind, call, t), _rounded(kind, f"1.0 + {t}", t),
            _rounded(kind, f"1.0 / {t}", t), f"if {t} != {t}: {t} = {key}({a})"]


def _written(tag: str, kind: Kind, fn: Any, args: Sequence[str], t: str, key: str,
             ns: dict[str, Any]) -> list[str]:
    """`t` = the float op `tag` of `args` as its 0-d kernel (specialize_scalar) computes it;
    what the kernel leaves to the general evaluator (NaN, infinite or huge operands, zeros
    where signs matter, pow's overflows and invalid cases, fmod by zero) is the kernel's
    (`key`): floor/ceil/round give the integer the kernel's `rounding` picks, with the
    operand's sign; pow is its `finite_pow` rounded once, sqrt/rsqrt of a positive value the double
    root (or 1 over it) rounded once, fmod math.fmod (exact), atan2 of a nonzero y the C
    library's rounded once; clamp passes on the value or bound its strict order picks."""
    a = args[0]
    top = sys.float_info.max
    if tag == "round":
        ns[f"{key}R"], ns["_copysign"] = fn.rounding, math.copysign
        return [f"{t} = _copysign(float({key}R({a})), {a}) if {-EXACT_FROM!r} < {a} < "
                f"{EXACT_FROM!r} else {key}({a})"]
    if tag == "root":
        ns["_sqrt"] = math.sqrt
        root = f"1.0 / _sqrt({a})" if fn.root else f"_sqrt({a})"
        return [_rounded(kind, f"{root} if {a} > 0.0 else {key}({a})", t)]
    b = args[1]
    if tag == "fclamp":  # args: low, x, high
        x, high = b, args[2]
        return [f"{t} = {x} if {a} < {x} < {high} else ({a} if {x} < {a} < {high} else "
                f"({high} if {a} < {high} < {x} else {key}({a}, {x}, {high})))"]
    finite = f"{-top!r} <= {a} <= {top!r} and {-top!r} <= {b} <= {top!r}"
    if tag == "fmod":
        ns["_fmod"] = math.fmod
        return [_rounded(kind, f"_fmod({a}, {b}) if {finite} and {b} != 0.0 "
                         f"else {key}({a}, {b})", t)]
    if tag == "atan2":
        ns["_atan2"] = math.atan2
        return [_rounded(kind, f"_atan2({a}, {b}) if {a} != 0.0 and {finite} "
                         f"else {key}({a}, {b})", t)]
    # (finite_pow's NaN stands for an overflow too: redone in the line itself, so that a
    # NaN a line leaves is a NaN result, as loopgen's end-of-loop NaN test takes it)
    ns[f"{key}P"] = fn.finite_pow
    value = (f"(_p if (_p := {key}P({a}, {b})) == _p else {key}({a}, {b})) if {finite} "
             f"else {key}({a}, {b})")
    return [_rounded(kind, value, t)]


def _rounded(kind: Kind, value: str, target: str) -> str:
    """`target = value`, rounded once to the kind's type (f32: through the cell)."""
    if kind.narrow:
        return narrow_scalars.rounded(kind.narrow, value, target, True)
    return f"_cell[()] = {value}; {target} = _cell[()]" if kind.f32 else f"{target} = {value}"


def _total(finite: Callable[[float], float], slow: Callable[[float], float]) -> bool:
    """Whether libm's finite-argument function (tanh's) also gives the slow path's results
    on both infinities and a NaN for a NaN (checked on them once, at plan time): then a
    result that is no NaN is right for every argument, and only a NaN is redone."""
    inf = math.inf
    try:
        same = all(a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
                   for a, b in ((finite(inf), slow(inf)), (finite(-inf), slow(-inf))))
        nan = finite(math.nan)
    except Exception:  # noqa: BLE001 - raises on an infinity (sin): the argument is tested
        return False
    return same and nan != nan


def _kernel(fn: Callable[..., Any], to_numpy: list[Callable[[Any], Any]],
            to_py: Callable[[Any], Any], *args: Any) -> Any:
    """The step's own kernel on numpy scalars, its result as a Python scalar (the cases
    the Python lines leave to it)."""
    return to_py(fn(*[to(a) for to, a in zip(to_numpy, args, strict=True)]))


def _converted(step: Any, args: Sequence[str], target: str, key: str) -> list[str]:
    """`convert`'s line: Python's conversion where it is exact (or the C cast rounding
    f64 to f32, narrow_scalars.py's rounding to bf16 and f16), the kernel for the rest
    (NaN, out of range, large integers to f32 and f64)."""
    source, result = kind_of(step.op.operands[0]), kind_of(step.op.results[0])
    assert source is not None and result is not None
    a, fallback = args[0], f"{key}({args[0]})"
    if result.dtype.kind == "b":
        return [f"{target} = {a} != 0" if not source.is_float
                else f"{target} = {a} != 0.0 if {a} == {a} else {fallback}"]
    if not result.is_float:
        if source.dtype.kind == "b":
            return [f"{target} = int({a})"]
        if source.is_float:  # truncation toward zero where the result is in range
            return [f"{target} = int({a}) if {result.low - 1} < {a} < {result.high + 1} "
                    f"else {fallback}"]
        if result.low <= source.low and source.high <= result.high:
            return [f"{target} = {a}"]
        return [f"{target} = {a} if {result.low} <= {a} <= {result.high} else {fallback}"]
    if source.dtype.kind == "b":
        return [f"{target} = 1.0 if {a} else 0.0"]
    if result.narrow and source is not result:
        return [narrow_scalars.converted(source, result, a, target, fallback)]
    if not source.is_float:  # integers a float holds exactly
        exact = 1 << (24 if result.f32 else 53)
        return [f"{target} = float({a}) if {-exact} <= {a} <= {exact} else {fallback}"]
    if result.f32 and not source.f32 and not source.narrow:
        return [f"if {a} == {a}: _cell[()] = {a}; {target} = _cell[()]",
                f"else: {target} = {fallback}"]
    return [f"{target} = {a} if {a} == {a} else {fallback}"]


def _integer_lines(tag: str, step: Any, args: Sequence[str], target: str, key: str,
                   constant: int | None = None) -> list[str]:
    """Lines of the integer and bool ops (none can leave the type's range, but a
    remainder by zero or a negative divisor, left to the kernel; a `constant` divisor
    is known positive or not)."""
    name = step.op.name
    if tag == "max":
        return [f"{target} = {args[0]} if {args[0]} >= {args[1]} else {args[1]}"]
    if tag == "min":
        return [f"{target} = {args[0]} if {args[0]} <= {args[1]} else {args[1]}"]
    if tag == "clamp":  # min(max(x, low), high)
        low, x, high = args
        return [f"{target} = {x} if {x} >= {low} else {low}; "
                f"{target} = {target} if {target} <= {high} else {high}"]
    if tag == "rem":  # the sign of the dividend, C's %
        a, b = args
        if constant is not None and constant > 0:
            return [f"{target} = {a} % {constant} if {a} >= 0 else -(-{a} % {constant})"]
        return [f"{target} = ({a} % {b} if {a} >= 0 else -(-{a} % {b})) if {b} > 0 "
                f"else {key}({a}, {b})"]
    if name == "stablehlo.not":
        kind = kind_of(step.op.results[0])
        assert kind is not None
        if kind.dtype.kind == "b":
            return [f"{target} = not {args[0]}"]
        return [f"{target} = ~{args[0]}" if kind.dtype.kind == "i"
                else f"{target} = {args[0]} ^ {kind.high}"]
    symbol = {"stablehlo.and": "&", "stablehlo.or": "|", "stablehlo.xor": "^"}[name]
    return [f"{target} = {args[0]} {symbol} {args[1]}"]


def scalar_step_key(step: Any, tag: str, args: list[str], consts: dict[Value, Any]
                    ) -> tuple[Any, ...]:
    """What a step on Python scalars computes: its op, attributes and types, and its
    operands' names, constants by their value (each inlined callee brings its own `13`);
    two steps of one key give the same value (their lines are pure)."""
    op = step.op
    operands = tuple((c.dtype.str, c.tobytes()) if v in consts and (
        c := np.asarray(consts[v])).ndim == 0 else a for v, a in zip(op.operands, args,
                                                                    strict=True))
    return (op.name, tag, operands, entries_key(op.properties), entries_key(op.attributes),
            tuple(r.type for r in op.results))
