"""ODS traits of StableHLO ops that MLIR checks before an op's own verifier (ODS lists them
ahead of the type inference those verifiers do, so MLIR reports them first): the element
type traits `SameOperandsAndResultElementType` (MLIR's: every operand and result of the
first result's element type) and `HLO_CompatibleOperandsAndResultElementType` (Base.h:
element types compatible for type inference with the first operand's: equal, or quantized
alike), after the PredOpTrait constraints ODS checks with the op's invariants
(`AllMatchSameOperatorTrait` on the sizes of slice's and pad's index arrays,
`AllElementTypesMatch`, `AllTypesMatch`). Without the element traits an op such as `reshape`
from f32 to i32 was accepted."""

from __future__ import annotations

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Operation
from ...ir.types import DYNAMIC, QuantizedType, TensorType, Type, UnrankedTensorType
from ...ir.verifier import TYPE_CONSTRAINTS, op_error
from .elementwise_verify import (
    COMPLEX,
    FLOAT,
    QUANT,
    bounds_of,
    check_types,
    shapes_compatible,
    storage_type,
)
from .quantization_verify import TENSOR_OR_PER_AXIS, storage_range

# Op -> True for SameOperandsAndResultElementType, False for the HLO compatible variant
# (StablehloOps.td at the snapshot).
_TRAITS: dict[str, bool] = {
    **dict.fromkeys(("stablehlo.slice", "stablehlo.broadcast", "stablehlo.concatenate",
                     "stablehlo.collective_permute", "stablehlo.reverse", "stablehlo.pad"),
                    True),
    **dict.fromkeys(("stablehlo.batch_norm_grad", "stablehlo.batch_norm_inference",
                     "stablehlo.batch_norm_training", "stablehlo.broadcast_in_dim",
                     "stablehlo.cholesky", "stablehlo.clamp", "stablehlo.reshape",
                     "stablehlo.transpose", "stablehlo.triangular_solve"), False),
}


# Op -> the dense-array attributes AllMatchSameOperatorTrait<..., "size"> requires of one size.
_SAME_SIZE: dict[str, tuple[str, ...]] = {
    "stablehlo.slice": ("start_indices", "limit_indices", "strides"),
    "stablehlo.pad": ("edge_padding_low", "edge_padding_high", "interior_padding"),
}
# Op -> AllElementTypesMatch's operands (named as declared; "result": result #0), then
# AllTypesMatch's. (rng's is left to its verifier, which checks its ODS operand types first.)
_SAME_ELEMENT: dict[str, tuple[str, ...]] = {
    "stablehlo.dynamic_slice": ("operand", "result"),
    "stablehlo.dynamic_update_slice": ("operand", "update", "result"),
    "stablehlo.gather": ("operand", "result"),
    "stablehlo.real_dynamic_slice": ("operand", "result"),
    "stablehlo.dynamic_pad": ("operand", "padding_value", "result"),
}
_SAME_TYPE: dict[str, tuple[str, ...]] = {
    "stablehlo.real_dynamic_slice": ("start_indices", "limit_indices", "strides"),
    "stablehlo.dynamic_pad": ("edge_padding_low", "edge_padding_high", "interior_padding"),
}


def element(t: Type) -> Type:
    """getElementTypeOrSelf."""
    return t.element if isinstance(t, (TensorType, UnrankedTensorType)) else t


def compatible_elements(a: Type, b: Type) -> bool:
    """isCompatibleElementTypeForHloTypeInference: equal types, or quantized types of one
    storage type, storage range and expressed type, both per-tensor or both per-axis."""
    qa, qb = isinstance(a, QuantizedType), isinstance(b, QuantizedType)
    if qa and qb:
        assert isinstance(a, QuantizedType) and isinstance(b, QuantizedType)
        return (storage_type(a) == storage_type(b) and storage_range(a) == storage_range(b)
                and a.expressed == b.expressed
                and (a.quantized_dimension is None) == (b.quantized_dimension is None))
    return not qa and not qb and a == b


# Ops other than the elementwise ones (elementwise_verify) with SameOperandsAndResultShape.
_SAME_SHAPE = frozenset(("stablehlo.sort", "stablehlo.map"))


