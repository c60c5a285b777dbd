"""Distributed ops: collectives, replica_id/partition_id, send/recv, infeed/outfeed.

They run only inside `interpreter.run_parallel`, where each process has a `Process` (its id
and the grid) in `ctx.process`. Process groups are chosen from `channel_handle` and
`use_global_device_ids` exactly as the spec says; all meetings between processes go through
`interpreter/processes.py`, which bounds every wait by the run's timeout.

Upstream prints every op here in the generic form except `replica_id` and `partition_id`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...ir.attributes import DialectAttr
from ...ir.context import Context, Process, ProcessGroup
from ...ir.core import Operation, Region
from ...ir.diagnostics import EvaluationError
from ...ir.types import TensorType, element_type, numpy_dtype
from ..asm import Format
from ..registry import define_op
from .collectives_verify import (
    verify_all_gather,
    verify_all_reduce,
    verify_all_to_all,
    verify_collective_broadcast,
    verify_collective_permute,
    verify_collective_reduce,
    verify_infeed,
    verify_recv,
    verify_reduce_scatter,
    verify_send,
)
from .elementwise_misc import TOKEN, _vectorizable

# ---- shared pieces ------------------------------------------------------------------------


def _process(ctx: Context, op: Operation) -> Process:
    process = ctx.process
    if not isinstance(process, Process):
        short = op.name.split(".", 1)[1]
        raise EvaluationError(
            f"{short} is only supported when run via interpreter.run_parallel")
    return process


def _channel_id(channel_handle: DialectAttr | None) -> int:
    if channel_handle is None:
        return 0
    return int(channel_handle.get("handle", 0))


def _groups(attr_value: Any) -> list[list[int]]:
    """`replica_groups` / `source_target_pairs` rows; -1 pads ragged groups."""
    if attr_value is None:
        return []
    array = np.asarray(attr_value)
    rows = array.reshape(array.shape[0], -1) if array.ndim else array.reshape(1, 1)
    return [[int(i) for i in row if i != -1] for row in rows.tolist()]


def _gather_style_groups(process: Process, replica_groups: Sequence[Sequence[int]],
                         channel_id: int, use_global_device_ids: bool) -> list[ProcessGroup]:
    """all_gather / all_reduce / reduce_scatter / collective_reduce process groups."""
    grid = process.grid
    if channel_id <= 0 and not use_global_device_ids:
        return grid.cross_replica(replica_groups)
    if channel_id > 0 and not use_global_device_ids:
        return grid.cross_replica_and_partition(replica_groups)
    if channel_id > 0 and use_global_device_ids:
        return grid.flattened_ids(replica_groups)
    raise EvaluationError("use_global_device_ids requires a channel_handle with handle > 0")


def _split_style_groups(process: Process, groups: Sequence[Sequence[int]],
                        channel_id: int) -> list[ProcessGroup]:
    """all_to_all / collective_broadcast / collective_permute process groups."""
    if channel_id <= 0:
        return process.grid.cross_replica(groups)
    return process.grid.cross_partition(groups)


def _find_group(groups: Sequence[ProcessGroup], process: Process) -> ProcessGroup | None:
    for group in groups:
        if process.id in group:
            return group
    return None


def _own_group(groups: Sequence[ProcessGroup], process: Process) -> ProcessGroup:
    group = _find_group(groups, process)
    if group is None:
        raise EvaluationError(
            f"Failed to find process group with process_id: ({process.replica_id}, "
            f"{process.partition_id})")
    return group


def _zeros(result_type: TensorType) -> np.ndarray:
    return np.zeros(tuple(result_type.shape), numpy_dtype(element_type(result_type)))


def _single(results: list[Any]) -> Any:
    return results[0] if len(results) == 1 else tuple(results)


def _combiner(region: Region, computation: Callable[..., list],
              result_type: TensorType) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """computation(lhs, rhs) on whole tensors when its body is elementwise, else per element."""
    dtype = numpy_dtype(element_type(result_type))
    if _vectorizable(region):
        def whole(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
            out = np.asarray(computation(lhs, rhs)[0], dtype=dtype)
            return np.broadcast_to(out, lhs.shape).copy()
        return whole

    def per_element(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        out = np.empty(lhs.shape, dtype)
        flat_l, flat_r, flat_out = lhs.reshape(-1), rhs.reshape(-1), out.reshape(-1)
        for i in range(flat_out.size):
            flat_out[i] = np.asarray(computation(flat_l[i:i + 1].reshape(()),
                                                 flat_r[i:i + 1].reshape(()))[0])
        return out
    return per_element


def _reduce_across(values: Sequence[list[Any]], op: Operation, computation: Callable[..., list],
                   result_types: Sequence[TensorType]) -> list[np.ndarray]:
    """Each operand index reduced over the processes' values, in the given order."""
    results = []
    for index, result_type in enumerate(result_types):
        dtype = numpy_dtype(element_type(result_type))  # operands may promote to it
        combine = _combiner(op.regions[0], computation, result_type)
        acc = np.asarray(values[0][index]).astype(dtype)
        for process_values in values[1:]:
            acc = combine(acc, np.asarray(process_values[index]).astype(dtype))
        results.append(np.array(acc, dtype=dtype))
    return results


