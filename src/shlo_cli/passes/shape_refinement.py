"""The op-level half of `--stablehlo-refine-shapes`: giving values more specific types in
place, and the patterns that do it for each op from its inferred result shapes.

Facts from upstream's StablehloRefineShapes.cpp: a value is only refined when every user
accepts it (StableHLO and CHLO ops, `func.return`, `func.call`); a value returned by the
function gets an `unrealized_conversion_cast` back to its old type, which a pattern on
`func.return` then folds into the function's type.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.attributes import TypeAttr
from ..ir.core import Operation, Value
from ..ir.types import DYNAMIC, FunctionType, TensorType, TupleType, Type, UnrankedTensorType
from .rewrite import PatternRewriter, RewritePattern, pattern
from .shape_facts import flatten_types, shape_refinements
from .shape_inference import INFERENCES, Dims, infer_shapes

OPERAND_WRAPPER = "stablehlo.shape_refinement_operand_wrapper"
_CAST = "builtin.unrealized_conversion_cast"


def most_specific(a: Type, b: Type) -> Type | None:
    """hlo::inferMostSpecificType of two types; None when they contradict each other."""
    if isinstance(a, TupleType) or isinstance(b, TupleType):
        if not (isinstance(a, TupleType) and isinstance(b, TupleType)) \
                or len(a.types) != len(b.types):
            return None
        maybe = [most_specific(x, y) for x, y in zip(a.types, b.types, strict=True)]
        parts = [p for p in maybe if p is not None]
        return TupleType(tuple(parts)) if len(parts) == len(maybe) else None
    if not isinstance(a, TensorType):
        return b if isinstance(b, TensorType) else a
    if not isinstance(b, TensorType):
        return a
    if a.rank != b.rank:
        return None
    dims = []
    for x, y in zip(a.shape, b.shape, strict=True):
        if x == DYNAMIC:
            dims.append(y)
        elif y == DYNAMIC or x == y:
            dims.append(x)
        else:
            return None
    if tuple(dims) == a.shape:
        return a
    return TensorType(tuple(dims), a.element, a.encoding)


def _accepts_refinement(user: Operation) -> bool:
    return user.dialect in ("stablehlo", "chlo", "sdy") or user.name in ("func.return",
                                                                        "func.call")


def refine_values(rw: PatternRewriter, op: Operation, values: Sequence[Value],
                  types: Sequence[Type]) -> bool:
    """Give `values` the most specific of their types and `types`; False when nothing
    changes or a user could not take the new type."""
    if len(values) != len(types):
        return False
    refined = [most_specific(v.type, t) for v, t in zip(values, types, strict=True)]
    if any(t is None for t in refined):
        return False
    if all(v.type == t for v, t in zip(values, refined, strict=True)):
        return False
    for value, new in zip(values, refined, strict=True):
        if value.type != new and not all(_accepts_refinement(u) for u in rw.users(value)):
            return False
    for value, new in zip(values, refined, strict=True):
        if new is None or value.type == new:
            continue
        old = value.type
        value.type = new
        returns = [u for u in rw.users(value) if u.name == "func.return"]
        if returns:
            rw.set_insertion_point_after(op)
            cast = rw.create(_CAST, [value], [old], location=op.location)
            for user in dict.fromkeys(returns):
                rw.set_operands(user, [cast.results[0] if v is value else v
                                       for v in user.operands])
    return True


def refine_result_types(rw: PatternRewriter, op: Operation, types: Sequence[Type]) -> bool:
    if not refine_values(rw, op, op.results, types):
        return False
    for result in op.results:
        for user in dict.fromkeys(rw.users(result)):
            rw.modified(user)
    return True


def _unflatten(prototype: Sequence[Type], flat: list[Type]) -> list[Type]:
    out: list[Type] = []
    for t in prototype:
        if isinstance(t, TupleType):
            out.append(TupleType(tuple(_unflatten(t.types, flat))))
        else:
            out.append(flat.pop(0))
    return out


def refine_result_dims(rw: PatternRewriter, op: Operation,
                       dims: Sequence[Dims | None]) -> bool:
    """Refine each (tuple-flattened) result to the given dimensions (None: leave it)."""
    current = flatten_types(op.result_types)
    if len(current) != len(dims):
        return False
    refined: list[Type] = []
    for t, shape in zip(current, dims, strict=True):
        if shape is None:
            refined.append(t)
            continue
        if not isinstance(t, TensorType | UnrankedTensorType):
            return False
        if isinstance(t, TensorType):
            if t.encoding is not None:
                return False
            if t.rank != len(shape) or any(
                    a != DYNAMIC and b != DYNAMIC and a != b
                    for a, b in zip(t.shape, shape, strict=True)):
                return False
        refined.append(TensorType(tuple(shape), t.element))
    return refine_result_types(rw, op, _unflatten(op.result_types, refined))


# -- patterns --------------------------------------------------------------------------------

# Ops with a pattern of their own upstream (tried before the shape folder); the others are
# refined through InferTypeOpInterface, after it.
_DEDICATED = (
    "stablehlo.all_gather", "stablehlo.bitcast_convert", "stablehlo.convert",
    "stablehlo.convolution", "stablehlo.dot_general", "stablehlo.dot", "chlo.ragged_dot",
    "stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_conv", "stablehlo.dynamic_iota",
    "stablehlo.dynamic_pad", "stablehlo.dynamic_reshape", "stablehlo.real_dynamic_slice",
    "stablehlo.reduce_scatter", "stablehlo.rng", "stablehlo.uniform_quantize")


def _refine_from_inference(op: Operation, rw: PatternRewriter) -> bool:
    if all(isinstance(t, TensorType) and t.is_static for t in op.result_types):
        return False  # nothing to refine (the greedy driver revisits every refined op)
    dims = infer_shapes(op)
    if dims is None or len(dims) != len(op.results):
        return False
    flat: list[Dims | None] = []
    for t, shape in zip(op.result_types, dims, strict=True):
        if isinstance(t, TupleType):
            flat += [None] * len(flatten_types([t]))
        else:
            flat.append(shape)
    return refine_result_dims(rw, op, flat)


refine_dedicated = pattern(*_DEDICATED, benefit=2)(_refine_from_inference)
refine_inferred = pattern(*(n for n in INFERENCES if n not in _DEDICATED),
                          benefit=0)(_refine_from_inference)


@pattern("stablehlo.custom_call", benefit=2)
def refine_custom_call(op: Operation, rw: PatternRewriter) -> bool:
    """Results take the shapes their `indices_of_shape_operands` name; the operand wrapper
    `--stablehlo-refine-arguments` inserts then goes away."""
    try:
        refinements = shape_refinements(op)
    except Exception:  # noqa: BLE001 - a malformed attribute is the verifier's to report
        return False
    if refinements is None or not refine_result_dims(rw, op, refinements):
        return False
    target = op.attr("call_target_name")
    if target is not None and target.value == OPERAND_WRAPPER:
        operand = op.operands[0]
        if operand.type == op.results[0].type:
            rw.replace_all_uses_with(op.results[0], operand)
        rw.erase_op(op)
    return True


@pattern("stablehlo.while", benefit=2)
def refine_while_arguments(op: Operation, rw: PatternRewriter) -> bool:
    """Push the operand types into both regions' block arguments."""
    types = op.operand_types
    cond = refine_values(rw, op, op.regions[0].entry.arguments, types)
    body = refine_values(rw, op, op.regions[1].entry.arguments, types)
    if cond or body:
        rw.modified(op)
        return True
    return False