def _require_static_or_single_bounded(op: Operation) -> None:
    """The ODS result constraint of reshape and broadcast_in_dim: every dimension static,
    except at most one dynamic dimension that has a bound."""
    result = op.results[0].type if op.results else None
    if not isinstance(result, TensorType):
        return
    dynamic = [i for i, d in enumerate(result.shape) if d == DYNAMIC]
    if not dynamic:
        return
    if len(dynamic) == 1 and bounds_of(result)[dynamic[0]] is not None:
        return
    raise op_error(op, f"result #0 must be statically shaped or single bounded dimension "
                       f"tensor of {TENSOR_OR_PER_AXIS} values, but got '{result}'")


_FP_OR_COMPLEX = frozenset((FLOAT, COMPLEX))  # Base.td's HLO_FpOrComplexTensor


def check_result_constraints(op: Operation) -> None:
    """ODS's operand and result type constraints that MLIR checks (with the op's invariants)
    before the element traits below: triangular_solve's float or complex tensors (cholesky's
    also per-tensor quantized), reshape's and broadcast_in_dim's statically shaped or single
    bounded result."""
    if op.name in ("stablehlo.reshape", "stablehlo.broadcast_in_dim"):
        _require_static_or_single_bounded(op)
    elif op.name == "stablehlo.triangular_solve":
        check_types(op, _FP_OR_COMPLEX)
    elif op.name == "stablehlo.cholesky":
        check_types(op, _FP_OR_COMPLEX | {QUANT})


def check_element_traits(op: Operation) -> None:
    """The op's element-type trait, when it has one, and SameOperandsAndResultShape."""
    check_result_constraints(op)
    if op.name in _SAME_SHAPE:
        shaped = [t for t in (*op.operand_types, *op.result_types) if isinstance(t, TensorType)]
        if shaped and not all(shapes_compatible(shaped[0], t) for t in shaped[1:]):
            raise op_error(op, "requires the same shape for all operands and results")
    same = _TRAITS.get(op.name)
    if same is None:
        return
    if same:
        if not op.results or not op.operands:
            return
        first = element(op.result_types[0])
        if any(element(t) != first for t in (*op.result_types, *op.operand_types)):
            raise op_error(op, "requires the same element type for all "
                               "operands and results")
        return
    types = [*op.operand_types, *op.result_types]
    if not types:
        return
    expected = element(op.operand_types[0] if op.operands else op.result_types[0])
    if not all(compatible_elements(element(t), expected) for t in types):
        raise op_error(op, "requires compatible element types for all "
                           "operands and results")


def _named_type(op: Operation, name: str) -> Type | None:
    """The type of the operand declared `name` (or of result #0 for "result")."""
    if name == "result":
        return op.result_types[0] if op.results else None
    declared = [d.strip("*?") for d in (op.opdef.operands or ())] if op.opdef else []
    index = declared.index(name) if name in declared else len(op.operands)
    return op.operand_types[index] if index < len(op.operands) else None


def check_pred_traits(op: Operation) -> None:
    """The PredOpTrait constraints ODS checks with the op's own invariants, before its
    native traits: AllMatchSameOperatorTrait (the listed arrays have one size),
    AllElementTypesMatch, AllTypesMatch."""
    names = _SAME_SIZE.get(op.name)
    if names is not None:
        values = [op.attr(name) for name in names]
        if all(isinstance(v, DenseArrayAttr) for v in values) and len(
                {len(v.items) for v in values if isinstance(v, DenseArrayAttr)}) > 1:
            raise op_error(op, f"failed to verify that all of {{{', '.join(names)}}} have "
                               "same size")
    for table, what, of in ((_SAME_ELEMENT, "element type", element),
                            (_SAME_TYPE, "type", lambda t: t)):
        names = table.get(op.name)
        if names is None:
            continue
        types = [_named_type(op, name) for name in names]
        if all(t is not None for t in types) and len(
                {of(t) for t in types if t is not None}) > 1:
            raise op_error(op, f"failed to verify that all of {{{', '.join(names)}}} have "
                               f"same {what}")


for _check in (check_pred_traits, check_element_traits):
    if _check.__qualname__ not in (c.__qualname__ for c in TYPE_CONSTRAINTS):
        TYPE_CONSTRAINTS.append(_check)
