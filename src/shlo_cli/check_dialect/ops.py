"""The `check` dialect (upstream stablehlo/tests/CheckOps.td): assertions for interpreter tests.

Each op is declared once with its assembly and its evaluator. A failed check raises
EvaluationError with upstream's message, which the interpreter reports at the op's location.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dialects.syntax import Custom
from ..ir.attributes import (
    Attribute,
    DenseElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from ..ir.core import Location, Operation
from ..ir.diagnostics import EvaluationError
from ..ir.floats import format_float
from ..ir.lexer import FLOAT, INT
from ..ir.registry import OpDef, define_op
from ..ir.types import F64, IntegerType, Type, element_type
from ..ir.verifier import op_error
from .comparisons import (
    DEFAULT_TOLERANCE,
    expect_almost_eq_failure,
    expect_close_failure,
    expect_eq_failure,
)

UI64 = IntegerType(64, "u")
UI32 = IntegerType(32, "u")


def _fail(op: Operation, message: str | None) -> None:
    if message is not None:
        raise EvaluationError(f"{op.name} failed: {message}")


def _etype(op: Operation) -> Type:
    return element_type(op.operands[0].type)


# ---- verifiers (upstream's ODS traits) --------------------------------------------------


def _same_type_operands(op: Operation) -> None:
    """SameTypeOperands (expect_eq, expect_almost_eq)."""
    if len({str(v.type) for v in op.operands}) > 1:
        raise op_error(op, "requires all operands to have the same type")


def _types_match(first: str, second: str) -> Any:
    """AllTypesMatch<[first, second]> over operands and the `value` property."""

    def type_of(op: Operation, name: str) -> str:
        if name == "value":
            return str(op.properties["value"].type)
        return str(op.operands[0 if name in ("lhs", "actual") else 1].type)

    def verify(op: Operation) -> None:
        if type_of(op, first) != type_of(op, second):
            raise op_error(op, f"failed to verify that all of {{{first}, {second}}} have "
                               "same type")

    return verify


# ---- shared parsing pieces ----------------------------------------------------------------


def _parse_float_literal(p: Any) -> FloatAttr:
    """`0.1` or `0.1 : f64` (stops before a `:` that starts the operand types)."""
    negative = p.accept("-")
    tok = p.tok
    if tok.kind not in (INT, FLOAT):
        raise p.error("expected floating point literal")
    p.advance()
    value = float(tok.text) if not tok.text.startswith("0x") else float.fromhex(tok.text)
    if p.at(":") and p.peek_next().text == "f64":
        p.advance()
        p.advance()
    return FloatAttr(-value if negative else value, F64)


def _parse_unsigned(p: Any, type: Type) -> IntegerAttr:
    """A ui64 attribute's value (beyond 2^64 - 1: MLIR's `integer value too large`)."""
    tok = p.tok
    value = p.parse_integer()
    if value < 0:
        raise p.error("expected a non-negative integer")
    if value >= 1 << 64:
        raise p.error("integer value too large", tok)
    return IntegerAttr(value, type)


def _parse_dense_value(p: Any) -> DenseElementsAttr:
    tok = p.tok
    attr = p.parse_attribute()
    if not isinstance(attr, DenseElementsAttr):
        raise p.error("expected dense elements attribute", tok)
    return attr


def _optional_keyword_value(p: Any, keyword: str, parse: Any) -> Attribute | None:
    """`, keyword = value` if present."""
    if p.at(",") and p.peek_next().text == keyword:
        p.advance()
        p.advance()
        p.expect("=")
        return parse(p)
    return None


def _build(p: Any, opdef: OpDef, location: Location, operands: list, props: dict,
           attributes: dict) -> Operation:
    return p.build_operation(opdef.name, opdef, operands, [], props, attributes, [], None,
                             location)


def _tolerance_text(attr: Attribute | None) -> str:
    if attr is None:
        return ""
    return f", tolerance = {format_float(attr.value, F64)}"


# ---- check.expect_eq / check.expect_almost_eq --------------------------------------------


def _parse_pair(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`%lhs, %rhs [, tolerance = X] {attrs} : type`."""
    tok = p.tok
    lhs = p.parse_operand()
    p.expect(",")
    rhs = p.parse_operand()
    props: dict[str, Attribute] = {}
    if "tolerance" in opdef.properties:
        tolerance = _optional_keyword_value(p, "tolerance", _parse_float_literal)
        if tolerance is not None:
            props["tolerance"] = tolerance
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    p.check_operand_types([lhs, rhs], [t, t], tok)
    return _build(p, opdef, location, [lhs, rhs], props, attributes)


