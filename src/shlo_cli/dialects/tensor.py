"""The `tensor` dialect ops StableHLO programs use: `tensor.cast` (upstream's stablehlo-opt
registers the tensor dialect, so its round-trip tests contain it), and the `dim`, `extract`
and `from_elements` ops of shape computations (`--shape-legalize-to-stablehlo`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.core import Location, Operation
from ..ir.diagnostics import Diagnostic, EvaluationError
from ..ir.types import DYNAMIC, TensorType, Type, UnrankedTensorType
from .registry import OpDef, canonicalization, define_op, folder
from .syntax import Custom, cast_syntax

# ---- tensor.cast: `$source attr-dict : type($source) to type($dest)` -----------------------


def _cast_compatible(a: Type, b: Type) -> bool:
    """Same element type; shapes agree wherever both are known (either may be unranked)."""
    if not isinstance(a, (TensorType, UnrankedTensorType)) or not isinstance(
            b, (TensorType, UnrankedTensorType)) or a.element != b.element:
        return False
    if isinstance(a, UnrankedTensorType) or isinstance(b, UnrankedTensorType):
        return True
    return a.rank == b.rank and all(x == y or DYNAMIC in (x, y)
                                    for x, y in zip(a.shape, b.shape, strict=True))


def verify_cast(op: Operation) -> None:
    source, dest = op.operands[0].type, op.results[0].type
    if not _cast_compatible(source, dest):
        raise Diagnostic(f"'{op.name}' op operand type '{source}' and result type '{dest}' "
                         "are cast incompatible", line=op.location.line or None,
                         col=op.location.col or None)


@define_op("tensor.cast", operands=("source",), results=1, syntax=cast_syntax(), verify=verify_cast,
           asm_result_name=lambda op: "cast")  # CastOp::getAsmResultNames: `%cast`
def cast(source: np.ndarray) -> np.ndarray:
    """Only the static type changes; the value is the operand's."""
    return source


@folder("tensor.cast")
def _fold_cast(op: Operation, constants: list[Any]) -> Any:
    """A cast to its operand's own type is the operand (CastOpInterface's fold)."""
    return op.operands[0] if op.operands[0].type == op.results[0].type else None


def _join(a: Type, b: Type) -> Type | None:
    """The most static type both shapes allow (MLIR's joinShapes), None if they conflict."""
    if isinstance(a, UnrankedTensorType):
        return b
    if isinstance(b, UnrankedTensorType):
        return a
    if not isinstance(a, TensorType) or not isinstance(b, TensorType) or a.rank != b.rank:
        return None
    dims = []
    for x, y in zip(a.shape, b.shape, strict=True):
        if x != DYNAMIC and y != DYNAMIC and x != y:
            return None
        dims.append(y if x == DYNAMIC else x)
    return TensorType(tuple(dims), a.element)


@canonicalization("tensor.cast")
def chained_cast(op: Operation, rewriter: Any) -> bool:
    """cast(cast(x)) is one cast of x when the middle type adds no run-time check (MLIR's
    ChainedTensorCast)."""
    inner = op.operands[0].owner
    if not isinstance(inner, Operation) or inner.name != "tensor.cast":
        return False
    source, middle, result = inner.operands[0].type, inner.results[0].type, op.results[0].type
    first = _join(source, middle)
    first = _join(first, result) if first is not None else None
    if first is None or str(first) != str(_join(source, result)):
        return False
    rewriter.replace_op_with(op, "tensor.cast", [inner.operands[0]])
    return True


# ---- tensor.insert: `$scalar `into` $dest `[` $indices `]` attr-dict `:` type($dest)` ---------


