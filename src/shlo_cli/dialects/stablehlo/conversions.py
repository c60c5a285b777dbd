"""convert, bitcast_convert and reduce_precision: changing how elements are represented."""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from ...ir import regex_programs
from ...ir.attributes import IntegerAttr
from ...ir.core import Location, Operation
from ...ir.diagnostics import EvaluationError
from ...ir.types import (
    FunctionType,
    IntegerType,
    Type,
    UnsupportedTypeError,
    element_type,
    numpy_dtype,
)
from ...lazy_imports import lazy
from ..asm import Format
from ..layout import astype, dense
from ..registry import OpDef, define_op
from ..syntax import Custom
from .elementwise import UNARY
from .elementwise_numerics import (
    NATIVE_FLOATS,
    complex_parts_dtype,
    from_bits,
    int_max,
    int_min,
    is_bool,
    is_complex,
    is_float,
    is_int,
    is_signed,
    make_complex,
    num_bits,
    round_float,
    to_bits,
    widen,
)
from .elementwise_verify import (
    ANY,
    AXIS_QUANT,
    QUANT,
    elementwise,
    verify_bitcast_convert,
    verify_reduce_precision,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def result_dtype(result_type: Any) -> np.dtype:
    t = element_type(result_type)
    try:
        return numpy_dtype(t)
    except UnsupportedTypeError:
        raise EvaluationError(f"Unsupported element type: {t}") from None


# Conversions numpy's astype performs exactly as upstream does (ints and bools into f32/f64,
# which round to nearest even; floats between f32 and f64).
_WIDE_FLOATS = lazy(lambda: frozenset((np.dtype(np.float32), np.dtype(np.float64))))
_EXACT_TO_FLOAT = lazy(lambda: frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64)))

# ---- convert -------------------------------------------------------------------------------


@define_op("stablehlo.convert", operands=("operand",), results=1, syntax=UNARY,
           verify=elementwise(ANY - {QUANT, AXIS_QUANT}, same_types=False,
                              same_shape_first=True))
def convert(operand: np.ndarray, *, result_type: Any) -> np.ndarray:
    """Element type conversion as upstream's `convert(Type, Element)`: integers are sign- or
    zero-extended then truncated; ints round to nearest-even into floats; floats truncate
    toward zero into ints, saturating (NaN -> 0); complex -> real keeps the real part; any
    -> i1 is `!= 0`."""
    return convert_array(operand, result_dtype(result_type))


def convert_array(x: np.ndarray, target: np.dtype) -> np.ndarray:
    source = x.dtype
    if source == target:
        return x
    if source in _EXACT_TO_FLOAT and target in _WIDE_FLOATS:
        return astype(x, target)
    x = dense(x)  # (a broadcast view: the steps below keep a C-ordered layout)
    if is_complex(target):
        parts = complex_parts_dtype(target)
        if is_complex(source):
            return make_complex(x.real.astype(parts), x.imag.astype(parts), target)
        return make_complex(convert_array(x, parts), np.zeros(x.shape, parts), target)
    if is_complex(source):
        x = x.real.copy()
        source = x.dtype
    if is_bool(target):
        return widen(x) != 0
    if is_bool(source):
        x = x.astype(np.uint8)
        source = x.dtype
    if is_int(source):
        wide = widen(x)
        if is_int(target):
            return from_bits(wide.view(np.uint64) if wide.dtype == np.int64 else wide, target)
        if target == np.float32 or target == np.float64:
            return wide.astype(target)
        return round_float(wide.astype(np.float64), target)
    # float source
    if source.itemsize == 1 and x.size > _BYTE_TABLE_FROM:
        return _byte_table(source, target).take(x.view(np.uint8))
    if is_int(target):  # (f32 and f64 hold every value exactly: no wider copy needed)
        return _float_to_int(x if source in _WIDE_FLOATS else widen(x), target)
    if source == np.float32 and target not in NATIVE_FLOATS:
        return round_float(x, target)  # ml_dtypes' types: one rounding from f32 itself
    return round_float(widen(x), target)


_BYTE_TABLE_FROM = 256  # elements: from here a one-byte float converts by table lookup


@functools.cache
def _byte_table(source: np.dtype, target: np.dtype) -> np.ndarray:
    """Every one-byte pattern of the float type `source` converted to `target` by
    convert_array itself: a lookup is then the conversion, NaN bits included (ml_dtypes
    converts f8 element by element, ~10 ns each)."""
    table = convert_array(np.arange(256, dtype=np.uint8).view(source), target)
    table.flags.writeable = False
    return table


