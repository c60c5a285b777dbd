"""`--stablehlo-convert-to-signless`: retype the whole module onto signless integers.

Every signed or unsigned integer type becomes the signless integer of its width, also as the
element type of tensors, vectors and memrefs; other types are kept (as upstream's
RemoveSignTypeConverter, which does not look into tuples). Op results, block arguments and
function signatures are retyped in place; `stablehlo.constant` / `arith.constant` values are
re-read in the signless type (255 : ui8 becomes -1 : i8). Attributes other than constant
values are left as they are. Casts between a signed type and its signless twin
(`builtin.unrealized_conversion_cast`) become identities that `--canonicalize` removes."""

from __future__ import annotations

import numpy as np

from ..ir import regex_programs
from ..ir.attributes import DenseElementsAttr, TypeAttr
from ..ir.core import Module, Operation
from ..ir.types import (
    FunctionType,
    IntegerType,
    OpaqueType,
    TensorType,
    Type,
    UnrankedTensorType,
    VectorType,
    numpy_dtype,
)
from . import register_pass

_CONSTANT_OPS = ("stablehlo.constant", "arith.constant")
_SIGNED_MEMREF_ELEMENT = regex_programs.compile(r"(?<=[<x])[su]i(\d+)\b")


def signless(t: Type) -> Type:
    """`t` with signed/unsigned integers (as itself or as a shaped type's element) made
    signless."""
    if isinstance(t, IntegerType):
        return IntegerType(t.width) if t.signedness else t
    if isinstance(t, TensorType):
        element = signless(t.element)
        return t if element is t.element else t.with_element(element)
    if isinstance(t, UnrankedTensorType):
        element = signless(t.element)
        return t if element is t.element else UnrankedTensorType(element)
    if isinstance(t, VectorType):
        element = signless(t.element)
        return t if element is t.element else VectorType(t.shape, element)
    if isinstance(t, OpaqueType) and t.text.startswith("memref<"):
        text = _SIGNED_MEMREF_ELEMENT.sub(r"i\1", t.text)
        return t if text == t.text else OpaqueType(text)
    return t


@register_pass("stablehlo-convert-to-signless",
               "Pass to transform the IR to be on signless integers.")
def convert_to_signless(module: Module) -> None:
    for op in module.op.walk():
        for value in op.results:
            value.type = signless(value.type)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    arg.type = signless(arg.type)
        if op.name == "func.func":
            _retype_function(op)
        elif op.name in _CONSTANT_OPS:
            _retype_constant(op)


def _retype_function(op: Operation) -> None:
    attr = op.properties.get("function_type")
    if not isinstance(attr, TypeAttr) or not isinstance(attr.value, FunctionType):
        return
    ftype = attr.value
    op.properties["function_type"] = TypeAttr(FunctionType(
        tuple(signless(t) for t in ftype.inputs), tuple(signless(t) for t in ftype.results)))


def _retype_constant(op: Operation) -> None:
    attr = op.attr("value")
    if not isinstance(attr, DenseElementsAttr):
        return
    new_type = signless(attr.type)
    if new_type == attr.type or not isinstance(new_type, TensorType):
        return
    dtype = numpy_dtype(new_type.element)
    data = np.ascontiguousarray(attr.data)
    data = data.view(dtype) if data.dtype.itemsize == dtype.itemsize else data.astype(dtype)
    op.set_attr("value", DenseElementsAttr(new_type, data, attr.splat))
