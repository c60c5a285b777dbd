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

from ..ir.core import Module, Operation
from ..ir.diagnostics import Diagnostic
from . import register_pass
from .quant_types import any_quantized, expressed, quant_of
from .rewrite import GreedyConfig, PatternRewriter, apply_patterns_greedily, pattern

FLOAT_FORM_OPS = (
    "abs", "add", "atan2", "batch_norm_grad", "batch_norm_inference", "batch_norm_training",
    "cbrt", "ceil", "cholesky", "clamp", "compare", "convolution", "cosine", "divide",
    "dot_general", "dot", "exponential_minus_one", "exponential", "floor", "log_plus_one",
    "logistic", "log", "maximum", "minimum", "multiply", "negate", "power",
    "reduce_precision", "remainder", "round_nearest_afz", "round_nearest_even", "rsqrt",
    "select", "sign", "sine", "sqrt", "subtract", "tanh", "tan", "triangular_solve",
)


@pattern(*(f"stablehlo.{name}" for name in FLOAT_FORM_OPS))
def through_float(op: Operation, rewriter: PatternRewriter) -> bool:
    """dequantize each quantized operand, the op on expressed types, quantize each quantized
    result back to its type."""
    if not any_quantized(op.operand_types) and not any_quantized(op.result_types):
        return False
    rewriter.set_insertion_point(op)
    operands = [v if quant_of(v.type) is None else rewriter.create(
        "stablehlo.uniform_dequantize", [v], [expressed(v.type)], location=op.location
    ).results[0] for v in op.operands]
    float_op = rewriter.create(op.name, operands, [expressed(t) for t in op.result_types],
                               op.properties, op.attributes, location=op.location)
    results = [new if quant_of(old.type) is None else rewriter.create(
        "stablehlo.uniform_quantize", [new], [old.type], location=op.location).results[0]
        for old, new in zip(op.results, float_op.results, strict=True)]
    rewriter.replace_op(op, results)
    return True


@register_pass("stablehlo-legalize-quantized-op-to-qdq",
               "Decompose quantized ops into dequantize -> float op -> quantize.")
def legalize_quantized_op_to_qdq(module: Module) -> None:
    config = GreedyConfig()
    for func in module.functions():
        if not apply_patterns_greedily(func, [through_float], config):
            raise Diagnostic("Failed to converge StablehloLegalizeQuantizedOpToQDQ in "
                             f"{config.max_iterations} iterations",
                             line=func.location.line or None, col=func.location.col or None)
