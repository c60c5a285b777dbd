"""The `tensor` dialect ops StableHLO programs use: `tensor.cast` (upstream's stablehlo-opt
registers the tensor dialect, so its round-trip tests contain it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.core import Location, Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import DYNAMIC, TensorType, Type, UnrankedTensorType
from .registry import OpDef, define_op
from .syntax import Custom

# ---- tensor.cast: `$source attr-dict : type($source) to type($dest)` -----------------------


def _parse_cast(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    source = p.parse_operand()
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    p.check_operand_types([source], [p.parse_type()], tok)
    p.expect_keyword("to")
    result = p.parse_type()
    return p.build_operation(opdef.name, opdef, [source], [result], {}, attributes, [], None,
                             location)


def _print_cast(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + pr.attr_dict(op.attributes))
    pr.write(f" : {op.operands[0].type} to {op.results[0].type}")


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


@define_op("tensor.cast", syntax=Custom(_parse_cast, _print_cast), verify=verify_cast)
def cast(source: np.ndarray) -> np.ndarray:
    """Only the static type changes; the value is the operand's."""
    return source


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


@define_op("tensor.insert", syntax=Custom(_parse_insert, _print_insert))
def insert(scalar: np.ndarray, dest: np.ndarray, *indices: np.ndarray) -> np.ndarray:
    """`dest` with the element at `indices` replaced by `scalar`."""
    out = np.array(dest, copy=True)
    out[tuple(int(i) for i in indices)] = scalar
    return out
