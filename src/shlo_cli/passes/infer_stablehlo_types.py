"""Result-type inference for StableHLO ops, as upstream's TypeInference.cpp gives it (with
`#stablehlo.bounds` carried through), for the ops whose verifiers do not report the
inferred type in full. `RULES[name](op)` returns the inferred result types, or None to let
the caller ask the op's verifier instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..dialects.stablehlo.elementwise_verify import bounds_attr, bounds_of, most_specific
from ..ir.attributes import DialectAttr
from ..ir.core import Operation
from ..ir.types import (
    BOOL,
    DYNAMIC,
    I32,
    ComplexType,
    QuantizedType,
    TensorType,
    TokenType,
    Type,
)
from .speculatability import as_struct, is_constant

Rule = Callable[[Operation], "list[Type] | None"]


def _tensor(t: Type) -> TensorType | None:
    return t if isinstance(t, TensorType) else None


def _with_element(t: Type, element: Type) -> Type:
    return TensorType(t.shape, element, t.encoding) if isinstance(t, TensorType) else t


def _real(element: Type) -> Type:
    return element.element if isinstance(element, ComplexType) else element


def _most_specific(types: Sequence[Type]) -> list[Type] | None:
    found = most_specific(list(types))
    return [found] if found is not None else None


def _compatible(op: Operation) -> list[Type] | None:
    return _most_specific(op.operand_types)


def _abs(op: Operation) -> list[Type] | None:
    t = op.operands[0].type
    return [_with_element(t, _real(t.element))] if isinstance(t, TensorType) else None


def _is_finite(op: Operation) -> list[Type] | None:
    return [_with_element(op.operands[0].type, BOOL)]


def _compare(op: Operation) -> list[Type] | None:
    found = most_specific(op.operand_types)
    return [_with_element(found, BOOL)] if found is not None else None


def _complex(op: Operation) -> list[Type] | None:
    found = most_specific(op.operand_types)
    if not isinstance(found, TensorType):
        return None
    return [_with_element(found, ComplexType(found.element))]


def _select(op: Operation) -> list[Type] | None:
    return _most_specific(op.operand_types[1:3])


def _operand_types(op: Operation) -> list[Type] | None:
    return list(op.operand_types)


def _first_operand(op: Operation) -> list[Type] | None:
    return [op.operands[0].type]


def _token(op: Operation) -> list[Type] | None:
    return [TokenType()]


def _i32_scalar(op: Operation) -> list[Type] | None:
    return [TensorType((), I32)]


def _uniform_dequantize(op: Operation) -> list[Type] | None:
    t = _tensor(op.operands[0].type)
    if t is None or not isinstance(t.element, QuantizedType):
        return None
    return [TensorType(t.shape, t.element.expressed, t.encoding)]


def _int_attr(op: Operation, name: str) -> int | None:
    attr = op.attr(name)
    return int(attr.value) if attr is not None else None


def _ints(op: Operation, name: str) -> list[int]:
    attr = op.attr(name)
    return [int(v) for v in attr.value] if attr is not None else []


def _transpose(op: Operation) -> list[Type] | None:
    t = _tensor(op.operands[0].type)
    perm = _ints(op, "permutation")
    if t is None or sorted(perm) != list(range(len(t.shape))):
        return None
    bounds = bounds_of(t)
    return [TensorType(tuple(t.shape[p] for p in perm), t.element,
                       bounds_attr([bounds[p] for p in perm]))]


def _set_dimension_size(op: Operation) -> list[Type] | None:
    """A constant size makes the dimension static; else it becomes `?` bounded by the
    operand's static size (or keeps the operand's bound)."""
    t = _tensor(op.operands[0].type)
    dim = _int_attr(op, "dimension")
    if t is None or dim is None or not 0 <= dim < len(t.shape):
        return None
    shape, bounds = list(t.shape), bounds_of(t)
    size = op.operands[1]
    if is_constant(size):
        value = size.owner.attr("value") if isinstance(size.owner, Operation) else None
        if value is None:
            return None
        shape[dim], bounds[dim] = int(value.value.reshape(-1)[0]), None
    else:
        if shape[dim] != DYNAMIC:
            bounds[dim] = shape[dim]
        shape[dim] = DYNAMIC
    return [TensorType(tuple(shape), t.element, bounds_attr(bounds))]


def _all_to_all(op: Operation) -> list[Type] | None:
    split, concat = _int_attr(op, "split_dimension"), _int_attr(op, "concat_dimension")
    count = _int_attr(op, "split_count")
    if split is None or concat is None or not count:
        return None
    results: list[Type] = []
    for v in op.operands:
        t = _tensor(v.type)
        if t is None:
            return None
        shape, bounds = list(t.shape), bounds_of(t)
        if shape[split] != DYNAMIC:
            shape[split] //= count
        elif (split_bound := bounds[split]) is not None:
            bounds[split] = split_bound // count
        if shape[concat] != DYNAMIC:
            shape[concat] *= count
        elif (concat_bound := bounds[concat]) is not None:
            bounds[concat] = concat_bound * count
        results.append(TensorType(tuple(shape), t.element, bounds_attr(bounds)))
    return results


def _concatenate(op: Operation) -> list[Type] | None:
    """The concatenated dimension sums the sizes (`?` if any is, bounded by the sum of
    sizes and bounds when every dynamic one has a bound); other dims: most specific."""
    dim = _int_attr(op, "dimension")
    types = [_tensor(v.type) for v in op.operands]
    if dim is None or not types or any(t is None for t in types):
        return None
    ranked = [t for t in types if t is not None]
    others = most_specific([TensorType(t.shape[:dim] + (1,) + t.shape[dim + 1:], t.element,
                                       _drop_bound(t, dim)) for t in ranked])
    if not isinstance(others, TensorType):
        return None
    sizes = [t.shape[dim] for t in ranked]
    dim_bounds = [bounds_of(t)[dim] for t in ranked]
    shape, bounds = list(others.shape), bounds_of(others)
    if DYNAMIC not in sizes:
        shape[dim], bounds[dim] = sum(sizes), None
    else:
        shape[dim] = DYNAMIC
        parts = [b if s == DYNAMIC else s for s, b in zip(sizes, dim_bounds, strict=True)]
        bounds[dim] = None if None in parts else sum(p for p in parts if p is not None)
    return [TensorType(tuple(shape), ranked[0].element, bounds_attr(bounds))]


def _drop_bound(t: TensorType, dim: int) -> DialectAttr | None:
    bounds = bounds_of(t)
    bounds[dim] = None
    return bounds_attr(bounds)


def _pad(op: Operation) -> list[Type] | None:
    t = _tensor(op.operands[0].type)
    low, high = _ints(op, "edge_padding_low"), _ints(op, "edge_padding_high")
    interior = _ints(op, "interior_padding")
    if t is None or not len(low) == len(high) == len(interior) == len(t.shape):
        return None

    def padded(size: int, i: int) -> int:
        return size + low[i] + high[i] + max(size - 1, 0) * interior[i]

    shape, bounds = list(t.shape), bounds_of(t)
    for i, size in enumerate(t.shape):
        if size != DYNAMIC:
            shape[i] = padded(size, i)
        elif (bound := bounds[i]) is not None:
            bounds[i] = padded(bound, i)
    return [TensorType(tuple(shape), t.element, bounds_attr(bounds))]


def least_specific(types: Sequence[Type]) -> Type | None:
    """upstream inferLeastSpecificType (results of branches): per dimension, equal static
    sizes stay; else `?`, bounded by the largest size or bound when both sides have one."""
    ranked = [t for t in types if isinstance(t, TensorType)]
    if len(ranked) != len(types) or not ranked:
        return types[0] if types and all(t == types[0] for t in types) else None
    shape, bounds = list(ranked[0].shape), bounds_of(ranked[0])
    for t in ranked[1:]:
        if len(t.shape) != len(shape):
            return None
        for i, (size, bound) in enumerate(zip(t.shape, bounds_of(t), strict=True)):
            left, left_bound = shape[i], bounds[i]
            if left != DYNAMIC and size != DYNAMIC:
                if left != size:
                    return None
                continue
            if left != DYNAMIC or size != DYNAMIC:
                other = bound if left != DYNAMIC else left_bound
                static = left if left != DYNAMIC else size
                shape[i], bounds[i] = DYNAMIC, None if other is None else max(static, other)
            else:
                shape[i] = DYNAMIC
                bounds[i] = (max(left_bound, bound) if left_bound is not None
                             and bound is not None else None)
    return TensorType(tuple(shape), ranked[0].element, bounds_attr(bounds))


def _branches(op: Operation) -> list[Type] | None:
    """if / case: per result, the least specific of what the branches return."""
    returned = []
    for region in op.regions:
        terminator = region.blocks[0].terminator if region.blocks else None
        if terminator is None:
            return None
        returned.append([v.type for v in terminator.operands])
    if not returned or any(len(r) != len(returned[0]) for r in returned):
        return None
    results = [least_specific([r[i] for r in returned]) for i in range(len(returned[0]))]
    return None if any(t is None for t in results) else results  # type: ignore[return-value]


def _accumulator_elements(op: Operation) -> list[Type]:
    block = op.regions[0].blocks[0]
    return [a.type.element for a in block.arguments if isinstance(a.type, TensorType)]


def _all_reduce(op: Operation) -> list[Type] | None:
    elements = _accumulator_elements(op)
    if not elements:
        return None
    return [_with_element(v.type, elements[0]) for v in op.operands]


def _reduce(op: Operation) -> list[Type] | None:
    dims = set(_ints(op, "dimensions"))
    count = len(op.operands) // 2
    elements = _accumulator_elements(op)
    results: list[Type] = []
    for i, v in enumerate(op.operands[:count]):
        t = _tensor(v.type)
        if t is None or i >= len(elements):
            return None
        keep = [j for j in range(len(t.shape)) if j not in dims]
        bounds = bounds_of(t)
        results.append(TensorType(tuple(t.shape[j] for j in keep), elements[i],
                                  bounds_attr([bounds[j] for j in keep])))
    return results


def _fft(op: Operation) -> list[Type] | None:
    t = _tensor(op.operands[0].type)
    kind = op.attr("fft_type")
    lengths = _ints(op, "fft_length")
    if t is None or kind is None or not lengths:
        return None
    kind_text = str(kind.value)
    if kind_text in ("FFT", "IFFT"):
        return [t]
    shape, bounds = list(t.shape), bounds_of(t)
    first = len(shape) - len(lengths)
    for i, length in enumerate(lengths):
        shape[first + i], bounds[first + i] = length, None
    if kind_text == "RFFT":
        shape[-1] = lengths[-1] // 2 + 1
        element: Type = ComplexType(t.element)
    else:
        element = _real(t.element)
    return [TensorType(tuple(shape), element, bounds_attr(bounds))]


def _gather(op: Operation) -> list[Type] | None:
    """Offset dims take the kept slice sizes; the others the start indices' batch dims
    (index_vector_dim left out), with their bounds."""
    operand, indices = _tensor(op.operands[0].type), _tensor(op.operands[1].type)
    dims = as_struct(op.attr("dimension_numbers"))
    sizes = _ints(op, "slice_sizes")
    if operand is None or indices is None or dims is None or len(sizes) != len(operand.shape):
        return None

    def field(name: str) -> list[int]:
        value = dims.get(name)
        return [int(v) for v in value] if isinstance(value, list) else []

    offset_dims = field("offset_dims")
    dropped = set(field("collapsed_slice_dims")) | set(field("operand_batching_dims"))
    index_dim = dims.get("index_vector_dim")
    kept = [s for i, s in enumerate(sizes) if i not in dropped]
    index_bounds = bounds_of(indices)
    batch = [(indices.shape[i], index_bounds[i]) for i in range(len(indices.shape))
             if i != index_dim]
    rank = len(offset_dims) + len(batch)
    if len(kept) != len(offset_dims):
        return None
    shape: list[int] = []
    bounds: list[int | None] = []
    kept_iter, batch_iter = iter(kept), iter(batch)
    for i in range(rank):
        if i in offset_dims:
            shape.append(next(kept_iter))
            bounds.append(None)
        else:
            size, bound = next(batch_iter)
            shape.append(size)
            bounds.append(bound)
    return [TensorType(tuple(shape), operand.element, bounds_attr(bounds))]


def _window_output(size: int, window: int, stride: int, base: int, dilation: int,
                   low: int, high: int) -> int:
    padded = (size - 1) * base + 1 + low + high if size else 0
    extent = (window - 1) * dilation + 1
    return 0 if padded < extent else (padded - extent) // stride + 1


def _reduce_window(op: Operation) -> list[Type] | None:
    count = len(op.operands) // 2
    window = _ints(op, "window_dimensions")
    elements = _accumulator_elements(op)
    rank = len(window)
    strides = _ints(op, "window_strides") or [1] * rank
    base = _ints(op, "base_dilations") or [1] * rank
    dilation = _ints(op, "window_dilations") or [1] * rank
    padding_attr = op.attr("padding")
    pads = ([int(x) for x in padding_attr.value.reshape(-1)] if padding_attr is not None
            else [0] * (2 * rank))
    results: list[Type] = []
    for k, v in enumerate(op.operands[:count]):
        t = _tensor(v.type)
        if t is None or len(t.shape) != rank or k >= len(elements):
            return None
        shape, bounds = list(t.shape), bounds_of(t)
        for i, size in enumerate(t.shape):
            params = (window[i], strides[i], base[i], dilation[i], pads[2 * i],
                      pads[2 * i + 1])
            if size != DYNAMIC:
                shape[i] = _window_output(size, *params)
            elif (bound := bounds[i]) is not None:
                bounds[i] = _window_output(bound, *params)
        results.append(TensorType(tuple(shape), elements[k], bounds_attr(bounds)))
    return results


RULES: dict[str, Rule] = {}
for _name in ("cbrt", "ceil", "count_leading_zeros", "cosine", "exponential",
              "exponential_minus_one", "floor", "log", "log_plus_one", "logistic", "not",
              "negate", "popcnt", "round_nearest_afz", "round_nearest_even", "rsqrt", "sign",
              "sine", "sqrt", "tan", "tanh", "atan2", "divide", "maximum", "minimum",
              "multiply", "power", "remainder", "shift_left", "shift_right_arithmetic",
              "shift_right_logical", "subtract", "and", "or", "xor", "add", "reduce_precision",
              "cross-replica-sum"):
    RULES["stablehlo." + _name] = _compatible
RULES.update({f"stablehlo.{name}": rule for name, rule in {
    "abs": _abs, "real": _abs, "imag": _abs,
    "is_finite": _is_finite, "compare": _compare, "complex": _complex, "select": _select,
    "clamp": lambda op: [op.operands[1].type],
    "create_token": _token, "after_all": _token, "outfeed": _token, "send": _token,
    "get_dimension_size": _i32_scalar, "collective_broadcast": _first_operand,
    "collective_permute": _first_operand, "optimization_barrier": _operand_types,
    "sort": _operand_types, "while": _operand_types,
    "dynamic_update_slice": _first_operand, "uniform_dequantize": _uniform_dequantize,
    "transpose": _transpose, "set_dimension_size": _set_dimension_size,
    "all_to_all": _all_to_all, "concatenate": _concatenate, "pad": _pad,
    "if": _branches, "case": _branches, "all_reduce": _all_reduce, "reduce": _reduce,
    "select_and_scatter": _first_operand, "fft": _fft, "gather": _gather,
    "reduce_window": _reduce_window,
}.items()})
