"""How the interpreter prints values, byte for byte like upstream `stablehlo-translate`.

A tensor prints as its type, ` {`, one indented line per row of the innermost dimension
with nested brackets, and `}` (`Tensor::print`); a rank-0 tensor as `tensor<ui8> {1}`.
Elements print without their type: integers in decimal (unsigned types unsigned), i1 as
`true`/`false`, floats the way MLIR prints float attributes, complex numbers as `[re, im]`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .attributes import DenseElementsAttr
from .floats import format_float_array
from .types import (
    ComplexType,
    FloatType,
    IndexType,
    IntegerType,
    QuantizedType,
    TensorType,
    TupleType,
    Type,
    element_type,
)


def format_elements(flat: np.ndarray, etype: Type) -> list[str]:
    """Each element of the 1-d array `flat` as upstream's `Element::print` writes it."""
    if isinstance(etype, QuantizedType):
        etype = etype.storage
    if isinstance(etype, IntegerType):
        if etype.width == 1:
            return ["true" if x else "false" for x in flat.tolist()]
        wide = np.uint64 if etype.is_unsigned else np.int64
        return [str(x) for x in flat.astype(wide).tolist()]
    if isinstance(etype, IndexType):
        return [str(x) for x in flat.astype(np.int64).tolist()]
    if isinstance(etype, FloatType):
        return format_float_array(flat, etype)
    if isinstance(etype, ComplexType):
        inner = etype.element
        assert isinstance(inner, FloatType)
        real = format_float_array(np.ascontiguousarray(flat.real), inner)
        imag = format_float_array(np.ascontiguousarray(flat.imag), inner)
        return [f"[{r}, {i}]" for r, i in zip(real, imag, strict=True)]
    return [str(x) for x in flat.tolist()]


def format_element(value: Any, etype: Type) -> str:
    """One element (a numpy scalar of the element type's dtype)."""
    return format_elements(np.asarray(value).reshape(1), etype)[0]


def format_index(index: tuple[int, ...]) -> str:
    """A multi-dimensional index as upstream prints it: `[1, 2]`, `[]` for rank 0."""
    return "[" + ", ".join(str(i) for i in index) + "]"


def runtime_type(static_type: Type, value: np.ndarray) -> TensorType:
    """The tensor type of a run-time value: the declared element type, the actual shape; a
    quantized element prints as its storage type (`lowered_element`)."""
    etype = lowered_element(element_type(static_type))
    return TensorType(tuple(int(d) for d in value.shape), etype)


def lowered_element(etype: Type) -> Type:
    """The element type a value of `etype` has once upstream's interpreter lowered the entry
    function's quantized types (Api.cpp `lowerQuantization` runs the quant-to-math pipeline
    before evaluating): the storage type, signless `iN` for signed storage. Unsigned storage
    stays `uiN`, as our quant-to-math pass keeps it (upstream makes it signless too)."""
    if isinstance(etype, QuantizedType):
        storage = etype.storage
        if etype.builtin_storage or storage.is_unsigned:
            return storage
        return IntegerType(storage.width)
    return etype


def format_tensor(value: np.ndarray, type: TensorType) -> str:
    """`Tensor::print`: `tensor<2x2xi8> {` + nested indented rows + `}`."""
    flat = format_elements(np.asarray(value).reshape(-1), type.element)
    shape = tuple(value.shape)
    if not shape:
        return f"{type} {{{flat[0]}}}"
    out = [f"{type} {{"]
    rank = len(shape)
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]

    def row(offset: int, dim: int, indent: int, last: bool) -> None:
        out.append("\n" + "  " * indent + "[")
        if dim == rank - 1:
            out.append(", ".join(flat[offset:offset + shape[dim]]))
        else:
            for i in range(shape[dim]):
                row(offset + i * strides[dim], dim + 1, indent + 1, i == shape[dim] - 1)
        out.append("]")
        out.append("\n" + "  " * (indent - 1) if last else ",")

    row(0, 0, 1, True)
    out.append("}")
    return "".join(out)


def format_dense(value: np.ndarray, type: TensorType) -> str:
    """`--interpreter-print-dense`: the value as a `dense<...> : type` attribute."""
    data = np.ascontiguousarray(value)
    etype = type.element
    if isinstance(etype, QuantizedType):
        etype = etype.storage
    splat = False
    if data.size == 1:
        splat = True
    elif data.size > 1:
        raw = data.reshape(-1).view(np.uint8).reshape(data.size, -1)
        splat = bool((raw == raw[0]).all())
    if splat:
        return str(DenseElementsAttr(type, data.reshape(-1)[:1].copy(), splat=True))
    return str(DenseElementsAttr(type, data.reshape(-1), splat=False))


def format_value(value: Any, type: Type, dense: bool = False) -> str:
    """Any interpreter value: tensors as above, anything else (tokens) as its type."""
    if isinstance(value, np.ndarray) and isinstance(type, TensorType):
        rtype = runtime_type(type, value)
        return format_dense(value, rtype) if dense else format_tensor(value, rtype)
    if isinstance(value, np.generic) and isinstance(type, TensorType):
        return format_value(np.asarray(value), type, dense)
    if isinstance(value, tuple) and isinstance(type, TupleType):
        # upstream's Tuple::print layout: the type, then the elements one a line, comma
        # separated, in parentheses (upstream sends the elements themselves to stderr)
        count = len(type.types)
        elements = "".join(format_value(v, t, dense) + ("," if i + 1 < count else "") + "\n"
                           for i, (v, t) in enumerate(zip(value, type.types, strict=False)))
        return f"{type} (\n{elements})"
    return str(type)
