"""The two `shape` dialect ops StableHLO's shape reification builds: `shape.shape_of` (the
run-time extents of a tensor as `tensor<rank x index>`) and `shape.broadcast` (the NumPy
broadcast of extent tensors). Upstream's stablehlo-opt registers the shape dialect, so test
output contains them; they parse, print and verify here but do not run."""

from __future__ import annotations

from typing import Any

from ..ir.core import Location, Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import IndexType, TensorType, UnrankedTensorType
from .registry import OpDef, declare_op
from .syntax import Custom


def extent_tensor_type(rank: int) -> TensorType:
    """`tensor<rank x index>` (rank DYNAMIC: `tensor<?xindex>`)."""
    return TensorType((rank,), IndexType())


# ---- shape.shape_of: `$arg attr-dict : type($arg) -> type($result)` ------------------------

def _parse_shape_of(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    arg = p.parse_operand()
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    p.check_operand_types([arg], [p.parse_type()], tok)
    p.expect("->")
    result = p.parse_type()
    return p.build_operation(opdef.name, opdef, [arg], [result], {}, attributes, [], None,
                             location)


def _print_shape_of(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + pr.attr_dict(op.attributes))
    pr.write(f" : {op.operands[0].type} -> {op.results[0].type}")


def _verify_shape_of(op: Operation) -> None:
    arg, result = op.operands[0].type, op.results[0].type
    if isinstance(arg, TensorType) and isinstance(result, TensorType) and (
            result.shape != (len(arg.shape),) or not isinstance(result.element, IndexType)):
        raise _error(op, f"'{op.name}' op inferred type(s) '{extent_tensor_type(len(arg.shape))}'"
                         f" are incompatible with return type(s) of operation '{result}'")
    if not isinstance(arg, (TensorType, UnrankedTensorType)):
        raise _error(op, f"'{op.name}' op operand #0 must be shaped of any type values, but got "
                         f"'{arg}'")


declare_op("shape.shape_of", syntax=Custom(_parse_shape_of, _print_shape_of),
           verify=_verify_shape_of)


# ---- shape.broadcast: `$shapes attr-dict : type($shapes) -> type($result)` -----------------

def _parse_broadcast(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    shapes = p.parse_operand_list()
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    p.check_operand_types(shapes, p.parse_type_list(), tok)
    p.expect("->")
    result = p.parse_type()
    return p.build_operation(opdef.name, opdef, shapes, [result], {}, attributes, [], None,
                             location)


def _print_broadcast(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + pr.attr_dict(op.attributes))
    types = ", ".join(str(v.type) for v in op.operands)
    pr.write(f" : {types} -> {op.results[0].type}")


def _verify_broadcast(op: Operation) -> None:
    if len(op.operands) < 2:
        raise _error(op, f"'{op.name}' op number of operand shapes should be at least 2, "
                         f"but got {len(op.operands)}")


declare_op("shape.broadcast", syntax=Custom(_parse_broadcast, _print_broadcast),
           verify=_verify_broadcast)


def _error(op: Operation, message: str) -> Diagnostic:
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)