_NATIVE_INT_TARGETS = lazy(lambda: frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)))


def _float_to_int(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """Truncate toward zero, saturating at the target's range; NaN becomes 0."""
    if x.dtype in _WIDE_FLOATS and target in _NATIVE_INT_TARGETS:
        # Common case: every element already in [min, max + 1), where astype truncates
        # exactly; the bounds are powers of two (or 0), so exact in f32/f64.
        width = num_bits(target)
        low = -(2.0 ** (width - 1)) if is_signed(target) else 0.0
        high = 2.0 ** (width - 1 if is_signed(target) else width)
        if x.size and x.min() >= low and x.max() < high:  # NaN fails both (min/max keep it)
            return x.astype(target)
    width = num_bits(target)
    with np.errstate(invalid="ignore"):
        t = np.trunc(x)
        nan = np.isnan(t)
        limit = 2.0 ** (width - 1 if is_signed(target) else width)
        over = t >= limit
        under = t < float(int_min(target))
        safe = np.where(nan | over | under, 0.0, t)
    wide = safe.astype(np.int64) if is_signed(target) else safe.astype(np.uint64)
    if is_signed(target):
        wide = np.where(over, np.int64(int_max(target)), wide)
        wide = np.where(under, np.int64(int_min(target)), wide)
        bits = wide.view(np.uint64)
    else:
        bits = np.where(over, np.uint64(int_max(target)), wide)
    return from_bits(bits, target)


# ---- bitcast_convert -------------------------------------------------------------------------


def _element_bits(x: np.ndarray) -> np.ndarray:
    """Each element's bits, least significant first, as a (count, width) uint8 array."""
    width = num_bits(x.dtype)
    flat = np.ascontiguousarray(x.reshape(-1))
    if is_int(x.dtype) or is_bool(x.dtype):
        raw = to_bits(flat).view(np.uint8).reshape(-1, 8)
    else:
        raw = flat.view(np.uint8).reshape(-1, x.dtype.itemsize)
    return np.unpackbits(raw, axis=1, bitorder="little")[:, :width]


def _from_element_bits(bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    width = num_bits(dtype)
    if is_int(dtype) or is_bool(dtype):
        padded = np.zeros((bits.shape[0], 64), np.uint8)
        padded[:, :width] = bits
        return from_bits(np.packbits(padded, axis=1, bitorder="little").view(np.uint64)
                         .reshape(-1), dtype)
    size = dtype.itemsize * 8
    padded = np.zeros((bits.shape[0], size), np.uint8)
    padded[:, :width] = bits
    return np.packbits(padded, axis=1, bitorder="little").reshape(-1).view(dtype)


@define_op("stablehlo.bitcast_convert", operands=("operand",), results=1,
           syntax=Format("$operand", operands=("operand",),
                         types="functional"),
           verify=verify_bitcast_convert)
def bitcast_convert(operand: np.ndarray, *, result_type: Any) -> np.ndarray:
    """Reinterpret the bits; element i of a wider result packs operand elements with the
    first one in the lowest bits (and the reverse for a narrower result)."""
    target = result_dtype(result_type)
    # `?` result dimensions are the operand's (the leading dimensions always coincide).
    shape = tuple(operand.shape[i] if d < 0 and i < operand.ndim else d
                  for i, d in enumerate(result_type.shape))
    if target.itemsize * 8 == num_bits(target) and operand.dtype.itemsize * 8 == num_bits(
            operand.dtype) and not is_bool(target) and not is_bool(operand.dtype):
        return np.ascontiguousarray(operand).view(target).reshape(shape)
    bits = _element_bits(operand).reshape(-1, num_bits(target))
    return _from_element_bits(bits, target).reshape(shape)


# ---- reduce_precision ------------------------------------------------------------------------

_INT = regex_programs.compile(r"[-+]?[0-9]+")


def _int32(text: str) -> int | None:
    """llvm's getAsInteger into an int32: decimal digits (optional sign), in range."""
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    return value if -2**31 <= value < 2**31 else None


def _parse_reduce_precision(p: Any, opdef: OpDef, location: Location,
                            num_results: int) -> Operation:
    start = p.tok
    operand = p.parse_operand()
    p.expect(",")
    p.expect_keyword("format")
    p.expect("=")
    tok = p.tok
    word = p.parse_keyword()
    exponent_text, _, mantissa_text = word.partition("m")
    if len(exponent_text) <= 1 or not mantissa_text or not exponent_text.startswith("e"):
        raise p.op_error(f"expected exponent mantissa in format e#m#, saw {word}", tok)
    exponent = _int32(exponent_text[1:])
    if exponent is None:
        raise p.op_error(f"unable to parse exponent '{exponent_text[1:]}'", tok)
    mantissa = _int32(mantissa_text)
    if mantissa is None:
        raise p.op_error(f"unable to parse mantissa '{mantissa_text}'", tok)
    i32 = IntegerType(32)
    props = {"exponent_bits": IntegerAttr(exponent, i32),
             "mantissa_bits": IntegerAttr(mantissa, i32)}
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    type_tok = p.tok
    t = p.parse_type()
    results: list[Type]
    if isinstance(t, FunctionType):
        if len(t.inputs) != 1:  # assignFromFunctionType counts at the type
            p.check_operand_types([operand], list(t.inputs), type_tok)
        p.check_operand_types([operand], list(t.inputs), start)
        results = list(t.results)
    else:
        p.check_operand_types([operand], [t], start)
        results = [t]
    return p.build_operation(opdef.name, opdef, [operand], results, props, attributes, [], None,
                             location)


def _print_reduce_precision(pr: Any, op: Operation) -> None:
    e = op.properties["exponent_bits"].value
    m = op.properties["mantissa_bits"].value
    pr.write(f" {pr.operands(op.operands)}, format = e{e}m{m}" + pr.attr_dict(op.attributes))
    ins, outs = op.operand_types, op.result_types
    if outs and all(t == outs[0] for t in (*ins, *outs)):
        pr.write(f" : {outs[0]}")
    else:
        pr.write(" : " + str(FunctionType(tuple(ins), tuple(outs))))


def _mantissa_bits(dtype: np.dtype) -> int:
    if dtype.kind == "f":
        return int(np.finfo(dtype).nmant)
    return int(ml_dtypes.finfo(dtype).nmant)


@define_op("stablehlo.reduce_precision", operands=("operand",), results=1,
           attributes=("exponent_bits", "mantissa_bits"),
           syntax=Custom(_parse_reduce_precision, _print_reduce_precision),
           verify=verify_reduce_precision)
def reduce_precision(operand: np.ndarray, *, exponent_bits: int,
                     mantissa_bits: int) -> np.ndarray:
    """Round to a float format with `exponent_bits`/`mantissa_bits` and back, with XLA's bit
    manipulation: mantissa rounded to nearest even, exponent overflow -> ±inf, underflow
    (including the reduced type's subnormals) -> ±0; NaN stays NaN (inf if no mantissa)."""
    dtype = operand.dtype
    if not is_float(dtype):
        raise EvaluationError(f"reduce_precision is unsupported for element type {dtype}")
    width = num_bits(dtype)
    src_mantissa = _mantissa_bits(dtype)
    mask_all = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    flat = np.ascontiguousarray(operand.reshape(-1))
    bits = flat.view(np.dtype(f"u{dtype.itemsize}")).astype(np.uint64)
    with np.errstate(over="ignore"):
        if mantissa_bits < src_mantissa:
            shift = src_mantissa - mantissa_bits
            last = np.uint64(1 << shift)
            base_bias = (last >> np.uint64(1)) - np.uint64(1)
            last_bit = (bits & last) >> np.uint64(shift)
            bits = ((bits + last_bit + base_bias) & ~(last - np.uint64(1))) & mask_all
        src_exponent = width - src_mantissa - 1
        if exponent_bits < src_exponent:
            sign_mask = np.uint64(1 << (width - 1))
            exp_mask = np.uint64(((1 << src_exponent) - 1) << src_mantissa)
            bias = (1 << (src_exponent - 1)) - 1
            reduced_bias = (1 << (exponent_bits - 1)) - 1
            max_exp = np.uint64((bias + reduced_bias) << src_mantissa)
            min_exp = np.uint64((bias - reduced_bias) << src_mantissa)
            exponent = bits & exp_mask
            signed_zero = bits & sign_mask
            bits = np.where(exponent > max_exp, signed_zero | exp_mask, bits)
            bits = np.where(exponent <= min_exp, signed_zero, bits)
    storage = bits.astype(np.dtype(f"u{dtype.itemsize}"))
    result = storage.view(dtype).reshape(operand.shape)
    nan = np.isnan(widen(operand))
    if nan.any():
        keep = operand if mantissa_bits > 0 else np.full(operand.shape, np.inf).astype(dtype)
        result = np.where(nan, keep, result)
    return result
