"""Integer arithmetic for `--stablehlo-legalize-quant-to-math`: quantize, dequantize,
requantize and quantized add written with plain StableHLO/CHLO ops on storage integers.

The formulas are upstream's (StablehloLegalizeQuantToMath.cpp), computed in f32 with the
scales and zero points as constants (vectors with `broadcast_dimensions = [axis]` for
per-axis types):

- quantize: convert(round_nearest_even(clamp(min, x / scale + zp, max)));
- dequantize: convert_f32(convert_i32(q) - zp) * scale;
- requantize from type A to B: q * (sA / sB) + (zB - zA * sA / sB), clamped to B's storage
  range when its storage is narrower than 32 bits, rounded half to even;
- add of per-tensor operands: both requantized to the result's parameters in i32, then
  lhs + rhs - zp, clamped to the storage range.

Every helper appends ops to a `Rewriter` (passes/chlo_legalize.py) in the order upstream
creates them, so the printed output lines up with upstream's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..dialects.stablehlo.quantization import storage_range
from ..ir.attributes import DenseArrayAttr, DenseElementsAttr
from ..ir.core import Value
from ..ir.types import DYNAMIC, F32, I32, I64, IntegerType, QuantizedType, TensorType, Type
from .chlo_legalize import Rewriter

BroadcastDims = tuple[int, ...] | None


def storage_of(q: QuantizedType) -> IntegerType:
    """The integer type holding `q`'s values: signless `iN` for signed storage (as upstream);
    `uiN` for unsigned storage. Deviation: upstream's storage type is signless `i8` for `u8`
    too, so its lowering converts 0..255 to i8 and changes values above 127; `ui8` keeps
    the program's values (and matches the uint8 arrays the interpreter holds)."""
    if q.builtin_storage or q.storage.is_unsigned:
        return q.storage
    return IntegerType(q.storage.width)


def storage_type(t: Type) -> Type:
    """`t` with a quantized element type replaced by its storage type (shape and encoding
    kept); other types unchanged."""
    if isinstance(t, TensorType) and isinstance(t.element, QuantizedType):
        return t.with_element(storage_of(t.element))
    if isinstance(t, QuantizedType):
        return storage_of(t)
    return t


def tensor(v: Value) -> TensorType:
    assert isinstance(v.type, TensorType), v.type
    return v.type


# ---- constants ---------------------------------------------------------------------------


def constant(rw: Rewriter, values: Sequence[float] | float, element: Type,
             vector: bool = False) -> Value:
    """A `stablehlo.constant` of a scalar, or of a 1-d vector when `vector` (printed as a
    splat when all its values are equal, as MLIR's dense attributes do)."""
    dtype = np.float32 if element == F32 else np.int32 if element == I32 else np.int64
    data = np.asarray(values, dtype=dtype)
    t = TensorType(data.shape if vector else (), element)
    splat = data.size > 0 and bool(np.all(data == data.reshape(-1)[0]))
    stored = data.reshape(-1)[:1].reshape(()) if splat else data.reshape(t.shape)
    return rw.create("stablehlo.constant", [], t, {"value": DenseElementsAttr(t, stored, splat)})


def quant_params(rw: Rewriter, q: QuantizedType, zero_point_float: bool
                 ) -> tuple[Value, Value, BroadcastDims]:
    """Scale and zero point constants (f32 scales; f32 or i32 zero points) and the
    broadcast dimensions that apply them along a per-axis type's axis."""
    if q.quantized_dimension is None:
        scale = constant(rw, float(q.scales[0]), F32)
        zp = constant(rw, q.zero_points[0], F32 if zero_point_float else I32)
        return scale, zp, None
    scales = constant(rw, list(q.scales), F32, vector=True)
    zps = constant(rw, list(q.zero_points), F32 if zero_point_float else I32, vector=True)
    return scales, zps, (q.quantized_dimension,)


def storage_bounds_f32(rw: Rewriter, q: QuantizedType) -> tuple[Value, Value]:
    lo, hi = storage_range(q)
    return constant(rw, float(lo), F32), constant(rw, float(hi), F32)


# ---- ops ---------------------------------------------------------------------------------


def broadcast_result(lhs: TensorType, rhs: TensorType, dims: BroadcastDims) -> TensorType:
    """CHLO's inferred result of a broadcasting binary op (numpy alignment, or `dims` for the
    lower-rank operand); like upstream's inference it carries no encoding."""
    if lhs.rank == rhs.rank or dims is None:
        out = []
        a, b = lhs.shape[::-1], rhs.shape[::-1]
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else 1
            y = b[i] if i < len(b) else 1
            if x == DYNAMIC or y == DYNAMIC:
                other = y if x == DYNAMIC else x
                out.append(other if other not in (DYNAMIC, 1) else DYNAMIC)
            else:
                out.append(y if x == 1 else x)
        return TensorType(tuple(out[::-1]), lhs.element)
    large, small = (lhs, rhs) if lhs.rank > rhs.rank else (rhs, lhs)
    shape = list(large.shape)
    for index, d in enumerate(dims):
        old, new = shape[d], small.shape[index]
        if old != DYNAMIC and (new == DYNAMIC or new > old):
            shape[d] = new
    return TensorType(tuple(shape), lhs.element)