# ---- replica_id / partition_id ------------------------------------------------------------


@define_op("stablehlo.replica_id", operands=(), results=1, syntax=Format("", types="result"))
def replica_id(*, ctx: Context, op: Operation) -> np.ndarray:
    """The replica_id of the current process."""
    return np.array(_process(ctx, op).replica_id, dtype=np.uint32)


@define_op("stablehlo.partition_id", operands=(), results=1, syntax=Format("", types="result"))
def partition_id(*, ctx: Context, op: Operation) -> np.ndarray:
    """The partition_id of the current process."""
    return np.array(_process(ctx, op).partition_id, dtype=np.uint32)


# ---- all_gather / all_reduce / reduce_scatter / collective_reduce -------------------------


@define_op("stablehlo.all_gather", operands=("*operands",), results="*",
           attributes=("all_gather_dim", "replica_groups", "channel_handle?",
                       "use_global_device_ids?"),
           verify=verify_all_gather)
def all_gather(*operands: np.ndarray, all_gather_dim: int, replica_groups: Any,
               channel_handle: DialectAttr | None, use_global_device_ids: bool | None,
               ctx: Context, op: Operation) -> Any:
    """Within each process group, concatenates the operands of every process along
    all_gather_dim, in the order of the group."""
    process = _process(ctx, op)
    channel_id = _channel_id(channel_handle)
    group = _own_group(_gather_style_groups(process, _groups(replica_groups), channel_id,
                                            bool(use_global_device_ids)), process)
    values = process.rendezvous(op.name, channel_id, group, operands)
    return _single([np.concatenate([values[p][i] for p in group], axis=all_gather_dim)
                    for i in range(len(operands))])


@define_op("stablehlo.all_reduce", operands=("*operands",), results="*",
           attributes=("replica_groups", "channel_handle?", "use_global_device_ids?"),
           regions=("computation",), verify=verify_all_reduce)
def all_reduce(*operands: np.ndarray, replica_groups: Any, channel_handle: DialectAttr | None,
               use_global_device_ids: bool | None, computation: Callable[..., list],
               ctx: Context, op: Operation, result_types: list[TensorType]) -> Any:
    """Within each process group, reduces the operands of every process with computation
    (in process id order) and gives the result to every process of the group."""
    process = _process(ctx, op)
    channel_id = _channel_id(channel_handle)
    group = _own_group(_gather_style_groups(process, _groups(replica_groups), channel_id,
                                            bool(use_global_device_ids)), process)
    values = process.rendezvous(op.name, channel_id, group, operands)
    ordered = [values[p] for p in sorted(values)]
    return _single(_reduce_across(ordered, op, computation, result_types))


@define_op("stablehlo.reduce_scatter", operands=("operand",), results=1,
           attributes=("scatter_dimension", "replica_groups", "channel_handle?",
                       "use_global_device_ids?"),
           regions=("computation",), verify=verify_reduce_scatter)
