"""Verifiers of the distributed ops, in upstream's order and wording (ODS attribute
constraints first, then the op's own checks). Each raises a Diagnostic at the op."""

from __future__ import annotations

import numpy as np

from ...ir.attributes import ArrayAttr, DialectAttr, IntegerAttr
from ...ir.core import Module, Operation
from ...ir.diagnostics import Diagnostic
from ...ir.types import (
    DYNAMIC,
    FloatType,
    IntegerType,
    QuantizedType,
    TensorType,
    TokenType,
    Type,
)
from ...ir.verifier import SYMBOL_USE_VERIFIERS, inference_error, inferred_type_mismatch
from .elementwise_verify import compatible, error, quoted, require_static_results

# channel_handle `type` values (stablehlo ChannelType)
DEVICE_TO_DEVICE, DEVICE_TO_HOST, HOST_TO_DEVICE = 1, 2, 3


def _int_attr(op: Operation, name: str, constraint: str | None = None,
              required: bool = True) -> int | None:
    attr = op.attr(name)
    if attr is None:
        if required:
            raise error(op, f"requires attribute '{name}'")
        return None
    value = attr.value if isinstance(attr, IntegerAttr) else None
    if value is None or (constraint == "non-negative" and value < 0) or (
            constraint == "positive" and value <= 0):
        kind = f" whose value is {constraint}" if constraint else ""
        raise error(op, f"attribute '{name}' failed to satisfy constraint: 64-bit signless "
                        f"integer attribute{kind}")
    return int(value)


def _channel_id(op: Operation) -> int:
    attr = op.attr("channel_handle")
    return int(attr.get("handle", 0)) if isinstance(attr, DialectAttr) else 0


def _channel_type(op: Operation) -> int:
    attr = op.attr("channel_handle")
    return int(attr.get("type", 0)) if isinstance(attr, DialectAttr) else 0


def _flag(op: Operation, name: str) -> bool:
    attr = op.attr(name)
    return bool(attr is not None and attr.value)


