"""`--legalize_torch_index_select`: torch_index_select as one `gather` (what XLA's
TorchIndexSelect lowers to; HLO has no such op).

result[b..., o..., i..., a...] = operand[b..., o..., index[b..., i...], a...]: the first
`batch_dims` dimensions are shared by operand and index and become gather batching
dimensions, dimension `dim` of the operand is collapsed and indexed by the index's own
elements (index_vector_dim = rank(index), an implicit trailing 1), and the other operand
dimensions are offset dimensions kept whole. gather clamps each start index into the
operand, as the interpreter's torch_index_select does. Negative `dim`/`batch_dims` count
from the ranks. A dynamic size among the operand's sliced dimensions (slice_sizes must be
constants) is refused with a located diagnostic.
"""

from __future__ import annotations

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Module, Value
from ...ir.types import DYNAMIC, I64
from ..chlo_legalize import Rewriter
from . import register_expander
from .build import cannot_expand, expand_module, struct_attr, tensor

FLAG = "legalize_torch_index_select"


def _select(rw: Rewriter) -> list[Value]:
    operand, index = rw.op.operands
    ot, it = tensor(operand), tensor(index)
    dim = int(rw.op.attr("dim").value)  # type: ignore[union-attr]
    batch = int(rw.op.attr("batch_dims").value)  # type: ignore[union-attr]
    dim += ot.rank if dim < 0 else 0
    batch += it.rank if batch < 0 else 0
    if not 0 <= dim < ot.rank or not 0 <= batch <= min(dim, it.rank):
        raise cannot_expand(rw.op, FLAG, f"dim {dim} and batch_dims {batch} do not fit an "
                                         f"operand of rank {ot.rank} and indices of rank "
                                         f"{it.rank}")
    batching = list(range(batch))
    sizes = [1 if d == dim or d < batch else ot.shape[d] for d in range(ot.rank)]
    if DYNAMIC in sizes:
        raise cannot_expand(rw.op, FLAG, f"the operand {ot} has a dynamic size in a dimension "
                                         "gather slices whole (slice_sizes must be static)")
    free = it.rank - batch
    out_rank = ot.rank - 1 + free
    dims = {"offset_dims": [*range(batch, dim), *range(dim + free, out_rank)],
            "collapsed_slice_dims": [dim],
            "operand_batching_dims": batching,
            "start_indices_batching_dims": batching,
            "start_index_map": [dim],
            "index_vector_dim": it.rank}
    return [rw.create("stablehlo.gather", [operand, index], rw.op.result_types[0],
                      {"dimension_numbers": struct_attr("gather", dims),
                       "slice_sizes": DenseArrayAttr(I64, tuple(sizes))})]


@register_expander(FLAG, "Rewrites torch_index_select as gather")
def legalize_torch_index_select(module: Module) -> None:
    expand_module(module, {"stablehlo.torch_index_select": _select})
