"""`--stablehlo-legalize-qdq-to-quantized-op`: fold `uniform_dequantize -> op ->
uniform_quantize` into the op applied to the quantized values directly.

The pattern (upstream's StablehloLegalizeQDQToQuantizedOp.cpp) starts at a
`uniform_quantize` whose operand is the single result of a region-free op all of whose
operands (at least one) are float results of `uniform_dequantize`; the op is recreated right
after the original one with the dequantize inputs as operands and the quantize's type as
result, and takes over the quantize's uses. Nothing is erased by the pattern itself: the
greedy driver (passes/rewrite.py) then drops the ops nobody uses any more, as MLIR's does."""

from __future__ import annotations

from ..ir.core import Module, Operation
from ..ir.diagnostics import Diagnostic
from . import register_pass
from .quant_types import any_quantized
from .rewrite import GreedyConfig, PatternRewriter, apply_patterns_greedily, pattern


def _dequantized_inputs(compute: Operation) -> list | None:
    """The quantized values behind every operand of `compute`, or None when some operand is
    not a uniform_dequantize result."""
    inputs = []
    for operand in compute.operands:
        producer = operand.owner
        if not isinstance(producer, Operation) or producer.name != "stablehlo.uniform_dequantize":
            return None
        inputs.append(producer.operands[0])
    return inputs


@pattern("stablehlo.uniform_quantize")
def fuse_into_quantized_op(quantize: Operation, rewriter: PatternRewriter) -> bool:
    compute = quantize.operands[0].owner
    if not isinstance(compute, Operation) or compute.regions or len(compute.results) > 1:
        return False
    if not compute.operands or any_quantized(compute.operand_types):
        return False
    inputs = _dequantized_inputs(compute)
    if inputs is None:
        return False
    rewriter.set_insertion_point_after(compute)
    new = rewriter.create(compute.name, inputs, quantize.result_types, compute.properties,
                          compute.attributes, location=compute.location)
    rewriter.replace_all_uses_with(quantize.results[0], new.results[0])
    return True


@register_pass("stablehlo-legalize-qdq-to-quantized-op",
               "Fuse dequantize -> float op -> quantize into the quantized op.")
def legalize_qdq_to_quantized_op(module: Module) -> None:
    config = GreedyConfig()
    for func in module.functions():
        if not apply_patterns_greedily(func, [fuse_into_quantized_op], config):
            raise Diagnostic("Failed to converge StablehloLegalizeQDQToQuantizedOpPass in "
                             f"{config.max_iterations} iterations",
                             line=func.location.line or None, col=func.location.col or None)