def _print_pair(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + _tolerance_text(op.properties.get("tolerance")))
    pr.write(pr.attr_dict(op.attributes, ("tolerance",)))
    pr.write(f" : {op.operands[0].type}")


@define_op("check.expect_eq", operands=("lhs", "rhs"), results=0,
           syntax=Custom(_parse_pair, _print_pair), verify=_same_type_operands)
def expect_eq(lhs: np.ndarray, rhs: np.ndarray, *, op: Operation) -> None:
    """Every element of `lhs` equals the corresponding element of `rhs` exactly."""
    _fail(op, expect_eq_failure(lhs, rhs, _etype(op)))


@define_op("check.expect_almost_eq", operands=("lhs", "rhs"), results=0, attributes=("tolerance?",),
           syntax=Custom(_parse_pair, _print_pair), verify=_same_type_operands)
def expect_almost_eq(lhs: np.ndarray, rhs: np.ndarray, *, tolerance: float | None,
                     op: Operation) -> None:
    """Float/complex elements equal within `tolerance` (default 1e-4)."""
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    _fail(op, expect_almost_eq_failure(lhs, rhs, _etype(op), tol))


# ---- check.expect_eq_const / check.expect_almost_eq_const --------------------------------


def _parse_const(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`%lhs, dense<...> : T [, tolerance = X] {attrs}`; the operand has the value's type."""
    tok = p.tok
    lhs = p.parse_operand()
    p.expect(",")
    value = _parse_dense_value(p)
    props: dict[str, Attribute] = {"value": value}
    if "tolerance" in opdef.properties:
        tolerance = _optional_keyword_value(p, "tolerance", _parse_float_literal)
        if tolerance is not None:
            props["tolerance"] = tolerance
    attributes = p.parse_optional_attr_dict()
    p.check_operand_types([lhs], [value.type], tok)
    return _build(p, opdef, location, [lhs], props, attributes)


def _print_const(pr: Any, op: Operation) -> None:
    pr.write(f" {pr.name(op.operands[0])}, {op.properties['value']}")
    pr.write(_tolerance_text(op.properties.get("tolerance")))
    pr.write(pr.attr_dict(op.attributes, ("value", "tolerance")))


@define_op("check.expect_eq_const", operands=("lhs",), results=0, attributes=("value",),
           syntax=Custom(_parse_const, _print_const), verify=_types_match("lhs", "value"))
def expect_eq_const(lhs: np.ndarray, *, value: np.ndarray, op: Operation) -> None:
    """Every element of `lhs` equals the constant `value` exactly."""
    _fail(op, expect_eq_failure(lhs, value, _etype(op)))


@define_op("check.expect_almost_eq_const", operands=("lhs",), results=0,
           attributes=("value", "tolerance?"), syntax=Custom(_parse_const, _print_const),
           verify=_types_match("lhs", "value"))
def expect_almost_eq_const(lhs: np.ndarray, *, value: np.ndarray, tolerance: float | None,
                           op: Operation) -> None:
    """Float/complex elements equal the constant `value` within `tolerance`."""
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    _fail(op, expect_almost_eq_failure(lhs, value, _etype(op), tol))


# ---- check.expect_close ------------------------------------------------------------------


def _parse_close(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`%a, %e, max_ulp_difference = M [, min_ulp_difference = m] : {attrs} Ta, Te`."""
    tok = p.tok
    actual = p.parse_operand()
    p.expect(",")
    expected = p.parse_operand()
    p.expect(",")
    p.expect_keyword("max_ulp_difference")
    p.expect("=")
    props: dict[str, Attribute] = {"max_ulp_difference": _parse_unsigned(p, UI64)}
    low = _optional_keyword_value(p, "min_ulp_difference", lambda q: _parse_unsigned(q, UI64))
    if low is not None:
        props["min_ulp_difference"] = low
    p.expect(":")
    attributes = p.parse_optional_attr_dict()
    types = p.parse_type_list()
    p.check_operand_types([actual, expected], types, tok)
    return _build(p, opdef, location, [actual, expected], props, attributes)


def _print_close(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands))
    pr.write(f", max_ulp_difference = {op.properties['max_ulp_difference'].value}")
    low = op.properties.get("min_ulp_difference")
    if low is not None:
        pr.write(f", min_ulp_difference = {low.value}")
    pr.write(" :" + pr.attr_dict(op.attributes) + " ")
    pr.write(", ".join(str(v.type) for v in op.operands))


@define_op("check.expect_close", operands=("actual", "expected"), results=0,
           attributes=("max_ulp_difference?", "min_ulp_difference?"),
           syntax=Custom(_parse_close, _print_close), verify=_types_match("actual", "expected"))
def expect_close(actual: np.ndarray, expected: np.ndarray, *, max_ulp_difference: int | None,
                 min_ulp_difference: int | None, op: Operation) -> None:
    """ULP distance of every element within [min_ulp_difference, max_ulp_difference]."""
    high = 1 if max_ulp_difference is None else max_ulp_difference
    low = 0 if min_ulp_difference is None else min_ulp_difference
    _fail(op, expect_close_failure(actual, expected, _etype(op), high, low))


# ---- check.expect_serialized_eq ----------------------------------------------------------


def _parse_serialized(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    """`%x, probe_id = "id" [, iter = N] {attrs} : T`."""
    tok = p.tok
    expected = p.parse_operand()
    p.expect(",")
    p.expect_keyword("probe_id")
    p.expect("=")
    props: dict[str, Attribute] = {"probe_id": StringAttr(p.parse_string())}
    iteration = _optional_keyword_value(p, "iter", lambda q: _parse_unsigned(q, UI32))
    if iteration is not None:
        props["iteration"] = iteration
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    p.check_operand_types([expected], [t], tok)
    return _build(p, opdef, location, [expected], props, attributes)


def _print_serialized(pr: Any, op: Operation) -> None:
    pr.write(f" {pr.name(op.operands[0])}, probe_id = {op.properties['probe_id']}")
    iteration = op.properties.get("iteration")
    if iteration is not None:
        pr.write(f", iter = {iteration.value}")
    pr.write(pr.attr_dict(op.attributes) + f" : {op.operands[0].type}")


@define_op("check.expect_serialized_eq", operands=("expected",), results=0,
           attributes=("probe_id", "iteration?"),
           syntax=Custom(_parse_serialized, _print_serialized))
def expect_serialized_eq(expected: np.ndarray, *, probe_id: str, iteration: int | None,
                         op: Operation, ctx: Any) -> None:
    """The `iteration`-th tensor a probe `probe_id` serialized equals `expected`."""
    from .serialized import load_probe

    type_text = str(op.operands[0].type)
    stored_type, stored = load_probe(ctx, probe_id, iteration or 0, expected.dtype)
    if stored_type != type_text:
        raise EvaluationError(
            f"{op.name} failed: Serialized types don't match: {type_text} (actual) vs "
            f"{stored_type} (expected) for probe {probe_id}.")
    _fail(op, expect_eq_failure(expected, stored.reshape(expected.shape), _etype(op)))
