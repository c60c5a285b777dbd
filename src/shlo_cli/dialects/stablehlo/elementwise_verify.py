"""Verifiers of the elementwise ops: upstream's type inference and verify() checks, with
upstream's wording. Each raises a Diagnostic at the op for the first failed check."""

from __future__ import annotations

from ...ir.attributes import DialectAttr
from ...ir.core import Operation
from ...ir.diagnostics import Diagnostic
from ...ir.types import (
    BOOL,
    DYNAMIC,
    ComplexType,
    FloatType,
    IntegerType,
    QuantizedType,
    TensorType,
    TupleType,
    Type,
    UnrankedTensorType,
)
from ...ir.verifier import inference_error, inferred_type_mismatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any


def error(op: Operation, message: str, op_prefix: bool = True) -> Diagnostic:
    """`'name' op message` (emitOpError) or the bare message (emitOptionalError)."""
    text = f"'{op.name}' op {message}" if op_prefix else message
    return Diagnostic(text, line=op.location.line or None, col=op.location.col or None)


def require_static_results(op: Operation, description: str, first: int = 0) -> None:
    """ODS's static-shape result constraint, from result `first` on: `result #i must be
    <description>, but got '<type>'` for a tensor result with a dynamic dimension."""
    for index, value in enumerate(op.results[first:], first):
        t = value.type
        if isinstance(t, TensorType) and not t.is_static:
            raise error(op, f"result #{index} must be {description}, but got '{t}'")


def quoted(types: Sequence[Type]) -> str:
    return ", ".join(f"'{t}'" for t in types)


def compatible(a: Type, b: Type) -> bool:
    """isCompatibleForHloTypeInference: equal element types and shapes that agree wherever
    both are known (encodings and bounds are ignored)."""
    if isinstance(a, (TensorType, UnrankedTensorType)) and isinstance(
            b, (TensorType, UnrankedTensorType)):
        if not compatible_elements(a.element, b.element):
            return False
        if isinstance(a, UnrankedTensorType) or isinstance(b, UnrankedTensorType):
            return True
        return a.rank == b.rank and all(
            x == y or DYNAMIC in (x, y) for x, y in zip(a.shape, b.shape, strict=False)
        ) and bounds_compatible(a, b)
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.types) == len(b.types) and all(
            compatible(x, y) for x, y in zip(a.types, b.types, strict=False))
    return a == b


def bounds_of(t: TensorType) -> list[int | None]:
    """The `#stablehlo.bounds` of each dimension (None where unbounded or unknown)."""
    encoding = t.encoding
    bounds = encoding.get("bounds") if hasattr(encoding, "get") else None
    return list(bounds) if bounds and len(bounds) == t.rank else [None] * t.rank


def bounds_compatible(a: TensorType, b: TensorType) -> bool:
    """verifyCompatibleShapeWithBounds: a static size never exceeds the other side's bound."""
    for size_a, size_b, bound_a, bound_b in zip(a.shape, b.shape, bounds_of(a), bounds_of(b),
                                                strict=False):
        if bound_a is not None and size_b != DYNAMIC and size_b > bound_a:
            return False
        if bound_b is not None and size_a != DYNAMIC and size_a > bound_b:
            return False
    return True


def compatible_elements(a: Type, b: Type) -> bool:
    """Quantized element types are compatible when their storage types (and ranges) agree
    and their expressed types match the other side's (expressed) type."""
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType):
        if (a.storage, a.storage_min, a.storage_max) != (b.storage, b.storage_min,
                                                         b.storage_max):
            return False
    expressed_a = a.expressed if isinstance(a, QuantizedType) else a
    expressed_b = b.expressed if isinstance(b, QuantizedType) else b
    return expressed_a == expressed_b


def check_inferred(op: Operation, inferred: Sequence[Type]) -> None:
    """InferTypeOpInterface: the declared result types agree with the inferred ones."""
    results = op.result_types
    if len(inferred) != len(results) or not all(
            compatible(a, b) for a, b in zip(inferred, results, strict=False)):
        raise inferred_type_mismatch(op, quoted(inferred))


