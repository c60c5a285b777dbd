"""CHLO verifiers (upstream wording from ChloOps.cpp), raised as located diagnostics."""

from __future__ import annotations

from ...ir.attributes import BoolAttr
from ...ir.core import Operation
from ...ir.types import BOOL, IntegerType, QuantizedType, TensorType, Type, UnrankedTensorType
from ...ir.verifier import inference_error
from ..stablehlo.elementwise_verify import error


def _element(t: Type) -> Type | None:
    return t.element if isinstance(t, (TensorType, UnrankedTensorType)) else None


def _compatible_elements(a: Type | None, b: Type | None) -> bool:
    """Equal element types; quantized types only need equal storage and expressed types."""
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType):
        return a.storage == b.storage and a.expressed == b.expressed
    return a == b


def verify_broadcast_same_elements(op: Operation) -> None:
    """Broadcasting ops whose operands and result share an element type."""
    elements = [_element(t) for t in (*op.operand_types, *op.result_types)]
    if any(not _compatible_elements(elements[0], e) for e in elements[1:]):
        raise error(op, "requires compatible element types for all operands and results")


def verify_broadcast_complex(op: Operation) -> None:
    """Its inference needs operands of one element type (the result is complex of it)."""
    lhs, rhs = (_element(t) for t in op.operand_types[:2])
    if not _compatible_elements(lhs, rhs):
        raise inference_error(op, "mismatched operand types")


def verify_broadcast_select(op: Operation) -> None:
    """Its inference needs both branches of one element type."""
    on_true, on_false = (_element(t) for t in op.operand_types[1:3])
    if on_true != on_false:
        raise inference_error(op, "mismatched operand types")


def verify_constant_like(op: Operation) -> None:
    value = op.attr("value")
    if value is None:  # ODS: a required TypedAttr (the evaluator has nothing to fill with)
        raise error(op, "requires attribute 'value'")
    # `true`/`false` are typed too: MLIR's BoolAttr is an i1 IntegerAttr.
    value_type = BOOL if isinstance(value, BoolAttr) else getattr(value, "type", None)
    if value_type is None:
        raise error(op, "attribute 'value' failed to satisfy constraint: TypedAttr instance")
    if value_type != _element(op.result_types[0]):
        raise error(op, "value's type doesn't match element return type")


def verify_mulhi(op: Operation) -> None:
    for index, t in enumerate(op.operand_types):
        element = _element(t)
        if not (isinstance(element, IntegerType) and element.width in (2, 4, 8, 16, 32, 64)):
            raise error(op, f"operand #{index} must be ranked tensor of 2/4/8/16/32/64-bit "
                            f"integer values, but got '{t}'")


def verify_top_k(op: Operation) -> None:
    t = op.operand_types[0]
    k = int(op.attr("k").value)
    if isinstance(t, TensorType):
        if t.rank < 1:
            raise inference_error(op, "operand's rank must be at least 1")
        last = t.shape[-1]
        if last >= 0 and last < k:
            raise inference_error(op, f"operand's last dimension must be at least {k}")


def verify_scan(op: Operation) -> None:
    sizes = op.attr("operandSegmentSizes")
    n_inputs = int(sizes.value[0]) if sizes is not None else len(op.operands)
    inputs, inits = op.operand_types[:n_inputs], op.operand_types[n_inputs:]
    body = op.regions[0].entry if op.regions and op.regions[0].blocks else None
    if body is None:
        return
    args = [a.type for a in body.arguments]
    if len(args) != len(inputs) + len(inits):
        raise error(op, f"expects {len(inputs) + len(inits)} arguments in the body, "
                        f"but got {len(args)}")
    dim = int(op.attr("dimension").value)
    declared = op.attr("scan_dim_size")
    for index, t in enumerate(inputs):
        if not isinstance(t, TensorType):
            continue
        if not 0 <= dim < t.rank:
            raise error(op, f"scan dimension of operand {index} is out of bounds")
        if declared is not None and t.shape[dim] >= 0 and t.shape[dim] != declared.value:
            raise error(op, f"invalid scan dimension size of operand {index}")
        sliced = TensorType(tuple(s for d, s in enumerate(t.shape) if d != dim), t.element)
        if args[index] != sliced:
            raise error(op, f"operand and body argument {index} are incompatible")
    for offset, t in enumerate(inits):
        if args[n_inputs + offset] != t:
            raise error(op, f"operand and body argument {n_inputs + offset} are incompatible")


def _dims(dn: object, name: str) -> list[int]:
    value = dn.get(name, []) if hasattr(dn, "get") else []  # type: ignore[union-attr]
    return [int(v) for v in (value or [])]


def verify_ragged_dot(op: Operation) -> None:
    """Ragged dimension numbers: one lhs ragged dimension; one rhs group dimension exactly
    when that dimension is non-contracting (mode 1); group_sizes of shape [g] or the lhs
    batch/same-kind dimensions before the ragged one followed by [g]."""
    lhs, rhs, group_sizes = op.operand_types
    dn = op.attr("ragged_dot_dimension_numbers")
    if dn is None or not all(isinstance(t, TensorType) for t in (lhs, rhs, group_sizes)):
        return
    lb, rb = _dims(dn, "lhs_batching_dimensions"), _dims(dn, "rhs_batching_dimensions")
    lc, rc = _dims(dn, "lhs_contracting_dimensions"), _dims(dn, "rhs_contracting_dimensions")
    ragged, group = _dims(dn, "lhs_ragged_dimensions"), _dims(dn, "rhs_group_dimensions")
    if len(ragged) != 1:
        raise error(op, "There must be exactly one ragged dimension in the lhs")
    for name, others in (("rhs_batching_dimensions", rb), ("rhs_contracting_dimensions", rc)):
        for d in group:
            if d in others:
                raise error(op, f"has duplicated dimension from rhs_group_dimensions and "
                                f"{name}: {d}")
    (r,) = ragged
    non_contracting = r not in lb and r not in lc
    if non_contracting and len(group) != 1:
        raise error(op, "There must be exactly one group dimension in the rhs when the lhs "
                        "ragged dimension is non-contracting")
    if not non_contracting and group:
        raise error(op, "There must be zero group dimensions in the rhs when the ragged "
                        "dimension is batch or contracting")
    for ld, rd in zip(lc, rc, strict=False):
        if 0 <= ld < lhs.rank and 0 <= rd < rhs.rank and lhs.shape[ld] >= 0 \
                and rhs.shape[rd] >= 0 and lhs.shape[ld] != rhs.shape[rd]:
            raise error(op, "contracting dimension sizes must match")
    if not 0 <= r < lhs.rank or group_sizes.rank < 1:
        return
    g = group_sizes.shape[-1]
    same_kind = lc if r in lc else ([] if r in lb else
                                    [d for d in range(lhs.rank) if d not in lb + lc])
    prefix = [lhs.shape[d] for d in range(r) if d in lb or d in same_kind]
    if group_sizes.rank != 1:
        if not prefix:
            raise error(op, f"expected group_sizes to have rank 1, got {group_sizes.rank}")
        expected = [*prefix, g]
        if list(group_sizes.shape) != expected:
            raise error(op, f"group_sizes is expected to have shape {expected}, "
                            f"got {list(group_sizes.shape)}")
    if group and 0 <= group[0] < rhs.rank and rhs.shape[group[0]] != g:
        raise error(op, f"rhs group dimension is expected to have size={g}, "
                        f"got {rhs.shape[group[0]]}")
