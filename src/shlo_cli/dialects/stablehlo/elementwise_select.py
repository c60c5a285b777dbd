"""compare, select, clamp and complex: elementwise ops with their own assembly quirks."""

from __future__ import annotations

import numpy as np

from ...ir.core import Location, Operation
from ...ir.types import ComplexType, FunctionType, TensorType, Type
from ...lazy_imports import lazy
from ..asm import Format
from ..registry import OpDef, define_op
from ..syntax import Custom, resolve_functional_operands
from .elementwise import maximum, minimum
from .elementwise_numerics import (
    NATIVE_FLOATS,
    NATIVE_INTS,
    is_bool,
    is_complex,
    is_float,
    make_complex,
    widen,
)
from .elementwise_verify import (
    ANY,
    AXIS_QUANT,
    COMPLEX,
    F32_64,
    PRED,
    elementwise,
    verify_clamp,
    verify_compare,
    verify_complex,
    verify_select,
)
from .enums import parse_enum_case

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COMPARABLE = ANY - {AXIS_QUANT}

NATIVE_COMPARE = lazy(lambda: NATIVE_INTS | NATIVE_FLOATS | {np.dtype(np.bool_)})

# ---- compare -------------------------------------------------------------------------------

DIRECTIONS = ("EQ", "NE", "GE", "GT", "LE", "LT")
COMPARE_TYPES = ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")


def _parse_compare(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    start = p.tok
    props = {"comparison_direction": parse_enum_case(p, "comparison_direction")}
    p.expect(",")
    operands = [p.parse_operand()]
    p.expect(",")
    operands.append(p.parse_operand())
    if p.accept(","):
        props["compare_type"] = parse_enum_case(p, "comparison_type")
    attributes = p.parse_optional_attr_dict()
    results = _parse_functional(p, operands, start, location)
    return p.build_operation(opdef.name, opdef, operands, results, props, attributes, [], None,
                             location)


def _parse_functional(p: Any, operands: list, start: Any, location: Location) -> list[Type]:
    p.expect(":")
    tok = p.tok
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", tok)
    resolve_functional_operands(p, operands, list(ftype.inputs), location, start)
    return list(ftype.results)


def _functional(op: Operation) -> str:
    return " : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types)))


def _print_compare(pr: Any, op: Operation) -> None:
    direction = op.properties["comparison_direction"].value
    # One space before each enum (MLIR printed two before llvm-project#184253, as older
    # exports and upstream's testdata still spell it: `compare  LT, %a, %b,  SIGNED`).
    pr.write(f" {direction}, {pr.operands(op.operands)}")
    compare_type = op.properties.get("compare_type")
    if compare_type is not None:
        pr.write(f", {compare_type.value}")
    pr.write(pr.attr_dict(op.attributes))
    pr.write(_functional(op))


def total_order_key(x: np.ndarray) -> np.ndarray:
    """IEEE totalOrder as an integer key: -NaN < -Inf < ... < -0 < +0 < ... < Inf < NaN."""
    bits = x.astype(np.float64).view(np.int64)
    return np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)


_ORDERED = lazy(lambda: {
    "EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal, "GT": np.greater,
    "LE": np.less_equal, "LT": np.less,
})


@define_op("stablehlo.compare", operands=("lhs", "rhs"), results=1,
           attributes=("comparison_direction", "compare_type?"),
           syntax=Custom(_parse_compare, _print_compare),
           verify=elementwise(COMPARABLE, frozenset((PRED,)), False, verify_compare))