def with_element(t: Type, element: Type) -> Type:
    if isinstance(t, TensorType):
        return TensorType(t.shape, element)
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(element)
    return t


def element_of(t: Type) -> Type | None:
    return t.element if isinstance(t, (TensorType, UnrankedTensorType)) else None


def real_type(t: Type) -> Type:
    element = element_of(t)
    return with_element(t, element.element) if isinstance(element, ComplexType) else t


def shapes_compatible(a: TensorType, b: TensorType) -> bool:
    return a.rank == b.rank and all(
        x == y or DYNAMIC in (x, y) for x, y in zip(a.shape, b.shape, strict=False))


def dims(shape: Sequence[int]) -> str:
    return ", ".join(str(d) for d in shape)


# ---- ops --------------------------------------------------------------------------------


def verify_real_imag(op: Operation) -> None:
    check_inferred(op, [real_type(op.operand_types[0])])


def verify_abs(op: Operation) -> None:
    """inferAbsOp: the operand type, complex elements replaced by their part type."""
    check_inferred(op, [real_type(op.operand_types[0])])


def verify_complex(op: Operation) -> None:
    operand = op.operand_types[0]
    element = element_of(operand)
    if element is not None:
        check_inferred(op, [with_element(operand, ComplexType(element))])


def verify_is_finite(op: Operation) -> None:
    check_inferred(op, [with_element(op.operand_types[0], BOOL)])


def verify_compare(op: Operation) -> None:
    check_inferred(op, [with_element(op.operand_types[0], BOOL)])


def verify_select(op: Operation) -> None:
    pred, on_true, on_false = op.operand_types
    if not isinstance(pred, TensorType) or element_kind(pred.element) != PRED:
        raise error(op, f"operand #0 must be ranked tensor of bool values, but got '{pred}'")
    if not compatible(on_true, on_false):
        raise inference_error(op, "requires compatible types for non-predicate operands")
    if isinstance(pred, TensorType) and pred.rank != 0 and isinstance(on_true, TensorType):
        if not shapes_compatible(pred, on_true):
            raise inference_error(op, "requires the same shape for all operands")
    check_inferred(op, [on_true])


def verify_clamp(op: Operation) -> None:
    low, operand, high = op.operand_types
    if not all(isinstance(t, TensorType) for t in (low, operand, high)):
        return
    for name, bound in (("min", low), ("max", high)):
        if bound.rank != 0 and not shapes_compatible(bound, operand):
            raise inference_error(op, f"{name} shape [{dims(bound.shape)}] is not scalar and "
                                      f"is not compatible to operand shape "
                                      f"[{dims(operand.shape)}]")
    check_inferred(op, [operand])


def verify_iota(op: Operation) -> None:
    dimension = op.attr("iota_dimension")
    value = dimension.value if dimension is not None else 0
    if value < 0:
        raise error(op, "attribute 'iota_dimension' failed to satisfy constraint: 64-bit "
                        "signless integer attribute whose value is non-negative")
    result = op.result_types[0]
    if not isinstance(result, TensorType):
        return
    if (isinstance(result.element, IntegerType) and result.element.width == 1  # i1: no Int
            or not result.is_static):
        raise error(op, "result #0 must be statically shaped tensor of 2/4/8/16/32/64-bit "
                        "integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit "
                        f"float elements or per-tensor integer quantized values, but got "
                        f"'{result}'")
    if result.rank == 0:  # upstream's verifyIotaOp: emitOptionalError, its trailing dots
        raise error(op, "does not support scalars.", op_prefix=False)
    if value >= result.rank:
        raise error(op, "iota dimension cannot go beyond the output rank.", op_prefix=False)


