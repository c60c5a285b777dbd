"""Folding StableHLO data-movement ops over constants: broadcast, concatenate, reshape,
reverse, slice, dynamic_slice, transpose, iota and the dimension-size ops.

Splat inputs give splat results directly; other inputs go through the interpreter's kernel.
"""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.core import Operation
from ...ir.types import DYNAMIC, TensorType
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .common import (
    FoldOptions,
    constant_attr,
    evaluate,
    is_float,
    is_int,
    make_attr,
    replace_with_constant,
    shape_fold_dtype,
    splat_attr,
    splat_of,
    splat_scalar,
    static_tensor,
    within_limit,
)


def _fold_with_kernel(op: Operation, rewriter: PatternRewriter) -> bool:
    attrs = [constant_attr(v) for v in op.operands]
    if any(a is None for a in attrs):
        return False
    result = evaluate(op, [a.value for a in attrs])  # type: ignore[union-attr]
    if result is None:
        return False
    return replace_with_constant(op, rewriter, make_attr(op.result_types[0], result))


def shape_patterns(options: FoldOptions) -> list[RewritePattern]:
    @pattern("stablehlo.broadcast_in_dim")
    def fold_broadcast_splat(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if not static_tensor(result_type) or not shape_fold_dtype(result_type, options, True):
            return False
        splat = splat_attr(op.operands[0])
        if splat is None:
            return False
        return replace_with_constant(op, rewriter, splat_of(result_type, splat_scalar(splat)))

    @pattern("stablehlo.concatenate")
    def fold_concatenate(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if (not static_tensor(result_type) or not shape_fold_dtype(result_type, options)
                or not within_limit(result_type, options)):
            return False
        return _fold_with_kernel(op, rewriter)

    @pattern("stablehlo.concatenate")
    def fold_concatenate_adjacent_splats(op: Operation, rewriter: PatternRewriter) -> bool:
        dim = op.attr("dimension").value
        operands = list(op.operands)
        merged: list = []
        changed = False
        i = 0
        while i < len(operands):
            splat = splat_attr(operands[i])
            j = i + 1
            if splat is not None:
                while j < len(operands) and splat_attr(operands[j]) == splat:
                    j += 1
            if j - i > 1:
                shape = list(splat.type.shape)  # type: ignore[union-attr]
                shape[dim] *= j - i
                new_type = TensorType(tuple(shape), splat.type.element,  # type: ignore[union-attr]
                                      getattr(splat.type, "encoding", None))
                rewriter.set_insertion_point(op)
                merged.append(rewriter.constant(splat_of(new_type, splat_scalar(splat)),
                                                new_type, location=op.location))
                changed = True
            else:
                merged.append(operands[i])
            i = j
        if not changed:
            return False
        rewriter.replace_op_with(op, op.name, merged, dict(op.properties), dict(op.attributes))
        return True

    @pattern("stablehlo.reshape")
    def fold_reshape(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if not static_tensor(result_type) or not shape_fold_dtype(result_type, options, True):
            return False
        attr = constant_attr(op.operands[0])
        if attr is None:
            return False
        if attr.splat:
            return replace_with_constant(op, rewriter, splat_of(result_type, attr.data))
        return replace_with_constant(op, rewriter,
                                     make_attr(result_type, attr.value.reshape(result_type.shape)))

    @pattern("stablehlo.reverse")
    def fold_reverse(op: Operation, rewriter: PatternRewriter) -> bool:
        operand_type = op.operand_types[0]
        if not static_tensor(operand_type) or not within_limit(operand_type, options):
            return False
        attr = constant_attr(op.operands[0])
        if attr is None:
            return False
        dims = list(op.attr("dimensions").value)
        size = int(np.prod(operand_type.shape, dtype=np.int64))
        if (not dims or size <= 1 or splat_attr(op.operands[0]) is not None
                or all(operand_type.shape[d] == 1 for d in dims)):
            return False  # trivial: the simplifier's job
        if not (is_int(operand_type) or is_float(operand_type)):
            return False
        return _fold_with_kernel(op, rewriter)

    @pattern("stablehlo.slice")
    def fold_slice(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if (not static_tensor(result_type) or not shape_fold_dtype(result_type, options)
                or not static_tensor(op.operand_types[0])):
            return False
        if constant_attr(op.operands[0]) is None:
            return False
        splat = splat_attr(op.operands[0])
        if splat is not None:
            return replace_with_constant(op, rewriter, splat_of(result_type, splat_scalar(splat)))
        return _fold_with_kernel(op, rewriter)

    @pattern("stablehlo.dynamic_slice")
    def fold_dynamic_slice_splat(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        splat = splat_attr(op.operands[0])
        if not static_tensor(result_type) or splat is None:
            return False
        return replace_with_constant(op, rewriter, splat_of(result_type, splat_scalar(splat)))

    @pattern("stablehlo.transpose")
    def fold_transpose(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if not static_tensor(result_type) or constant_attr(op.operands[0]) is None:
            return False
        splat = splat_attr(op.operands[0])
        if splat is not None:
            return replace_with_constant(op, rewriter, splat_of(result_type, splat_scalar(splat)))
        if not (is_int(result_type) or is_float(result_type)):
            return False
        return _fold_with_kernel(op, rewriter)

    @pattern("stablehlo.iota")
    def fold_iota(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if not static_tensor(result_type) or not within_limit(result_type, options):
            return False
        if not is_int(result_type):
            return False
        size = int(np.prod(result_type.shape, dtype=np.int64))
        if size > 1:
            return False
        return replace_with_constant(op, rewriter,
                                     make_attr(result_type, np.zeros(result_type.shape)))

    @pattern("stablehlo.get_dimension_size")
    def fold_get_dimension_size(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if not static_tensor(result_type) or not shape_fold_dtype(result_type, options):
            return False
        operand_type = op.operand_types[0]
        dim = op.attr("dimension").value
        if not isinstance(operand_type, TensorType) or operand_type.shape[dim] == DYNAMIC:
            return False
        return replace_with_constant(op, rewriter,
                                     make_attr(result_type, np.int64(operand_type.shape[dim])))

    @pattern("stablehlo.set_dimension_size")
    def fold_set_dimension_size(op: Operation, rewriter: PatternRewriter) -> bool:
        result_type = op.result_types[0]
        if op.operand_types[0] != result_type:
            return False
        size = splat_attr(op.operands[1])
        if size is None:
            return False
        dim = op.attr("dimension").value
        if int(splat_scalar(size)[0]) != result_type.shape[dim]:
            return False
        rewriter.replace_all_uses_with(op.results[0], op.operands[0])
        return True

    return [fold_broadcast_splat, fold_concatenate, fold_concatenate_adjacent_splats,
            fold_reshape, fold_reverse, fold_slice, fold_dynamic_slice_splat, fold_transpose,
            fold_iota, fold_get_dimension_size, fold_set_dimension_size]
