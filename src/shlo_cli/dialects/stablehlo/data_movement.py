"""What the data-movement op modules (broadcast, slicing, reshaping, gather_scatter, ...) share:
i64 list attributes, fresh result arrays, the `{attrs} : (..) -> ..` syntax tail, and the
shape-inference checks with upstream's wording (StablehloOps.cpp / TypeInference.cpp).

Each evaluator follows the spec's semantics section with whole-array numpy operations
(views, strided assignment); results are returned contiguous so later kernels may reinterpret
their bytes. The assembly formats are upstream's (StablehloOps.td).
"""

from __future__ import annotations

import numpy as np

from ...ir.attributes import Attribute, DenseArrayAttr, int_values
from ...ir.core import Location, Operation, Value
from ...ir.diagnostics import Diagnostic, EvaluationError
from ...ir.lexer import PERCENT
from ...ir.memory import check_elements
from ...ir.types import (
    DYNAMIC,
    I64,
    FunctionType,
    IndexType,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    numpy_dtype,
)
from ...ir.verifier import inferred_type_mismatch
from ...ir.verifier import op_error as verifier_op_error
from ..syntax import resolve_functional_operands
from .dimension_numbers import parse_dim_list

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# ---- shared helpers --------------------------------------------------------------------------


def ints(value: Any) -> tuple[int, ...]:
    """An i64 list attribute's value (`array<i64: ...>` or legacy `dense<...>`) as ints."""
    if value is None:
        return ()
    if type(value) is tuple and all(type(x) is int for x in value):
        return value  # already decoded (`array<i64: ...>`): skip numpy on every kernel call
    return tuple(int(x) for x in np.ravel(np.asarray(value)))


def result_array(array: np.ndarray, result_type: TensorType) -> np.ndarray:
    """`array` as a fresh contiguous array of the result's dtype (its shape checked against the
    static dimensions of the result type). A result whose size came from operand values
    (a `?` dimension) is checked against the memory budget before it is made."""
    dtype = numpy_dtype(result_type.element)
    if not result_type.is_static:
        check_elements(np.shape(array), dtype.itemsize, "result")
    out = np.asarray(array, dtype=dtype, order="C")
    if not out.flags.writeable:  # a broadcast view: give later kernels a real array
        out = out.copy()
    expected = tuple(result_type.shape)
    if len(out.shape) != len(expected) or any(
            e not in (n, DYNAMIC) for n, e in zip(out.shape, expected, strict=True)):
        raise EvaluationError(
            f"result shape {list(out.shape)} does not match {result_type}")
    return out


def shape_operand(value: np.ndarray) -> tuple[int, ...]:
    """A 1-d integer tensor operand (output shape, paddings...) as ints."""
    return tuple(int(x) for x in np.asarray(value).astype(np.int64).reshape(-1))


def parse_i64_list(p: Any) -> DenseArrayAttr:
    """`[1, 2]` (custom<DenseI64Array>)."""
    return DenseArrayAttr(I64, tuple(parse_dim_list(p)))


def format_i64_list(attr: Attribute | None) -> str:
    return "[" + ", ".join(str(v) for v in ints(attr.value if attr is not None else ())) + "]"


def parse_functional_type(p: Any, operands: list[Value], tok: Any,
                          location: Location) -> list[Type]:
    """`: (A, B) -> R` after the operands, checking operand types; returns result types."""
    p.expect(":")
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", tok)
    resolve_functional_operands(p, operands, list(ftype.inputs), location, tok)
    return list(ftype.results)


def print_tail(pr: Any, op: Operation, elided: Sequence[str]) -> None:
    """The extra attribute dictionary and the functional type."""
    extra = {k: v for k, v in op.properties.items() if k not in elided}
    extra.update(op.attributes)
    pr.write(pr.attr_dict(extra))
    pr.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))


def operands_then_keyword(p: Any) -> list[Value]:
    """custom<VariadicOperandWithAttribute>: `%a, %b, ` up to the next keyword."""
    values: list[Value] = []
    while p.tok.kind == PERCENT:
        values.append(p.parse_operand())
        p.expect(",")
    return values


# ---- verification (upstream StablehloOps.cpp / TypeInference.cpp wording) --------------------
# Each verifier raises a Diagnostic at the op for the first violated constraint; messages from
# shape inference carry no `'op' op` prefix, as upstream emits them at the op's location.