def compare(lhs: np.ndarray, rhs: np.ndarray, *, comparison_direction: str,
            compare_type: str | None) -> np.ndarray:
    """lhs <direction> rhs. Floats follow IEEE (NaN compares unequal) unless compare_type is
    TOTALORDER; complex numbers compare lexicographically by (real, imag)."""
    dtype = lhs.dtype
    if dtype in NATIVE_COMPARE and compare_type != "TOTALORDER":
        return _ORDERED[comparison_direction](lhs, rhs)
    if is_complex(dtype):
        return _compare_complex(lhs, rhs, comparison_direction)
    if is_float(dtype) and compare_type == "TOTALORDER":
        a, b = total_order_key(widen(lhs)), total_order_key(widen(rhs))
    elif is_bool(dtype):
        a, b = lhs.astype(np.uint8), rhs.astype(np.uint8)
    else:
        a, b = widen(lhs), widen(rhs)
    return np.asarray(_ORDERED[comparison_direction](a, b))


def _compare_complex(lhs: np.ndarray, rhs: np.ndarray, direction: str) -> np.ndarray:
    ar, ai, br, bi = lhs.real, lhs.imag, rhs.real, rhs.imag
    equal = (ar == br) & (ai == bi)
    if direction == "EQ":
        return equal
    if direction == "NE":
        return ~equal
    strict = np.greater if direction in ("GT", "GE") else np.less
    result = strict(ar, br) | ((ar == br) & strict(ai, bi))
    return result | equal if direction in ("GE", "LE") else result


# ---- select / clamp ------------------------------------------------------------------------


@define_op("stablehlo.select", operands=("pred", "on_true", "on_false"), results=1,
           syntax=Format("$pred `,` $on_true `,` $on_false",
                         operands=("pred", "on_true", "on_false"),
                         types="select"), verify=verify_select)
def select(pred: np.ndarray, on_true: np.ndarray, on_false: np.ndarray) -> np.ndarray:
    """on_true where pred holds, else on_false (a scalar pred picks a whole tensor)."""
    if pred.ndim == 0:
        return on_true if bool(pred) else on_false
    return np.where(pred, on_true, on_false)


@define_op("stablehlo.clamp", operands=("min", "operand", "max"), results=1,
           syntax=Format("$min `,` $operand `,` $max",
                         operands=("min", "operand", "max")),
           verify=verify_clamp)
def clamp(min: np.ndarray, operand: np.ndarray, max: np.ndarray) -> np.ndarray:  # noqa: A002
    """minimum(maximum(operand, min), max); scalar bounds apply to every element."""
    return minimum(maximum(operand, min), max)


# ---- complex -------------------------------------------------------------------------------


def _real_type(t: Type) -> Type:
    if isinstance(t, TensorType) and isinstance(t.element, ComplexType):
        return TensorType(t.shape, t.element.element)
    return t


def _parse_complex(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    start = p.tok
    operands = [p.parse_operand()]
    p.expect(",")
    operands.append(p.parse_operand())
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    tok = p.tok
    t = p.parse_type()
    if isinstance(t, FunctionType):
        if len(t.inputs) != 2:  # assignFromFunctionType counts at the type
            p.check_operand_types(operands, list(t.inputs), tok)
        p.check_operand_types(operands, list(t.inputs), start)
        results = list(t.results)
    elif not (isinstance(t, TensorType) and isinstance(t.element, ComplexType)):
        raise p.op_error("expected tensor with complex element type", tok)
    else:
        p.check_operand_types(operands, [_real_type(t)] * 2, start)
        results = [t]
    return p.build_operation(opdef.name, opdef, operands, results, {}, attributes, [], None,
                             location)


def _print_complex(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + pr.attr_dict(op.attributes))
    result = op.result_types[0]
    real = _real_type(result)
    if all(t == real for t in op.operand_types):
        pr.write(f" : {result}")
    else:
        pr.write(_functional(op))


@define_op("stablehlo.complex", operands=("lhs", "rhs"), results=1,
           syntax=Custom(_parse_complex, _print_complex),
           verify=elementwise(frozenset((F32_64,)), frozenset((COMPLEX,)), False, verify_complex))
def complex_(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """lhs + i * rhs."""
    dtype = np.dtype(np.complex64) if lhs.dtype == np.float32 else np.dtype(np.complex128)
    return make_complex(lhs, rhs, dtype)
