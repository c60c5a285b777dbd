"""Dots and convolutions of narrow floats planned as f32 ops between conversions.

A `dot_general` or `convolution` whose result type is narrower than f32 (bf16, f16, f8...)
or whose operands are (a mixed-precision model's `preferred_element_type=f32`) is evaluated
by the general path as: each operand converted to the result's element type, then to f32,
the f32 product (BLAS, or for shallow sums the sequential f32 sums), and one rounding to the
result type (dialects/stablehlo/gemm.py, convolution.py: XLA's choice). Those steps are
exactly `convert` ops around an f32 op, which the plan-time kernels take (the general path
re-derives the layout and converts the weights on every call). As ops of their own, the
conversions of a loop's weights are loop-invariant (licm.py): a bf16 LSTM step converts
only its state.
"""

from __future__ import annotations

from ..ir import registry
from ..ir.core import Operation, Value
from ..ir.types import F32, FloatType, TensorType

_PRODUCTS = frozenset(("stablehlo.dot_general", "stablehlo.convolution"))
_CONVERT = "stablehlo.convert"
_NARROW = frozenset(("bf16", "f16", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ",
                     "f8E4M3B11FNUZ", "f8E4M3", "f8E3M4", "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN",
                     "f4E2M1FN"))


def _element(value: Value) -> FloatType | None:
    """The float element type of a static tensor value; None for anything else."""
    t = value.type
    if not isinstance(t, TensorType) or not t.is_static or t.encoding is not None:
        return None
    element = t.element
    return element if isinstance(element, FloatType) else None


def _widens(op: Operation) -> bool:
    """Whether `op` is a real-float product the general path computes through f32 with
    narrow values on either side: a narrow result of operands of its type, or an f32 one
    of f32 and narrow operands (each widened exactly)."""
    if op.name not in _PRODUCTS or len(op.operands) != 2 or len(op.results) != 1 or op.regions:
        return False
    result = _element(op.results[0])
    operands = [_element(v) for v in op.operands]
    if result is None or any(e is None for e in operands):
        return False
    if result.name in _NARROW:  # (other operand types: their rounding to it is numpy's)
        return all(e == result for e in operands)
    return result == F32 and all(e == F32 or e is not None and e.name in _NARROW
                                 for e in operands) and any(e != F32 for e in operands)


def widened_products(ops: list[Operation]) -> list[Operation]:
    """`ops` with each narrow product (`_widens`) replaced by its narrow operands'
    conversions to f32, the f32 op and, for a narrow result, the rounding conversion
    defining the op's own result value."""
    if not any(op.name in _PRODUCTS for op in ops):
        return ops
    convert_def = registry.lookup(_CONVERT)
    if convert_def is None:
        return ops
    out: list[Operation] = []
    for op in ops:
        if not _widens(op):
            out.append(op)
            continue
        operands = []
        for value in op.operands:
            t = value.type
            assert isinstance(t, TensorType)
            if t.element != F32:
                convert = Operation(_CONVERT, [value], [TensorType(t.shape, F32)],
                                    location=op.location, opdef=convert_def)
                out.append(convert)
                value = convert.results[0]
            operands.append(value)
        result_type = op.results[0].type
        assert isinstance(result_type, TensorType)
        product = Operation(op.name, operands, [TensorType(result_type.shape, F32)],
                            dict(op.properties), dict(op.attributes), location=op.location,
                            opdef=op.opdef)
        out.append(product)
        if result_type.element == F32:
            product.results = [op.results[0]]
            continue
        rounding = Operation(_CONVERT, [product.results[0]], [result_type],
                             location=op.location, opdef=convert_def)
        rounding.results = [op.results[0]]
        out.append(rounding)
    return out
