"""constant and iota: ops that produce a tensor from attributes alone."""

from __future__ import annotations

import numpy as np

from ...ir.attributes import Attribute, DenseElementsAttr, DenseResourceAttr
from ...ir.core import Location, Operation
from ...ir.diagnostics import EvaluationError
from ...ir.printer import Printer
from ...ir.types import IntegerType, QuantizedType, TensorType, element_type
from ...ir.verifier import inferred_type_mismatch, op_error
from ..asm import Format
from ..registry import OpDef, constant_materializer, define_op, lookup
from ..syntax import Custom
from .conversions import convert_array, result_dtype
from .data_movement import constant_ints, require_static_dimension_tensor, verify_output_shape
from .elementwise_verify import verify_iota
from .linalg_verify import verify_dynamic_iota

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _parse_constant(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`dense<...> : T`, or the generic-looking `() <{value = ...}> : () -> T` used when the
    value's type differs from the result's (quantized results)."""
    props: dict[str, Attribute] = {}
    if p.accept("("):
        p.expect(")")
        if p.accept("<"):
            props = p.parse_attr_dict_body()
            p.expect(">")
        attributes = p.parse_optional_attr_dict()
        p.expect(":")
        p.expect("(")
        p.expect(")")
        p.expect("->")
        result = p.parse_type()
        return p.build_operation(opdef.name, opdef, [], [result], props, attributes, [], None,
                                 location)
    attributes = p.parse_optional_attr_dict()
    tok = p.tok
    value = p.parse_attribute()
    value_type = getattr(value, "type", None)
    if not isinstance(value, (DenseElementsAttr, DenseResourceAttr)) or value_type is None:
        raise p.error("invalid kind of attribute specified", tok)
    props["value"] = value
    return p.build_operation(opdef.name, opdef, [], [value_type], props, attributes, [], None,
                             location)


def _print_constant(pr: Printer, op: Operation) -> None:
    value = op.properties.get("value")
    if value is None or getattr(value, "type", None) != op.result_types[0]:
        pr.write("()")
        if op.properties:
            from ...ir.attributes import format_attr_entries

            pr.write(" <{" + format_attr_entries(op.properties) + "}>")
        pr.write(pr.attr_dict(op.attributes))
        pr.write(f" : () -> {op.result_types[0]}")
        return
    pr.write(pr.attr_dict(op.attributes))
    pr.write(f" {value}")


def _constant_name(op: Operation) -> str:
    """Upstream's getAsmResultNames: `%c` for integer (incl. i1) elements, else `%cst`."""
    return "c" if isinstance(element_type(op.result_types[0]), IntegerType) else "cst"


def verify_constant(op: Operation) -> None:
    """The ODS result constraint, then the inferred type (the value's type) against the result
    (upstream's isCompatibleReturnTypes also takes a quantized result whose storage type is
    the value's element type)."""
    value = op.attr("value")
    result = op.result_types[0]
    if isinstance(result, TensorType) and not result.is_static:
        raise op_error(op, f"result #0 must be statically shaped tensor, but got '{result}'")
    value_type = getattr(value, "type", None)
    if value_type is None or not isinstance(result, TensorType) or value_type == result:
        return
    element = result.element
    if not (isinstance(element, QuantizedType) and isinstance(value_type, TensorType)
            and value_type.element == element.storage
            and tuple(value_type.shape) == tuple(result.shape)):
        raise inferred_type_mismatch(op, f"'{value_type}'")


@define_op("stablehlo.constant", operands=(), results=1, attributes=("value",),
           syntax=Custom(_parse_constant, _print_constant), asm_result_name=_constant_name,
           verify=verify_constant)
def constant(*, value: Any) -> np.ndarray:
    """The tensor held by the `value` attribute. The same array is returned on every run, so
    it is read-only: a kernel writing into its operand would otherwise change the constant."""
    if not isinstance(value, np.ndarray):
        if isinstance(value, DenseElementsAttr):
            return value.value
        raise EvaluationError(f"unsupported constant value: {value}")
    if value.flags.writeable:
        value.flags.writeable = False
    return value


@constant_materializer("stablehlo")
def materialize_constant(value: Attribute, type: Any, location: Location) -> Operation | None:
    """A folded tensor value as a `stablehlo.constant` (upstream's materializeConstant takes
    elements attributes only)."""
    if not isinstance(value, DenseElementsAttr) or not isinstance(type, TensorType):
        return None
    return Operation("stablehlo.constant", [], [type], {"value": value}, location=location,
                     opdef=lookup("stablehlo.constant"))


@define_op("stablehlo.iota", operands=(), results=1, attributes=("iota_dimension",),
           syntax=Format("`dim` `=` $iota_dimension", types="result",
                         attrs={"iota_dimension": "int"}), verify=verify_iota)
def iota(*, iota_dimension: int, result_type: Any) -> np.ndarray:
    """Each element is its index along `iota_dimension`, converted to the element type."""
    shape = tuple(result_type.shape)
    if not 0 <= iota_dimension < len(shape):
        raise EvaluationError(f"iota dimension {iota_dimension} out of range")
    index_shape = [1] * len(shape)
    count = index_shape[iota_dimension] = shape[iota_dimension]
    dtype = result_dtype(result_type)
    if _exact_range(dtype, count):  # every index is exactly a value of the type
        values = np.arange(count, dtype=dtype).reshape(index_shape)
    else:
        values = convert_array(np.arange(count, dtype=np.int64).reshape(index_shape), dtype)
    if len(shape) == 1:
        return values
    return np.broadcast_to(values, shape).copy()


def _exact_range(dtype: np.dtype, count: int) -> bool:
    """Whether numpy's arange in `dtype` itself gives 0..count-1 exactly: native ints that
    hold count - 1, native floats whose mantissa holds it."""
    if dtype.kind in "iu" and dtype.itemsize <= 8:
        return count - 1 <= np.iinfo(dtype).max
    if dtype in (np.float16, np.float32, np.float64):
        return count <= 2 ** (np.finfo(dtype).nmant + 1)
    return False


def verify_dynamic_iota_op(op: Operation) -> None:
    """dynamic_iota's attribute and rank checks, then a constant `output_shape` against the
    result type (upstream verifyDynamicIotaOp)."""
    require_static_dimension_tensor(op, 0)
    verify_dynamic_iota(op)
    verify_output_shape(op, constant_ints(op.operands[0]))
