"""Partial evaluation of integer shape computations: the patterns `--stablehlo-refine-shapes`
runs so that shape operands (`dynamic_iota`'s output_shape, ...) become constants.

Which ops fold and when follows upstream's shape folder patterns (facts from
StablehloAggressiveFolder.cpp, populateStablehloShapeFolderPatterns, with float folding off):
only integer results, only static result shapes, every operand a constant; no integer
division by zero; no conversions from or to floats. The values come from the interpreter's
own evaluator for each op, so folding and running agree by construction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.attributes import DenseElementsAttr
from ..ir.core import Operation
from ..ir.types import FloatType, IntegerType, TensorType, Type
from .rewrite import PatternRewriter, RewritePattern, pattern
from .shape_facts import constant_attr

# Ops folded when every operand is a constant.
_ALL_CONSTANT = (
    "stablehlo.add", "stablehlo.and", "stablehlo.clamp", "stablehlo.compare",
    "stablehlo.concatenate", "stablehlo.convert", "stablehlo.divide", "stablehlo.maximum",
    "stablehlo.minimum", "stablehlo.multiply", "stablehlo.or", "stablehlo.remainder",
    "stablehlo.reshape", "stablehlo.select", "stablehlo.sign", "stablehlo.slice",
    "stablehlo.subtract")
# Ops folded only when their data operand is a splat (the value does not depend on where).
_SPLAT_OPERAND = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_slice")


def _dimension(op: Operation) -> int:
    attr = op.attr("dimension")
    if attr is None:
        raise ValueError("no dimension")
    return int(attr.value)


def _is_int(t: Type) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element, IntegerType)


def evaluate(op: Operation, arrays: list[np.ndarray]) -> list[np.ndarray] | None:
    """Run `op`'s interpreter evaluator on constant inputs; None if it has none or fails."""
    opdef = op.opdef
    if opdef is None or opdef.evaluate is None or op.regions:
        return None
    kwargs: dict[str, Any] = {}
    for name in opdef.evaluate_params:
        if name == "result_type":
            kwargs[name] = op.results[0].type
        elif name == "result_types":
            kwargs[name] = op.result_types
        elif name == "op":
            kwargs[name] = op
        elif name == "ctx":
            return None
        else:
            attr = op.attr(name)
            kwargs[name] = attr.value if attr is not None else None
    try:
        out = opdef.evaluate(*arrays, **kwargs)
    except Exception:  # noqa: BLE001 - an evaluator that cannot handle it means "no fold"
        return None
    return list(out) if isinstance(out, list | tuple) else [out]


def _replace_with_constant(op: Operation, rw: PatternRewriter, value: np.ndarray) -> bool:
    rtype = op.results[0].type
    assert isinstance(rtype, TensorType)
    data = np.ascontiguousarray(np.asarray(value).reshape(rtype.shape))
    attr = DenseElementsAttr(rtype, data)
    new = rw.create("stablehlo.constant", [], [rtype], {"value": attr}, location=op.location)
    rw.replace_op(op, new.results)
    return True


def _divides_by_zero(op: Operation, arrays: list[np.ndarray]) -> bool:
    return (op.name in ("stablehlo.divide", "stablehlo.remainder")
            and bool(np.any(arrays[1] == 0)))


@pattern(*_ALL_CONSTANT)
def fold_constant_operands(op: Operation, rw: PatternRewriter) -> bool:
    """An integer op of constants becomes the constant it computes."""
    if len(op.results) != 1:
        return False
    rtype = op.results[0].type
    if not isinstance(rtype, TensorType) or not _is_int(rtype) or not rtype.is_static:
        return False
    maybe = [constant_attr(v) for v in op.operands]
    attrs = [a for a in maybe if a is not None]
    if len(attrs) != len(maybe):
        return False
    if op.name == "stablehlo.convert" and isinstance(attrs[0].type.element, FloatType):
        return False
    arrays = [a.value for a in attrs]
    if _divides_by_zero(op, arrays):
        return False
    results = evaluate(op, arrays)
    if results is None:
        return False
    return _replace_with_constant(op, rw, results[0])


@pattern(*_SPLAT_OPERAND)
def fold_splat_operand(op: Operation, rw: PatternRewriter) -> bool:
    """broadcast_in_dim / dynamic_slice of a splat constant: a splat of the result shape."""
    rtype = op.results[0].type
    if not isinstance(rtype, TensorType) or not rtype.is_static:
        return False
    if op.name == "stablehlo.broadcast_in_dim" and not _is_int(rtype):
        return False
    attr = constant_attr(op.operands[0])
    if attr is None:
        return False
    flat = attr.value.reshape(-1)
    if flat.size == 0 or not np.all(flat == flat[0]):
        return False
    return _replace_with_constant(op, rw, np.full(rtype.shape, flat[0], dtype=flat.dtype))


@pattern("stablehlo.get_dimension_size")
def fold_get_dimension_size(op: Operation, rw: PatternRewriter) -> bool:
    operand = op.operands[0].type
    dim = _dimension(op)
    if not isinstance(operand, TensorType) or operand.shape[dim] < 0:
        return False
    return _replace_with_constant(op, rw, np.array(operand.shape[dim], dtype=np.int32))


@pattern("stablehlo.set_dimension_size")
def fold_set_dimension_size(op: Operation, rw: PatternRewriter) -> bool:
    """set_dimension_size to the size the dimension already has is a no-op."""
    operand, size = op.operands
    if operand.type != op.results[0].type:
        return False
    attr = constant_attr(size)
    dim = _dimension(op)
    shape = operand.type.shape if isinstance(operand.type, TensorType) else None
    if attr is None or shape is None or int(attr.value.reshape(-1)[0]) != shape[dim]:
        return False
    rw.replace_op(op, [operand])
    return True


SHAPE_FOLDER_PATTERNS: tuple[RewritePattern, ...] = (
    fold_constant_operands, fold_splat_operand, fold_get_dimension_size,
    fold_set_dimension_size)
