"""What the dynamism passes read off the IR: integer constants (upstream's hlo::matchInts),
the shape operands a custom call names in `indices_of_shape_operands`
(hlo::getShapeRefinements), and op errors located at an op."""

from __future__ import annotations

from typing import Any

from ..ir.attributes import DenseElementsAttr
from ..ir.core import Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import DYNAMIC, IndexType, IntegerType, TensorType, TupleType, Type
from .effects import constant_value


def op_error(op: Operation, message: str, prefix: bool = True) -> Diagnostic:
    """MLIR's emitOpError (or emitError with ``prefix=False``) at `op`'s location."""
    loc = op.location
    text = f"'{op.name}' op {message}" if prefix else message
    return Diagnostic(text, line=loc.line or 1, col=loc.col or 1)


def constant_attr(value: Value) -> DenseElementsAttr | None:
    """The elements of the constant defining `value`, else None (m_Constant)."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return None
    attr = constant_value(owner)
    return attr if isinstance(attr, DenseElementsAttr) else None


def match_ints(value: Value) -> list[int] | None:
    """The integer (or index) elements of a constant `value`, flattened; else None."""
    attr = constant_attr(value)
    if attr is None or not isinstance(attr.type, TensorType):
        return None
    if not isinstance(attr.type.element, IntegerType | IndexType):
        return None
    return [int(x) for x in attr.value.reshape(-1)]


def flatten_types(types: list[Type]) -> list[Type]:
    out: list[Type] = []
    for t in types:
        if isinstance(t, TupleType):
            out += flatten_types(list(t.types))
        else:
            out.append(t)
    return out


def _dims_compatible(dims: list[int], t: Type) -> bool:
    if not isinstance(t, TensorType):
        return True
    if len(dims) != t.rank:
        return False
    return all(d == DYNAMIC or d == s for d, s in zip(t.shape, dims, strict=True))


def shape_refinements(op: Operation) -> list[list[int]] | None:
    """Per flattened result, the static shape its shape operand holds; None when the op has
    no `indices_of_shape_operands` or a shape operand is not constant. Raises upstream's
    diagnostic when the attribute is malformed or disagrees with the results."""
    indices = op.attributes.get("indices_of_shape_operands")
    if not isinstance(indices, DenseElementsAttr):
        return None
    itype: Any = indices.type
    results = flatten_types(op.result_types)
    suffix = ", with tuples flattened" if len(results) != len(op.results) else ""
    count = indices.data.size if not indices.splat else itype.num_elements
    if count != len(results):
        raise op_error(op, f"indices_of_shape_operands: number of elements ({count}) must be "
                       f"equal to the number of operation results ({len(results)}){suffix}",
                       prefix=False)
    if itype.rank != 1:
        raise op_error(op, "indices_of_shape_operands: must have rank = 1", prefix=False)
    if itype.element != IntegerType(64):
        raise op_error(op, "indices_of_shape_operands: must have i64 element type",
                       prefix=False)
    refinements = []
    for i, (index, result) in enumerate(zip(indices.value.tolist(), results, strict=True)):
        if not 0 <= index < len(op.operands):
            raise op_error(op, f"indices_of_shape_operands: index #{i} ({index}) must be within "
                           f"bounds for operation operands (from 0 to {len(op.operands)})",
                           prefix=False)
        dims = match_ints(op.operands[index])
        if dims is None:
            return None
        if not _dims_compatible(dims, result):
            raise op_error(op, f"indices_of_shape_operands: refinement #{i} "
                           f"([{', '.join(map(str, dims))}]) must be compatible with operation "
                           f"result #{i} ('{result}'){suffix}", prefix=False)
        refinements.append(dims)
    return refinements


def is_static(t: Type) -> bool:
    return isinstance(t, TensorType) and t.is_static