@pattern("func.return", benefit=2)
def update_function_type(op: Operation, rw: PatternRewriter) -> bool:
    """Drop casts from a refined value back to its old type, and retype the function."""
    casts = []
    for value in op.operands:
        cast = value.owner
        if not isinstance(cast, Operation) or cast.name != _CAST or len(cast.operands) != 1 \
                or len(cast.results) != 1:
            continue
        source, dest = cast.operands[0].type, cast.results[0].type
        best = most_specific(source, dest)
        if best is None or best == dest:
            continue
        if cast not in casts:
            casts.append(cast)
    if not casts:
        return False
    for cast in casts:
        rw.replace_op(cast, [cast.operands[0]])
    func = op.parent_op
    if func is None or func.name != "func.func":
        return True
    ftype: FunctionType = func.properties["function_type"].value
    func.properties["function_type"] = TypeAttr(FunctionType(
        ftype.inputs, tuple(v.type for v in op.operands)))
    return True


@pattern("stablehlo.return", benefit=2)
def update_region_type(op: Operation, rw: PatternRewriter) -> bool:
    """A case/if branch now returns more specific types: revisit the case/if."""
    parent = op.parent_op
    if parent is None or parent.name not in ("stablehlo.case", "stablehlo.if"):
        return False
    for region_type, returned in zip(parent.result_types, op.operand_types, strict=False):
        best = most_specific(region_type, returned)
        if best is not None and best != region_type:
            rw.modified(parent)
            return True
    return False


OP_PATTERNS: tuple[RewritePattern, ...] = (
    refine_dedicated, refine_custom_call, refine_while_arguments, update_function_type,
    update_region_type, refine_inferred)
