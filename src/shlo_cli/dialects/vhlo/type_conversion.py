"""Builtin types <-> VHLO types, as upstream's VhloTypeConverter maps them.

Both directions return None for a type that has no counterpart (e.g. `si8`, `f80`, a
sparse encoding that ``encoding`` refuses), so callers can report the failure in their own
words. ``encoding`` converts a tensor encoding attribute (None: keep it unchanged, which is
what the parser's `#vhlo.tensor_v1<dense<...>>` path does).
"""

from __future__ import annotations

from ...ir.attributes import Attribute
from ...ir.types import (
    ComplexType,
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    NoneType,
    OpaqueType,
    QuantizedType,
    TensorType,
    TokenType,
    TupleType,
    Type,
    UnrankedTensorType,
)
from .types import (
    SIMPLE_TYPES,
    ComplexV1Type,
    FunctionV1Type,
    FutureV1Type,
    RankedBufferV1Type,
    RankedTensorV1Type,
    SimpleVhloType,
    TupleV1Type,
    UniformQuantizedPerAxisV1Type,
    UniformQuantizedV1Type,
    UnrankedTensorV1Type,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    EncodingFn = Callable[[Attribute], Attribute | None]


_FROM_BUILTIN: dict[Type, type] = {cls.builtin: cls for cls in SIMPLE_TYPES}


def _keep(attr: Attribute) -> Attribute | None:
    return attr


def _storage_range(storage: IntegerType) -> tuple[int, int]:
    w = storage.width
    if storage.is_unsigned:
        return 0, (1 << w) - 1
    return -(1 << (w - 1)), (1 << (w - 1)) - 1


def to_vhlo_type(t: Type, encoding: EncodingFn | None = None) -> Type | None:
    """The VHLO type standing for builtin type `t`, or None when VHLO has none."""
    enc = encoding or _keep
    if isinstance(t, (IntegerType, FloatType, IndexType, NoneType, TokenType)):
        if isinstance(t, IntegerType) and t.signedness == "s":
            return None  # VHLO has signless (= signed) and unsigned integers only
        cls = _FROM_BUILTIN.get(t)
        return cls() if cls is not None else None
    if isinstance(t, TensorType):
        element = to_vhlo_type(t.element, encoding)
        converted = enc(t.encoding) if t.encoding is not None else None
        if element is None or (t.encoding is not None and converted is None):
            return None
        return RankedTensorV1Type(t.shape, element, converted)
    if isinstance(t, UnrankedTensorType):
        element = to_vhlo_type(t.element, encoding)
        return UnrankedTensorV1Type(element) if element is not None else None
    if isinstance(t, ComplexType):
        element = to_vhlo_type(t.element, encoding)
        return ComplexV1Type(element) if element is not None else None
    if isinstance(t, (TupleType, FunctionType)):
        groups = (t.types,) if isinstance(t, TupleType) else (t.inputs, t.results)
        converted_groups = []
        for group in groups:
            items = [to_vhlo_type(x, encoding) for x in group]
            if any(x is None for x in items):
                return None
            converted_groups.append(tuple(items))
        if isinstance(t, TupleType):
            return TupleV1Type(converted_groups[0])
        return FunctionV1Type(converted_groups[0], converted_groups[1])
    if isinstance(t, QuantizedType):
        return _quant_to_vhlo(t)
    if isinstance(t, OpaqueType):
        return _opaque_to_vhlo(t, encoding)
    return None


def _quant_to_vhlo(t: QuantizedType) -> Type | None:
    storage = t.storage
    # The quant dialect stores `i8`/`u8` as a signless integer with a signed flag; only a
    # storage written as a builtin `ui8` keeps an unsigned integer type.
    if t.builtin_storage and storage.signedness == "s":
        return None
    storage_type = to_vhlo_type(storage if t.builtin_storage else IntegerType(storage.width))
    expressed = to_vhlo_type(t.expressed)
    if storage_type is None or expressed is None:
        return None
    flags = 0 if storage.is_unsigned else 1
    low, high = _storage_range(storage)
    if t.storage_min is not None:
        low, high = t.storage_min, t.storage_max  # type: ignore[assignment]
    if t.quantized_dimension is None:
        return UniformQuantizedV1Type(flags, storage_type, expressed, t.scales[0],
                                      t.zero_points[0], low, high)
    return UniformQuantizedPerAxisV1Type(flags, storage_type, expressed, t.quantized_dimension,
                                         tuple(t.scales), tuple(t.zero_points), low, high)


def _opaque_to_vhlo(t: OpaqueType, encoding: EncodingFn | None) -> Type | None:
    """Types our parser keeps as text: `!shape.witness`, `memref<2xf32>` and
    `!stablehlo.future<...>`."""
    from ...ir.parser import parse_type_text
    from .types import WitnessV1Type

    text = t.text
    if text == "!shape.witness":
        return WitnessV1Type()
    if text.startswith("memref<") and text.endswith(">"):
        body = parse_type_text("tensor" + text[len("memref"):])
        if isinstance(body, TensorType) and body.encoding is None:
            element = to_vhlo_type(body.element, encoding)
            if element is not None:
                return RankedBufferV1Type(body.shape, element)
        return None
    prefix = "!stablehlo.future<"
    if text.startswith(prefix) and text.endswith(">"):
        inner = parse_type_text(f"tuple<{text[len(prefix):-1]}>")
        if isinstance(inner, TupleType):
            items = [to_vhlo_type(x, encoding) for x in inner.types]
            if all(x is not None for x in items):
                return FutureV1Type(tuple(items))  # type: ignore[arg-type]
    return None


def to_builtin_type(t: Type, encoding: EncodingFn | None = None) -> Type | None:
    """The builtin type VHLO type `t` stands for, or None (e.g. a non-VHLO element)."""
    enc = encoding or _keep
    if isinstance(t, SimpleVhloType):
        return t.builtin
    if isinstance(t, RankedTensorV1Type):
        element = to_builtin_type(t.element_type, encoding)
        converted = enc(t.encoding) if t.encoding is not None else None
        if element is None or (t.encoding is not None and converted is None):
            return None
        return TensorType(t.shape, element, converted)
    if isinstance(t, UnrankedTensorV1Type):
        element = to_builtin_type(t.element_type, encoding)
        return UnrankedTensorType(element) if element is not None else None
    if isinstance(t, ComplexV1Type):
        element = to_builtin_type(t.element_type, encoding)
        return ComplexType(element) if element is not None else None
    if isinstance(t, (TupleV1Type, FutureV1Type, FunctionV1Type)):
        groups = (t.inputs, t.outputs) if isinstance(t, FunctionV1Type) else (t.types,)
        converted_groups = []
        for group in groups:
            items = [to_builtin_type(x, encoding) for x in group]
            if any(x is None for x in items):
                return None
            converted_groups.append(tuple(items))
        if isinstance(t, TupleV1Type):
            return TupleType(converted_groups[0])
        if isinstance(t, FutureV1Type):
            return OpaqueType("!stablehlo.future<" + ", ".join(map(str, converted_groups[0]))
                              + ">")
        return FunctionType(converted_groups[0], converted_groups[1])
    if isinstance(t, (UniformQuantizedV1Type, UniformQuantizedPerAxisV1Type)):
        return _quant_to_builtin(t)
    if isinstance(t, RankedBufferV1Type):
        element = to_builtin_type(t.element_type, encoding)
        if element is None:
            return None
        dims = "".join(("?" if d < 0 else str(d)) + "x" for d in t.shape)
        return OpaqueType(f"memref<{dims}{element}>")
    return None


def _quant_to_builtin(t: UniformQuantizedV1Type | UniformQuantizedPerAxisV1Type) -> Type | None:
    storage = to_builtin_type(t.storage_type)
    expressed = to_builtin_type(t.expressed_type)
    if not isinstance(storage, IntegerType) or expressed is None:
        return None
    builtin_storage = storage.is_unsigned
    if not builtin_storage and not t.flags & 1:
        storage = IntegerType(storage.width, "u")  # `u8`: signless storage, unsigned flag
    low, high = t.storage_type_min, t.storage_type_max
    kept_low: int | None = low
    kept_high: int | None = high
    if (low, high) == _storage_range(storage):
        kept_low = kept_high = None
    if isinstance(t, UniformQuantizedV1Type):
        return QuantizedType(storage, expressed, (t.scale,), (t.zero_point,), None, kept_low,
                             kept_high, builtin_storage=builtin_storage)
    return QuantizedType(storage, expressed, tuple(t.scales), tuple(t.zero_points),
                         t.quantized_dimension, kept_low, kept_high,
                         builtin_storage=builtin_storage)