def chlo(rw: Rewriter, name: str, lhs: Value, rhs: Value, result: TensorType | None = None,
         dims: BroadcastDims = None) -> Value:
    """`chlo.broadcast_<name>`; without `result` its type is inferred from the operands."""
    if result is None:
        result = broadcast_result(tensor(lhs), tensor(rhs), dims)
    props = {} if dims is None else {"broadcast_dimensions": DenseArrayAttr(I64, tuple(dims))}
    return rw.create(f"chlo.broadcast_{name}", [lhs, rhs], result, props)


def convert(rw: Rewriter, x: Value, result: Type) -> Value:
    return rw.create("stablehlo.convert", [x], result)


def clamp(rw: Rewriter, lo: Value, x: Value, hi: Value, result: Type | None = None) -> Value:
    return rw.create("stablehlo.clamp", [lo, x, hi], result or x.type)


def round_even(rw: Rewriter, x: Value, result: Type | None = None) -> Value:
    return rw.create("stablehlo.round_nearest_even", [x], result or x.type)


# ---- quantize / dequantize / requantize --------------------------------------------------


def quantize(rw: Rewriter, x: Value, float_type: TensorType, q: QuantizedType) -> Value:
    """f32 `x` to `q`'s storage integers."""
    scales, zps, dims = quant_params(rw, q, zero_point_float=True)
    lo, hi = storage_bounds_f32(rw, q)
    y = chlo(rw, "divide", x, scales, float_type, dims)
    y = chlo(rw, "add", y, zps, float_type, dims)
    y = clamp(rw, lo, y, hi, float_type)
    y = round_even(rw, y, float_type)
    return convert(rw, y, float_type.with_element(storage_of(q)))


def dequantize(rw: Rewriter, x: Value, q: QuantizedType) -> Value:
    """Storage integers `x` of type `q` to f32."""
    scales, zps, dims = quant_params(rw, q, zero_point_float=False)
    i32 = tensor(x).with_element(I32)
    y = convert(rw, x, i32)
    y = chlo(rw, "subtract", y, zps, i32, dims)
    f32 = i32.with_element(F32)
    y = convert(rw, y, f32)
    return chlo(rw, "multiply", y, scales, f32, dims)


def _merged_scale_and_zp(rw: Rewriter, x: Value, source: QuantizedType,
                         target: QuantizedType) -> Value:
    """x * (s_source / s_target) + (z_target - z_source * s_source / s_target), per channel
    when either type is per-axis."""
    if source.quantized_dimension is None and target.quantized_dimension is None:
        scale = source.scales[0] / target.scales[0]
        y = chlo(rw, "multiply", x, constant(rw, scale, F32))
        zp = target.zero_points[0] - source.zero_points[0] * scale
        if zp != 0:
            y = chlo(rw, "add", y, constant(rw, zp, F32))
        return y
    axis_type = target if target.quantized_dimension is not None else source
    channels = len(axis_type.scales)

    def at(q: QuantizedType, values: tuple, i: int) -> float:
        return values[i] if q.quantized_dimension is not None else values[0]

    scales = [at(source, source.scales, i) / at(target, target.scales, i)
              for i in range(channels)]
    zps = [at(target, target.zero_points, i) - at(source, source.zero_points, i) * scales[i]
           for i in range(channels)]
    axis = axis_type.quantized_dimension
    assert axis is not None  # one of the two types is per-axis here
    dims = (axis,)
    y = chlo(rw, "multiply", x, constant(rw, scales, F32, vector=True), dims=dims)
    if any(np.float32(z) != 0 for z in zps):
        y = chlo(rw, "add", y, constant(rw, zps, F32, vector=True), dims=dims)
    return y


def requantize(rw: Rewriter, x: Value, source: QuantizedType, target: QuantizedType,
               result: TensorType) -> Value:
    """Storage integers of `source` as `target`'s, in the integer tensor type `result`."""
    if source == target:
        return convert(rw, x, result)
    f32 = result.with_element(F32)
    y = convert(rw, x, f32)
    y = _merged_scale_and_zp(rw, y, source, target)
    element = result.element
    if isinstance(element, IntegerType) and element.width < 32:
        lo, hi = storage_bounds_f32(rw, target)
        y = clamp(rw, lo, y, hi)
    y = round_even(rw, y, f32)
    return convert(rw, y, result)


def add_per_tensor(rw: Rewriter, lhs: Value, rhs: Value, lq: QuantizedType,
                   rq: QuantizedType, out: QuantizedType, result: TensorType) -> Value:
    """Both operands brought to the result's scale and zero point, then lhs + rhs - zp."""
    i32 = result.with_element(I32)
    a = requantize(rw, lhs, lq, out, i32)
    b = requantize(rw, rhs, rq, out, i32)
    zp = constant(rw, out.zero_points[0], I32)
    total = chlo(rw, "add", a, b, i32)
    total = chlo(rw, "subtract", total, zp, i32)
    if storage_of(out).width == 32:
        return total
    lo, hi = storage_range(out)
    total = clamp(rw, constant(rw, lo, I32), total, constant(rw, hi, I32), i32)
    return convert(rw, total, i32.with_element(storage_of(out)))


def add_per_axis(rw: Rewriter, lhs: Value, rhs: Value, q: QuantizedType) -> Value:
    """Same per-axis i32 type everywhere: lhs + rhs - zp (per channel, when any is
    non-zero)."""
    total = rw.create("stablehlo.add", [lhs, rhs], lhs.type)
    if any(q.zero_points):
        zps = constant(rw, list(q.zero_points), I32, vector=True)
        assert q.quantized_dimension is not None
        total = chlo(rw, "subtract", total, zps, dims=(q.quantized_dimension,))
    return total