def reduce_scatter(operand: np.ndarray, *, scatter_dimension: int, replica_groups: Any,
                   channel_handle: DialectAttr | None, use_global_device_ids: bool | None,
                   computation: Callable[..., list], ctx: Context, op: Operation,
                   result_type: TensorType) -> np.ndarray:
    """all_reduce within each process group, then the reduced tensor is split along
    scatter_dimension and each process keeps the part at its index in the group."""
    process = _process(ctx, op)
    channel_id = _channel_id(channel_handle)
    group = _own_group(_gather_style_groups(process, _groups(replica_groups), channel_id,
                                            bool(use_global_device_ids)), process)
    values = process.rendezvous(op.name, channel_id, group, [operand])
    ordered = [values[p] for p in sorted(values)]
    reduce_type = TensorType(op.operands[0].type.shape, result_type.element)  # promotable
    reduced = _reduce_across(ordered, op, computation, [reduce_type])[0]
    parts = np.split(reduced, len(group), axis=scatter_dimension)
    return np.ascontiguousarray(parts[group.index(process.id)])


@define_op("stablehlo.collective_reduce", operands=("*operands",), results="*",
           attributes=("replica_groups", "channel_handle?", "use_global_device_ids?",
                       "has_dynamic_root?"),
           regions=("computation",), verify=verify_collective_reduce)
def collective_reduce(*operands: np.ndarray, replica_groups: Any,
                      channel_handle: DialectAttr | None, use_global_device_ids: bool | None,
                      has_dynamic_root: bool | None, computation: Callable[..., list],
                      ctx: Context, op: Operation, result_types: list[TensorType]) -> Any:
    """Within each process group, the root process gets the operands of the group reduced
    with computation (in group order) and the other processes get zeros. The root is the
    group's first process, or with has_dynamic_root, the process at index root[k] of the
    group for data operand k."""
    process = _process(ctx, op)
    channel_id = _channel_id(channel_handle)
    data = list(operands[:-1]) if has_dynamic_root else list(operands)
    group = _find_group(_gather_style_groups(process, _groups(replica_groups), channel_id,
                                             bool(use_global_device_ids)), process)
    if group is None:
        return _single([_zeros(t) for t in result_types])
    roots = _roots(operands[-1], len(data), group) if has_dynamic_root else [0] * len(data)
    values = process.rendezvous(op.name, channel_id, group, data)
    reduced = _reduce_across([values[p] for p in group], op, computation, result_types)
    return _single([reduced[k] if process.id == group[root] else _zeros(result_types[k])
                    for k, root in enumerate(roots)])


def _roots(root: np.ndarray, count: int, group: ProcessGroup) -> list[int]:
    """has_dynamic_root: the group index of the root of each data operand."""
    roots = [int(r) for r in np.asarray(root).reshape(-1)]
    if len(roots) != count:
        raise EvaluationError(
            f"root operand has {len(roots)} elements but there are {count} data operands")
    for r in roots:
        if not 0 <= r < len(group):
            raise EvaluationError(
                f"root index {r} is out of range for a process group of size {len(group)}")
    return roots


# ---- all_to_all / collective_broadcast / collective_permute -------------------------------


@define_op("stablehlo.all_to_all", operands=("*operands",), results="*",
           attributes=("split_dimension", "concat_dimension", "split_count", "replica_groups",
                       "channel_handle?"),
           verify=verify_all_to_all)
def all_to_all(*operands: np.ndarray, split_dimension: int, concat_dimension: int,
               split_count: int, replica_groups: Any, channel_handle: DialectAttr | None,
               ctx: Context, op: Operation) -> Any:
    """Within each process group, every process splits its operand along split_dimension
    into split_count parts and sends the i-th part to the i-th process of the group; each
    process concatenates what it receives along concat_dimension, in group order."""
    process = _process(ctx, op)
    channel_id = _channel_id(channel_handle)
    group = _own_group(_split_style_groups(process, _groups(replica_groups), channel_id),
                       process)
    values = process.rendezvous(op.name, channel_id, group, operands)
    receiver_index = group.index(process.id)
    results = []
    for i in range(len(operands)):
        scattered = [np.split(np.asarray(values[sender][i]), split_count,
                              axis=split_dimension)[receiver_index] for sender in group]
        results.append(np.concatenate(scattered, axis=concat_dimension))
    return _single(results)


@define_op("stablehlo.collective_broadcast", operands=("*operands",), results="*",
           attributes=("replica_groups", "channel_handle?", "has_dynamic_root?"),
           verify=verify_collective_broadcast)
