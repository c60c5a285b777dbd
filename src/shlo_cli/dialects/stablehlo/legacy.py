"""StableHLO ops kept for old programs or outside the spec: `torch_index_select`,
`cross-replica-sum`, `trace`, and the asynchronous pair `async_start` / `async_done`.

None of them has a section in spec.md; their meaning comes from StablehloOps.td and XLA:
- `torch_index_select` is PyTorch's `index_select` with leading batch dimensions (XLA's
  TorchIndexSelect, which lowers to `gather` and so clamps indices into range);
- `cross-replica-sum` is XLA's CrossReplicaSum: an `all_reduce` with `add` across replicas;
- `trace` only tags a value for tracing, so it computes nothing;
- `async_start` runs the single collective (or slice) in its region and returns a future of
  its results; `async_done` waits for that future and returns the results.
Upstream prints all of them in the generic form except `trace`
(`stablehlo.trace %arg0, "tag" : tensor<3xi64>`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...ir.attributes import IntegerAttr, StringAttr
from ...ir.context import Context
from ...ir.core import Operation
from ...ir.diagnostics import Diagnostic, EvaluationError, SourceFile
from ...ir.types import OpaqueType, Type, element_type, numpy_dtype
from ...ir.verifier import inference_error, inferred_type_mismatch
from ..asm import Format
from ..registry import define_op
from .collectives import _groups, _own_group, _process
from .elementwise_verify import compatible, error, quoted

FUTURE = "!stablehlo.future"

# Ops an async_start region may wrap (upstream: "a collective or slice operation").
ASYNC_WRAPPABLE = frozenset("stablehlo." + name for name in (
    "all_gather", "all_reduce", "all_to_all", "collective_broadcast", "collective_permute",
    "collective_reduce", "reduce_scatter", "slice", "dynamic_slice"))


# ---- shared verifier pieces ----------------------------------------------------------------


def _required_int(op: Operation, name: str) -> int:
    """An I64Attr the op cannot do without (ODS: `requires attribute 'name'`)."""
    attr = op.attr(name)
    if attr is None:
        raise error(op, f"requires attribute '{name}'")
    if not isinstance(attr, IntegerAttr):
        raise error(op, f"attribute '{name}' failed to satisfy constraint: 64-bit signless "
                        "integer attribute")
    return int(attr.value)


def _infer_failed(op: Operation, message: str) -> Diagnostic:
    """A failed type inference whose reason upstream words as an op error (emitOpError),
    followed by MLIR's `failed to infer returned types`."""
    return inference_error(op, f"'{op.name}' op {message}")


# ---- torch_index_select --------------------------------------------------------------------


def verify_torch_index_select(op: Operation) -> None:
    """Upstream checks only that both integer attributes are present."""
    _required_int(op, "dim")
    _required_int(op, "batch_dims")


@define_op("stablehlo.torch_index_select", operands=("operand", "index"), results=1,
           attributes=("dim", "batch_dims"), verify=verify_torch_index_select)
def torch_index_select(operand: np.ndarray, index: np.ndarray, *, dim: int, batch_dims: int,
                       result_type: Type) -> np.ndarray:
    """result[b..., o..., i..., a...] = operand[b..., o..., index[b..., i...], a...]: the first
    `batch_dims` dimensions are shared by operand and index, dimension `dim` of operand is
    replaced by the non-batch dimensions of index. Negative `dim` counts from the operand's
    rank, negative `batch_dims` from the index's rank. Indices are clamped into
    [0, operand.shape[dim]) as the `gather` XLA lowers this op to does."""
    rank, index_rank = operand.ndim, index.ndim
    d = dim + rank if dim < 0 else dim
    b = batch_dims + index_rank if batch_dims < 0 else batch_dims
    if not 0 <= d < rank:
        raise EvaluationError(f"dim {dim} is out of range for an operand of rank {rank}")
    if not 0 <= b <= min(d, index_rank):
        raise EvaluationError(f"batch_dims {batch_dims} must be in [0, min(dim, rank(index))]"
                              f" = [0, {min(d, index_rank)}]")
    if operand.shape[:b] != index.shape[:b]:
        raise EvaluationError(f"batch dimensions of operand {list(operand.shape[:b])} and "
                              f"index {list(index.shape[:b])} differ")
    if operand.shape[d] == 0:
        raise EvaluationError(f"cannot select from dimension {d} of size 0")
    free = index_rank - b
    out_rank = rank - 1 + free
    positions = list(range(b)) + list(range(d, d + free))  # result axes of index's axes

    def along(result_axis: int, size: int) -> np.ndarray:
        shape = [1] * out_rank
        shape[result_axis] = size
        return np.arange(size).reshape(shape)

    index_shape = [1] * out_rank
    for axis, position in enumerate(positions):
        index_shape[position] = index.shape[axis]
    selected = np.clip(index.astype(np.int64), 0, operand.shape[d] - 1).reshape(index_shape)
    keys = [along(k, operand.shape[k]) for k in range(d)] + [selected] + [
        along(k - 1 + free, operand.shape[k]) for k in range(d + 1, rank)]
    result = operand[tuple(keys)] if keys else operand
    expected = tuple(getattr(result_type, "shape", result.shape))
    if len(expected) != result.ndim or any(
            e >= 0 and e != r for e, r in zip(expected, result.shape, strict=True)):
        raise EvaluationError(f"result shape {list(result.shape)} does not match the result "
                              f"type {result_type}")
    return np.require(result, requirements="C")  # keeps 0-d results 0-d


# ---- cross-replica-sum ---------------------------------------------------------------------


