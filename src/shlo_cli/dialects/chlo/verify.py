"""CHLO verifiers (upstream wording from ChloOps.cpp), raised as located diagnostics."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...ir.attributes import BoolAttr
from ...ir.core import Operation
from ...ir.types import (
    BOOL,
    DYNAMIC,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    UnrankedTensorType,
)
from ...ir.verifier import inference_error, inferred_type_mismatch
from ..stablehlo.dot_dimensions import check_dot_dimensions
from ..stablehlo.elementwise_verify import (
    ANY,
    bounds_attr,
    bounds_of,
    check_inferred,
    check_same_types,
    check_tensor_of,
    compatible,
    error,
)


def _element(t: Type) -> Type | None:
    return t.element if isinstance(t, (TensorType, UnrankedTensorType)) else None


def _compatible_elements(a: Type | None, b: Type | None) -> bool:
    """Equal element types; quantized types only need equal storage and expressed types."""
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType):
        return a.storage == b.storage and a.expressed == b.expressed
    return a == b


def verify_broadcast_same_elements(op: Operation) -> None:
    """HLO_CompatibleOperandsAndResultElementType (broadcast add, maximum, minimum)."""
    elements = [_element(t) for t in (*op.operand_types, *op.result_types)]
    if any(not _compatible_elements(elements[0], e) for e in elements[1:]):
        raise error(op, "requires compatible element types for all operands and results")


def verify_broadcast_equal_elements(op: Operation) -> None:
    """SameOperandsAndResultElementType (the other arithmetic broadcasting ops)."""
    elements = [_element(t) for t in (*op.operand_types, *op.result_types)]
    if any(e != elements[0] for e in elements[1:]):
        raise error(op, "requires the same element type for all operands and results")


def verify_broadcast_complex(op: Operation) -> None:
    """Its inference needs operands of one element type (the result is complex of it)."""
    lhs, rhs = (_element(t) for t in op.operand_types[:2])
    if not _compatible_elements(lhs, rhs):
        raise inference_error(op, "mismatched operand types")


def broadcast_inferred(element: Type | None) -> Callable[[Operation], None]:
    """A verifier for broadcasting ops without an element-type trait (and, or, xor: `None`,
    the operands' element type; compare: i1): their inference needs operands of one element
    type, and the result must be the inferred type (checked where that is plain: operands
    of one static shape, no broadcast_dimensions)."""
    def verify(op: Operation) -> None:
        lhs, rhs = op.operand_types[:2]
        if not _compatible_elements(_element(lhs), _element(rhs)):
            raise inference_error(op, "mismatched operand types")
        result = op.result_types[0] if op.result_types else None
        if (isinstance(lhs, TensorType) and isinstance(rhs, TensorType) and lhs.is_static
                and lhs.shape == rhs.shape and lhs.encoding is None and rhs.encoding is None
                and op.attr("broadcast_dimensions") is None and result is not None):
            inferred = TensorType(lhs.shape, element or lhs.element)
            if not compatible(inferred, result):
                raise inferred_type_mismatch(op, f"'{inferred}'")

    return verify


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
    verify_compatible_operands_and_result(op)


def typed(operands: frozenset[str], result: frozenset[str] | None,
          then: Callable[[Operation], None] | None = None) -> Callable[[Operation], None]:
    """A verifier: ChloOps.td's TensorOf constraints on the operands and the result (None:
    HLO_AnyTensor, left unchecked), then `then` (the op's traits)."""
    def verify(op: Operation) -> None:
        check_tensor_of(op, operands, result if result is not None else ANY)
        if then is not None:
            then(op)

    return verify


def check_elementwise_base(op: Operation) -> None:
    """The Elementwise trait's base-type rule: ranked and unranked tensors differ."""
    types = (*op.operand_types, *op.result_types)
    if any(isinstance(t, TensorType) for t in types) and any(
            isinstance(t, UnrankedTensorType) for t in types):
        raise error(op, "all non-scalar operands/results must have the same shape and base "
                        "type")


def verify_compatible_operands_and_result(op: Operation, elementwise: bool = False) -> None:
    """HLO_CompatibleOperandsAndResultType of the non-broadcasting CHLO ops, in MLIR's
    order: its native trait (every operand and result type compatible with every other)
    before the InferTypeOpInterface check (the result type inferred from the operands,
    ChloOps.cpp: the most specific of them, must fit the declared one), as jaxlib's MLIR
    reports a result of another shape. With `elementwise`, the Elementwise trait in
    between: ranked and unranked tensors are different base types."""
    check_same_types(op)
    if elementwise:
        check_elementwise_base(op)
    ranked = [t for t in op.operand_types if isinstance(t, TensorType)]
    if ranked:
        check_inferred(op, [_most_specific(op, ranked)])


def _most_specific(op: Operation, types: Sequence[TensorType]) -> TensorType:
    """inferMostSpecificType over ranked tensors, with its errors: a static size wins over
    `?` (and must fit the other side's bound), two static sizes must be equal, and the
    tightest bound of a dimension left dynamic is kept; the element type is the first's."""
    first = types[0]
    for t in types[1:]:
        if t.rank != first.rank:
            raise inference_error(op, f"Mismatched ranks of types{first.rank} vs {t.rank}")
    sizes, bounds = list(first.shape), bounds_of(first)
    for t in types[1:]:
        for dim, (size, bound) in enumerate(zip(t.shape, bounds_of(t), strict=True)):
            left, left_bound = sizes[dim], bounds[dim]
            if left == DYNAMIC and size == DYNAMIC:
                known = [b for b in (left_bound, bound) if b is not None]
                bounds[dim] = min(known) if known else None
                continue
            if left != DYNAMIC and size != DYNAMIC and left != size:
                raise inference_error(op, f"Mismatched dimension sizes {left} and {size} in "
                                          f"dimension {dim}")
            inferred = left if left != DYNAMIC else size
            limit = left_bound if left_bound is not None else bound
            if limit is not None and inferred > limit:
                raise inference_error(op, f"Mismatched dimension size {inferred} and bound "
                                          f"{limit} in dimension {dim}")
            sizes[dim], bounds[dim] = inferred, None
    encoding = first.encoding if bounds == bounds_of(first) else bounds_attr(bounds)
    return TensorType(tuple(sizes), first.element, encoding)


def verify_top_k(op: Operation) -> None:
    t = op.operand_types[0]
    k = int(op.attr("k").value)
    if isinstance(t, TensorType):
        if t.rank < 1:
            raise inference_error(op, "operand's rank must be at least 1")
        last = t.shape[-1]
        if last >= 0 and last < k:
            raise inference_error(op, f"operand's last dimension must be at least {k}")
        # inferTopKOp: the operand's shape with the last dimension k (its bound dropped)
        shape = (*t.shape[:-1], k)
        bounds = bounds_of(t)[:-1] + [None]
        encoding = bounds_attr(bounds) if t.encoding is not None else None
        if k < 0:
            _check_negative_k(op, t, k, encoding)
            return
        check_inferred(op, [TensorType(shape, t.element, encoding),
                            TensorType(shape, IntegerType(32), encoding)])
    elif isinstance(t, UnrankedTensorType):
        check_inferred(op, [UnrankedTensorType(t.element), UnrankedTensorType(IntegerType(32))])


def _check_negative_k(op: Operation, t: TensorType, k: int, encoding: object) -> None:
    """inferTopKOp with a negative k: MLIR builds the inferred types with k as a static size
    (printed as it is, `tensor<16x-1xf32>`), which only a dynamic result dimension is
    compatible with; shlo's dynamic size is -1, so it is spelled out here."""
    front = "".join(f"{'?' if d == DYNAMIC else d}x" for d in t.shape[:-1])
    elements = (t.element, IntegerType(32))
    results = op.result_types
    if len(results) == 2 and all(
            isinstance(r, TensorType) and r.rank == t.rank and r.element == e
            and r.shape[-1] == DYNAMIC
            and all(a == b or DYNAMIC in (a, b) for a, b in zip(t.shape[:-1], r.shape[:-1],
                                                                strict=True))
            for r, e in zip(results, elements, strict=True)):
        return
    bounds = f", {encoding}" if encoding is not None else ""
    raise inferred_type_mismatch(op, ", ".join(f"'tensor<{front}{k}x{e}{bounds}>'"
                                               for e in elements))


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


def ragged_group_prefix(lb: Sequence[int], lc: Sequence[int], ragged: int,
                        lhs_rank: int) -> list[int]:
    """The lhs dimensions a group_sizes of shape [b..., x..., g] lays its leading dimensions
    along (upstream's checkRaggedDotConstraints): every batch dimension, then the ragged
    dimension's own kind before it (contracting ones in their listed order, non-contracting
    ones in place order); for a ragged batch dimension only the batch dimensions listed
    before it."""
    if ragged in lb:
        return list(lb[:list(lb).index(ragged)])
    if ragged in lc:
        return [*lb, *lc[:list(lc).index(ragged)]]
    return [*lb, *(d for d in range(ragged) if d not in lb and d not in lc)]


def verify_ragged_dot(op: Operation) -> None:
    """Upstream's RaggedDotOp::verify, first failure reported: dot_general's dimension
    checks, then the ragged ones (one lhs ragged dimension in range; group_sizes [g] or
    [prefix..., g]; rhs group dimensions in range and distinct, exactly one when the ragged
    dimension is non-contracting (mode 1), none otherwise, of size g), then the inferred
    result shape."""
    lhs, rhs, group_sizes = op.operand_types
    dn = op.attr("ragged_dot_dimension_numbers")
    if dn is None or not all(isinstance(t, TensorType) for t in (lhs, rhs, group_sizes)):
        return
    lb, rb = _dims(dn, "lhs_batching_dimensions"), _dims(dn, "rhs_batching_dimensions")
    lc, rc = _dims(dn, "lhs_contracting_dimensions"), _dims(dn, "rhs_contracting_dimensions")
    ragged, group = _dims(dn, "lhs_ragged_dimensions"), _dims(dn, "rhs_group_dimensions")
    check_dot_dimensions(op, lhs.shape, rhs.shape, lb, rb, lc, rc)
    if len(ragged) != 1:
        raise error(op, "There must be exactly one ragged dimension in the lhs.", False)
    (r,) = ragged
    _in_range(op, r, lhs.rank, "lhs_ragged_dim", "lhs_rank")
    prefix = [lhs.shape[d] for d in ragged_group_prefix(lb, lc, r, lhs.rank)]
    if group_sizes.rank < 1:
        raise error(op, f"expected group_sizes to have rank {len(prefix) + 1}, got 0", False)
    g = group_sizes.shape[-1]
    if group_sizes.rank != 1:
        if group_sizes.rank != len(prefix) + 1:
            raise error(op, f"expected group_sizes to have rank {len(prefix) + 1}, "
                            f"got {group_sizes.rank}", False)
        if list(group_sizes.shape[:-1]) != prefix:
            raise error(op, f"group_sizes is expected to have shape {_shape([*prefix, g])}, "
                            f"got {_shape(group_sizes.shape)}", False)
    for d in group:
        _in_range(op, d, rhs.rank, "rhs_group_dim", "rhs_rank")
    for name, others in (("rhs_batching_dimensions", rb), ("rhs_contracting_dimensions", rc)):
        seen: set[int] = set()
        for d in [*group, *others]:
            if d in seen:
                raise error(op, f"has duplicated dimension from rhs_group_dimensions and "
                                f"{name}: {d}", False)
            seen.add(d)
    if r in lb or r in lc:
        if group:
            raise error(op, "There must be zero group dimensions in the rhs when the ragged "
                            "dimension is batch or contracting.", False)
    else:
        if len(group) != 1:
            raise error(op, "There must be exactly one group dimension in the rhs when the "
                            "lhs ragged dimension is non-contracting.", False)
        size = rhs.shape[group[0]]
        if g != size and DYNAMIC not in (g, size):
            raise error(op, f"rhs group dimension is expected to have size={g}, "
                            f"got {size}", False)
    inferred = ([g] if r in lc else []) + [lhs.shape[d] for d in lb] + [
        lhs.shape[d] for d in range(lhs.rank) if d not in lb and d not in lc] + [
        rhs.shape[d] for d in range(rhs.rank) if d not in rb and d not in rc and d not in group]
    result = op.result_types[0]
    if isinstance(result, TensorType) and (len(result.shape) != len(inferred) or any(
            a != b and DYNAMIC not in (a, b)
            for a, b in zip(result.shape, inferred, strict=True))):
        raise error(op, f"inferred shape '{_shape(inferred, '?')}' is incompatible with return "
                        f"type of operation '{result}'", False)


def _in_range(op: Operation, dim: int, bound: int, name: str, bound_name: str) -> None:
    """Upstream's checkDimInBounds."""
    if not 0 <= dim < bound:
        raise error(op, f"Expects {name} to be in range [0, {bound_name}) i.e. [0, {bound}). "
                        f"got: {dim}.", False)


def _shape(dims: Sequence[int], dynamic: str | None = None) -> str:
    """`[a, b, c]`, a dynamic size written as `dynamic` (else as its int64 value)."""
    words = [dynamic if d == DYNAMIC and dynamic else str(d if d != DYNAMIC else -(1 << 63))
             for d in dims]
    return "[" + ", ".join(words) + "]"
