"""The `arith` dialect ops StableHLO programs use: `arith.constant` and the plain binary
arithmetic ops (`arith.addf %a, %b : tensor<f32>`) that mixed-dialect programs carry."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.attributes import Attribute, BoolAttr, IntegerAttr
from ..ir.core import Location, Operation
from ..ir.types import IntegerType, Type, numpy_dtype
from ..lazy_imports import numpy_function
from .registry import OpDef, define_op
from .syntax import Custom, cast_syntax

# ---- arith.constant: `attr-dict $value` -------------------------------------------------


def _value_type(p: Any, value: Attribute, tok: Any) -> Type:
    if isinstance(value, BoolAttr):
        return IntegerType(1)
    value_type = getattr(value, "type", None)
    if value_type is None:
        raise p.error("expected a typed attribute for 'value'", tok)
    return value_type


def _parse_constant(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    attributes = p.parse_optional_attr_dict()
    tok = p.tok
    value = p.parse_attribute()
    return p.build_operation(opdef.name, opdef, [], [_value_type(p, value, tok)],
                             {"value": value}, attributes, [], None, location)


def _print_constant(pr: Any, op: Operation) -> None:
    pr.write(pr.attr_dict(op.attributes))
    pr.write(f" {op.properties['value']}")


def _result_name(op: Operation) -> str:
    """MLIR's names: `%true`/`%false` for i1, `%c42_i32` for integers, else `%cst`."""
    value = op.properties.get("value")
    if isinstance(value, BoolAttr):
        return "true" if value.flag else "false"
    if isinstance(value, IntegerAttr):
        if isinstance(value.type, IntegerType):
            if value.type.width == 1:
                return "true" if value.number else "false"
            return f"c{value.number}_{value.type}"
        return f"c{value.number}"
    return "cst"


@define_op("arith.constant", operands=(), results=1, attributes=("value",),
           syntax=Custom(_parse_constant, _print_constant), asm_result_name=_result_name)
def constant(*, value: Any, result_type: Type) -> np.ndarray:
    """Produces the constant `value` as an array of the result type."""
    if isinstance(value, np.ndarray):
        return value
    return np.asarray(value, dtype=numpy_dtype(result_type))



# ---- binary ops: `$lhs `,` $rhs attr-dict `:` type($result)` --------------------------------


def _parse_binary(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    operands = [p.parse_operand()]
    p.expect(",")
    operands.append(p.parse_operand())
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    result_type = p.parse_type()
    p.check_operand_types(operands, [result_type, result_type], tok)
    return p.build_operation(opdef.name, opdef, operands, [result_type], {}, attributes, [],
                             None, location)


def _print_binary(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + pr.attr_dict(op.attributes)
             + f" : {op.result_types[0]}")


_BINARY = Custom(_parse_binary, _print_binary)


def _binary(name: str, fn: Any) -> None:
    def evaluate(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(fn(lhs, rhs), dtype=lhs.dtype)

    evaluate.__doc__ = f"`arith.{name}`: elementwise {fn.__name__}."
    define_op(f"arith.{name}", operands=("lhs", "rhs"), results=1, syntax=_BINARY)(evaluate)


for _name, _fn in (("addf", numpy_function("add")), ("subf", numpy_function("subtract")),
                   ("mulf", numpy_function("multiply")), ("divf", numpy_function("divide")),
                   ("addi", numpy_function("add")), ("subi", numpy_function("subtract")),
                   ("muli", numpy_function("multiply")),
                   ("divsi", lambda a, b: np.trunc(a / b))):
    _binary(_name, _fn)


# ---- arith.index_cast: `$in attr-dict `:` type($in) `to` type($out)` ------------------------


@define_op("arith.index_cast", operands=("in",), results=1, syntax=cast_syntax())
def index_cast(source: np.ndarray, *, result_type: Type) -> np.ndarray:
    """Integer <-> index conversion (sign-extending or truncating)."""
    element = getattr(result_type, "element", result_type)
    return np.asarray(source).astype(numpy_dtype(element))
