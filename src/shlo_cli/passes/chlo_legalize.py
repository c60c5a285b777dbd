"""`--chlo-legalize-to-stablehlo` and `--chlo-pre-serialization-pipeline`.

Rewrites CHLO ops into StableHLO in upstream's op order (its CHECK lines record it):
broadcasting binary ops become `broadcast_in_dim` of the operands plus the StableHLO op,
`constant` becomes `stablehlo.constant`, `tan` becomes `stablehlo.tan`, `conj` a
`complex(real, -imag)`, the `is_*inf` predicates compare against infinity, `top_k` a stable
sort with iota indices and two slices, `constant_like` a splat constant. The math functions
live in their own modules: `chlo_elementary` (real asin, acos, atan, atanh, acosh, asinh,
sinh, cosh, square), `chlo_gamma` (lgamma, digamma, zeta, polygamma), `chlo_special` (erf,
erfc, erf_inv, bessel_i1e, next_after), `chlo_asin_kernel` (complex asin, acos, acosh, asinh:
Hull et al.; complex atanh and atan = -i atanh(iz)) and `chlo_structured` (scan as a while
loop, ragged_dot as masked dot_generals, mulhi by widening or 32-bit halves).

Dynamically shaped tensors (as upstream): elementwise rewrites are shape-agnostic, their
constants upstream's constant_like (a scalar `dynamic_broadcast_in_dim` to `shape.shape_of`
of an operand; for bounded dimensions a broadcast to the bound plus `set_dimension_size`);
broadcasting ops on bounded operands broadcast to the bounds and set the run-time sizes;
other dynamic broadcasts take upstream's shape-dialect form in the pass
(`chlo_shape_broadcast.py`: shape_of, cstr_broadcastable, assuming), and for hlo-expand and
the pre-serialization pipeline broadcast every operand to the numpy-broadcast shape computed
from run-time sizes; constant_like broadcasts its scalar; top_k uses dynamic_iota and
real_dynamic_slice; scan and ragged_dot slice with real_dynamic_slice and reshape with
dynamic_reshape. Kept as CHLO ops (upstream refuses them too): broadcasting ops on dynamic
shapes with non-trailing broadcast_dimensions, ragged_dot with a dynamic group count, scan
with dynamic outputs and no inputs.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

from ..dialects.stablehlo.elementwise_verify import bounds_attr, bounds_of
from ..ir import registry
from ..ir.attributes import (
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
    DialectAttr,
    FloatAttr,
    IntegerAttr,
)
from ..ir.clone import replace_uses
from ..ir.core import Block, Module, Operation, Region, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import (
    BOOL,
    DYNAMIC,
    I32,
    I64,
    ComplexType,
    FloatType,
    IndexType,
    TensorType,
    Type,
    numpy_dtype,
)
from . import emit, register_pass


class NoShapeSource(Exception):
    """A dynamically shaped constant has no value of its shape to take the run-time shape
    from; the pattern does not apply."""


class Rewriter:
    """Builds replacement ops in front of the op being rewritten.

    Constants of dynamically shaped types are scalars broadcast (dynamic_broadcast_in_dim) to
    the run-time shape of a value of the same shape: an operand of the op, else a value built
    here (upstream's getConstantLike does the same with shape.shape_of)."""

    # Dynamic broadcasts in upstream's shape-dialect form (chlo_shape_broadcast.py) rather
    # than from run-time sizes: only the chlo-legalize-to-stablehlo pass asks for it.
    shape_dialect = False

    def __init__(self, op: Operation) -> None:
        self.op = op
        self.ops: list[Operation] = []
        self._shapes: dict[int, Value] = {}

    def create(self, name: str, operands: list[Value], result_type: Type,
               properties: dict | None = None) -> Value:
        new = Operation(name, operands, [result_type], dict(properties or {}), {},
                        location=self.op.location, opdef=registry.lookup(name))
        self.ops.append(new)
        return new.results[0]

    def scalar(self, value: float, element: Type) -> Value:
        """A 0-d constant."""
        t = TensorType((), element)
        with np.errstate(over="ignore"):  # e.g. 1e308 in f32 is +inf, as upstream's APFloat
            data = np.array(value).astype(numpy_dtype(element)).reshape(())
        return self.create("stablehlo.constant", [], t,
                           {"value": DenseElementsAttr(t, data, True)})

    def constant(self, value: float, tensor_type: TensorType) -> Value:
        """A splat constant of the whole type (upstream's getConstantLike)."""
        if tensor_type.is_static:
            with np.errstate(over="ignore"):  # out-of-range splats round to +-inf
                data = np.array(value).astype(numpy_dtype(tensor_type.element)).reshape(())
            return self.create("stablehlo.constant", [], tensor_type,
                               {"value": DenseElementsAttr(tensor_type, data, True)})
        return self.dynamic_broadcast(self.scalar(value, tensor_type.element),
                                      self.shape_of(self.like(tensor_type)), tensor_type, ())

    def like(self, t: TensorType) -> Value:
        """A value whose type has the shape of `t` (an operand first)."""
        candidates = [*self.op.operands, *(v for o in self.ops for v in o.results)]
        for value in candidates:
            if isinstance(value.type, TensorType) and value.type.shape == t.shape:
                return value
        raise NoShapeSource(str(t))

    def dimension_size(self, value: Value, dim: int) -> Value:
        """The size of `dim` of `value` as a tensor<i64> (a constant when static)."""
        size = value.type.shape[dim]  # type: ignore[union-attr]
        if size != DYNAMIC:
            return self.scalar(size, I64)
        size32 = self.create("stablehlo.get_dimension_size", [value], TensorType((), I32),
                             {"dimension": IntegerAttr(dim, I64)})
        return self.create("stablehlo.convert", [size32], TensorType((), I64))

    def shape_tensor(self, sizes: list[Value]) -> Value:
        """tensor<N x i64> from N scalar sizes."""
        if not sizes:
            empty = TensorType((0,), I64)
            return self.create("stablehlo.constant", [], empty, {"value": DenseElementsAttr(
                empty, np.zeros(0, np.int64), False)})
        pieces = [self.create("stablehlo.reshape", [v], TensorType((1,), I64)) for v in sizes]
        if len(pieces) == 1:
            return pieces[0]
        return self.create("stablehlo.concatenate", pieces, TensorType((len(pieces),), I64),
                           {"dimension": IntegerAttr(0, I64)})

    def shape_tensor_of(self, pieces: list[Value]) -> Value:
        """tensor<N x i64> from N tensor<1xi64> pieces."""
        if len(pieces) == 1:
            return pieces[0]
        return self.create("stablehlo.concatenate", list(pieces),
                           TensorType((len(pieces),), I64), {"dimension": IntegerAttr(0, I64)})

    def shape_of(self, value: Value) -> Value:
        """The run-time shape of `value` as tensor<rank x i64> (upstream's shape.shape_of)."""
        key = id(value)
        if key not in self._shapes:
            t = value.type
            assert isinstance(t, TensorType)
            self._shapes[key] = self.shape_tensor(
                [self.dimension_size(value, d) for d in range(t.rank)])
        return self._shapes[key]

    def dynamic_broadcast(self, value: Value, shape: Value, target: TensorType,
                          dims: tuple[int, ...]) -> Value:
        return self.create("stablehlo.dynamic_broadcast_in_dim", [value, shape], target,
                           {"broadcast_dimensions": DenseArrayAttr(I64, dims)})

    def broadcast(self, value: Value, target: TensorType, dims: tuple[int, ...]) -> Value:
        return self.create("stablehlo.broadcast_in_dim", [value], target,
                           {"broadcast_dimensions": DenseArrayAttr(I64, dims)})

    def compare(self, direction: str, lhs: Value, rhs: Value, result: Type) -> Value:
        attr = DialectAttr("stablehlo", "", f"comparison_direction {direction}")
        return self.create("stablehlo.compare", [lhs, rhs], result,
                           {"comparison_direction": attr})


class ChloRewriter(Rewriter):
    """Rewriter of the CHLO decompositions: a dynamically shaped constant is a
    `constant_like` of a value, lowered as upstream lowers chlo.constant_like."""

    def constant(self, value: float, tensor_type: TensorType) -> Value:
        if tensor_type.is_static:
            return super().constant(value, tensor_type)
        return self.constant_like(value, self.like(tensor_type), tensor_type.element)

    def constant_like(self, value: float, like: Value, element: Type | None = None) -> Value:
        """A splat of `like`'s shape: a constant when static; for bounded dimensions a
        broadcast to the bounds whose sizes are then set from `like`; else a scalar
        dynamic_broadcast_in_dim to `shape.shape_of(like)`."""
        t = like.type
        assert isinstance(t, TensorType)
        element = element or t.element
        target = TensorType(t.shape, element, t.encoding)
        if t.is_static:
            return super().constant(value, TensorType(t.shape, element))
        scalar = self.scalar(value, element)
        bounds = bounds_of(t)
        dynamic = [d for d, size in enumerate(t.shape) if size == DYNAMIC]
        if all(bounds[d] is not None for d in dynamic):
            shape = [bounds[d] if size == DYNAMIC else size for d, size in enumerate(t.shape)]
            current = self.broadcast(scalar, TensorType(tuple(shape), element), ())
            for d in dynamic:
                size = self.create("stablehlo.get_dimension_size", [like], TensorType((), I32),
                                   {"dimension": IntegerAttr(d, I64)})
                shape[d] = DYNAMIC
                partial = [bounds[i] if shape[i] == DYNAMIC else None for i in range(t.rank)]
                result = TensorType(tuple(shape), element, bounds_attr(partial))
                current = self.create("stablehlo.set_dimension_size", [current, size], result,
                                      {"dimension": IntegerAttr(d, I64)})
            return current
        return self.dynamic_broadcast(scalar, self.index_shape_of(like), target, ())

    def index_shape_of(self, value: Value) -> Value:
        """`shape.shape_of(value)`: its run-time extents as tensor<rank x index>."""
        rank = value.type.rank  # type: ignore[union-attr]
        return self.create("shape.shape_of", [value], TensorType((rank,), IndexType()))


Pattern = Callable[[Rewriter], "list[Value] | None"]
PATTERNS: dict[str, list[Pattern]] = {}


def pattern(*names: str) -> Callable[[Pattern], Pattern]:
    """Register a rewrite for ops `names`; several may apply to one op name (e.g. a real and
    a complex variant): the first that returns values wins."""

    def wrap(fn: Pattern) -> Pattern:
        for name in names:
            PATTERNS.setdefault(name, []).append(fn)
        return fn

    return wrap


def _static(t: Type) -> bool:
    return isinstance(t, TensorType) and t.is_static


def _broadcast_to(rw: Rewriter, value: Value, shape: tuple[int, ...],
                  dims_attr: DenseArrayAttr | None, lower_rank: bool) -> Value:
    t = value.type
    assert isinstance(t, TensorType)
    target = TensorType(shape, t.element)
    if t == target:
        return value
    if dims_attr is not None and lower_rank:
        dims = tuple(dims_attr.value)
    else:
        dims = tuple(range(len(shape) - t.rank, len(shape)))
    return rw.broadcast(value, target, dims)


_BROADCAST_OPS = ("add", "and", "atan2", "complex", "divide", "maximum", "minimum", "multiply",
                  "or", "power", "remainder", "shift_left", "shift_right_arithmetic",
                  "shift_right_logical", "subtract", "xor", "compare", "next_after",
                  "polygamma", "zeta")


def _result_extents(rw: Rewriter, operands: list[Value], rank: int) -> Value:
    """The numpy-broadcast result shape of `operands` (aligned at the trailing dimension) as
    tensor<rank x i64>: a static size other than 1 wins, else the run-time sizes combine as
    `a == 1 ? b : a` (upstream's shape.broadcast, without its compatibility check)."""
    scalar_bool, scalar_i64 = TensorType((), BOOL), TensorType((), I64)
    sizes = []
    for i in range(rank):
        entries = []
        for value in operands:
            t = value.type
            d = i - (rank - t.rank)  # type: ignore[union-attr]
            if d >= 0:
                entries.append((t.shape[d], value, d))  # type: ignore[union-attr]
        known = [size for size, _, _ in entries if size not in (DYNAMIC, 1)]
        dynamic = [(value, d) for size, value, d in entries if size == DYNAMIC]
        if known or not dynamic:
            sizes.append(rw.scalar(known[0] if known else 1, I64))
            continue
        size = rw.dimension_size(*dynamic[0])
        for value, d in dynamic[1:]:
            is_one = rw.compare("EQ", size, rw.scalar(1, I64), scalar_bool)
            size = rw.create("stablehlo.select", [is_one, rw.dimension_size(value, d), size],
                             scalar_i64)
        sizes.append(size)
    return rw.shape_tensor(sizes)


def _dynamic_broadcast_all(rw: Rewriter, operands: list[Value], result: TensorType,
                           keep_scalar: Value | None = None) -> list[Value]:
    """Every operand dynamic_broadcast_in_dim to the broadcast result shape (trailing
    alignment), except `keep_scalar` (select's 0-d predicate)."""
    extents = _result_extents(rw, operands, result.rank)
    broadcast = []
    for value in operands:
        t = value.type
        if value is keep_scalar:
            broadcast.append(value)
            continue
        dims = tuple(range(result.rank - t.rank, result.rank))  # type: ignore[union-attr]
        target = TensorType(result.shape, t.element)  # type: ignore[union-attr]
        broadcast.append(rw.dynamic_broadcast(value, extents, target, dims))
    return broadcast


def _bounded_broadcast_applies(operands: list[Value], result: TensorType) -> bool:
    """Operands and result static or bounded, their numpy broadcast known (upstream's
    ConvertTrivialNumpyBroadcastBinaryOp applies)."""
    bounds = bounds_of(result)
    return all(size != DYNAMIC or bound is not None
               for size, bound in zip(result.shape, bounds, strict=True)) \
        and _numpy_shape(operands) is not None


def _bounded_or_dynamic_broadcast(rw: Rewriter, operands: list[Value],
                                  result: TensorType) -> list[Value]:
    """Operands and result static or bounded: upstream's numpy broadcast with bounds (its
    ConvertTrivialNumpyBroadcastBinaryOp); else the run-time shape broadcast."""
    if _bounded_broadcast_applies(operands, result):
        shape = _numpy_shape(operands)
        if shape is not None:
            made = len(rw.ops)
            values = [_numpy_broadcast_bounded(rw, value, shape) for value in operands]
            if all(v is not None for v in values):
                return values  # type: ignore[return-value]
            del rw.ops[made:]  # upstream's pattern fails: the run-time form follows
    return _dynamic_broadcast_all(rw, operands, result)


def _numpy_aligned(op: Operation) -> bool:
    """Explicit broadcast_dimensions, if any, are numpy-style prefix padding: operands of
    equal rank, or the lower-rank operand mapped to the trailing dimensions (the only form
    upstream lowers)."""
    dims = op.attr("broadcast_dimensions")
    if dims is None:
        return True
    lhs_t, rhs_t = op.operand_types
    if lhs_t.rank == rhs_t.rank:  # type: ignore[union-attr]
        return True
    low, high = sorted((lhs_t.rank, rhs_t.rank))  # type: ignore[union-attr]
    return tuple(dims.value) == tuple(range(high - low, high))


def _bounded_same_shape(lhs: Type, rhs: Type, result: Type) -> bool:
    """Operands of one bounded-dynamic shape (every `?` has a bound) equal to the result's
    sizes need no broadcast."""
    if not all(isinstance(t, TensorType) for t in (lhs, rhs, result)):
        return False
    if lhs.shape != rhs.shape or lhs.shape != result.shape \
            or _static(lhs):  # type: ignore[union-attr]
        return False
    bounds = bounds_of(lhs)  # type: ignore[arg-type]
    return bounds == bounds_of(rhs) and all(  # type: ignore[arg-type]
        b is not None for size, b in zip(lhs.shape, bounds, strict=True)  # type: ignore
        if size == DYNAMIC)


# A dimension for numpy broadcasting with bounds (upstream's DimensionInfo): its size (the
# bound when bounded) and, when bounded, the value and dimension whose run-time size it has.
_Dim = tuple[int, "Value | None", int]


def _bounded_dims(value: Value) -> list[_Dim] | None:
    """`value`'s dimensions; None when one is dynamic without a bound."""
    t = value.type
    if not isinstance(t, TensorType):
        return None
    out: list[_Dim] = []
    for d, (size, bound) in enumerate(zip(t.shape, bounds_of(t), strict=True)):
        if size != DYNAMIC:
            out.append((size, None, 0))
        elif bound is None:
            return None
        else:
            out.append((bound, value, d))
    return out


def _bounded_type(dims: list[_Dim], element: Type) -> TensorType:
    shape = tuple(DYNAMIC if source is not None else size for size, source, _ in dims)
    bounds = [size if source is not None else None for size, source, _ in dims]
    return TensorType(shape, element, bounds_attr(bounds))


def _numpy_shape(operands: list[Value]) -> list[_Dim] | None:
    """The numpy broadcast of the operands' dimensions (trailing-aligned; a size-1 side
    takes the other); None where sizes differ or a bounded size meets a static one."""
    shape = _bounded_dims(operands[0])
    for value in operands[1:]:
        dims = _bounded_dims(value)
        if shape is None or dims is None:
            return None
        rank = max(len(shape), len(dims))
        merged: list[_Dim] = []
        for i in range(1, rank + 1):
            a = shape[-i] if i <= len(shape) else (1, None, 0)
            b = dims[-i] if i <= len(dims) else (1, None, 0)
            if a[0] != 1 and b[0] != 1 and (a[0] != b[0] or (a[1] is None) != (b[1] is None)):
                return None
            merged.append(b if a[0] == 1 else a)
        shape = merged[::-1]
    return shape


def _numpy_broadcast_bounded(rw: Rewriter, value: Value, shape: list[_Dim]) -> Value | None:
    """`value` broadcast to `shape` (upstream's numpyBroadcastIfNeeded): a broadcast_in_dim to
    the padded (bound) sizes, then set_dimension_size from the run-time size of each bounded
    dimension the operand did not have."""
    t = value.type
    dims = _bounded_dims(value)
    assert isinstance(t, TensorType) and dims is not None
    target = _bounded_type(shape, t.element)
    if str(target) == str(t):
        return value
    diff = len(shape) - t.rank
    padded = list(shape)
    for i, (size, source, _) in enumerate(dims):
        if size != 1 and size != shape[i + diff][0]:
            return None
        if source is None and shape[i + diff][1] is not None:
            padded[i + diff] = (shape[i + diff][0], None, 0)
    for i in range(diff):
        padded[i] = (shape[i][0], None, 0)
    current = rw.broadcast(value, _bounded_type(padded, t.element), tuple(range(diff, len(shape))))
    for i, ((size, source, dim), kept) in enumerate(zip(shape, padded, strict=True)):
        if source is None or kept[1] is not None:
            continue
        size_value = rw.create("stablehlo.get_dimension_size", [source], TensorType((), I32),
                               {"dimension": IntegerAttr(dim, I64)})
        padded[i] = (size, source, dim)
        current = rw.create("stablehlo.set_dimension_size", [current, size_value],
                            _bounded_type(padded, t.element), {"dimension": IntegerAttr(i, I64)})
    return current


def _refuse_broadcast_dimensions(op: Operation) -> Diagnostic:
    """Upstream's dynamic broadcast lowering warns about non prefix-padded
    broadcast_dimensions and does not apply; nothing else lowers the op, so the conversion
    fails on it."""
    loc = op.location
    line, col = loc.line or None, loc.col or None
    emit(Diagnostic("unsupported non prefix-padded dynamic rank broadcast_dimensions = "
                    f"{op.attr('broadcast_dimensions')}", severity="warning",
                    line=line, col=col))
    return Diagnostic(f"failed to legalize operation '{op.name}' that was explicitly marked "
                      "illegal", line=line or 1, col=col or 1)


@pattern(*(f"chlo.broadcast_{name}" for name in _BROADCAST_OPS))
def _broadcast_binary(rw: Rewriter) -> list[Value] | None:
    op = rw.op
    result = op.result_types[0]
    if not all(isinstance(t, TensorType) for t in (*op.operand_types, result)):
        return None
    lhs, rhs = op.operands
    if not _numpy_aligned(op):
        return None  # chlo-legalize-to-stablehlo reports it (_refuse_broadcast_dimensions)
    if _bounded_same_shape(op.operand_types[0], op.operand_types[1], result):
        a, b = lhs, rhs  # upstream's static-or-bounded path: nothing to broadcast
    elif all(_static(t) for t in (*op.operand_types, result)):
        dims = op.attr("broadcast_dimensions")
        lhs_t, rhs_t = op.operand_types
        shape = result.shape  # type: ignore[union-attr]
        a = _broadcast_to(rw, lhs, shape, dims, lhs_t.rank < rhs_t.rank)  # type: ignore
        b = _broadcast_to(rw, rhs, shape, dims, rhs_t.rank < lhs_t.rank)  # type: ignore
    elif rw.shape_dialect and not _bounded_broadcast_applies([lhs, rhs], result):  # type: ignore
        from .chlo_shape_broadcast import broadcast_binary

        return [broadcast_binary(rw, lhs, rhs, result,  # type: ignore[arg-type]
                                 lambda x, y: _binary_op(rw, x, y, result))]
    else:
        a, b = _bounded_or_dynamic_broadcast(rw, [lhs, rhs], result)  # type: ignore[arg-type]
    return [_binary_op(rw, a, b, result)]


def _binary_op(rw: Rewriter, a: Value, b: Value, result: Type) -> Value:
    """The non-broadcasting op of the CHLO broadcasting op being rewritten."""
    op = rw.op
    name = op.name.removeprefix("chlo.broadcast_")
    if name in ("next_after", "polygamma", "zeta"):
        return rw.create(f"chlo.{name}", [a, b], result)
    props = {}
    if name == "compare":
        direction = op.attr("comparison_direction").value
        props["comparison_direction"] = DialectAttr(
            "stablehlo", "", f"comparison_direction {direction}")
        compare_type = op.attr("compare_type")
        if compare_type is not None:
            props["compare_type"] = DialectAttr(
                "stablehlo", "", f"comparison_type {compare_type.value}")
    return rw.create(f"stablehlo.{name}", [a, b], result, props)


@pattern("chlo.broadcast_select")
def _broadcast_select(rw: Rewriter) -> list[Value] | None:
    op = rw.op
    result = op.result_types[0]
    if not all(isinstance(t, TensorType) for t in (*op.operand_types, result)):
        return None
    pred = op.operands[0]
    scalar_pred = pred if pred.type.rank == 0 else None  # type: ignore[union-attr]
    if all(_static(t) for t in (*op.operand_types, result)):
        # stablehlo.select broadcasts a 0-d predicate itself: upstream keeps it as it is
        shape = result.shape  # type: ignore[union-attr]
        operands = [v if v is scalar_pred else _broadcast_to(rw, v, shape, None, False)
                    for v in op.operands]
    elif rw.shape_dialect:
        from .chlo_shape_broadcast import broadcast_select

        return [broadcast_select(rw, result)]  # type: ignore[arg-type]
    else:
        operands = _dynamic_broadcast_all(rw, list(op.operands), result,  # type: ignore
                                          scalar_pred)
    return [rw.create("stablehlo.select", operands, result)]


@pattern("chlo.constant")
def _constant(rw: Rewriter) -> list[Value]:
    return [rw.create("stablehlo.constant", [], rw.op.result_types[0],
                      {"value": rw.op.attr("value")})]


@pattern("chlo.tan")
def _tan(rw: Rewriter) -> list[Value]:
    return [rw.create("stablehlo.tan", list(rw.op.operands), rw.op.result_types[0])]


def _element(t: Type) -> Type | None:
    return t.element if isinstance(t, TensorType) else None


@pattern("chlo.conj")
def _conj(rw: Rewriter) -> list[Value] | None:
    (x,) = rw.op.operands
    t = x.type
    element = _element(t)
    if not isinstance(element, ComplexType):
        return [x]
    part = TensorType(t.shape, element.element)  # type: ignore[union-attr]
    real = rw.create("stablehlo.real", [x], part)
    imag = rw.create("stablehlo.imag", [x], part)
    negated = rw.create("stablehlo.negate", [imag], part)
    return [rw.create("stablehlo.complex", [real, negated], t)]


_UPCAST_TO_F32 = ("f16", "bf16")


def _with_upcast(rw: Rewriter, body: Callable[[Rewriter, Value, TensorType], Value]
                 ) -> list[Value] | None:
    """Run `body` on the operand, in f32 for f16/bf16 operands (as upstream's
    materializeWithUpcast), converting the result back."""
    (x,) = rw.op.operands
    t = x.type
    if not isinstance(_element(t), FloatType):
        return None
    narrow = t.element.name in _UPCAST_TO_F32  # type: ignore[union-attr]
    if narrow:
        wide = TensorType(t.shape, FloatType("f32"))  # type: ignore[union-attr]
        x = rw.create("stablehlo.convert", [x], wide)
        result = body(rw, x, wide)
        return [rw.create("stablehlo.convert", [result], t)]
    return [body(rw, x, t)]  # type: ignore[arg-type]


@pattern("chlo.top_k")
def _top_k(rw: Rewriter) -> list[Value] | None:
    """Stable sort of (operand, iota) along the last dimension with a GT comparator (in
    TOTALORDER for floats), then the first k of both."""
    (x,) = rw.op.operands
    t = x.type
    values_type, indices_type = rw.op.result_types
    if not isinstance(t, TensorType) or not t.shape:
        return None
    last = t.rank - 1
    iota_type = TensorType(t.shape, indices_type.element)  # type: ignore[union-attr]
    k = int(rw.op.attr("k").value)
    last_size = t.shape[last]
    if t.is_static:
        iota = rw.create("stablehlo.iota", [], iota_type,
                         {"iota_dimension": IntegerAttr(last, I64)})
    else:
        # Run-time extents (one 1-d piece per dimension), then the same with k last, all
        # ahead of the iota as upstream.
        pieces = [rw.create("stablehlo.reshape", [rw.dimension_size(x, d)],
                            TensorType((1,), I64)) for d in range(t.rank)]
        extents = rw.shape_tensor_of(pieces)
        pieces[-1] = rw.create("stablehlo.reshape", [rw.scalar(
            k if last_size == DYNAMIC else min(k, last_size), I64)], TensorType((1,), I64))
        limits_value = rw.shape_tensor_of(pieces)
        iota = rw.create("stablehlo.dynamic_iota", [extents], iota_type,
                         {"iota_dimension": IntegerAttr(last, I64)})
    scalar, index = TensorType((), t.element), TensorType((), indices_type.element)  # type: ignore
    block = Block([scalar, scalar, index, index])
    props = {"comparison_direction": DialectAttr("stablehlo", "", "comparison_direction GT")}
    if isinstance(t.element, FloatType):  # type: ignore[union-attr]
        props["compare_type"] = DialectAttr("stablehlo", "", "comparison_type TOTALORDER")
    greater = Operation("stablehlo.compare", block.arguments[:2], [TensorType((), BOOL)],
                        props, {}, location=rw.op.location,
                        opdef=registry.lookup("stablehlo.compare"))
    block.append(greater)
    block.append(Operation("stablehlo.return", greater.results, [], {}, {},
                           location=rw.op.location, opdef=registry.lookup("stablehlo.return")))
    sort = Operation("stablehlo.sort", [x, iota], [t, iota_type],
                     {"dimension": IntegerAttr(last, I64), "is_stable": BoolAttr(True)}, {},
                     [Region([block])], location=rw.op.location,
                     opdef=registry.lookup("stablehlo.sort"))
    rw.ops.append(sort)
    rank = t.rank
    if t.is_static:
        limits = tuple(values_type.shape)  # type: ignore[union-attr]
        slice_props = {"start_indices": DenseArrayAttr(I64, (0,) * rank),
                       "limit_indices": DenseArrayAttr(I64, limits),
                       "strides": DenseArrayAttr(I64, (1,) * rank)}
        return [rw.create("stablehlo.slice", [sort.results[0]], values_type, slice_props),
                rw.create("stablehlo.slice", [sort.results[1]], indices_type, slice_props)]
    vector = TensorType((rank,), I64)
    starts = rw.create("stablehlo.constant", [], vector, {"value": DenseElementsAttr(
        vector, np.zeros(rank, np.int64), False)})
    strides = rw.create("stablehlo.constant", [], vector, {"value": DenseElementsAttr(
        vector, np.ones(rank, np.int64), False)})
    return [rw.create("stablehlo.real_dynamic_slice", [sort.results[0], starts, limits_value,
                                                       strides], values_type),
            rw.create("stablehlo.real_dynamic_slice", [sort.results[1], starts, limits_value,
                                                       strides], indices_type)]


@pattern("chlo.constant_like")
def _constant_like(rw: Rewriter) -> list[Value] | None:
    result = rw.op.result_types[0]
    value = rw.op.attr("value")
    scalar_attrs = (FloatAttr, IntegerAttr, BoolAttr)
    if not isinstance(result, TensorType) or not isinstance(value, scalar_attrs):
        return None
    if result.is_static:
        return [rw.constant(value.value, result)]  # type: ignore[arg-type]
    if isinstance(rw, ChloRewriter):
        return [rw.constant_like(value.value, rw.op.operands[0],  # type: ignore[arg-type]
                                 result.element)]
    scalar = rw.scalar(value.value, result.element)  # type: ignore[arg-type]
    return [rw.dynamic_broadcast(scalar, rw.shape_of(rw.op.operands[0]), result, ())]


class Real:
    """Shorthand for building real-valued StableHLO expressions of one tensor type."""

    def __init__(self, rw: Rewriter, t: TensorType) -> None:
        self.rw, self.t = rw, t
        self.pred = t.with_element(BOOL)

    def __call__(self, name: str, *args: Value) -> Value:
        return self.rw.create(f"stablehlo.{name}", list(args), self.t)

    def const(self, value: float) -> Value:
        return self.rw.constant(value, self.t)

    def compare(self, direction: str, lhs: Value, rhs: Value) -> Value:
        return self.rw.compare(direction, lhs, rhs, self.pred)

    def select(self, cond: Value, a: Value, b: Value) -> Value:
        return self.rw.create("stablehlo.select", [cond, a, b], self.t)

    def max_finite(self) -> Value:
        return self.const(float(ml_dtypes.finfo(numpy_dtype(self.t.element)).max))


def _real_pattern(fn: Callable[[Value, Real], Value]) -> Pattern:
    """A rewrite of a real (float) operand; f16/bf16 are computed in f32 and converted
    back, as XLA evaluates them (step-by-step rounding to 11 or 8 bits loses too much)."""

    def rewrite(rw: Rewriter) -> list[Value] | None:
        return _with_upcast(rw, lambda r, x, t: fn(x, Real(r, t)))

    rewrite.__doc__ = fn.__doc__
    return rewrite


@pattern("chlo.is_inf", "chlo.is_pos_inf", "chlo.is_neg_inf")
def _is_inf(rw: Rewriter) -> list[Value] | None:
    (x,) = rw.op.operands
    t = x.type
    if not isinstance(_element(t), FloatType):
        return None
    result = t.with_element(BOOL)  # type: ignore[union-attr]
    if rw.op.name == "chlo.is_inf":
        magnitude = rw.create("stablehlo.abs", [x], t)
        return [rw.compare("EQ", magnitude, rw.constant(np.inf, t), result)]
    value = np.inf if rw.op.name == "chlo.is_pos_inf" else -np.inf
    return [rw.compare("EQ", x, rw.constant(value, t), result)]


def legalize_block(block: Block, replacements: dict[Value, Value],
                   patterns: dict[str, list[Pattern]] | None = None,
                   rewriter: type[Rewriter] = Rewriter) -> None:
    """Apply the first matching rewrite of `patterns` (default: CHLO's) to every op, nested
    regions first; `replacements` learns the old results' new values."""
    patterns = PATTERNS if patterns is None else patterns
    new_ops: list[Operation] = []
    for op in block.operations:
        for region in op.regions:
            for nested in region.blocks:
                legalize_block(nested, replacements, patterns, rewriter)
        rewrites = patterns.get(op.name)
        if not rewrites:
            new_ops.append(op)
            continue
        op.operands = [replacements.get(v, v) for v in op.operands]
        values = None
        for rewrite in rewrites:
            rw = rewriter(op)
            try:
                values = rewrite(rw)
            except NoShapeSource:
                values = None
            if values is not None:
                break
        if values is None:
            new_ops.append(op)
            continue
        new_ops.extend(rw.ops)
        for old, new in zip(op.results, values, strict=True):
            replacements[old] = new
    block.operations = []
    for op in new_ops:
        block.append(op)


class ShapeDialectRewriter(ChloRewriter):
    """ChloRewriter whose dynamic broadcasts take upstream's shape-dialect form."""

    shape_dialect = True


def legalize(module: Module, rewriter: type[Rewriter] = ChloRewriter) -> None:
    """Rewrite until no pattern applies (a rewrite may create CHLO ops, e.g. polygamma's
    lgamma, zeta and digamma)."""
    from . import (  # noqa: F401  (more patterns)
        chlo_asin_kernel,
        chlo_elementary,
        chlo_gamma,
        chlo_special,
        chlo_structured,
    )

    for _ in range(_MAX_ROUNDS):
        replacements: dict[Value, Value] = {}
        for region in module.op.regions:
            for block in region.blocks:
                legalize_block(block, replacements, rewriter=rewriter)
        replace_uses(module.op, replacements)
        if not replacements:
            return


_MAX_ROUNDS = 4


@register_pass("chlo-legalize-to-stablehlo",
               "Legalize CHLO ops to StableHLO.")
def chlo_legalize_to_stablehlo(module: Module) -> None:
    legalize(module, ShapeDialectRewriter)
    _fail_on_refused_broadcasts(module)


def _fail_on_refused_broadcasts(module: Module) -> None:
    """Broadcasting ops left over for their broadcast_dimensions fail the conversion (other
    callers of `legalize`, e.g. hlo-expand, report left-over CHLO their own way)."""
    names = {f"chlo.broadcast_{name}" for name in _BROADCAST_OPS}
    for op in module.op.walk():
        if op.name in names and all(isinstance(t, TensorType) for t in op.operand_types) \
                and not _numpy_aligned(op):
            raise _refuse_broadcast_dimensions(op)


@register_pass("chlo-pre-serialization-pipeline",
               "Legalize CHLO to StableHLO ahead of serialization.")
def chlo_pre_serialization_pipeline(module: Module) -> None:
    legalize(module)
    _fail_on_refused_broadcasts(module)
