"""`--stablehlo-legalize-quantized-op-to-qdq`: the reverse of qdq-to-quantized-op. An op
with quantized operands or results becomes `uniform_dequantize` of each quantized operand,
the op on the expressed (float) types, and `uniform_quantize` of each quantized result back
to its original type (one dequantize per operand, none shared, as upstream emits them).

Only ops whose float form means the same computation are rewritten (upstream's list in
StablehloLegalizeQuantizedOpToQDQ.cpp: elementwise math, compare, select, clamp, dot,
convolution, batch norm, cholesky, triangular_solve, reduce_precision); data movement,
collectives and custom calls keep their quantized types. Ops inside regions (a reduce body)
are rewritten too; the region-carrying op itself is not."""

from __future__ import annotations

from ..ir.clone import replace_uses
from ..ir.core import Module, Value
from ..ir.types import Type
from . import register_pass
from .chlo_legalize import Rewriter, legalize_block
from .expanders.build import create
from .quant_rewrite import any_quantized, erase_dead_ops, expressed, quant_of

FLOAT_FORM_OPS = (
    "abs", "add", "atan2", "batch_norm_grad", "batch_norm_inference", "batch_norm_training",
    "cbrt", "ceil", "cholesky", "clamp", "compare", "convolution", "cosine", "divide",
    "dot_general", "dot", "exponential_minus_one", "exponential", "floor", "log_plus_one",
    "logistic", "log", "maximum", "minimum", "multiply", "negate", "power",
    "reduce_precision", "remainder", "round_nearest_afz", "round_nearest_even", "rsqrt",
    "select", "sign", "sine", "sqrt", "subtract", "tanh", "tan", "triangular_solve",
)


def _dequantize(rw: Rewriter, value: Value) -> Value:
    if quant_of(value.type) is None:
        return value
    return rw.create("stablehlo.uniform_dequantize", [value], expressed(value.type))


def _quantize(rw: Rewriter, value: Value, target: Type) -> Value:
    if quant_of(target) is None:
        return value
    return rw.create("stablehlo.uniform_quantize", [value], target)


def _through_float(rw: Rewriter) -> list[Value] | None:
    op = rw.op
    if not any_quantized(op.operand_types) and not any_quantized(op.result_types):
        return None
    operands = [_dequantize(rw, v) for v in op.operands]
    float_op = create(rw, op.name, operands, [expressed(t) for t in op.result_types],
                      op.properties)
    float_op.attributes = dict(op.attributes)
    return [_quantize(rw, new, old.type)
            for old, new in zip(op.results, float_op.results, strict=True)]


PATTERNS = {f"stablehlo.{name}": [_through_float] for name in FLOAT_FORM_OPS}


@register_pass("stablehlo-legalize-quantized-op-to-qdq",
               "Decompose quantized ops into dequantize -> float op -> quantize.")
def legalize_quantized_op_to_qdq(module: Module) -> None:
    replacements: dict[Value, Value] = {}
    for block in module.op.regions[0].blocks:
        legalize_block(block, replacements, PATTERNS)
    replace_uses(module.op, replacements)
    erase_dead_ops(module)
