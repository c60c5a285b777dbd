"""`stablehlo.composite "chlo.top_k"` (as jax exports `lax.top_k`) by our `chlo.top_k`
kernel instead of its decomposition, when that decomposition is exactly the one whose
result the kernel reproduces bit for bit:

    %iota = stablehlo.iota dim = last : tensor<...xi32>
    %s:2 = stablehlo.sort(%x, %iota) {dimension = last, is_stable = true}
             ({ compare GT, %lhs0, %rhs0 [, TOTALORDER] ; return })
    return slice(%s#0, [0:..., 0:k]), slice(%s#1, [0:..., 0:k])

A stable descending sort of the values, ties by ascending index, is what chlo.top_k
computes; floats must compare in TOTALORDER (NaN above +inf, negative NaN below -inf, -0
below +0: the order chlo.top_k's key gives, through the same float64 widening), as a
plain float compare orders NaN differently. Other element types, comparators or shapes
keep the decomposition.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ...ir.core import Operation, Value
from ...ir.types import FloatType, IntegerType, TensorType
from ..stablehlo.sort import simple_comparator
from .specialize_top_k import top_k_kernel
from .structured import top_k

Kernel = Callable[..., Any]

_VERSION = 1  # the composite's version jax emits for this decomposition
_FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
_INDEX = IntegerType(32)


def match_top_k(op: Operation, decomposition: Operation) -> Kernel | None:
    """chlo.top_k's kernel for `op`, or None when the decomposition may differ from it."""
    k = _k(op)
    source = op.operand_types[0] if len(op.operands) == 1 else None
    if k is None or not isinstance(source, TensorType) or not _types_fit(op, source, k):
        return None
    if not _sorts_and_slices(decomposition, source, k):
        return None
    return top_k_kernel(k, source.shape[-1], functools.partial(top_k, k=k))


def _k(op: Operation) -> int | None:
    """`k` from attributes holding exactly `k` (an integer), at the version we know."""
    version = op.attr("version")
    attrs = op.attr("composite_attributes")
    if getattr(version, "value", None) != _VERSION or attrs is None:
        return None
    entries = attrs.value
    if not isinstance(entries, dict) or set(entries) != {"k"}:
        return None
    k = getattr(entries["k"], "value", None)
    return k if isinstance(k, int) and not isinstance(k, bool) and k >= 0 else None


def _comparator_kind(element: Any) -> frozenset[str] | None:
    """The compare types that order `element` as chlo.top_k does, None for types the kernel
    does not take (complex, 8-bit floats, ...)."""
    if isinstance(element, FloatType):
        return frozenset({"TOTALORDER"}) if element.name in _FLOATS else None
    if isinstance(element, IntegerType) and element.width in (1, 8, 16, 32, 64):
        if element.signedness == "u" or element.width == 1:
            return frozenset({"", "UNSIGNED"})
        return frozenset({"", "SIGNED"}) if element.signedness == "" else None
    return None


def _types_fit(op: Operation, source: TensorType, k: int) -> bool:
    """A static operand of rank >= 1 with at least k in its last dimension; results: the
    values and int32 indices of shape `source.shape[:-1] + (k,)`."""
    if not source.shape or not source.is_static or source.encoding is not None:
        return False
    if _comparator_kind(source.element) is None or k > source.shape[-1]:
        return False
    shape = source.shape[:-1] + (k,)
    wanted = [TensorType(shape, source.element), TensorType(shape, _INDEX)]
    return list(op.result_types) == wanted


def _sorts_and_slices(func: Operation, source: TensorType, k: int) -> bool:
    """Whether `func` is iota, stable descending sort on the values, slice to k, return."""
    if func.name != "func.func" or len(func.regions) != 1 or len(func.regions[0].blocks) != 1:
        return False
    block = func.regions[0].entry
    ops = block.operations
    if len(block.arguments) != 1 or len(ops) != 5:
        return False
    iota, sort, values, indices, ret = ops
    last = len(source.shape) - 1
    limits = source.shape[:-1] + (k,)
    return (_is_iota(iota, source, last) and ret.name == "func.return"
            and _is_sort(sort, [block.arguments[0], iota.results[0]], source, last)
            and _is_prefix(values, sort.results[0], limits)
            and _is_prefix(indices, sort.results[1], limits)
            and list(ret.operands) == [values.results[0], indices.results[0]])


def _value(op: Operation, name: str) -> Any:
    attr = op.attr(name)
    return attr.value if attr is not None else None


def _is_iota(op: Operation, source: TensorType, last: int) -> bool:
    return (op.name == "stablehlo.iota" and _value(op, "iota_dimension") == last
            and op.result_types == [TensorType(source.shape, _INDEX)])


def _is_sort(op: Operation, operands: Sequence[Value], source: TensorType, last: int) -> bool:
    """A stable sort of (values, iota) along `last`, descending by the values alone."""
    if op.name != "stablehlo.sort" or list(op.operands) != list(operands):
        return False
    if _value(op, "dimension") != last or _value(op, "is_stable") is not True:
        return False
    if len(op.regions) != 1 or len(op.results) != 2:
        return False
    found = simple_comparator(op.regions[0], 2)
    kinds = _comparator_kind(source.element)
    if found is None or kinds is None:
        return False
    index, descending, kind = found
    return index == 0 and descending and kind in kinds


def _is_prefix(op: Operation, operand: Value, limits: tuple[int, ...]) -> bool:
    """`slice operand [0:limits[0], 0:limits[1], ...]` with unit strides."""
    return (op.name == "stablehlo.slice" and list(op.operands) == [operand]
            and _value(op, "start_indices") == (0,) * len(limits)
            and _value(op, "limit_indices") == limits
            and _value(op, "strides") == (1,) * len(limits))
