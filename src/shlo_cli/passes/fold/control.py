"""Folding StableHLO control flow and reductions: a `case` with a constant index runs its
branch inline, a `while` whose condition is constant false yields its operands, and `reduce`
ops whose result is known without reducing are replaced."""

from __future__ import annotations

import numpy as np

from ...ir.core import Block, Operation, Value
from ...ir.types import ComplexType, TensorType, TokenType
from ..effects import has_no_effect, is_trivially_dead
from ..rewrite import PatternRewriter, RewritePattern, pattern
from .common import FoldOptions, constant_attr, make_attr, splat_attr, splat_of, splat_scalar


def _placeholder(rewriter: PatternRewriter, value: Value) -> Value | None:
    """A value of `value`'s type to return from an emptied branch (zero, or a new token)."""
    type = value.type
    if isinstance(type, TokenType):
        return rewriter.create("stablehlo.after_all", [], [type]).results[0]
    if isinstance(type, TensorType) and type.is_static:
        if getattr(type.element, "storage", None) is not None and not isinstance(
                type.element, ComplexType):
            return None  # quantized: upstream has no placeholder either
        try:
            attr = make_attr(type, np.zeros(type.shape))
        except (TypeError, ValueError):
            return None
        return rewriter.constant(attr, type)
    return None


@pattern("stablehlo.case")
def inline_case_with_constant_index(op: Operation, rewriter: PatternRewriter) -> bool:
    if not any(rewriter.has_uses(r) for r in op.results):
        return False  # a dead case the driver could not erase: leave it
    index = splat_attr(op.operands[0])
    if index is None:
        return False
    chosen = int(splat_scalar(index)[0])
    if not 0 <= chosen < len(op.regions):
        chosen = len(op.regions) - 1
    region = op.regions[chosen]
    block = region.blocks[0]
    terminator = block.operations[-1]
    results = list(terminator.operands)
    # Check every placeholder can be made before changing anything.
    for result in op.results:
        type = result.type
        if not isinstance(type, TokenType) and not (isinstance(type, TensorType)
                                                    and type.is_static):
            return False
    rewriter.inline_block_before(block, op)
    for old, new in zip(op.results, results, strict=True):
        rewriter.replace_all_uses_with(old, new)
    rewriter.erase_op(terminator)
    region.blocks.clear()
    fresh = region.add_block(Block())
    rewriter.set_insertion_point_to_end(fresh)
    placeholders = [_placeholder(rewriter, r) for r in op.results]
    rewriter.create("stablehlo.return", [p for p in placeholders if p is not None], [])
    return True


def _cond_is_false(op: Operation) -> bool:
    cond = op.regions[0].blocks[0]
    ret = cond.operations[-1] if cond.operations else None
    if ret is None or ret.name != "stablehlo.return" or not ret.operands:
        return False
    attr = constant_attr(ret.operands[0])
    return attr is not None and attr.data.size > 0 and not bool(np.any(attr.data))


def _declares_effects(op: Operation) -> bool:
    """Upstream's hasAnyDeclaredSideEffects: ops of known dialects say what they do; others
    (func.call, unregistered ops) are judged by the ops in their regions only."""
    known = op.opdef is not None and op.name != "func.call"
    if known and not op.regions and not has_no_effect(op):
        return True
    if known and op.regions and not has_no_effect(op) and not _recursive(op):
        return True
    return any(_declares_effects(inner) for region in op.regions for block in region.blocks
               for inner in block.operations)


def _recursive(op: Operation) -> bool:
    return op.name in {"stablehlo.case", "stablehlo.if", "stablehlo.map", "stablehlo.reduce",
                       "stablehlo.reduce_window", "stablehlo.scatter",
                       "stablehlo.select_and_scatter", "stablehlo.sort", "stablehlo.while"}