def _parse_insert(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    scalar = p.parse_operand()
    p.expect_keyword("into")
    dest = p.parse_operand()
    p.expect("[")
    indices = p.parse_operand_list("]")
    p.expect("]")
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    dest_type = p.parse_type()
    if not isinstance(dest_type, TensorType):
        raise p.error("expected a ranked tensor type", tok)
    from ..ir.types import IndexType

    p.check_operand_types([scalar, dest, *indices],
                          [dest_type.element, dest_type, *[IndexType()] * len(indices)], tok)
    return p.build_operation(opdef.name, opdef, [scalar, dest, *indices], [dest_type], {},
                             attributes, [], None, location)


def _print_insert(pr: Any, op: Operation) -> None:
    scalar, dest, *indices = op.operands
    pr.write(f" {pr.name(scalar)} into {pr.name(dest)}[{pr.operands(indices)}]"
             + pr.attr_dict(op.attributes) + f" : {dest.type}")


def _element(shape: tuple[int, ...], indices: tuple[np.ndarray, ...]) -> tuple[int, ...]:
    """The in-bounds position `indices` name (MLIR leaves an out-of-bounds one undefined;
    numpy would wrap a negative one or raise IndexError)."""
    position = tuple(int(i) for i in indices)
    if len(position) != len(shape) or any(not 0 <= i < d for i, d in zip(position, shape,
                                                                          strict=True)):
        raise EvaluationError(f"index [{', '.join(map(str, position))}] is out of bounds of "
                              f"a tensor of shape [{', '.join(map(str, shape))}]")
    return position


@define_op("tensor.insert", operands=("scalar", "dest", "*indices"), results=1,
           syntax=Custom(_parse_insert, _print_insert))
def insert(scalar: np.ndarray, dest: np.ndarray, *indices: np.ndarray) -> np.ndarray:
    """`dest` with the element at `indices` replaced by `scalar`."""
    out = np.array(dest, copy=True)
    out[_element(out.shape, indices)] = scalar
    return out


# ---- tensor.dim: `attr-dict $source `,` $index `:` type($source)` ---------------------------


def _parse_dim(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    from ..ir.types import IndexType

    attributes = p.parse_optional_attr_dict()
    tok = p.tok
    source = p.parse_operand()
    p.expect(",")
    index = p.parse_operand()
    p.expect(":")
    p.check_operand_types([source, index], [p.parse_type(), IndexType()], tok)
    return p.build_operation(opdef.name, opdef, [source, index], [IndexType()], {},
                             attributes, [], None, location)


def _print_dim(pr: Any, op: Operation) -> None:
    pr.write(pr.attr_dict(op.attributes) + " " + pr.operands(op.operands)
             + f" : {op.operands[0].type}")


@define_op("tensor.dim", operands=("source", "index"), results=1,
           syntax=Custom(_parse_dim, _print_dim), asm_result_name=lambda op: "dim")
def dim(source: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The size of dimension `index` of `source`."""
    if not 0 <= int(index) < source.ndim:
        raise EvaluationError(f"dimension {int(index)} is out of range for a tensor of rank "
                              f"{source.ndim}")
    return np.asarray(source.shape[int(index)], dtype=np.int64)


# ---- tensor.extract: `$tensor `[` $indices `]` attr-dict `:` type($tensor)` -----------------


def _parse_extract(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    from ..ir.types import IndexType

    tok = p.tok
    source = p.parse_operand()
    p.expect("[")
    indices = p.parse_operand_list("]")
    p.expect("]")
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    source_type = p.parse_type()
    if not isinstance(source_type, TensorType):
        raise p.error("expected a ranked tensor type", tok)
    p.check_operand_types([source, *indices], [source_type, *[IndexType()] * len(indices)],
                          tok)
    return p.build_operation(opdef.name, opdef, [source, *indices], [source_type.element], {},
                             attributes, [], None, location)


def _print_extract(pr: Any, op: Operation) -> None:
    source, *indices = op.operands
    pr.write(f" {pr.name(source)}[{pr.operands(indices)}]" + pr.attr_dict(op.attributes)
             + f" : {source.type}")


@define_op("tensor.extract", operands=("tensor", "*indices"), results=1,
           syntax=Custom(_parse_extract, _print_extract), asm_result_name=lambda op: "extracted")
def extract(source: np.ndarray, *indices: np.ndarray) -> np.ndarray:
    """The element of `source` at `indices`."""
    return np.asarray(source[_element(source.shape, indices)])


# ---- tensor.from_elements: `$elements attr-dict `:` type($result)` --------------------------


def _parse_from_elements(p: Any, opdef: OpDef, location: Location,
                         num_results: int) -> Operation:
    tok = p.tok
    elements = p.parse_operand_list(":")
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    result = p.parse_type()
    if not isinstance(result, TensorType) or not result.is_static:
        raise p.error("expected a statically shaped tensor type", tok)
    p.check_operand_types(elements, [result.element] * len(elements), tok)
    if len(elements) != result.num_elements:
        raise p.error(f"'{opdef.name}' op number of operands and types do not match: got "
                      f"{len(elements)} operands and {result.num_elements} types", tok)
    return p.build_operation(opdef.name, opdef, elements, [result], {}, attributes, [], None,
                             location)


def _print_from_elements(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + pr.attr_dict(op.attributes)
             + f" : {op.results[0].type}")


@define_op("tensor.from_elements", operands=("*elements",), results=1,
           syntax=Custom(_parse_from_elements, _print_from_elements),
           asm_result_name=lambda op: "from_elements")
def from_elements(*elements: np.ndarray, result_type: Any) -> np.ndarray:
    """A tensor of the result type holding `elements` in row-major order."""
    from ..ir.types import numpy_dtype

    flat = np.array([np.asarray(e).reshape(()) for e in elements],
                    dtype=numpy_dtype(result_type.element))
    return flat.reshape(result_type.shape)
