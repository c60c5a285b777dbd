"""`--stablehlo-legalize-qdq-to-quantized-op`: fold `uniform_dequantize -> op ->
uniform_quantize` into the op applied to the quantized values directly.

The pattern (upstream's StablehloLegalizeQDQToQuantizedOp.cpp) starts at a
`uniform_quantize` whose operand is the single result of a region-free op all of whose
operands (at least one) are float results of `uniform_dequantize`; the op is recreated right
after the original one with the dequantize inputs as operands and the quantize's type as
result. Nothing is erased by the pattern itself: like MLIR's greedy driver, the pass then
drops the ops nobody uses any more."""

from __future__ import annotations

from ..ir.core import Block, Module, Operation
from . import register_pass
from .quant_rewrite import any_quantized, blocks, erase_dead_ops


def _quantized_replacement(quantize: Operation) -> Operation | None:
    """The quantized op replacing `quantize`'s result, or None when the pattern fails."""
    compute = quantize.operands[0].owner
    if not isinstance(compute, Operation) or compute.regions or len(compute.results) > 1:
        return None
    if not compute.operands or any_quantized(compute.operand_types):
        return None
    inputs = []
    for operand in compute.operands:
        producer = operand.owner
        if not isinstance(producer, Operation) or producer.name != "stablehlo.uniform_dequantize":
            return None
        inputs.append(producer.operands[0])
    return Operation(compute.name, inputs, quantize.result_types, dict(compute.properties),
                     dict(compute.attributes), location=compute.location, opdef=compute.opdef)


def _rewrite_block(block: Block) -> None:
    replacements = {}
    for quantize in [op for op in block.operations if op.name == "stablehlo.uniform_quantize"]:
        quantize.operands = [replacements.get(v, v) for v in quantize.operands]
        new = _quantized_replacement(quantize)
        if new is None:
            continue
        compute = quantize.operands[0].owner
        assert isinstance(compute, Operation) and isinstance(compute.parent, Block)
        ops = compute.parent.operations
        new.parent = compute.parent
        ops.insert(ops.index(compute) + 1, new)
        replacements[quantize.results[0]] = new.results[0]
    if replacements:
        for op in block.operations:
            for nested in op.walk():
                nested.operands = [replacements.get(v, v) for v in nested.operands]


@register_pass("stablehlo-legalize-qdq-to-quantized-op",
               "Fuse dequantize -> float op -> quantize into the quantized op.")
def legalize_qdq_to_quantized_op(module: Module) -> None:
    for block in list(blocks(module)):
        _rewrite_block(block)
    erase_dead_ops(module)
