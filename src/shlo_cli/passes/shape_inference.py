"""Result shapes of StableHLO and CHLO ops from their operand types and attributes: what
upstream's InferTypeOpInterface and hlo::infer* functions give `--stablehlo-refine-shapes`
(facts from stablehlo/dialect/TypeInference.cpp; shape rules from the StableHLO spec).

``infer_shapes(op)`` returns, per result, the inferred dimensions (`DYNAMIC` where unknown),
or None for a result it cannot say anything about; it returns None for ops it does not know.
Element types are never inferred here: a refinement keeps the result's element type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..ir import regex_programs
from ..ir.attributes import DenseElementsAttr
from ..ir.core import Operation
from ..ir.types import DYNAMIC, ComplexType, TensorType, TupleType, Type
from .shape_facts import match_ints

Dims = list[int]
Inference = Callable[[Operation], "list[Dims | None] | None"]
INFERENCES: dict[str, Inference] = {}

_SAME_SHAPE = (
    "add subtract multiply divide remainder power maximum minimum and or xor not shift_left "
    "shift_right_logical shift_right_arithmetic popcnt count_leading_zeros negate abs sign "
    "ceil floor round_nearest_even round_nearest_afz is_finite real imag logistic complex "
    "exponential exponential_minus_one log log_plus_one sqrt rsqrt cbrt cosine sine tan tanh "
    "atan2 compare reduce_precision convert uniform_quantize "
    "uniform_dequantize").split()


def infers(*names: str) -> Callable[[Inference], Inference]:
    def wrap(fn: Inference) -> Inference:
        for name in names:
            INFERENCES[name] = fn
        return fn
    return wrap


def infer_shapes(op: Operation) -> list[Dims | None] | None:
    fn = INFERENCES.get(op.name)
    if fn is None:
        return None
    try:
        return fn(op)
    except (ValueError, IndexError, KeyError, TypeError, ZeroDivisionError, AttributeError):
        return None  # ill-formed input: nothing to infer (the verifier reports it)


def dims_of(t: Type) -> Dims | None:
    return list(t.shape) if isinstance(t, TensorType) else None


def merge_dims(shapes: Sequence[Dims | None]) -> Dims | None:
    """The most specific of compatible shapes (None: no ranked input, or incompatible)."""
    ranked = [s for s in shapes if s is not None]
    if not ranked:
        return None
    out = list(ranked[0])
    for s in ranked[1:]:
        if len(s) != len(out):
            return None
        for i, d in enumerate(s):
            if out[i] == DYNAMIC:
                out[i] = d
            elif d != DYNAMIC and d != out[i]:
                return None
    return out


def _attr(op: Operation, name: str) -> Any:
    """Attribute `name` of `op`; KeyError (nothing inferred) when it is missing."""
    attr = op.attr(name)
    if attr is None:
        raise KeyError(name)
    return attr


def _attr_ints(op: Operation, name: str) -> list[int]:
    attr = _attr(op, name)
    if isinstance(attr, DenseElementsAttr):
        return [int(x) for x in attr.value.reshape(-1)]
    return [int(x) for x in attr.value]


@infers(*(f"stablehlo.{n}" for n in _SAME_SHAPE))
def _same_shape(op: Operation) -> list[Dims | None]:
    return [merge_dims([dims_of(v.type) for v in op.operands])]


def element_width(t: Type) -> int | None:
    element = t.element if isinstance(t, TensorType) else None
    if isinstance(element, ComplexType):
        element = element.element
    return getattr(element, "width", None)


@infers("stablehlo.bitcast_convert")
def _bitcast_convert(op: Operation) -> list[Dims | None] | None:
    """Only between element types of one bit width (otherwise the ranks differ)."""
    width = element_width(op.operands[0].type)
    if width is None or width != element_width(op.results[0].type):
        return None
    return [dims_of(op.operands[0].type)]


@infers("stablehlo.select", "stablehlo.clamp")
def _select_like(op: Operation) -> list[Dims | None]:
    """Scalar predicates (select) and scalar bounds (clamp) broadcast."""
    shapes = [dims_of(v.type) for v in op.operands]
    return [merge_dims([s for s in shapes if s != []] or [[]])]


@infers("stablehlo.get_dimension_size")
def _scalar(op: Operation) -> list[Dims | None]:
    return [[]]


@infers("stablehlo.concatenate")
def _concatenate(op: Operation) -> list[Dims | None]:
    dim = _attr(op, "dimension").value
    maybe = [dims_of(v.type) for v in op.operands]
    shapes = [s for s in maybe if s is not None]
    if len(shapes) != len(maybe):
        return [None]
    rest = merge_dims([s[:dim] + s[dim + 1:] for s in shapes])
    if rest is None:
        return [None]
    sizes = [s[dim] for s in shapes]
    total = DYNAMIC if DYNAMIC in sizes else sum(sizes)
    return [rest[:dim] + [total] + rest[dim:]]


def slice_dims(starts: Sequence[int], limits: Sequence[int],
               strides: Sequence[int]) -> Dims:
    return [max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(starts, limits, strides,
                                                              strict=True)]


@infers("stablehlo.slice")
def _slice(op: Operation) -> list[Dims | None]:
    return [slice_dims(_attr_ints(op, "start_indices"), _attr_ints(op, "limit_indices"),
                       _attr_ints(op, "strides"))]


def pad_dims(operand: Dims, low: Sequence[int], high: Sequence[int],
             interior: Sequence[int]) -> Dims:
    out = []
    for d, lo, hi, inner in zip(operand, low, high, interior, strict=True):
        out.append(DYNAMIC if d == DYNAMIC else lo + hi + d + max(d - 1, 0) * inner)
    return out


@infers("stablehlo.pad")
def _pad(op: Operation) -> list[Dims | None]:
    operand = dims_of(op.operands[0].type)
    if operand is None:
        return [None]
    return [pad_dims(operand, _attr_ints(op, "edge_padding_low"),
                     _attr_ints(op, "edge_padding_high"), _attr_ints(op, "interior_padding"))]


@infers("stablehlo.dynamic_pad")
def _dynamic_pad(op: Operation) -> list[Dims | None] | None:
    operand = dims_of(op.operands[0].type)
    low, high, interior = (match_ints(v) for v in op.operands[2:5])
    if operand is None or low is None or high is None or interior is None:
        return None
    return [pad_dims(operand, low, high, interior)]


@infers("stablehlo.transpose")
def _transpose(op: Operation) -> list[Dims | None]:
    operand = dims_of(op.operands[0].type)
    perm = _attr_ints(op, "permutation")
    return [None if operand is None else [operand[p] for p in perm]]


@infers("stablehlo.reverse", "stablehlo.optimization_barrier")
def _identity(op: Operation) -> list[Dims | None]:
    return [dims_of(v.type) for v in op.operands]


@infers("stablehlo.while")
def _while(op: Operation) -> list[Dims | None]:
    return [dims_of(v.type) for v in op.operands]


@infers("stablehlo.case", "stablehlo.if")
def _conditional(op: Operation) -> list[Dims | None]:
    """Per result, the dimensions every branch agrees on (`?` where they differ)."""
    branches = []
    for region in op.regions:
        terminator = region.blocks[0].operations[-1]
        branches.append([dims_of(v.type) for v in terminator.operands])
    out: list[Dims | None] = []
    for i in range(len(op.results)):
        maybe = [b[i] if i < len(b) else None for b in branches]
        shapes = [s for s in maybe if s is not None]
        if len(shapes) != len(maybe) or len({len(s) for s in shapes}) != 1:
            out.append(None)
            continue
        out.append([s[0] if all(x[k] == s[0] for x in shapes) else DYNAMIC
                    for k, s in enumerate(zip(*shapes, strict=True))])
    return out


def _broadcast_dim(a: int, b: int) -> int:
    if a == b:
        return a
    if a == 1:
        return b
    if b == 1:
        return a
    return DYNAMIC


@infers("chlo.broadcast_add", "chlo.broadcast_subtract", "chlo.broadcast_multiply",
        "chlo.broadcast_divide", "chlo.broadcast_remainder", "chlo.broadcast_maximum",
        "chlo.broadcast_minimum", "chlo.broadcast_power", "chlo.broadcast_and",
        "chlo.broadcast_or", "chlo.broadcast_xor", "chlo.broadcast_atan2",
        "chlo.broadcast_compare", "chlo.broadcast_complex", "chlo.broadcast_polygamma",
        "chlo.broadcast_zeta", "chlo.broadcast_next_after", "chlo.broadcast_shift_left",
        "chlo.broadcast_shift_right_arithmetic", "chlo.broadcast_shift_right_logical")
def _chlo_broadcast(op: Operation) -> list[Dims | None]:
    lhs, rhs = (dims_of(v.type) for v in op.operands[:2])
    if lhs is None or rhs is None:
        return [None]
    rank = max(len(lhs), len(rhs))
    dims = _attr_ints(op, "broadcast_dimensions") if op.attr("broadcast_dimensions") else None
    expanded = []
    for s in (lhs, rhs):
        placed = dims if dims is not None and len(s) < rank and len(dims) == len(s) \
            else list(range(rank - len(s), rank))
        full = [1] * rank
        for axis, d in enumerate(placed):
            full[d] = s[axis]
        expanded.append(full)
    return [[_broadcast_dim(a, b) for a, b in zip(*expanded, strict=True)]]


@infers("stablehlo.dot")
def _dot(op: Operation) -> list[Dims | None]:
    lhs, rhs = (dims_of(v.type) for v in op.operands)
    if lhs is None or rhs is None:
        return [None]
    return [lhs[:-1] + rhs[1:]]


def dot_general_dims(lhs: Dims, rhs: Dims, lhs_batch: Sequence[int],
                     rhs_batch: Sequence[int], lhs_contract: Sequence[int],
                     rhs_contract: Sequence[int], rhs_skip: Sequence[int] = ()) -> Dims:
    batch = [lhs[d] for d in lhs_batch]
    lhs_free = [d for i, d in enumerate(lhs) if i not in lhs_batch and i not in lhs_contract]
    rhs_free = [d for i, d in enumerate(rhs)
                if i not in rhs_batch and i not in rhs_contract and i not in rhs_skip]
    return batch + lhs_free + rhs_free


@infers("stablehlo.dot_general")
def _dot_general(op: Operation) -> list[Dims | None]:
    lhs, rhs = (dims_of(v.type) for v in op.operands)
    attr = _attr(op, "dot_dimension_numbers")
    if lhs is None or rhs is None:
        return [None]
    get = attr.get
    return [dot_general_dims(lhs, rhs, get("lhs_batching_dimensions", []),
                             get("rhs_batching_dimensions", []),
                             get("lhs_contracting_dimensions", []),
                             get("rhs_contracting_dimensions", []))]


@infers("chlo.ragged_dot")
def _ragged_dot(op: Operation) -> list[Dims | None]:
    lhs, rhs = (dims_of(v.type) for v in op.operands[:2])
    attr = _attr(op, "ragged_dot_dimension_numbers")
    if lhs is None or rhs is None:
        return [None]
    get = attr.get
    return [dot_general_dims(lhs, rhs, get("lhs_batching_dimensions", []),
                             get("rhs_batching_dimensions", []),
                             get("lhs_contracting_dimensions", []),
                             get("rhs_contracting_dimensions", []),
                             get("rhs_group_dimensions", []))]


_LAYOUT = regex_programs.compile(r"\[([^\]]*)\]x\[([^\]]*)\]->\[([^\]]*)\]")


def _conv_layout(text: str) -> tuple[list[str], list[str], list[str]] | None:
    m = _LAYOUT.search(text.replace(" ", ""))
    if m is None:
        return None
    return tuple(part.split(",") for part in m.groups())  # type: ignore[return-value]


def conv_dims(op: Operation, padding: Sequence[int] | None) -> Dims | None:
    """Convolution's result shape (the spec's shape rules), from the operands' shapes."""
    lhs, rhs = (dims_of(v.type) for v in op.operands[:2])
    layout = _conv_layout(str(_attr(op, "dimension_numbers")))
    if lhs is None or rhs is None or layout is None:
        return None
    lhs_l, rhs_l, out_l = layout
    spatial = len(lhs) - 2

    def position(items: list[str], key: str) -> int:
        return items.index(key)

    n = spatial
    strides = _attr_ints(op, "window_strides") if op.attr("window_strides") else [1] * n
    lhs_dil = _attr_ints(op, "lhs_dilation") if op.attr("lhs_dilation") else [1] * n
    rhs_dil = _attr_ints(op, "rhs_dilation") if op.attr("rhs_dilation") else [1] * n
    pads = list(padding) if padding is not None else [0] * (2 * n)
    out = [0] * len(lhs)
    batch_groups = op.attr("batch_group_count")
    batch = lhs[position(lhs_l, "b")]
    groups = batch_groups.value if batch_groups is not None else 1
    out[position(out_l, "b")] = batch if batch == DYNAMIC else batch // groups
    out[position(out_l, "f")] = rhs[position(rhs_l, "o")]
    for i in range(n):
        size = lhs[position(lhs_l, str(i))]
        window = rhs[position(rhs_l, str(i))]
        if size == DYNAMIC or window == DYNAMIC:
            out[position(out_l, str(i))] = DYNAMIC
            continue
        dilated = (size - 1) * lhs_dil[i] + 1 if size else 0
        padded = dilated + pads[2 * i] + pads[2 * i + 1]
        dilated_window = (window - 1) * rhs_dil[i] + 1 if window else 0
        out[position(out_l, str(i))] = (0 if padded < dilated_window
                                        else (padded - dilated_window) // strides[i] + 1)
    return out


@infers("stablehlo.convolution")
def _convolution(op: Operation) -> list[Dims | None]:
    return [conv_dims(op, _attr_ints(op, "padding") if op.attr("padding") else None)]


@infers("stablehlo.dynamic_conv")
def _dynamic_conv(op: Operation) -> list[Dims | None] | None:
    padding = match_ints(op.operands[2])
    return None if padding is None else [conv_dims(op, padding)]


def gather_dims(operand_rank: int, indices: Dims, attr: object,
                slice_sizes: Sequence[int]) -> Dims:
    get = attr.get  # type: ignore[attr-defined]
    offset_dims = get("offset_dims", [])
    collapsed = set(get("collapsed_slice_dims", [])) | set(get("operand_batching_dims", []))
    index_vector_dim = get("index_vector_dim", 0)
    batch = [d for i, d in enumerate(indices) if i != index_vector_dim]
    offsets = [s for i, s in enumerate(slice_sizes) if i not in collapsed]
    rank = len(batch) + len(offsets)
    out, b, o = [], iter(batch), iter(offsets)
    for i in range(rank):
        out.append(next(o) if i in offset_dims else next(b))
    return out


@infers("stablehlo.gather")
def _gather(op: Operation) -> list[Dims | None]:
    operand, indices = (dims_of(v.type) for v in op.operands)
    if operand is None or indices is None:
        return [None]
    return [gather_dims(len(operand), indices, _attr(op, "dimension_numbers"),
                        _attr_ints(op, "slice_sizes"))]


@infers("stablehlo.dynamic_gather")
def _dynamic_gather(op: Operation) -> list[Dims | None] | None:
    operand, indices = (dims_of(v.type) for v in op.operands[:2])
    sizes = match_ints(op.operands[2])
    if operand is None or indices is None or sizes is None:
        return None
    return [gather_dims(len(operand), indices, _attr(op, "dimension_numbers"), sizes)]


@infers("stablehlo.dynamic_slice")
def _dynamic_slice(op: Operation) -> list[Dims | None]:
    return [_attr_ints(op, "slice_sizes")]


@infers("stablehlo.get_tuple_element")
def _get_tuple_element(op: Operation) -> list[Dims | None]:
    t = op.operands[0].type
    index = _attr(op, "index").value
    return [dims_of(t.types[index]) if isinstance(t, TupleType) else None]


@infers("stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_iota",
        "stablehlo.dynamic_reshape")
def _from_shape_operand(op: Operation) -> list[Dims | None] | None:
    shape = match_ints(op.operands[1] if op.name != "stablehlo.dynamic_iota"
                       else op.operands[0])
    return None if shape is None else [shape]


@infers("stablehlo.rng")
def _rng(op: Operation) -> list[Dims | None] | None:
    shape = match_ints(op.operands[2])
    return None if shape is None else [shape]


@infers("stablehlo.real_dynamic_slice")
def _real_dynamic_slice(op: Operation) -> list[Dims | None] | None:
    """Static start/limit/strides (slice style), or limit = start + constant with unit
    strides (dynamic_slice style)."""
    operand, start, limit, strides = op.operands
    starts, limits, steps = (match_ints(v) for v in (start, limit, strides))
    if starts is not None and limits is not None and steps is not None:
        return [slice_dims(starts, limits, steps)]
    owner = limit.owner
    if not isinstance(owner, Operation) or owner.name != "stablehlo.add":
        return None
    lhs, rhs = owner.operands
    sizes = match_ints(rhs) if lhs is start else match_ints(lhs) if rhs is start else None
    if sizes is None or steps is None or any(s != 1 for s in steps):
        return None
    return [sizes]


def _shard_count(op: Operation) -> int | None:
    """Devices per replica group; None when it needs num_partitions (unknown here)."""
    if op.attr("channel_handle") is not None and op.attr("use_global_device_ids") is None:
        return None
    groups = op.attr("replica_groups")
    if not isinstance(groups, DenseElementsAttr) or not isinstance(groups.type, TensorType) \
            or groups.type.rank != 2:
        return None
    return int(groups.type.shape[1])


@infers("stablehlo.all_gather")
def _all_gather(op: Operation) -> list[Dims | None] | None:
    count = _shard_count(op)
    if count is None:
        return None
    dim = _attr(op, "all_gather_dim").value
    out: list[Dims | None] = []
    for v in op.operands:
        shape = dims_of(v.type)
        if shape is not None and shape[dim] != DYNAMIC:
            shape[dim] *= count
        out.append(shape)
    return out


@infers("stablehlo.reduce_scatter")
def _reduce_scatter(op: Operation) -> list[Dims | None] | None:
    count = _shard_count(op)
    if not count:
        return None
    dim = _attr(op, "scatter_dimension").value
    shape = dims_of(op.operands[0].type)
    if shape is not None and shape[dim] != DYNAMIC:
        shape[dim] //= count
    return [shape]


# -- ops with regions or several inputs (upstream infers these too): without them a
# symbolic-shape jax export keeps `?` types after refinement, and runs the general kernels.

def _optional_ints(op: Operation, name: str, rank: int, default: int) -> list[int]:
    return _attr_ints(op, name) if op.attr(name) is not None else [default] * rank


@infers("stablehlo.reduce")
def _reduce(op: Operation) -> list[Dims | None]:
    """Each input without the reduced dimensions."""
    inputs = len(op.operands) // 2
    reduced = set(_attr_ints(op, "dimensions"))
    out: list[Dims | None] = []
    for value in op.operands[:inputs]:
        dims = dims_of(value.type)
        out.append(None if dims is None else
                   [d for i, d in enumerate(dims) if i not in reduced])
    return out


@infers("stablehlo.dynamic_update_slice", "stablehlo.select_and_scatter")
def _first_operand(op: Operation) -> list[Dims | None]:
    return [dims_of(op.operands[0].type)]


@infers("stablehlo.sort", "stablehlo.map", "stablehlo.scatter")
def _per_input(op: Operation) -> list[Dims | None]:
    """Result i has input i's shape (scatter: its first operands are the inputs)."""
    return [dims_of(v.type) for v in op.operands[:len(op.results)]]


@infers("stablehlo.fft")
def _fft(op: Operation) -> list[Dims | None]:
    dims = dims_of(op.operands[0].type)
    if dims is None:
        return [None]
    kind = str(_attr(op, "fft_type").value)
    last = _attr_ints(op, "fft_length")[-1]
    if kind == "RFFT":
        dims[-1] = last // 2 + 1
    elif kind == "IRFFT":
        dims[-1] = last
    return [dims]


def window_dims(operand: Dims, window: Sequence[int], strides: Sequence[int],
                base: Sequence[int], dilations: Sequence[int], padding: Sequence[int]) -> Dims:
    """reduce_window's result dimensions (the spec's formula; `?` stays `?`)."""
    out = []
    for i, d in enumerate(operand):
        if d == DYNAMIC:
            out.append(DYNAMIC)
            continue
        padded = (d - 1) * base[i] + 1 + padding[2 * i] + padding[2 * i + 1] if d else \
            padding[2 * i] + padding[2 * i + 1]
        extent = (window[i] - 1) * dilations[i] + 1
        out.append((padded - extent) // strides[i] + 1 if padded >= extent else 0)
    return out


@infers("stablehlo.reduce_window")
def _reduce_window(op: Operation) -> list[Dims | None]:
    inputs = len(op.operands) // 2
    window = _attr_ints(op, "window_dimensions")
    rank = len(window)
    strides = _optional_ints(op, "window_strides", rank, 1)
    base = _optional_ints(op, "base_dilations", rank, 1)
    dilations = _optional_ints(op, "window_dilations", rank, 1)
    padding = _optional_ints(op, "padding", 2 * rank, 0)
    out: list[Dims | None] = []
    for value in op.operands[:inputs]:
        dims = dims_of(value.type)
        out.append(None if dims is None or len(dims) != rank else
                   window_dims(dims, window, strides, base, dilations, padding))
    return out