def while_patterns(options: FoldOptions) -> list[RewritePattern]:
    @pattern("stablehlo.while")
    def fold_while_false(op: Operation, rewriter: PatternRewriter) -> bool:
        unused = not any(rewriter.has_uses(r) for r in op.results)
        if unused and not is_trivially_dead(op, False):
            return False
        if not _cond_is_false(op):
            return False
        for old, new in zip(op.results, op.operands, strict=True):
            rewriter.replace_all_uses_with(old, new)
        return True

    @pattern("stablehlo.while")
    def erase_dead_while_presumed_pure(op: Operation, rewriter: PatternRewriter) -> bool:
        if not options.assume_no_undeclared_side_effects:
            return False
        if any(rewriter.has_uses(r) for r in op.results) or not _cond_is_false(op):
            return False
        if _declares_effects(op):
            return False
        rewriter.erase_op(op)
        return True

    return [erase_dead_while_presumed_pure, fold_while_false]


@pattern("stablehlo.reduce")
def lower_bool_splats_into_reduce_body(op: Operation, rewriter: PatternRewriter) -> bool:
    body = op.regions[0].blocks[0]
    if len(body.operations) != 2 or body.operations[0].name not in ("stablehlo.and",
                                                                     "stablehlo.or"):
        return False
    attrs = []
    for value, arg in zip(op.operands, body.arguments, strict=True):
        splat = splat_attr(value)
        if splat is None or not isinstance(arg.type, TensorType):
            return False
        attrs.append(splat_of(arg.type, splat_scalar(splat)))
    rewriter.set_insertion_point(body.operations[0])
    for arg, attr in zip(body.arguments, attrs, strict=True):
        rewriter.replace_all_uses_with(arg, rewriter.constant(attr, arg.type))
    return True


@pattern("stablehlo.reduce")
def fold_reduce_over_no_dims(op: Operation, rewriter: PatternRewriter) -> bool:
    dims = op.attr("dimensions")
    if dims is None or list(dims.value):
        return False
    count = len(op.results)
    if any(v.type != r.type for v, r in zip(op.operands[:count], op.results, strict=True)):
        return False
    rewriter.replace_op(op, op.operands[:count])
    return True


@pattern("stablehlo.reduce")
def fold_reduce_to_constant_body(op: Operation, rewriter: PatternRewriter) -> bool:
    body = op.regions[0].blocks[0]
    if len(body.operations) != 1 or body.operations[0].name != "stablehlo.return":
        return False
    attrs = []
    for value, result in zip(body.operations[0].operands, op.results, strict=True):
        attr = constant_attr(value)
        if attr is None or not isinstance(result.type, TensorType):
            return False
        if not (attr.splat or attr.data.size == 1):
            return False
        attrs.append(splat_of(result.type, splat_scalar(attr)))
    rewriter.set_insertion_point(op)
    values = [rewriter.constant(a, a.type, location=op.location) for a in attrs]
    rewriter.replace_op(op, values)
    return True


@pattern("stablehlo.reduce")
def fold_reduce_with_outer_results(op: Operation, rewriter: PatternRewriter) -> bool:
    body = op.regions[0].blocks[0]
    ret = body.operations[-1] if body.operations else None
    if ret is None or ret.name != "stablehlo.return":
        return False
    for result, value in zip(op.results, ret.operands, strict=True):
        owner = value.owner
        inner = owner.parent if isinstance(owner, Operation) else owner
        if inner is not None and _within(inner, op) or value.type != result.type:
            return False
    rewriter.replace_op(op, list(ret.operands))
    return True


def _within(block: Block, op: Operation) -> bool:
    """Whether `block` is in one of `op`'s regions (at any depth)."""
    current: Block | None = block
    while current is not None:
        region = current.parent
        owner = region.parent if region is not None else None
        if owner is op:
            return True
        current = owner.parent if owner is not None else None
    return False


REDUCE_PATTERNS = [fold_reduce_over_no_dims, fold_reduce_to_constant_body,
                   fold_reduce_with_outer_results, lower_bool_splats_into_reduce_body]
