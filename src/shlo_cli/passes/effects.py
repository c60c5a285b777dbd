"""Which ops have side effects: what dead-code erasure and CSE may remove or merge.

MLIR reads this from each op's memory-effect traits; these tables hold the same facts for the
ops we know (from upstream's ODS: `Pure`/`NoMemoryEffect` ops are free of effects,
`RecursiveMemoryEffects` ops have the effects of the ops in their regions). Anything not
listed, unregistered ops included, has unknown effects and is never removed or merged.
"""

from __future__ import annotations

from ..ir.attributes import Attribute, BoolAttr
from ..ir.core import Operation

# StableHLO ops with effects of their own (upstream's MemoryEffects<...> or no effect trait).
_STABLEHLO_EFFECTS = frozenset(
    "all_gather all_reduce all_to_all async_done async_start collective_broadcast "
    "collective_permute collective_reduce composite custom_call infeed outfeed recv "
    "reduce_scatter rng send".split())
# Ops whose effects are those of their regions' ops.
_RECURSIVE = frozenset([*(
    f"stablehlo.{name}" for name in
    "case if map reduce reduce_window scatter select_and_scatter sort while".split()),
    "shape.assuming"])
# Other dialects' ops free of effects (chlo ops are all pure).
_PURE_DIALECTS = frozenset({"chlo", "arith", "shape", "tensor"})
# ... but for the shape dialect's run-time assertions (no Pure trait in ShapeOps.td).
_IMPURE_OPS = frozenset({"shape.cstr_broadcastable", "shape.cstr_eq", "shape.cstr_require"})
_PURE_OPS = frozenset({"func.return", "builtin.unrealized_conversion_cast", "memref.cast",
                       "bufferization.to_buffer"})
# Ops whose only effect is reading memory: removable when unused (MLIR drops read effects in
# isOpTriviallyDead), but not free of effects for CSE.
_READ_ONLY_OPS = frozenset({"bufferization.to_tensor"})
# Constant-like ops (MLIR's ConstantLike trait) and the attribute each holds its value in.
_CONSTANT_LIKE = {"stablehlo.constant": "value", "arith.constant": "value",
                  "chlo.constant": "value", "shape.const_shape": "shape",
                  "shape.const_witness": "passing"}


def has_no_effect(op: Operation) -> bool:
    """Whether running `op` has no effect beyond producing its results."""
    name = op.name
    if name in _RECURSIVE:
        return all(has_no_effect(inner) for region in op.regions for block in region.blocks
                   for inner in block.operations)
    dialect, _, short = name.partition(".")
    if dialect == "stablehlo":
        if short == "custom_call":
            flag = op.attr("has_side_effect")
            return isinstance(flag, BoolAttr) and not flag.value
        return op.opdef is not None and short not in _STABLEHLO_EFFECTS
    return op.opdef is not None and (dialect in _PURE_DIALECTS or name in _PURE_OPS) \
        and name not in _IMPURE_OPS


def is_trivially_dead(op: Operation, has_uses: bool) -> bool:
    """MLIR's isOpTriviallyDead: no result is used, it is not a terminator, no effects."""
    if has_uses or op.name.endswith("return") or (op.opdef and op.opdef.terminator):
        return False
    return has_no_effect(op) or (op.opdef is not None and op.name in _READ_ONLY_OPS)


def is_constant_like(op: Operation) -> bool:
    return op.name in _CONSTANT_LIKE and not op.operands and len(op.results) == 1


def constant_value(op: Operation) -> Attribute | None:
    """The attribute a constant-like op holds, else None."""
    if not is_constant_like(op):
        return None
    return op.attr(_CONSTANT_LIKE[op.name])
