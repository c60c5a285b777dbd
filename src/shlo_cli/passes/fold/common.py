"""What every StableHLO folding pattern shares: the pass options, reading constant operands
as arrays, running an op's interpreter kernel on them (so a folded constant equals what the
interpreter would compute, bit for bit), and turning an array back into a constant."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...ir import registry
from ...ir.attributes import Attribute, DenseElementsAttr, all_equal
from ...ir.core import Operation, Value
from ...ir.registry import _bind_with, bind_hooks
from ...ir.types import ComplexType, FloatType, IntegerType, TensorType, numpy_dtype
from ..effects import constant_value
from ..rewrite import PatternRewriter


@dataclass(frozen=True)
class FoldOptions:
    """The options upstream's optimization passes share (Passes.td)."""

    assume_no_undeclared_side_effects: bool = False
    fold_op_element_limit: int = 65536
    optimize_float: bool = True


def constant_attr(value: Value) -> DenseElementsAttr | None:
    """The elements of `value`'s defining constant op (any constant-like op), else None."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return None
    attr = constant_value(owner)
    return attr if isinstance(attr, DenseElementsAttr) else None


def constant_array(value: Value) -> np.ndarray | None:
    """The elements of `value`'s constant; None (do not fold) when there is none or numpy
    cannot index that many elements."""
    attr = constant_attr(value)
    if attr is None:
        return None
    try:
        return attr.value
    except ValueError:  # a splat of more elements than numpy indexes
        return None


def splat_attr(value: Value) -> DenseElementsAttr | None:
    """The constant of `value` when all its elements are equal (MLIR's SplatElementsAttr)."""
    attr = constant_attr(value)
    if attr is None or not (attr.splat or all_equal(attr.data)):
        return None
    if attr.data.size == 0 and not attr.splat:
        return None
    return attr


def splat_scalar(attr: DenseElementsAttr) -> np.ndarray:
    return np.ascontiguousarray(attr.data).reshape(-1)[:1]


def make_attr(type: TensorType, array: Any) -> DenseElementsAttr:
    """`array` as an elements attribute of `type` (a splat when all elements are equal, as
    MLIR's uniqued attributes are)."""
    dtype = numpy_dtype(type.element)
    data = np.asarray(array)
    if data.dtype != dtype:
        data = data.astype(dtype)
    flat = np.ascontiguousarray(data).reshape(-1)
    if flat.size and all_equal(flat):
        return DenseElementsAttr(type, flat[:1].copy(), splat=True)
    return DenseElementsAttr(type, flat.copy())


def splat_of(type: TensorType, scalar: np.ndarray) -> DenseElementsAttr:
    dtype = numpy_dtype(type.element)
    return DenseElementsAttr(type, np.asarray(scalar).reshape(-1)[:1].astype(dtype), splat=True)


def replace_with_constant(op: Operation, rewriter: PatternRewriter,
                          attr: Attribute) -> bool:
    """MLIR's replaceOpWithNewOp<ConstantOp>: a constant right before `op` replaces it."""
    rewriter.set_insertion_point(op)
    value = rewriter.constant(attr, attr.type, location=op.location)  # type: ignore[attr-defined]
    rewriter.replace_op(op, [value])
    return True


def evaluate(op: Operation, arrays: list[np.ndarray]) -> Any:
    """Run `op`'s interpreter kernel on `arrays` (no regions); None when it cannot."""
    opdef = op.opdef or registry.lookup(op.name)
    if opdef is None or opdef.evaluate is None:
        return None
    kwargs: dict[str, Any] = {}
    for name in opdef.evaluate_params:
        if name == "result_type":
            kwargs[name] = op.results[0].type if op.results else None
        elif name == "result_types":
            kwargs[name] = [r.type for r in op.results]
        elif name == "op":
            kwargs[name] = op
        elif name == "ctx" or name in opdef.regions or name + "*" in opdef.regions:
            return None
        else:
            attr = op.attr(name)
            kwargs[name] = attr.value if attr is not None else None
    try:
        with np.errstate(all="ignore"):
            return _bind_with(bind_hooks(op.name), op, opdef, kwargs)(*arrays)
    except Exception:  # noqa: BLE001 - a kernel refusing this input means "do not fold"
        return None


def static_tensor(type: Any) -> bool:
    return isinstance(type, TensorType) and type.is_static


def is_int(type: Any) -> bool:
    return isinstance(getattr(type, "element", None), IntegerType)


def is_float(type: Any) -> bool:
    return isinstance(getattr(type, "element", None), FloatType)


def is_complex(type: Any) -> bool:
    return isinstance(getattr(type, "element", None), ComplexType)


def shape_fold_dtype(type: Any, options: FoldOptions, allow_complex: bool = False) -> bool:
    """Upstream's validateShapeFoldDtype: integers always; floats (and complex where allowed)
    only with optimize-float."""
    if is_int(type):
        return True
    return options.optimize_float and (is_float(type) or (allow_complex and is_complex(type)))


def within_limit(type: TensorType, options: FoldOptions) -> bool:
    return math.prod(type.shape) <= options.fold_op_element_limit  # exact beyond int64