def verify_cross_replica_sum(op: Operation) -> None:
    """replica_groups is required; the result type is the operand's."""
    if op.attr("replica_groups") is None:
        raise error(op, "requires attribute 'replica_groups'")
    if len(op.operands) == 1 and len(op.results) == 1:
        inferred = op.operands[0].type
        if not compatible(inferred, op.results[0].type):
            raise inferred_type_mismatch(op, quoted([inferred]))


@define_op("stablehlo.cross-replica-sum", operands=("operand",), results=1,
           attributes=("replica_groups",), verify=verify_cross_replica_sum)
def cross_replica_sum(operand: np.ndarray, *, replica_groups: Any, ctx: Context,
                      op: Operation, result_type: Type) -> np.ndarray:
    """Within each group of replicas (every replica when replica_groups is empty), the sum
    of the operands of all its processes, in process id order, given to each of them."""
    process = _process(ctx, op)
    groups = _groups(replica_groups) or [list(range(process.grid.num_replicas))]
    group = _own_group(process.grid.cross_replica(groups), process)
    values = process.rendezvous(op.name, 0, group, [operand])
    dtype = numpy_dtype(element_type(result_type))
    total = np.asarray(values[min(values)][0], dtype=dtype)
    with np.errstate(all="ignore"):
        for pid in sorted(values)[1:]:
            total = np.asarray(np.add(total, np.asarray(values[pid][0], dtype=dtype)),
                               dtype=dtype)
    return np.require(total, requirements="C")  # keeps 0-d results 0-d


# ---- trace ---------------------------------------------------------------------------------


def verify_trace(op: Operation) -> None:
    if not isinstance(op.attr("tag"), StringAttr):
        raise error(op, "requires attribute 'tag'")


@define_op("stablehlo.trace", operands=("operand",), results=0, attributes=("tag",),
           syntax=Format("$operand `,` $tag", operands=("operand",), types="operands",
                         attrs={"tag": "string"}, num_results=0), verify=verify_trace)
def trace(operand: np.ndarray, *, tag: str) -> None:
    """Marks `operand` with `tag` for tracing tools; the program's values are unchanged."""
    return None


# ---- async_start / async_done --------------------------------------------------------------


@dataclass(frozen=True)
class Future:
    """The value of a `!stablehlo.future<...>`: the results of the wrapped op."""

    values: tuple[Any, ...]


def future_types(t: Type) -> list[Type] | None:
    """The types a `!stablehlo.future<T, ...>` carries (None for any other type)."""
    text = str(t)
    if not isinstance(t, OpaqueType) or not text.startswith(FUTURE + "<"):
        return None
    from ...ir.parser import Parser  # the parser imports the dialects; import it late

    inner = text[len(FUTURE) + 1:-1]
    if not inner.strip():
        return []
    parser = Parser(SourceFile("<future>", inner))
    try:
        return parser.parse_type_list()
    except Diagnostic:
        return None


def future_of(types: Sequence[Type]) -> str:
    return f"{FUTURE}<{', '.join(str(t) for t in types)}>"


def verify_async_start(op: Operation) -> None:
    """One region whose block takes the operands and holds one collective (or slice) and a
    return; the result is a future of what that return gives."""
    if len(op.regions) != 1:
        raise error(op, "requires one region")
    blocks = op.regions[0].blocks
    arguments = blocks[0].arguments if blocks else []
    if len(op.operands) != len(arguments):
        raise _infer_failed(op, f"number of operands ({len(op.operands)}) must match number "
                                f"of region arguments ({len(arguments)})")
    for i, (value, argument) in enumerate(zip(op.operands, arguments, strict=True)):
        if value.type != argument.type:
            raise _infer_failed(op, f"operand type '{value.type}' at index {i} must match "
                                    f"region argument type '{argument.type}'")
    operations = blocks[0].operations if len(blocks) == 1 else []
    if len(operations) != 2:
        raise _infer_failed(op, "region must contain exactly one operation and a return")
    if operations[0].name not in ASYNC_WRAPPABLE:
        raise _infer_failed(op, "region must contain a collective or slice operation")
    returned = [v.type for v in operations[1].operands]
    carried = future_types(op.results[0].type) if len(op.results) == 1 else None
    if carried is None or len(carried) != len(returned) or not all(
            compatible(a, b) for a, b in zip(returned, carried, strict=True)):
        raise inferred_type_mismatch(op, f"'{future_of(returned)}'")


@define_op("stablehlo.async_start", operands=("*operands",), results=1, regions=("body",),
           verify=verify_async_start)
def async_start(*operands: Any, body: Callable[..., list]) -> Future:
    """Starts the wrapped op on the operands. The interpreter runs it to completion at once
    (its processes meet here), which an asynchronous run may only reorder, not change."""
    return Future(tuple(body(*operands)))


def verify_async_done(op: Operation) -> None:
    """The operand is a future; the results are the types it carries."""
    if len(op.operands) != 1:
        raise error(op, f"expected 1 operand, but found {len(op.operands)}")
    carried = future_types(op.operands[0].type)
    if carried is None:
        raise error(op, f"operand #0 must be a future of tensors or tokens, but got "
                        f"'{op.operands[0].type}'")
    results = op.result_types
    if len(carried) != len(results) or not all(
            compatible(a, b) for a, b in zip(carried, results, strict=True)):
        raise inferred_type_mismatch(op, quoted(carried))


@define_op("stablehlo.async_done", operands=("operand",), results=1, verify=verify_async_done)
def async_done(future: Future, *, result_types: list[Type]) -> Any:
    """Waits for `future` and returns the results of the op async_start began."""
    if not isinstance(future, Future):
        raise EvaluationError("async_done operand is not the result of async_start")
    values = future.values
    return values[0] if len(result_types) == 1 else tuple(values)

