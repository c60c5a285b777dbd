"""Result-type inference for StableHLO ops, as upstream's TypeInference.cpp gives it (with
`#stablehlo.bounds` carried through), for the ops whose verifiers do not report the
inferred type in full. `RULES[name](op)` returns the inferred result types, or None to let
the caller ask the op's verifier instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..dialects.stablehlo.elementwise_verify import bounds_attr, bounds_of, most_specific
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
from .speculatability import is_constant

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
        value = size.owner.attr("value")  # type: ignore[union-attr]
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
        elif bounds[split] is not None:
            bounds[split] = bounds[split] // count
        if shape[concat] != DYNAMIC:
            shape[concat] *= count
        elif bounds[concat] is not None:
            bounds[concat] = bounds[concat] * count
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


def _drop_bound(t: TensorType, dim: int) -> object:
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
        elif bounds[i] is not None:
            bounds[i] = padded(bounds[i], i)
    return [TensorType(tuple(shape), t.element, bounds_attr(bounds))]


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
    "abs": _abs, "real": lambda op: [_with_element(op.operands[0].type,
                                                   _real(op.operands[0].type.element))],
    "imag": lambda op: [_with_element(op.operands[0].type,
                                      _real(op.operands[0].type.element))],
    "is_finite": _is_finite, "compare": _compare, "complex": _complex, "select": _select,
    "clamp": lambda op: [op.operands[1].type],
    "create_token": _token, "after_all": _token, "outfeed": _token, "send": _token,
    "get_dimension_size": _i32_scalar, "collective_broadcast": _first_operand,
    "collective_permute": _first_operand, "optimization_barrier": _operand_types,
    "sort": _operand_types, "while": _operand_types,
    "dynamic_update_slice": _first_operand, "uniform_dequantize": _uniform_dequantize,
    "transpose": _transpose, "set_dimension_size": _set_dimension_size,
    "all_to_all": _all_to_all, "concatenate": _concatenate, "pad": _pad,
}.items()})
