"""map, optimization_barrier, tokens (after_all, create_token) and tuples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.attributes import IntegerAttr
from ...ir.core import Location, Operation, Region
from ...ir.diagnostics import Diagnostic, EvaluationError
from ...ir.types import FunctionType, IntegerType
from ..asm import Format
from ..registry import OpDef, define_op
from ..syntax import Custom, resolve_functional_operands
from .elementwise_verify import verify_get_tuple_element, verify_map, verify_tuple


class Token:
    """The run-time value of `!stablehlo.token`: carries no data, only ordering."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "!stablehlo.token"


TOKEN = Token()

# ---- map ----------------------------------------------------------------------------------

# Ops that accept arrays of any shape and broadcast 0-d operands, so a `map` body built only
# from them can run once on whole tensors instead of once per element.
SHAPE_POLYMORPHIC = frozenset(
    "stablehlo." + name for name in (
        "abs add and atan2 cbrt ceil clamp complex compare convert cosine count_leading_zeros "
        "divide exponential exponential_minus_one floor imag is_finite log log_plus_one "
        "logistic maximum minimum multiply negate not or popcnt power real reduce_precision "
        "remainder round_nearest_afz round_nearest_even rsqrt select shift_left "
        "shift_right_arithmetic shift_right_logical sign sine sqrt subtract tan tanh xor "
        "constant return"
    ).split()
)


def _vectorizable(region: Region) -> bool:
    if len(region.blocks) != 1:
        return False
    for op in region.entry.operations:
        if op.name not in SHAPE_POLYMORPHIC or op.regions:
            return False
        if op.name == "stablehlo.constant" and any(
                getattr(t, "shape", None) != () for t in op.result_types):
            return False
    return True


@define_op("stablehlo.map", operands=("*inputs",), results=1, attributes=("dimensions",),
           regions=("computation",), verify=verify_map)
def map_(*inputs: np.ndarray, computation: Callable[..., list], op: Operation,
         result_type: Any) -> np.ndarray:
    """computation applied to each tuple of corresponding input elements. An elementwise body
    runs once on the whole tensors; any other body runs once per element."""
    shape = tuple(result_type.shape)
    if _vectorizable(op.regions[0]):
        out = computation(*inputs)[0]
        return np.broadcast_to(out, shape).copy()
    flat_inputs = [x.reshape(-1) for x in inputs]
    results = [computation(*[x[i:i + 1].reshape(()) for x in flat_inputs])[0]
               for i in range(int(np.prod(shape, dtype=np.int64)))]
    if not results:
        from ...ir.types import element_type, numpy_dtype

        return np.zeros(shape, numpy_dtype(element_type(result_type)))
    return np.stack(results).reshape(shape)


# ---- optimization_barrier -----------------------------------------------------------------


def _parse_barrier(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    start = p.tok
    attributes = p.parse_optional_attr_dict()
    if p.accept("("):
        p.expect(")")
        return p.build_operation(opdef.name, opdef, [], [], {}, attributes, [], None, location)
    operands = p.parse_operand_list()
    p.expect(":")
    type_tok = p.tok
    try:
        types = p.parse_type_list()
    except Diagnostic as bad:
        # StableHLO's pairwise type parser adds its own error after the type parser's.
        bad.notes.append(p.op_error("expected type list", type_tok))
        raise
    p.resolve_operands(operands, types, start)
    return p.build_operation(opdef.name, opdef, operands, list(types), {}, attributes, [], None,
                             location)


def _print_barrier(pr: Any, op: Operation) -> None:
    pr.write(pr.attr_dict(op.attributes))
    if not op.operands:
        pr.write("()")
        return
    pr.write(" " + pr.operands(op.operands) + " : " + ", ".join(map(str, op.operand_types)))


@define_op("stablehlo.optimization_barrier", operands=("*operand",), results="*",
           syntax=Custom(_parse_barrier, _print_barrier))
def optimization_barrier(*operand: Any) -> tuple[Any, ...]:
    """Its operands, unchanged (it only constrains optimizers)."""
    return operand[0] if len(operand) == 1 else operand


# a generated plan names a single operand's result anew instead of calling (codegen.py)
optimization_barrier.returns_operand = True  # type: ignore[attr-defined]


# ---- tokens -------------------------------------------------------------------------------


def _parse_after_all(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    start = p.tok
    operands = p.parse_operand_list()
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    type_tok = p.tok
    t = p.parse_type()
    if isinstance(t, FunctionType):
        if len(t.inputs) != len(operands):  # assignFromFunctionType counts at the type
            p.check_operand_types(operands, list(t.inputs), type_tok)
        p.check_operand_types(operands, list(t.inputs), start)
        results = list(t.results)
    else:
        p.check_operand_types(operands, [t] * len(operands), start)
        results = [t]
    return p.build_operation(opdef.name, opdef, operands, results, {}, attributes, [], None,
                             location)


def _print_after_all(pr: Any, op: Operation) -> None:
    # the space before the (maybe empty) operand list: `after_all  : !stablehlo.token`
    pr.write(" " + pr.operands(op.operands))
    pr.write(pr.attr_dict(op.attributes))
    result = op.result_types[0]
    if all(t == result for t in op.operand_types):
        pr.write(f" : {result}")
    else:
        pr.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))


@define_op("stablehlo.after_all", operands=("*inputs",), results=1,
           syntax=Custom(_parse_after_all, _print_after_all))
def after_all(*inputs: Any) -> Token:
    """A token produced after all input tokens."""
    return TOKEN


@define_op("stablehlo.create_token", operands=(), results=1, syntax=Format("", types="result"))
def create_token() -> Token:
    """A fresh token (after_all with no inputs)."""
    return TOKEN


# ---- tuples -------------------------------------------------------------------------------


@define_op("stablehlo.tuple", operands=("*val",), results=1,
           syntax=Format("$val", operands=("val*",), types="tuple"), verify=verify_tuple)
def tuple_(*val: Any) -> tuple[Any, ...]:
    """A tuple of the operands."""
    return tuple(val)


def _parse_get_tuple_element(p: Any, opdef: OpDef, location: Location,
                             num_results: int) -> Operation:
    start = p.tok
    operand = p.parse_operand()
    p.expect("[")
    index = p.parse_integer()
    p.expect("]")
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    tok = p.tok
    t = p.parse_type()
    if not isinstance(t, FunctionType):
        raise p.error("expected function type", tok)
    resolve_functional_operands(p, [operand], list(t.inputs), location, start)
    props = {"index": IntegerAttr(index, IntegerType(32))}
    return p.build_operation(opdef.name, opdef, [operand], list(t.results), props, attributes,
                             [], None, location)


def _print_get_tuple_element(pr: Any, op: Operation) -> None:
    pr.write(f" {pr.operands(op.operands)}[{op.properties['index'].value}]")
    pr.write(pr.attr_dict(op.attributes))
    pr.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))


@define_op("stablehlo.get_tuple_element", operands=("operand",), results=1, attributes=("index",),
           syntax=Custom(_parse_get_tuple_element, _print_get_tuple_element),
           verify=verify_get_tuple_element)
def get_tuple_element(operand: tuple[Any, ...], *, index: int) -> Any:
    """The element at `index` of the tuple."""
    if not isinstance(operand, tuple) or not 0 <= index < len(operand):
        raise EvaluationError(f"tuple index {index} out of range")
    return operand[index]