def op_error(op: Operation, message: str) -> Diagnostic:
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


def dims_of(t: Type) -> tuple[int, ...]:
    return tuple(t.shape) if isinstance(t, TensorType) else ()


def ranked(*types: Type) -> bool:
    return all(isinstance(t, TensorType) for t in types)


def compatible_dim(a: int, b: int) -> bool:
    return a == b or DYNAMIC in (a, b)


def _type_text(t: Type) -> str:
    return f"'{t}'"


def check_inferred(op: Operation, inferred: Sequence[TensorType]) -> None:
    """`inferred type(s) ... are incompatible with return type(s) of operation ...`."""
    actual = [r.type for r in op.results]
    ok = len(actual) == len(inferred) and all(
        isinstance(a, TensorType) and compatible_element(a.element, i.element)
        and len(a.shape) == len(i.shape)
        and all(compatible_dim(x, y) for x, y in zip(a.shape, i.shape, strict=True))
        for a, i in zip(actual, inferred, strict=False))
    if not ok:
        raise inferred_type_mismatch(op, ", ".join(map(_type_text, inferred)))


def compatible_element(a: Type, b: Type) -> bool:
    """Equal, or both quantized over the same expressed type (parameters may differ)."""
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType):
        return a.expressed == b.expressed and a.storage.width == b.storage.width
    return a == b


def _matches_shape(values: Sequence[int], shape: Sequence[int]) -> bool:
    """A constant shape against a result type: equal where the type is static."""
    return len(values) == len(shape) and all(d in (v, DYNAMIC) for v, d in zip(values, shape,
                                                                               strict=True))


def non_negative_dimension(op: Operation) -> int:
    dimension = int(op.attr("dimension").value) if op.attr("dimension") is not None else 0
    if dimension < 0:
        raise op_error(op, f"'{op.name}' op attribute 'dimension' failed to satisfy constraint: "
                           "64-bit signless integer attribute whose value is non-negative")
    return dimension


def attr_ints(op: Operation, name: str) -> tuple[int, ...]:
    attr = op.attr(name)
    return ints(attr.value) if attr is not None else ()


_DIMENSION_VALUES = ("index or 4/8/16/32/64-bit signless integer or 4/8/16/32/64-bit unsigned "
                     "integer")


def _dimension_value(t: Type) -> bool:
    """HLO_DimensionValue: index, or a 4..64-bit signless or unsigned integer."""
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.signedness != "s"
                                        and t.width in (4, 8, 16, 32, 64))


def require_static_dimension_tensor(op: Operation, index: int) -> None:
    """The ODS operand constraint HLO_StaticDimensionTensor (a shape operand)."""
    t = op.operands[index].type
    if not (isinstance(t, TensorType) and t.rank == 1 and t.is_static
            and _dimension_value(t.element)):
        raise verifier_op_error(op, f"operand #{index} must be statically shaped 1-dimensional "
                                    f"tensor of {_DIMENSION_VALUES} values, but got '{t}'")


def require_static_int_tensor(op: Operation, index: int, rank: int) -> None:
    """The ODS operand constraints HLO_Static1DIntTensor / HLO_Static2DIntTensor."""
    t = op.operands[index].type
    if not (isinstance(t, TensorType) and t.rank == rank and t.is_static
            and isinstance(t.element, IntegerType) and t.element.signedness != "s"
            and t.element.width in (2, 4, 8, 16, 32, 64)):
        raise verifier_op_error(op, f"operand #{index} must be statically shaped "
                                    f"{rank}-dimensional integer tensor of 2/4/8/16/32/64-bit "
                                    f"integer values, but got '{t}'")


def verify_output_shape(op: Operation, shape: Sequence[int] | None) -> None:
    """A constant shape operand must agree with the static dimensions of the result."""
    result = op.results[0].type
    if shape is not None and isinstance(result, TensorType) and not _matches_shape(
            shape, dims_of(result)):
        raise op_error(op, f"output shape [{', '.join(map(str, shape))}] is incompatible with "
                           f"return type of operation '{result}'")


def constant_ints(value: Value) -> list[int] | None:
    """The integers of a value defined by `stablehlo.constant`, else None."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name != "stablehlo.constant":
        return None
    attr = owner.attr("value")
    return None if attr is None else int_values(attr)