def verify_get_tuple_element(op: Operation) -> None:
    index = op.attr("index").value
    if index < 0:
        raise error(op, "attribute 'index' failed to satisfy constraint: 32-bit signless "
                        "integer attribute whose value is non-negative")
    operand = op.operand_types[0]
    if isinstance(operand, TupleType):
        if index >= len(operand.types):
            raise inference_error(op, f"index {index} is out of bounds of operand with "
                                      f"size {len(operand.types)}")
        check_inferred(op, [operand.types[index]])


def verify_tuple(op: Operation) -> None:
    check_inferred(op, [TupleType(tuple(op.operand_types))])


def verify_reduce_precision(op: Operation) -> None:
    """HLO_CompatibleOperandsAndResultType (its bit counts are checked as attribute kinds,
    attr_kinds.py)."""
    check_same_types(op)


def verify_map(op: Operation) -> None:
    """SameOperandsAndResultShape, then inferMapOp, whose every failure is an inference
    failure."""
    check_elementwise_shapes(op, same_shape_trait=True)
    region = op.regions[0] if op.regions else None
    if region is None or not region.blocks:
        return
    block = region.entry
    inputs = op.operand_types
    args = block.arguments
    if len(inputs) != len(args):
        raise inference_error(op, "expects number of operands to match the arity of map "
                                  f"computation, but got: {len(inputs)} and {len(args)}")
    for index, (arg, operand) in enumerate(zip(args, inputs, strict=False)):
        if not (isinstance(arg.type, TensorType) and arg.type.rank == 0):
            raise inference_error(op, "computation arguments must be 0-rank tensor, but got: "
                                      f"arg #{index} of type '{arg.type}'")
        operand_element = element_of(operand)
        if arg.type.element != operand_element:
            raise inference_error(op, "element type of operands and computation arguments "
                                      f"must match, but got: '{operand_element}' and "
                                      f"'{arg.type.element}'")
    terminator = block.terminator
    outputs = terminator.operands if terminator is not None else []
    if len(outputs) != 1:
        raise inference_error(op, "computation must return single output, but got: "
                                  f"{len(outputs)}")
    out_type = outputs[0].type
    if not (isinstance(out_type, TensorType) and out_type.rank == 0):
        raise inference_error(op, f"computation must return 0-rank tensor, but got: "
                                  f"'{out_type}'")
    dimensions = tuple(op.attr("dimensions").value) if op.attr("dimensions") else ()
    if any(d != i for i, d in enumerate(dimensions)):
        raise inference_error(op, "requires monotonically increasing dimension numbers, but "
                                  f"got: {dims(dimensions)}")
    shape = None
    for operand in inputs:
        if isinstance(operand, TensorType):
            if len(dimensions) != operand.rank:
                raise inference_error(op, "applied to a subset of dimensions currently not "
                                          f"supported: operand dimensions = {operand.rank}, "
                                          f"requested map dimensions size = {len(dimensions)}")
            shape = operand.shape
    if shape is not None:
        check_inferred(op, [TensorType(tuple(shape), out_type.element)])


def _bit_width(t: Type) -> int | None:
    if isinstance(t, ComplexType):
        inner = _bit_width(t.element)
        return None if inner is None else 2 * inner
    if isinstance(t, (IntegerType, FloatType)):
        return t.width
    if isinstance(t, QuantizedType):
        return t.storage.width
    return None