def collective_broadcast(*operands: np.ndarray, replica_groups: Any,
                         channel_handle: DialectAttr | None, has_dynamic_root: bool | None,
                         ctx: Context, op: Operation, result_types: list[TensorType]) -> Any:
    """Within each process group, every process gets the operand of the group's first
    process (with has_dynamic_root, data operand k comes from the process at index root[k]
    of the group); processes in no group get zeros."""
    process = _process(ctx, op)
    channel_id = _channel_id(channel_handle)
    data = list(operands[:-1]) if has_dynamic_root else list(operands)
    group = _find_group(_split_style_groups(process, _groups(replica_groups), channel_id),
                        process)
    if group is None:
        return _single([_zeros(t) for t in result_types])
    roots = _roots(operands[-1], len(data), group) if has_dynamic_root else [0] * len(data)
    values = process.rendezvous(op.name, channel_id, group, data)
    return _single([np.array(values[group[root]][k]) for k, root in enumerate(roots)])


@define_op("stablehlo.collective_permute", operands=("operand",), results=1,
           attributes=("source_target_pairs", "channel_handle?"), verify=verify_collective_permute)
def collective_permute(operand: np.ndarray, *, source_target_pairs: Any,
                       channel_handle: DialectAttr | None, ctx: Context, op: Operation,
                       result_type: TensorType) -> np.ndarray:
    """Each process sends its operand to the targets it is the source of; a process gets the
    operand of its source, or zeros if it has none."""
    process = _process(ctx, op)
    channel_id = _channel_id(channel_handle)
    result = None
    for pair in _split_style_groups(process, _groups(source_target_pairs), channel_id):
        source, target = pair[0], pair[-1]
        if process.id not in (source, target):
            continue
        values = process.rendezvous(op.name, channel_id, pair, [operand])
        if process.id == target:
            result = np.array(values[source][0])
    return result if result is not None else _zeros(result_type)


# ---- send / recv --------------------------------------------------------------------------


@define_op("stablehlo.send", operands=("*inputs", "token"), results=1,
           attributes=("channel_handle", "is_host_transfer?", "source_target_pairs?"),
           verify=verify_send)
def send(*inputs: Any, channel_handle: DialectAttr | None, ctx: Context,
         op: Operation) -> Any:
    """Sends the inputs (all operands but the trailing token) on channel_id; returns a
    token once a recv on that channel took them."""
    process = _process(ctx, op)
    process.grid.send(op.name, _channel_id(channel_handle), process.id, list(inputs[:-1]))
    return TOKEN


@define_op("stablehlo.recv", operands=("token",), results="*",
           attributes=("channel_handle", "is_host_transfer?", "source_target_pairs?"),
           verify=verify_recv)
def recv(token: Any, *, channel_handle: DialectAttr | None, ctx: Context,
         op: Operation) -> tuple[Any, ...]:
    """The values of the next send on channel_id, followed by a token."""
    process = _process(ctx, op)
    values = process.grid.recv(op.name, _channel_id(channel_handle), process.id)
    expected = len(op.results) - 1
    if len(values) != expected:
        raise EvaluationError(
            f"received {len(values)} values on channel {_channel_id(channel_handle)} but "
            f"{op.name} has {expected} data results")
    return (*values, TOKEN)


# ---- infeed / outfeed ---------------------------------------------------------------------


@define_op("stablehlo.infeed", operands=("token",), results="*",
           attributes=("infeed_config?", "layout?"), verify=verify_infeed)
def infeed(token: Any, *, ctx: Context, op: Operation) -> tuple[Any, ...]:
    """The results of the next function of the run's infeed queue, followed by a token."""
    process = _process(ctx, op)
    name = process.grid.infeed(op.name)
    interpreter = ctx.interpreter
    values = interpreter.call(interpreter.lookup_function(name), [])
    expected = len(op.results) - 1
    if len(values) != expected:
        raise EvaluationError(
            f"infeed function @{name} returned {len(values)} values but {op.name} has "
            f"{expected} data results")
    return (*values, TOKEN)


@define_op("stablehlo.outfeed", operands=("*inputs", "token"), results=1,
           attributes=("outfeed_config?",))
def outfeed(*inputs: Any, ctx: Context, op: Operation) -> Any:
    """Appends the inputs (all operands but the trailing token) to the run's outfeed queue."""
    _process(ctx, op).grid.outfeed(list(inputs[:-1]))
    return TOKEN

