"""The `shape` dialect ops that shape computations in StableHLO programs use (what
`--shape-legalize-to-stablehlo` rewrites): `shape_of`, `num_elements`, `broadcast`,
`cstr_broadcastable` and `const_shape`, with MLIR's assembly formats. Extents are `index`
tensors (or the dialect's opaque `!shape.shape` / `!shape.size` / `!shape.witness` types)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.attributes import DenseElementsAttr
from ..ir.core import Location, Operation
from ..ir.diagnostics import EvaluationError
from ..ir.types import DYNAMIC, IndexType, OpaqueType, TensorType, UnrankedTensorType
from ..ir.verifier import op_error
from .registry import OpDef, define_op
from .syntax import Custom

WITNESS = OpaqueType("!shape.witness")


def _parse_types(p: Any) -> list[Any]:
    types = [p.parse_type()]
    while p.accept(","):
        types.append(p.parse_type())
    return types


def _parse_mapping(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`$operands attr-dict : type($operands) -> type($result)` (no `->` for a witness)."""
    tok = p.tok
    operands = [p.parse_operand()]
    while p.accept(","):
        operands.append(p.parse_operand())
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    p.check_operand_types(operands, _parse_types(p), tok)
    if opdef.name == "shape.cstr_broadcastable":
        result = WITNESS
    else:
        p.expect("->")
        result = p.parse_type()
    return p.build_operation(opdef.name, opdef, operands, [result], {}, attributes, [], None,
                             location)


def _print_mapping(pr: Any, op: Operation) -> None:
    types = ", ".join(str(t) for t in op.operand_types)
    attrs = pr.attr_dict({**op.properties, **op.attributes})
    pr.write(" " + pr.operands(op.operands) + attrs + f" : {types}")
    if op.name != "shape.cstr_broadcastable":
        pr.write(f" -> {op.results[0].type}")


_MAPPING = Custom(_parse_mapping, _print_mapping)


def _extents(values: Any, result_type: Any) -> np.ndarray:
    """`values` as the result type holds them: an extent tensor of its (possibly dynamic)
    shape, a 1-d extent list for the opaque `!shape.shape`, else (`index`, `!shape.size`) a 0-d
    size."""
    out = np.asarray(values, dtype=np.int64)
    if isinstance(result_type, TensorType):
        try:
            return out.reshape([-1 if d == DYNAMIC else d for d in result_type.shape])
        except ValueError:
            raise EvaluationError(f"{out.size} extents do not fit the result type "
                                  f"{result_type}") from None
    return out.reshape(-1) if str(result_type) == "!shape.shape" else out.reshape(())


def _shape_tuples(shapes: tuple[np.ndarray, ...]) -> list[tuple[int, ...]]:
    """The operands as extent tuples; a negative extent is no shape."""
    out = [tuple(int(d) for d in np.asarray(s).reshape(-1)) for s in shapes]
    for shape in out:
        if any(d < 0 for d in shape):
            raise EvaluationError(f"negative extent in shape [{', '.join(map(str, shape))}]")
    return out


def verify_shape_of(op: Operation) -> None:
    """The result is the operand's extent tensor: `tensor<Rxindex>` (or `?`) for a ranked
    operand (upstream's inferred-type check), or the opaque `!shape.shape`."""
    arg, result = op.operands[0].type, op.results[0].type
    if not isinstance(arg, TensorType | UnrankedTensorType):
        raise op_error(op, f"operand #0 must be shaped of any type values, but got '{arg}'")
    if isinstance(arg, TensorType) and isinstance(result, TensorType) and (
            len(result.shape) != 1 or result.shape[0] not in (len(arg.shape), DYNAMIC)
            or not isinstance(result.element, IndexType)):
        raise op_error(op, f"inferred type(s) 'tensor<{len(arg.shape)}xindex>' are "
                           f"incompatible with return type(s) of operation '{result}'")


@define_op("shape.shape_of", operands=("arg",), results=1, syntax=_MAPPING, verify=verify_shape_of)
def shape_of(arg: np.ndarray, *, result_type: Any) -> np.ndarray:
    """The extents of `arg`."""
    return _extents(arg.shape, result_type)


@define_op("shape.num_elements", operands=("shape",), results=1, syntax=_MAPPING)
def num_elements(shape: np.ndarray, *, result_type: Any) -> np.ndarray:
    """The product of the extents."""
    return _extents(int(np.prod(np.asarray(shape, dtype=np.int64))), result_type)


@define_op("shape.broadcast", operands=("*shapes",), results=1, attributes=("error?",),
           syntax=_MAPPING)
def broadcast(*shapes: np.ndarray, result_type: Any) -> np.ndarray:
    """The numpy-style broadcast of the operand shapes."""
    tuples = _shape_tuples(shapes)
    try:
        out = np.broadcast_shapes(*tuples)
    except ValueError:
        raise EvaluationError("shapes " + ", ".join(
            "[" + ", ".join(map(str, t)) + "]" for t in tuples) + " do not broadcast") from None
    return _extents(out, result_type)


@define_op("shape.cstr_broadcastable", operands=("*shapes",), results=1, syntax=_MAPPING)
def cstr_broadcastable(*shapes: np.ndarray) -> np.ndarray:
    """A witness: whether the shapes broadcast together."""
    try:
        np.broadcast_shapes(*_shape_tuples(shapes))
    except (ValueError, EvaluationError):
        return np.asarray(False)
    return np.asarray(True)


def _parse_const_shape(p: Any, opdef: OpDef, location: Location,
                       num_results: int) -> Operation:
    attributes = p.parse_optional_attr_dict()
    p.expect("[")
    extents: list[int] = []
    while not p.at("]"):
        tok = p.tok
        extent = p.parse_integer()
        if not -(1 << 63) <= extent < (1 << 63):  # an index: int64, as MLIR parses it
            raise p.error("integer value too large", tok)
        extents.append(extent)
        if not p.accept(","):
            break
    p.expect("]")
    p.expect(":")
    result = p.parse_type()
    value = DenseElementsAttr(TensorType((len(extents),), IndexType()),
                              np.array(extents, dtype=np.int64))
    return p.build_operation(opdef.name, opdef, [], [result], {"shape": value}, attributes,
                             [], None, location)


def _print_const_shape(pr: Any, op: Operation) -> None:
    extents = ", ".join(str(int(d)) for d in op.properties["shape"].value.reshape(-1))
    # MLIR prints a space, then the optional dictionary (with its own leading space), then
    # the extents: `shape.const_shape  {a = 1}[4, 8]` when attributes are present.
    pr.write(" " + pr.attr_dict(op.attributes) + f"[{extents}] : {op.results[0].type}")


@define_op("shape.const_shape", operands=(), results=1, attributes=("shape",),
           syntax=Custom(_parse_const_shape, _print_const_shape))
def const_shape(*, shape: np.ndarray, result_type: Any) -> np.ndarray:
    return _extents(shape, result_type)