def verify_bitcast_convert(op: Operation) -> None:
    operand, result = op.operand_types[0], op.result_types[0]
    source, target = element_of(operand), element_of(result)
    if source is None or target is None:
        return
    if isinstance(source, ComplexType) != isinstance(target, ComplexType):
        raise error(op, "cannot convert between real and complex types, but got: "
                        f"'{operand}' and '{result}'", False)
    source_bits, target_bits = _bit_width(source), _bit_width(target)
    if source_bits is None or target_bits is None:
        return
    if not (isinstance(operand, TensorType) and isinstance(result, TensorType)):
        return
    if source_bits < target_bits:
        smaller, bigger = operand.shape, result.shape
    else:
        smaller, bigger = result.shape, operand.shape
    prefix = smaller
    if source_bits != target_bits:
        if len(smaller) != len(bigger) + 1:
            raise error(op, f"rank of smaller element type ({len(smaller)}) should be 1 more "
                            f"than rank of larger element type ({len(bigger)}), but "
                            f"{len(smaller)} != {len(bigger)} + 1.", False)
        prefix = smaller[:-1]
        low, high = min(source_bits, target_bits), max(source_bits, target_bits)
        if smaller[-1] != DYNAMIC and smaller[-1] * low != high:
            raise error(op, f"requires compatible bit widths. Got: '{operand}' and "
                            f"'{result}', but {low} * {smaller[-1]} != {high}.", False)
    for x, y in zip(prefix, bigger, strict=False):
        if DYNAMIC not in (x, y) and x != y:
            raise error(op, "operand and result shapes must match except for the innermost "
                            "dimension of the shape with the smaller element type. Got: "
                            f"'{operand}' and '{result}'.", False)


# ---- operand/result type constraints (ODS) and the Elementwise trait ---------------------

PRED, SINT, UINT, FLOAT, COMPLEX, QUANT, AXIS_QUANT, F32_64 = (
    "pred", "sint", "uint", "float", "complex", "quant", "axis_quant", "f32_64")
ANY = frozenset((PRED, SINT, UINT, FLOAT, COMPLEX, QUANT, AXIS_QUANT))
INTEGERS = frozenset((SINT, UINT))
# Base.td's element constraints, as ODS describes them.
_FLOAT = "4/6/8/16/32/64-bit float"
_COMPLEX = "complex type with 32/64-bit float elements"
_INTEGER = {frozenset((SINT, UINT)): "2/4/8/16/32/64-bit integer",
            frozenset((SINT,)): "2/4/8/16/32/64-bit signless integer",
            frozenset((UINT,)): "2/4/8/16/32/64-bit unsigned integer"}


def element_kind(element: Type) -> str | None:
    if isinstance(element, IntegerType):
        if element.width == 1:
            return PRED
        return UINT if element.is_unsigned else SINT
    if isinstance(element, FloatType):
        return FLOAT
    if isinstance(element, ComplexType):
        return COMPLEX
    if isinstance(element, QuantizedType):
        return AXIS_QUANT if element.is_per_axis else QUANT
    return None


def _allows(kinds: frozenset[str], element: Type) -> bool:
    kind = element_kind(element)
    if kind is None:
        return False
    if F32_64 in kinds:
        return isinstance(element, FloatType) and element.name in ("f32", "f64")
    return kind in kinds


def _describe(kinds: frozenset[str]) -> str:
    """The ODS description of a tensor constraint's element types, in Base.td's order: the
    unions with bool list float, bool, integer (HLO_Tensor, HLO_PredIntOrFpTensor...), the
    others integer, float (HLO_IntFpOrComplexOrQuantizedIntTensor...), then complex and
    the quantized kinds (as jaxlib's MLIR words them)."""
    if F32_64 in kinds:
        return "32/64-bit float"
    integer = _INTEGER.get(kinds & {SINT, UINT})
    parts = ([_FLOAT if FLOAT in kinds else None, "bool" if PRED in kinds else None, integer]
             if PRED in kinds else [integer, _FLOAT if FLOAT in kinds else None])
    parts += [_COMPLEX if COMPLEX in kinds else None,
              "per-tensor integer quantized" if QUANT in kinds else None,
              "per-axis integer quantized" if AXIS_QUANT in kinds else None]
    return " or ".join(p for p in parts if p)


