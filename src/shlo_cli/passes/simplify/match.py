"""Small matchers the simplification patterns share (MLIR's m_Zero, m_One, ... over the
constants our IR holds)."""

# Types of values are read as TensorType after the op's verifier ran; mypy cannot see
# that narrowing (TODO: typed accessors instead of this pragma).
# mypy: disable-error-code="attr-defined,arg-type,union-attr,dict-item"

from __future__ import annotations

import numpy as np

from ...ir.attributes import DenseElementsAttr, DictAttr
from ...ir.core import Operation, Value
from ...ir.types import FloatType, IntegerType, TensorType
from ..fold.common import constant_attr, splat_attr, splat_scalar


def defining(value: Value, name: str) -> Operation | None:
    """The op named `name` defining `value`, else None."""
    owner = value.owner
    return owner if isinstance(owner, Operation) and owner.name == name else None


def stablehlo_constant(value: Value) -> DenseElementsAttr | None:
    """The elements of a `stablehlo.constant` defining `value` (StableHLO_ConstantOp)."""
    return constant_attr(value) if defining(value, "stablehlo.constant") else None


def _splat(value: Value, any_constant: bool) -> tuple[np.ndarray, object] | None:
    if not any_constant and defining(value, "stablehlo.constant") is None:
        return None
    attr = splat_attr(value)
    if attr is None:
        return None
    return splat_scalar(attr), attr.type.element


def is_int_zero(value: Value, any_constant: bool = False) -> bool:
    found = _splat(value, any_constant)
    return found is not None and isinstance(found[1], IntegerType) and not np.any(found[0])


def is_any_zero(value: Value, any_constant: bool = False) -> bool:
    found = _splat(value, any_constant)
    return (found is not None and isinstance(found[1], IntegerType | FloatType)
            and bool(np.all(found[0] == 0)))


def is_int_all_ones(value: Value) -> bool:
    found = _splat(value, False)
    if found is None or not isinstance(found[1], IntegerType):
        return False
    scalar, element = found
    if element.width == 1:
        return bool(scalar[0])
    return int(scalar.astype(np.int64)[0]) & ((1 << element.width) - 1) == (1 << element.width) - 1


def is_int_one(value: Value) -> bool:
    found = _splat(value, False)
    return found is not None and isinstance(found[1], IntegerType) and int(found[0][0]) == 1


def is_any_one(value: Value) -> bool:
    found = _splat(value, False)
    return (found is not None and isinstance(found[1], IntegerType | FloatType)
            and float(found[0].astype(np.float64)[0]) == 1.0)


def is_static(value: Value) -> bool:
    return isinstance(value.type, TensorType) and value.type.is_static


def num_elements(value: Value) -> int | None:
    type = value.type
    if not isinstance(type, TensorType) or not type.is_static:
        return None
    return int(np.prod(type.shape, dtype=np.int64))


def ints(op: Operation, name: str) -> list[int] | None:
    attr = op.attr(name)
    if attr is None:
        return None
    value = attr.value
    return [int(v) for v in np.asarray(value).reshape(-1)]


def is_iota(dims: list[int]) -> bool:
    return dims == list(range(len(dims)))


def merge_attrs(source: Operation, dest: object) -> None:
    """Upstream's mergeDiscardableAttributes: `source`'s discardable attributes win over
    `dest`'s (an op, or the op defining a value), except inside `mhlo.frontend_attributes`
    where `dest` keeps its `xla_metadata_payload`."""
    if isinstance(dest, Value):
        dest = dest.owner
    if not isinstance(dest, Operation) or not source.attributes:
        return
    if not dest.attributes:
        dest.attributes = dict(source.attributes)
        return
    merged = dict(dest.attributes)
    for name, attr in source.attributes.items():
        old = merged.get(name)
        if name == "mhlo.frontend_attributes" and old is not None and isinstance(
                getattr(old, "value", None), dict) and isinstance(getattr(attr, "value", None),
                                                                  dict):
            entries = dict(old.value)
            for key, item in attr.value.items():
                if key == "xla_metadata_payload" and key in entries:
                    continue
                entries[key] = item
            merged[name] = DictAttr(tuple(sorted(entries.items())))
        else:
            merged[name] = attr
    dest.attributes = dict(sorted(merged.items()))


# StableHLO ops with the SameOperandsAndResultShape trait (StablehloOps.td: the unary and
# binary elementwise classes, and complex, compare, map, sort).
_SAME_OPERANDS_AND_RESULT_SHAPE = frozenset(f"stablehlo.{name}" for name in (
    "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one floor "
    "imag is_finite log log_plus_one logistic not negate popcnt real round_nearest_afz "
    "round_nearest_even rsqrt sign sine sqrt tan tanh uniform_quantize uniform_dequantize "
    "add atan2 complex divide maximum minimum multiply power remainder shift_left "
    "shift_right_arithmetic shift_right_logical subtract and or xor compare map sort").split())


def same_operands_and_result_shape(op: Operation) -> bool:
    return op.name in _SAME_OPERANDS_AND_RESULT_SHAPE