def verify_replica_groups(op: Operation, name: str = "replica_groups", *,
                          same_size: bool, expected_group_size: int | None = None) -> None:
    """Rank 2; every id once; ids cover [0, N); -1 pads ragged groups only where allowed."""
    attr = op.attr(name)
    if attr is None:
        raise error(op, f"requires attribute '{name}'")
    if isinstance(attr, DialectAttr) and attr.name == "replica_group_mesh_axes":
        return  # its mesh is a symbol use, checked once the module has verified
    groups = np.asarray(attr.value)
    if groups.ndim != 2:
        raise error(op, "replica groups should be a rank 2 tensor", op_prefix=False)
    if _flag(op, "use_global_device_ids") and groups.size == 0:
        raise error(op, "if `use_global_device_ids` is set, the replica groups cannot be empty",
                    op_prefix=False)
    seen: set[int] = set()
    for replica_id in groups.reshape(-1).tolist():
        if replica_id == -1:
            if not same_size:
                continue
            raise error(op, "Invalid replica id -1", op_prefix=False)
        if replica_id in seen:
            raise error(op, f"replica id #{replica_id} seen more than once", op_prefix=False)
        seen.add(replica_id)
    for replica_id in range(len(seen)):
        if replica_id not in seen:
            raise error(op, f"replica id #{replica_id} not seen in replica groups",
                        op_prefix=False)
    if same_size and expected_group_size is not None and (
            groups.shape[0] == 0 or groups.size // groups.shape[0] != expected_group_size):
        raise error(op, f"group size of replica_groups must be {expected_group_size}",
                    op_prefix=False)


def verify_mesh_axes(op: Operation, module: Module) -> None:
    """Replica groups given as mesh axes name a mesh symbol of the module (a symbol use:
    MLIR checks it only when every op of the module has verified)."""
    attr = op.attr("replica_groups")
    if not (isinstance(attr, DialectAttr) and attr.name == "replica_group_mesh_axes"):
        return
    mesh = attr.get("mesh")
    if isinstance(mesh, DialectAttr) and mesh.name == "mesh":
        return  # an inline #stablehlo.mesh<...>: no symbol to resolve
    symbol = getattr(mesh, "root", None)
    if symbol is None:
        import re

        match = re.search(r"mesh\s*=\s*@([\w$.]+)", attr.body)
        symbol = match.group(1) if match else None
    if symbol is None or module.lookup(symbol) is None:
        raise error(op, f"replica_groups: mesh symbol '{symbol}' not found", op_prefix=False)


for _name in ("all_gather", "all_reduce", "reduce_scatter", "all_to_all", "collective_reduce",
              "collective_broadcast"):
    SYMBOL_USE_VERIFIERS["stablehlo." + _name] = verify_mesh_axes


def _verify_positive_channel_with_global_ids(op: Operation) -> None:
    channel_id = _channel_id(op)
    if _flag(op, "use_global_device_ids") and channel_id <= 0:
        raise error(op, "channel_id must be positive when useGlobalDeviceIds is set but got: "
                        f"{channel_id}", op_prefix=False)


def _promotable(source: Type, target: Type) -> bool:
    """The reducer may compute in a wider type of the same kind as the operands."""
    if source == target:
        return True
    if isinstance(source, QuantizedType) and isinstance(target, QuantizedType):
        return source.expressed == target.expressed and _promotable(source.storage,
                                                                    target.storage)
    if isinstance(source, IntegerType) and isinstance(target, IntegerType):
        return source.signedness == target.signedness and target.width >= source.width
    if isinstance(source, FloatType) and isinstance(target, FloatType):
        return target.width >= source.width
    return False


def _verify_reduction_region(op: Operation, count: int) -> None:
    """The shared reducer checks: 2 * count scalar parameters, count tensor results, each
    a 0-d tensor of an element type promotable from the operand's."""
    if not op.regions or not op.regions[0].blocks:
        raise error(op, "expect non-empty region", op_prefix=False)
    block = op.regions[0].entry
    if len(block.arguments) != 2 * count:
        raise error(op, f"Reduction-region must take {2 * count} parameters, but takes "
                        f"{len(block.arguments)} parameter(s)", op_prefix=False)
    terminator = block.operations[-1] if block.operations else None
    returned = list(terminator.operands) if terminator is not None else []
    if not returned:
        raise error(op, "The reduction-region expected to return some value(s)",
                    op_prefix=False)
    if len(returned) != count:
        raise error(op, f"Reduction-region here must produce {count} tensors, but produces "
                        f"{len(returned)} instead", op_prefix=False)
    for value in returned:
        if not isinstance(value.type, TensorType):
            raise error(op, "Reduction-region here must produce tensor-typed result(s), but "
                            f"produces '{value.type}' instead", op_prefix=False)
    for index, value in enumerate(returned):
        for arg_index in (index, count + index):
            arg_type = block.arguments[arg_index].type
            if arg_type != value.type:
                raise error(op, "The type of reduction-region's parameter at index "
                                f"{arg_index} is different than the corresponding result "
                                f"type: '{arg_type}' vs '{value.type}'", op_prefix=False)
        operand = op.operand_types[index] if index < len(op.operands) else None
        if not isinstance(operand, TensorType):
            continue
        init = TensorType((), operand.element)
        if value.type.shape != ():
            raise error(op, f"The shape of reduction-region's result type at index {index} "
                            f"differs from the op's corresponding init-value type: "
                            f"'{value.type}' vs '{init}'", op_prefix=False)
        if not _promotable(operand.element, value.type.element):
            raise error(op, f"The element-type of reduction-region's result type at index "
                            f"{index} is expected to be promotable from the op's corresponding "
                            f"init-value element-type: '{value.type}' vs '{init}'",
                        op_prefix=False)


def _shape(t: Type) -> tuple[int, ...] | None:
    return tuple(t.shape) if isinstance(t, TensorType) else None


# ---- per-op verifiers ---------------------------------------------------------------------


def verify_all_gather(op: Operation) -> None:
    dim = _int_attr(op, "all_gather_dim", "non-negative")
    verify_replica_groups(op, same_size=True)
    if _flag(op, "use_global_device_ids") and _channel_id(op) < 0:
        raise error(op, "channel_id cannot be negative when useGlobalDeviceIds is set",
                    op_prefix=False)
    for operand, result in zip(op.operand_types, op.result_types, strict=False):
        shape, result_shape = _shape(operand), _shape(result)
        if shape is None or result_shape is None:
            continue
        if dim >= len(shape):
            raise error(op, "all_gather_dim must be a valid index of operand", op_prefix=False)
        if shape[dim] == 0:
            raise error(op, "dimension size of operand at 'all_gather_dim' cannot be zero",
                        op_prefix=False)
        if len(shape) != len(result_shape):
            raise error(op, "operand and result must have the same rank", op_prefix=False)
        for d, (a, b) in enumerate(zip(shape, result_shape, strict=True)):
            if d != dim and DYNAMIC not in (a, b) and a != b:
                raise error(op, "operand and result should have the same shape except for "
                                "the dimension size at 'all_gather_dim'", op_prefix=False)
        a, b = shape[dim], result_shape[dim]
        if DYNAMIC not in (a, b) and b % a:
            raise error(op, f"result gather dimension has size {b}, expected to be a multiple "
                            f"of operand gather dimension size {a}", op_prefix=False)


def verify_all_reduce(op: Operation) -> None:
    verify_replica_groups(op, same_size=False)
    _verify_positive_channel_with_global_ids(op)
    _verify_reduction_region(op, 1)


def verify_reduce_scatter(op: Operation) -> None:
    dim = _int_attr(op, "scatter_dimension", "non-negative")
    verify_replica_groups(op, same_size=True)
    _verify_positive_channel_with_global_ids(op)
    _verify_reduction_region(op, 1)
    shape, result_shape = _shape(op.operand_types[0]), _shape(op.result_types[0])
    if shape is None or result_shape is None:
        return
    if len(shape) != len(result_shape):
        raise error(op, "operand and result should have same rank", op_prefix=False)
    if dim >= len(shape):
        raise error(op, "scatter dim should be less than operand/result rank", op_prefix=False)
    if shape[dim] == 0:
        raise error(op, "operand dimension size at scatter_dimension cannot be zero",
                    op_prefix=False)
    if result_shape[dim] == 0:
        raise error(op, "result dimension size at scatter_dimension cannot be zero",
                    op_prefix=False)
    if DYNAMIC not in (shape[dim], result_shape[dim]) and shape[dim] % result_shape[dim]:
        raise error(op, f"operand scatter dimension has size {shape[dim]}, expected to be a "
                        f"multiple of result scatter dimension size {result_shape[dim]}",
                    op_prefix=False)
    for d, (a, b) in enumerate(zip(shape, result_shape, strict=True)):
        if d != dim and DYNAMIC not in (a, b) and a != b:
            raise error(op, f"non scatter dimensions should be same for operand ({a}) and "
                            f"result ({b})", op_prefix=False)
    reduced = op.regions[0].entry.arguments[0].type.element
    result_element = op.result_types[0].element
    if reduced != result_element:
        raise error(op, f"result element-type is expected to be '{reduced}', but got "
                        f"'{result_element}'", op_prefix=False)


def _verify_dynamic_root(op: Operation, short: str) -> int:
    """has_dynamic_root: data operands plus a trailing rank-1 i32 root; returns data count."""
    count = len(op.operands)
    if not _flag(op, "has_dynamic_root"):
        if count < 1:
            raise error(op, f"{short} requires at least one data operand", op_prefix=False)
        return count
    if count < 2:
        raise error(op, f"{short} with has_dynamic_root=true requires at least two operands "
                        "(data + root)", op_prefix=False)
    root = op.operand_types[-1]
    if not (isinstance(root, TensorType) and root.rank == 1
            and root.element == IntegerType(32)):
        raise error(op, f"last operand of {short} with has_dynamic_root=true must be a rank-1 "
                        "i32 tensor", op_prefix=False)
    if root.shape[0] != DYNAMIC and root.shape[0] != count - 1:
        raise error(op, f"last operand of {short} with has_dynamic_root=true must have the same "
                        f"number of elements as data operands ({count - 1}), but got "
                        f"{root.shape[0]}", op_prefix=False)
    return count - 1


def verify_collective_reduce(op: Operation) -> None:
    count = _verify_dynamic_root(op, "collective_reduce")
    verify_replica_groups(op, same_size=False)
    _verify_positive_channel_with_global_ids(op)
    _verify_reduction_region(op, 1 if count else 0)


def verify_collective_broadcast(op: Operation) -> None:
    """Upstream's verifyCollectiveBroadcastOp: the groups (rank 2, ids not negative, none
    twice; they need not cover every replica: processes outside them get zeros), then the
    operands."""
    attr = op.attr("replica_groups")
    if attr is None:
        raise error(op, "requires attribute 'replica_groups'")
    groups = np.asarray(attr.value)
    if groups.ndim != 2:
        raise error(op, "replica groups should be a rank 2 tensor,but instead it is of rank "
                        f"{groups.ndim}", op_prefix=False)
    seen: set[int] = set()
    for replica_id in groups.reshape(-1).tolist():
        if replica_id < 0:
            raise error(op, f"replica_groups values must be positive, but was given "
                            f"{replica_id}", op_prefix=False)
        if replica_id in seen:
            raise error(op, f"replica id #{replica_id} seen more than once", op_prefix=False)
        seen.add(replica_id)
    _verify_dynamic_root(op, "collective_broadcast")


def verify_all_to_all(op: Operation) -> None:
    split_dimension = _int_attr(op, "split_dimension", "non-negative")
    concat_dimension = _int_attr(op, "concat_dimension", "non-negative")
    split_count = _int_attr(op, "split_count", "positive")
    if len(op.operands) != len(op.results):
        raise error(op, "requires the same number of operands and results")
    for index, (a, b) in enumerate(zip(op.operand_types, op.result_types, strict=True)):
        if isinstance(a, TensorType) and isinstance(b, TensorType) and a.element != b.element:
            raise error(op, "requires the same element type for operand and result at index "
                            f"{index}")
    try:
        inferred = _infer_all_to_all(op, split_dimension, concat_dimension, split_count)
    except Diagnostic as d:
        raise inference_error(op, d.message) from None
    if inferred is not None and not all(
            compatible(a, b) for a, b in zip(inferred, op.result_types, strict=True)):
        raise inferred_type_mismatch(op, quoted(inferred))


def _infer_all_to_all(op: Operation, split_dimension: int, concat_dimension: int,
                      split_count: int) -> list[Type] | None:
    """inferAllToAllOp: each result is its operand split `split_count` ways along
    split_dimension and concatenated along concat_dimension (None if not all ranked)."""
    verify_replica_groups(op, same_size=True, expected_group_size=split_count)
    inferred: list[Type] = []
    for operand in op.operand_types:
        shape = _shape(operand)
        if shape is None:
            return None
        if split_dimension >= len(shape):
            raise error(op, f"AllToAll split_dimension {split_dimension} is out-of-bounds for "
                            f"input rank {len(shape)}", op_prefix=False)
        if concat_dimension >= len(shape):
            raise error(op, f"AllToAll concat_dimension {concat_dimension} is out-of-bounds "
                            f"for input rank {len(shape)}", op_prefix=False)
        size = shape[split_dimension]
        if size != DYNAMIC and size % split_count:
            raise error(op, f"split dimension has size {size}, expected to be a multiple of "
                            f"split_count {split_count}", op_prefix=False)
        result = list(shape)
        if result[split_dimension] != DYNAMIC:
            result[split_dimension] //= split_count
        if result[concat_dimension] != DYNAMIC:
            result[concat_dimension] *= split_count
        inferred.append(TensorType(tuple(result), operand.element))
    return inferred


def verify_collective_permute(op: Operation) -> None:
    attr = op.attr("source_target_pairs")
    if attr is None:
        raise error(op, "requires attribute 'source_target_pairs'")
    pairs = np.asarray(attr.value)
    if pairs.ndim != 2:
        raise error(op, "expect source_target_pairs attribute to be of rank 2, but got rank "
                        f"{pairs.ndim}", op_prefix=False)
    if pairs.shape[1] != 2:
        raise error(op, "expect source_target_pairs attribute of shape (N, 2), but got "
                        f"({pairs.shape[0]}, {pairs.shape[1]})", op_prefix=False)
    sources: set[int] = set()
    targets: set[int] = set()
    for source, target in pairs.tolist():
        if source < 0 or target < 0:
            raise error(op, "replica ids in source_target_pairs must be >= 0", op_prefix=False)
        if source in sources:
            raise error(op, "duplicate sources not allowed", op_prefix=False)
        if target in targets:
            raise error(op, "duplicate targets not allowed", op_prefix=False)
        sources.add(source)
        targets.add(target)


def _verify_channel_kind(op: Operation, host_kind: int, host_name: str) -> None:
    channel_type = _channel_type(op)
    if _flag(op, "is_host_transfer"):
        if channel_type != host_kind:
            raise error(op, f"channel_type should be {host_name} when is_host_transfer is true",
                        op_prefix=False)
    elif channel_type != DEVICE_TO_DEVICE:
        raise error(op, "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is "
                        "false", op_prefix=False)


def verify_send(op: Operation) -> None:
    """inferSendOp checks the channel kind before inferring the token result."""
    try:
        _verify_channel_kind(op, DEVICE_TO_HOST, "DEVICE_TO_HOST")
    except Diagnostic as d:
        raise inference_error(op, d.message) from None


def _verify_results_end_in_token(op: Operation, not_tensor: str) -> None:
    results = op.result_types
    if not results:
        raise error(op, "result is expected to be at least of size 1, but got 0",
                    op_prefix=False)
    for t in results[:-1]:
        if not isinstance(t, TensorType):
            raise error(op, f"{not_tensor}, but got '{t}'", op_prefix=False)
    if not isinstance(results[-1], TokenType):
        raise error(op, "last element of result types is expected to be of token type, but "
                        f"got '{results[-1]}'", op_prefix=False)


# ODS: Variadic<AnyTypeOf<[HLO_StaticShapeTensor, ..OrPerAxisQuantizedTensor, HLO_Token]>>
_STATIC_OR_TOKEN = (
    "variadic of statically shaped tensor of 4/6/8/16/32/64-bit float or bool or "
    "2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor "
    "integer quantized values or statically shaped tensor or token")


def verify_recv(op: Operation) -> None:
    require_static_results(op, _STATIC_OR_TOKEN)
    _verify_channel_kind(op, HOST_TO_DEVICE, "HOST_TO_DEVICE")
    _verify_results_end_in_token(op, "everything but the last element of result types is "
                                     "expected to be of tensor type")


def verify_infeed(op: Operation) -> None:
    require_static_results(op, _STATIC_OR_TOKEN)
    _verify_results_end_in_token(op, "all elements of result types, except the last element, "
                                     "are expected to be of tensor type")
    layout = op.attr("layout")
    if not isinstance(layout, ArrayAttr):
        return
    expected = len(op.results) - 1
    if len(layout.elements) != expected:
        raise error(op, f"layout-attribute size must be {expected} (which is the number of "
                        f"op-results - 1 (for token result)), but got {len(layout.elements)}",
                    op_prefix=False)
    for child in layout.elements:
        if not isinstance(child, ArrayAttr):
            raise error(op, "layout-attribute expected to have elements of type array, but "
                            f"got {child}", op_prefix=False)
        for leaf in child.elements:
            if not isinstance(leaf, IntegerAttr):
                raise error(op, "layout-attribute's leaf elements are expected to be of type "
                                f"integer, but got {leaf}", op_prefix=False)