def check_types(op: Operation, operands: frozenset[str] | Sequence[frozenset[str]],
                results: frozenset[str] | None = None) -> None:
    """ODS type constraints: ranked tensors whose element types are of the allowed kinds."""
    per_operand = ([operands] * len(op.operands) if isinstance(operands, frozenset)
                   else list(operands))
    checks = [("operand", i, v.type, kinds)
              for i, (v, kinds) in enumerate(zip(op.operands, per_operand, strict=False))]
    checks += [("result", i, t, results if results is not None else per_operand[0])
               for i, t in enumerate(op.result_types)]
    for what, index, t, kinds in checks:
        if not isinstance(t, TensorType) or not _allows(kinds, t.element):
            raise error(op, f"{what} #{index} must be ranked tensor of {_describe(kinds)} "
                            f"values, but got '{t}'")


def check_tensor_of(op: Operation, operands: frozenset[str], results: frozenset[str]) -> None:
    """ODS's TensorOf constraints (ranked or unranked tensors whose element types are of the
    allowed kinds) on every operand, then every result."""
    checks = [("operand", i, t, operands) for i, t in enumerate(op.operand_types)]
    checks += [("result", i, t, results) for i, t in enumerate(op.result_types)]
    for what, index, t, kinds in checks:
        if not isinstance(t, (TensorType, UnrankedTensorType)) or not _allows(kinds, t.element):
            raise error(op, f"{what} #{index} must be tensor of {_describe(kinds)} values, "
                            f"but got '{t}'")


def check_elementwise_shapes(op: Operation, same_shape_trait: bool) -> None:
    """All tensor operands and results have compatible shapes: reported by the
    SameOperandsAndResultShape trait (binary ops list it first) or the Elementwise trait."""
    types = [t for t in (*op.operand_types, *op.result_types) if isinstance(t, TensorType)]
    if types and not all(shapes_compatible(types[0], t) for t in types[1:]):
        if same_shape_trait:
            raise error(op, "requires the same shape for all operands and results")
        raise error(op, "all non-scalar operands/results must have the same shape and base "
                        "type")


def check_same_types(op: Operation) -> None:
    """HLO_CompatibleOperandsAndResultType."""
    types = [*op.operand_types, *op.result_types]
    if not all(compatible(types[0], t) for t in types[1:]):
        raise error(op, "requires compatible types for all operands and results")


def elementwise(operands: frozenset[str], results: frozenset[str] | None = None,
                same_types: bool = True, then: Callable[[Operation], None] | None = None,
                same_shape_first: bool = False) -> Callable[[Operation], None]:
    """A verifier: type constraints, then the traits in upstream's order (an op's own
    traits come before its class's: HLO_CompatibleOperandsAndResultType when `same_types`,
    SameOperandsAndResultShape when `same_shape_first` (convert), then the class's shape
    traits), then `then`.

    These checks read only the op's name, types and attributes, so a signature that passed
    once passes again: it is remembered (a 400-op program repeats a few signatures; checking
    each op anew cost ~40 us). Failures are not remembered, so each reports at its op."""
    passed: set[Any] = set()

    def verify(op: Operation) -> None:
        try:
            key = (op.name, tuple(op.operand_types), tuple(op.result_types),
                   tuple(op.properties.items()), tuple(op.attributes.items()))
            if key in passed:
                return
        except TypeError:  # an unhashable attribute: just check
            key = None
        check_types(op, operands, results)
        if same_types:
            check_same_types(op)
        check_elementwise_shapes(op, same_shape_first or (
            len(op.operands) == 2 and op.name != "stablehlo.compare"))
        if then is not None:
            then(op)
        if key is not None and len(passed) < 4096:
            passed.add(key)

    return verify


NUMERIC = frozenset((SINT, UINT, FLOAT, COMPLEX, QUANT))
FLOATING = frozenset((FLOAT, COMPLEX, QUANT))


