"""Type helpers the quantization passes share: what counts as a quantized type and its
expressed (float) counterpart."""

from __future__ import annotations

from ..ir.types import QuantizedType, TensorType, Type, element_type


def quant_of(t: Type) -> QuantizedType | None:
    """The `!quant.uniform` element type of `t` (or `t` itself), else None."""
    e = element_type(t)
    return e if isinstance(e, QuantizedType) else None


def any_quantized(types: list[Type]) -> bool:
    return any(quant_of(t) is not None for t in types)


def expressed(t: Type) -> Type:
    """`t` with a quantized element type replaced by its expressed type (shape kept)."""
    q = quant_of(t)
    if q is None:
        return t
    if isinstance(t, TensorType):
        return t.with_element(q.expressed)
    return q.expressed
