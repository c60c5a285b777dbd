"""`--hlo-test-infer`: upstream's test-only pass exposing type inference. Its one operand
names an op whose inference is asked:

- `hlo_test_infer.get_return_types` / `get_return_type_components` become
  `hlo_test_infer.return_types` / `return_type_components` carrying `types0 = T, ...`
  (components with no element type show `index`);
- `hlo_test_infer.reify_return_type_shapes` is replaced by the run-time result shape, built
  from `shape.shape_of` / `shape.broadcast`.

An op without inference is left alone; an inference failure is reported (not fatal, as
upstream's pattern just does not apply). Ops left unused and free of effects are erased
afterwards, as MLIR's greedy driver does.
"""

from __future__ import annotations

from ..ir import registry
from ..ir.attributes import TypeAttr
from ..ir.core import Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import DYNAMIC, IndexType, TensorType, Type
from . import emit, register_pass
from .hlo_test_speculatability import erase, erase_dead, use_counts
from .infer_types import (
    CHLO_BROADCAST_BINARY,
    InferenceFailed,
    infer_components,
    infer_types,
)
from .reify_shapes import RULES as REIFY_RULES
from .reify_shapes import reify

GET_TYPES = "hlo_test_infer.get_return_types"
GET_COMPONENTS = "hlo_test_infer.get_return_type_components"
REIFY = "hlo_test_infer.reify_return_type_shapes"

# Ops inferring only shape components (no result types: get_return_types leaves them).
NO_ELEMENT_COMPONENTS = frozenset({"stablehlo.dot", "stablehlo.dot_general"})

# Ops whose result shape is their first operand's (reified as its shape.shape_of).
SHAPE_OF_FIRST_OPERAND = frozenset(
    {"chlo.constant_like"} | {
        "stablehlo." + name for name in (
            "abs", "add", "and", "atan2", "cbrt", "ceil", "clamp", "compare", "complex",
            "convert", "cosine", "count_leading_zeros", "divide", "exponential",
            "exponential_minus_one", "floor", "imag", "is_finite", "log", "log_plus_one",
            "logistic", "maximum", "minimum", "multiply", "negate", "not", "or", "popcnt",
            "power", "real", "reduce_precision", "remainder", "reverse", "round_nearest_afz",
            "round_nearest_even", "rsqrt", "shift_left", "shift_right_arithmetic",
            "shift_right_logical", "sign", "sine", "sqrt", "subtract", "tan", "tanh", "xor")})


@register_pass("hlo-test-infer", "Test result-type inference and shape reification.")
def hlo_test_infer(module: Module) -> None:
    uses = use_counts(module.op)
    replacements: dict[Value, Value] = {}
    for op in list(module.op.walk()):
        if op.name not in (GET_TYPES, GET_COMPONENTS, REIFY) or op.parent is None:
            continue
        if len(op.operands) != 1 or not isinstance(op.operands[0].owner, Operation):
            continue
        source = op.operands[0].owner
        try:
            if op.name == REIFY:
                shapes = _reify(op, source)
                if shapes is None or len(shapes) != len(op.results):
                    continue
                replacements.update(zip(op.results, shapes, strict=True))
                erase(op, uses)
            else:
                _annotate(op, source)
        except InferenceFailed as e:
            emit(e.diag)
    if replacements:
        for user in module.op.walk():
            user.operands = [replacements.get(v, v) for v in user.operands]
    erase_dead(module.op, use_counts(module.op))


def _annotate(op: Operation, source: Operation) -> None:
    components = op.name == GET_COMPONENTS
    if components:
        types = infer_components(source)
    elif source.name in NO_ELEMENT_COMPONENTS:
        return  # no InferTypeOpInterface: only shape components
    else:
        types = infer_types(source)
    if types is None:
        return
    name = ("hlo_test_infer.return_type_components" if components
            else "hlo_test_infer.return_types")
    attributes = dict(op.attributes)
    for i, t in enumerate(types):
        attributes[f"types{i}"] = TypeAttr(t)
    new = Operation(name, list(op.operands), op.result_types, dict(op.properties),
                    attributes, location=op.location, opdef=registry.lookup(name))
    block = op.parent
    assert block is not None
    block.operations[block.operations.index(op)] = new
    new.parent, op.parent = block, None
    for old, result in zip(op.results, new.results, strict=True):
        result.name_hint = old.name_hint
    mapping = dict(zip(op.results, new.results, strict=True))
    root = block.parent.parent if block.parent is not None else None
    for user in (root.walk() if root is not None else block.operations):
        user.operands = [mapping.get(v, v) for v in user.operands]


def _reify(op: Operation, source: Operation) -> list[Value] | None:
    """Values holding `source`'s result shapes, built in front of `op`; None if `source`
    has no reification."""
    built: list[Operation] = []
    name = source.name
    if name in CHLO_BROADCAST_BINARY:
        dims = source.attr("broadcast_dimensions")
        if dims is not None and not _prefix_padded(source.operands[0], source.operands[1],
                                                   [int(d) for d in dims.value]):
            emit(Diagnostic("unsupported non prefix-padded dynamic rank "
                            f"broadcast_dimensions = {dims}", severity="warning",
                            line=source.location.line or None,
                            col=source.location.col or None))
            return None
        result = _broadcast_shapes(op, built, source.operands[:2])
    elif name == "chlo.broadcast_select":
        result = _broadcast_shapes(op, built, source.operands)
    elif name == "stablehlo.dynamic_iota":
        return [source.operands[0]]  # its operand is the result shape
    elif name in REIFY_RULES:
        return reify(op, source)
    elif name in SHAPE_OF_FIRST_OPERAND and source.operands:
        result = _shape_of(op, built, source.operands[0])
    else:
        return None
    block = op.parent
    assert block is not None
    at = block.operations.index(op)
    for new in built:
        new.parent = block
    block.operations[at:at] = built
    return [result]


def _prefix_padded(lhs: Value, rhs: Value, dims: list[int]) -> bool:
    """upstream isLegalNumpyRankedBroadcast: `dims` only left-pads the lower rank."""
    a, b = lhs.type, rhs.type
    if not isinstance(a, TensorType) or not isinstance(b, TensorType):
        return False
    small, large = sorted((len(a.shape), len(b.shape)))
    if small == large:
        return True
    return dims == list(range(large - small, large))


def _create(op: Operation, built: list[Operation], name: str, operands: list[Value],
            result: Type) -> Value:
    new = Operation(name, operands, [result], location=op.location,
                    opdef=registry.lookup(name))
    built.append(new)
    return new.results[0]


def _shape_of(op: Operation, built: list[Operation], value: Value) -> Value:
    t = value.type
    rank = len(t.shape) if isinstance(t, TensorType) else DYNAMIC
    return _create(op, built, "shape.shape_of", [value], TensorType((rank,), IndexType()))


def _broadcast_shapes(op: Operation, built: list[Operation], values: list[Value]) -> Value:
    shapes = [_shape_of(op, built, v) for v in values]
    if len(shapes) == 1:
        return shapes[0]
    ranks = [s.type.shape[0] if isinstance(s.type, TensorType) else DYNAMIC for s in shapes]
    rank = DYNAMIC if DYNAMIC in ranks else max(ranks)
    return _create(op, built, "shape.broadcast", shapes, TensorType((rank,), IndexType()))
