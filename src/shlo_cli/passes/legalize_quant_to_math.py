"""`--stablehlo-legalize-quant-to-math`: rewrite every use of `!quant.uniform` types into
integer and float math on the storage integers (upstream's StablehloLegalizeQuantToMath.cpp,
a partial dialect conversion).

Each op is visited once, outer ops before the ops in their regions, and (like MLIR's
conversion driver) is legal when none of its operand or result types is quantized. An
illegal op is rewritten by the first rule that applies:

1. uniform_quantize / uniform_dequantize / add / dot / dot_general / convolution get their
   integer lowering (quant_math_build, quant_math_dot);
2. data movement and the other ops whose storage-integer form means the same (reshape,
   slice, gather, pad, select, concatenate, constant, reduce_window, maximum / minimum with
   one shared per-tensor type, composite, ...) keep their operation and just take storage
   types, regions included;
3. ops with a float meaning (legalize_quantized_op_to_qdq's list) become dequantize -> float
   op -> quantize, each of those lowered in turn.

func.func signatures and block arguments take storage types. An op no rule takes (reduce,
sort, while, collectives, custom_call, tuple, ...) fails the pass with upstream's error
`failed to legalize operation '<name>' that was explicitly marked illegal`, after any error a
rule reported itself (a requantize that changes the quantization axis).
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.attributes import TypeAttr
from ..ir.core import Block, Module, Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.types import F32, FunctionType, QuantizedType, TensorType, Type
from . import register_pass
from .chlo_legalize import Rewriter
from .expanders.build import create
from .legalize_quantized_op_to_qdq import FLOAT_FORM_OPS
from .quant_math_build import (
    add_per_axis,
    add_per_tensor,
    dequantize,
    quantize,
    requantize,
    storage_of,
    storage_type,
)
from .quant_math_dot import lower_convolution, lower_dot, lower_dot_general
from .quant_types import expressed, quant_of

# Ops whose storage-integer form computes the same thing (upstream's ConvertGenericOp).
_TYPE_ONLY = frozenset(f"stablehlo.{name}" for name in (
    "bitcast_convert", "broadcast_in_dim", "composite", "concatenate", "constant",
    "dynamic_reshape", "dynamic_slice", "gather", "maximum", "minimum", "pad",
    "reduce_window", "reshape", "return", "select", "slice", "transpose",
    "get_dimension_size", "dynamic_broadcast_in_dim"))
_QDQ = frozenset(f"stablehlo.{name}" for name in FLOAT_FORM_OPS)


class _RuleError(Exception):
    """A rule's own error (reported before the legalization failure)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Conversion:
    """One run of the pass: value replacements, and each converted block argument's
    original type (rules look at the types ops had before conversion)."""

    def __init__(self) -> None:
        self.replacements: dict[Value, Value] = {}
        self.original: dict[Value, Type] = {}

    def type_before(self, v: Value) -> Type:
        return self.original.get(v, v.type)

    def retype_block(self, block: Block) -> None:
        for arg in block.arguments:
            new = storage_type(arg.type)
            if new != arg.type:
                self.original[arg] = arg.type
                arg.type = new

    def convert_block(self, block: Block) -> None:
        new_ops: list[Operation] = []
        for op in block.operations:
            before = [self.type_before(v) for v in op.operands]
            op.operands = [self.replacements.get(v, v) for v in op.operands]
            if op.name == "func.func":
                self._convert_signature(op)
                new_ops.append(op)
                self._convert_regions(op)
                continue
            if not any(quant_of(t) for t in (*before, *op.result_types)):
                new_ops.append(op)
                self._convert_regions(op)
                continue
            if op.name == "func.return":
                new_ops.append(op)
                continue
            rw = Rewriter(op)
            values = self._apply_rules(rw, before)
            new_ops.extend(rw.ops)
            for old, new in zip(op.results, values, strict=True):
                self.replacements[old] = new
            for created in rw.ops:
                if created.regions:
                    self._convert_regions(created)
        block.operations = []
        for op in new_ops:
            block.append(op)

    def _convert_regions(self, op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                self.convert_block(block)

    def _convert_signature(self, func: Operation) -> None:
        attr = func.properties.get("function_type")
        if isinstance(attr, TypeAttr) and isinstance(attr.type, FunctionType):
            ftype = attr.type
            func.properties["function_type"] = TypeAttr(FunctionType(
                tuple(storage_type(t) for t in ftype.inputs),
                tuple(storage_type(t) for t in ftype.results)))
        for region in func.regions:
            for block in region.blocks:
                self.retype_block(block)

    def _apply_rules(self, rw: Rewriter, before: list[Type]) -> list[Value]:
        op = rw.op
        errors: list[Diagnostic] = []
        rule = _RULES.get(op.name)
        values = None
        if rule is not None:
            try:
                values = rule(rw, before)
            except _RuleError as e:
                errors.append(_at(op, e.message))
                values = None
            if values is None:
                rw.ops.clear()
        if values is None and op.name in _TYPE_ONLY:
            values = _type_only(self, rw, before)
        if values is None and op.name in _QDQ:
            try:
                values = _through_float(rw, before)
            except _RuleError as e:
                errors.append(_at(op, e.message))
                values = None
                rw.ops.clear()
        if values is None:
            failure = _at(op, f"failed to legalize operation '{op.name}' that was explicitly "
                              "marked illegal")
            if errors:
                first = errors[0]
                first.notes = [*errors[1:], failure]
                raise first
            raise failure
        return values


def _at(op: Operation, message: str) -> Diagnostic:
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


# ---- rules -------------------------------------------------------------------------------


Rule = Callable[[Rewriter, list[Type]], "list[Value] | None"]


def _uniform_quantize(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    op = rw.op
    source = before[0]
    target = quant_of(op.result_types[0])
    result = op.result_types[0]
    if not isinstance(source, TensorType) or not isinstance(result, TensorType):
        return None
    if source.element == F32 and target is not None:
        return [quantize(rw, op.operands[0], source.with_element(F32), target)]
    if isinstance(source.element, QuantizedType) and target is not None:
        if (source.element.quantized_dimension is not None
                and target.quantized_dimension is not None
                and source.element.quantized_dimension != target.quantized_dimension):
            raise _RuleError("Cannot requantize while changing quantization_axis")
        return [requantize(rw, op.operands[0], source.element, target,
                           result.with_element(storage_of(target)))]
    raise _RuleError("Unsupported input element type.")


def _uniform_dequantize(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    q = quant_of(before[0])
    if q is None:
        return None
    if q.expressed != F32:  # upstream's lowering yields f32 whatever the expressed type
        raise _RuleError("Unsupported output element type.")
    return [dequantize(rw, rw.op.operands[0], q)]


def _add(rw: Rewriter, before: list[Type]) -> list[Value] | None:
    op = rw.op
    lq, rq, out = quant_of(before[0]), quant_of(before[1]), quant_of(op.result_types[0])
    if lq is None or rq is None or out is None:
        return None
    if any(q.quantized_dimension is not None for q in (lq, rq, out)):
        if not (lq == rq == out) or storage_of(lq).width != 32:
            return None
        return [add_per_axis(rw, op.operands[0], op.operands[1], lq)]
    result = op.result_types[0]
    if not isinstance(result, TensorType):
        return None
    return [add_per_tensor(rw, op.operands[0], op.operands[1], lq, rq, out, result)]


_RULES: dict[str, Rule] = {
    "stablehlo.uniform_quantize": _uniform_quantize,
    "stablehlo.uniform_dequantize": _uniform_dequantize,
    "stablehlo.add": _add,
    "stablehlo.dot": lower_dot,
    "stablehlo.dot_general": lower_dot_general,
    "stablehlo.convolution": lower_convolution,
}


def _type_only(conv: Conversion, rw: Rewriter, before: list[Type]) -> list[Value] | None:
    """The same op on storage types; its regions move over with storage-typed arguments."""
    op = rw.op
    if op.name in ("stablehlo.maximum", "stablehlo.minimum"):
        types = [quant_of(before[0]), quant_of(before[1]), quant_of(op.result_types[0])]
        if any(q is None or q.quantized_dimension is not None for q in types):
            return None
        if not types[0] == types[1] == types[2]:
            return None
    regions = list(op.regions)
    for region in regions:
        for block in region.blocks:
            conv.retype_block(block)
    new = create(rw, op.name, op.operands, [storage_type(t) for t in op.result_types],
                 op.properties, regions)
    new.attributes = dict(op.attributes)
    new.successors = list(op.successors)
    op.regions = []
    return list(new.results)


def _through_float(rw: Rewriter, before: list[Type]) -> list[Value]:
    """dequantize -> the op on expressed types -> quantize (each lowered right away)."""
    op = rw.op
    # Upstream's dequantize always yields f32 and its quantize only takes f32.
    if any(q.expressed != F32 for q in map(quant_of, (*before, *op.result_types)) if q):
        raise _RuleError("Unsupported input element type.")
    operands = []
    for value, t in zip(op.operands, before, strict=True):
        q = quant_of(t)
        operands.append(value if q is None else dequantize(rw, value, q))
    float_op = create(rw, op.name, operands, [expressed(t) for t in op.result_types],
                      op.properties)
    float_op.attributes = dict(op.attributes)
    results = []
    for old, new in zip(op.results, float_op.results, strict=True):
        q = quant_of(old.type)
        if q is None:
            results.append(new)
            continue
        results.append(quantize(rw, new, new.type, q))  # type: ignore[arg-type]
    return results


@register_pass("stablehlo-legalize-quant-to-math",
               "Lower quantized types and ops to integer and float math on storage values.")
def legalize_quant_to_math(module: Module) -> None:
    conv = Conversion()
    for region in module.op.regions:
        for block in region.blocks:
            conv.convert_block(block)