def most_specific(types: Sequence[Type]) -> Type | None:
    """inferMostSpecificType of compatible ranked tensors: per dimension a static size wins
    over `?`, and the tightest bound is kept; None when they are not all compatible."""
    first = types[0]
    if not isinstance(first, TensorType) or not all(
            isinstance(t, TensorType) and compatible(first, t) for t in types[1:]):
        return None
    shape = list(first.shape)
    bounds = bounds_of(first)
    for t in types[1:]:
        for i, (size, bound) in enumerate(zip(t.shape, bounds_of(t), strict=False)):
            if shape[i] == DYNAMIC and size != DYNAMIC:
                shape[i], bounds[i] = size, None
            elif shape[i] == DYNAMIC and bound is not None:
                bounds[i] = bound if bounds[i] is None else min(bounds[i], bound)
    if bounds == bounds_of(first):
        return TensorType(tuple(shape), first.element, first.encoding)
    return TensorType(tuple(shape), first.element, bounds_attr(bounds))


def bounds_attr(bounds: Sequence[int | None]) -> DialectAttr | None:
    """`#stablehlo.bounds<...>` for the given per-dimension bounds (None if none is set)."""
    if all(b is None for b in bounds):
        return None
    items = ["?" if b is None else str(b) for b in bounds]
    return DialectAttr("stablehlo", "bounds", ", ".join(items), (("bounds", list(bounds)),))


def verify_compatible_operands_and_result(op: Operation) -> None:
    """HLO_CompatibleOperandsAndResultType's inference: the result is the most specific of
    the operand types."""
    inferred = most_specific(op.operand_types)
    if inferred is not None:
        check_inferred(op, [inferred])
        return
    _check_sizes_within_bounds(op, op.operand_types)


def _check_sizes_within_bounds(op: Operation, types: Sequence[Type]) -> None:
    """inferMostSpecificDimAndBound's error: a static size above another operand's bound."""
    tensors = [t for t in types if isinstance(t, TensorType)]
    for a in tensors:
        for b in tensors:
            if a.rank != b.rank:
                continue
            for i, (size, bound) in enumerate(zip(a.shape, bounds_of(b), strict=True)):
                if size != DYNAMIC and bound is not None and size > bound:
                    raise inference_error(op, f"Mismatched dimension size {size} and bound "
                                              f"{bound} in dimension {i}")


def verify_add(op: Operation) -> None:
    """Upstream verifyAddOp (same element types, or consistent quantization), then the
    result type inference: the ordering the upstream tests pin down (a storage signedness
    mismatch passes verifyAddOp and is caught by inference)."""
    check_add_quantization(op)
    verify_compatible_operands_and_result(op)


def storage_type(q: QuantizedType) -> tuple[str, int]:
    """MLIR's getStorageType(): the quant dialect's `i8` and `u8` both store a signless i8
    (signedness is a separate flag); builtin spellings (`ui8`, `si8`) keep their type."""
    return (q.storage.signedness if q.builtin_storage else "", q.storage.width)


def check_add_quantization(op: Operation) -> None:
    """verifyAddOp: same element types, or consistent quantization."""
    types = [*op.operand_types, *op.result_types]
    elements = [element_of(t) for t in types]
    quantized = [isinstance(e, QuantizedType) for e in elements]
    if not any(quantized):
        if any(e != elements[0] for e in elements):
            raise error(op, "requires the same element type for all operands and results")
        return
    if not all(quantized):
        raise error(op, "expects all operands and results to be either quantized or "
                        "non-quantized", False)
    lhs, rhs, result = elements
    if len({e.expressed for e in elements}) != 1:
        raise error(op, "mismatched operands and result quantization expressed types", False)
    if len({storage_type(e) for e in elements}) != 1:
        raise error(op, "mismatched operands and result quantization storage types", False)
    if not result.is_per_axis:
        if lhs.is_per_axis or rhs.is_per_axis:
            raise error(op, "result is not per_axis quantized but lhs or rhs are", False)
        return
    for name, side in (("lhs", lhs), ("rhs", rhs)):
        if side.is_per_axis and side.quantized_dimension != result.quantized_dimension:
            raise error(op, f"quantization_dimension of {name} and result are not same", False)
