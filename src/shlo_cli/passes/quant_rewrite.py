"""Pieces the quantization passes share: what counts as a quantized type, which ops may be
erased once nothing uses them, and a walk over every block of a module.

Upstream runs these passes through MLIR's greedy driver, which also erases trivially dead
ops (side-effect free, results unused) in the function; `erase_dead_ops` does that part so
the printed result matches."""

from __future__ import annotations

from collections.abc import Iterator

from ..ir.core import Block, Module, Operation, Value
from ..ir.types import QuantizedType, TensorType, Type, element_type

# Ops MLIR treats as having memory effects (no `Pure`/`NoMemoryEffect` in StablehloOps.td),
# kept even when unused. Region-carrying ops are as effectful as their bodies.
_EFFECTFUL = frozenset({
    "stablehlo.custom_call", "stablehlo.send", "stablehlo.recv", "stablehlo.infeed",
    "stablehlo.outfeed", "stablehlo.all_gather", "stablehlo.all_reduce",
    "stablehlo.all_to_all", "stablehlo.collective_permute", "stablehlo.collective_broadcast",
    "stablehlo.reduce_scatter", "stablehlo.rng", "stablehlo.composite",
    "stablehlo.async_start", "stablehlo.async_done", "func.call",
})


def quant_of(t: Type) -> QuantizedType | None:
    """The `!quant.uniform` element type of `t` (or `t` itself), else None."""
    e = element_type(t)
    return e if isinstance(e, QuantizedType) else None


def any_quantized(types: list[Type]) -> bool:
    return any(quant_of(t) is not None for t in types)


def expressed(t: Type) -> Type:
    """`t` with a quantized element type replaced by its expressed type (shape kept)."""
    q = quant_of(t)
    if q is None:
        return t
    if isinstance(t, TensorType):
        return t.with_element(q.expressed)
    return q.expressed


def blocks(module: Module) -> Iterator[Block]:
    """Every block of the module, outer blocks before the blocks nested in their ops."""
    for op in module.op.walk():
        for region in op.regions:
            yield from region.blocks


def _effect_free(op: Operation) -> bool:
    if op.name in _EFFECTFUL or not op.name.startswith(("stablehlo.", "chlo.")):
        return False
    return all(_effect_free(inner) or (inner.opdef is not None and inner.opdef.terminator)
               for region in op.regions for block in region.blocks
               for inner in block.operations)


def _trivially_dead(op: Operation, used: set[Value]) -> bool:
    if not op.results or (op.opdef is not None and op.opdef.terminator):
        return False
    return _effect_free(op) and not any(r in used for r in op.results)


def erase_dead_ops(module: Module) -> None:
    """Drop side-effect free ops whose results nothing uses, until none is left."""
    while True:
        used = {v for op in module.op.walk() for v in op.operands}
        erased = False
        for block in blocks(module):
            kept = [op for op in block.operations if not _trivially_dead(op, used)]
            if len(kept) != len(block.operations):
                block.operations = kept
                erased = True
        if not erased:
            return
