"""Result-type inference and shape reification as upstream's InferTypeOpInterface /
InferShapedTypeOpInterface give them, for the `--hlo-test-infer` pass.

- CHLO: elementwise ops take their operand's type; `is_*inf` its shape with i1; broadcasting
  binary ops and `broadcast_select` the NumPy broadcast of their operands (bounded dimensions
  kept when every operand is static or bounded, else MLIR's `?`-tolerant rule); `constant` its
  value's type; `constant_like` its operand's shape with the value's type.
- StableHLO: the type the op's own verifier infers (each verifier reports it when it disagrees
  with the declared results, so the verifier is asked with results no inference can match).

`infer_types` returns None for ops with no inference; an inference failure raises
InferenceFailed with upstream's message.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir import regex_programs, registry
from ..ir.attributes import DialectAttr
from ..ir.core import Operation, Value
from ..ir.diagnostics import Diagnostic
from ..ir.parser import parse_type_text
from ..ir.types import (
    BOOL,
    DYNAMIC,
    ComplexType,
    IndexType,
    OpaqueType,
    QuantizedType,
    TensorType,
    Type,
    UnrankedTensorType,
)
from .infer_stablehlo_types import RULES as STABLEHLO_RULES
from .speculatability import as_struct

# What a rule raises on an op its verifier would reject (the rule then gives no answer).
RULE_ERRORS = (AttributeError, IndexError, TypeError, ValueError, StopIteration,
               ZeroDivisionError)


class InferenceFailed(Exception):
    """Inference rejected the operands; `diag` is upstream's message at the op."""

    def __init__(self, diag: Diagnostic) -> None:
        super().__init__(diag.message)
        self.diag = diag


def _fail(op: Operation, message: str) -> InferenceFailed:
    return InferenceFailed(Diagnostic(message, line=op.location.line or None,
                                      col=op.location.col or None))


# ---- CHLO -----------------------------------------------------------------------------------

CHLO_FROM_OPERAND = frozenset(
    "chlo." + name for name in (
        "_asin_acos_kernel", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e",
        "conj", "cosh", "digamma", "erf", "erfc", "erf_inv", "lgamma", "mulhi", "next_after",
        "polygamma", "sinh", "square", "tan", "zeta"))
CHLO_IS_INF = frozenset({"chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf"})
CHLO_BROADCAST_BINARY = frozenset(
    "chlo.broadcast_" + name for name in (
        "add", "and", "atan2", "divide", "maximum", "minimum", "multiply", "next_after", "or",
        "polygamma", "power", "remainder", "shift_left", "shift_right_arithmetic",
        "shift_right_logical", "subtract", "xor", "zeta", "complex", "compare"))


def _element(t: Type) -> Type | None:
    return t.element if isinstance(t, (TensorType, UnrankedTensorType)) else None


def _same_shape(t: Type, element: Type) -> Type:
    if isinstance(t, TensorType):
        return TensorType(t.shape, element, t.encoding)
    return UnrankedTensorType(element)


def _bounds(t: TensorType) -> list[int | None]:
    encoding = t.encoding
    bounds = encoding.get("bounds") if isinstance(encoding, DialectAttr) else None
    return list(bounds) if bounds and len(bounds) == len(t.shape) else [None] * len(t.shape)


def _bounds_attr(bounds: Sequence[int | None]) -> DialectAttr | None:
    if all(b is None for b in bounds):
        return None
    text = ", ".join("?" if b is None else str(b) for b in bounds)
    return DialectAttr("stablehlo", "bounds", text, (("bounds", list(bounds)),))


def broadcast_extents(a: Sequence[int], b: Sequence[int]) -> list[int] | None:
    """MLIR's OpTrait::util::getBroadcastedShape (None: the shapes do not broadcast)."""
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + list(a)
    b = [1] * (rank - len(b)) + list(b)
    out = []
    for x, y in zip(a, b, strict=True):
        if DYNAMIC in (x, y):
            if x > 1:
                out.append(x)
            elif y > 1:
                out.append(y)
            elif x == 1:
                out.append(y)
            elif y == 1:
                out.append(x)
            else:
                out.append(DYNAMIC)
        elif x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def _bounded_broadcast(types: Sequence[TensorType], element: Type) -> Type:
    """NumPy broadcast of static-or-bounded shapes, bounds kept (upstream's
    getNumpyBroadcastShape); an illegal broadcast gives an unranked result."""
    dims: list[tuple[int, bool]] = []  # (size or bound, bounded)
    first = True
    for t in types:
        mine = [(b if b is not None else DYNAMIC, True) if s == DYNAMIC else (s, False)
                for s, b in zip(t.shape, _bounds(t), strict=True)]
        if first:
            dims, first = mine, False
            continue
        rank = max(len(dims), len(mine))
        a = [(1, False)] * (rank - len(dims)) + dims
        b = [(1, False)] * (rank - len(mine)) + mine
        merged = []
        for x, y in zip(a, b, strict=True):
            if x[0] == 1:
                merged.append(y)
            elif y[0] == 1:
                merged.append(x)
            elif x[0] != y[0] or x[1] != y[1]:
                return UnrankedTensorType(element)
            else:
                merged.append(x)
        dims = merged
    shape = tuple(DYNAMIC if bounded else size for size, bounded in dims)
    bounds = [size if bounded else None for size, bounded in dims]
    return TensorType(shape, element, _bounds_attr(bounds))


def _static_or_bounded(t: TensorType) -> bool:
    return all(s != DYNAMIC or b is not None for s, b in zip(t.shape, _bounds(t), strict=True))


def numpy_broadcast_type(values: Sequence[Value], element: Type) -> Type:
    """The result type of NumPy-broadcasting `values` (upstream's getNumpyBroadcastType)."""
    types = [v.type for v in values]
    if any(not isinstance(t, TensorType) for t in types):
        return UnrankedTensorType(element)
    ranked = [t for t in types if isinstance(t, TensorType)]
    if all(_static_or_bounded(t) for t in ranked):
        return _bounded_broadcast(ranked, element)
    shape: list[int] = list(ranked[0].shape)
    for t in ranked:
        merged = broadcast_extents(shape, t.shape)
        if merged is None:
            return UnrankedTensorType(element)
        shape = merged
    return TensorType(tuple(shape), element)


def _with_dimensions(op: Operation, element: Type) -> Type:
    """Broadcast of two operands along explicit `broadcast_dimensions`."""
    dims_attr = op.attr("broadcast_dimensions")
    x, y = op.operands[0].type, op.operands[1].type
    if dims_attr is None:
        return numpy_broadcast_type(op.operands[:2], element)
    if not isinstance(x, TensorType) or not isinstance(y, TensorType):
        return UnrankedTensorType(element)
    large, small = (x, y) if len(x.shape) > len(y.shape) else (y, x)
    dims = [int(d) for d in dims_attr.value]
    if len(dims) != len(small.shape) or any(d >= len(large.shape) for d in dims):
        return UnrankedTensorType(element)
    filtered = broadcast_extents(small.shape, [large.shape[d] for d in dims])
    if filtered is None:
        return UnrankedTensorType(element)
    shape = list(large.shape)
    for i, d in enumerate(dims):
        shape[d] = filtered[i]
    return TensorType(tuple(shape), element)


def _compatible_elements(a: Type | None, b: Type | None) -> bool:
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType):
        return a.storage == b.storage and a.expressed == b.expressed
    return a == b


def _infer_chlo(op: Operation) -> list[Type] | None:
    name = op.name
    if name in CHLO_FROM_OPERAND:
        return [op.operands[0].type]
    if name in CHLO_IS_INF:
        return [_same_shape(op.operands[0].type, BOOL)]
    if name in CHLO_BROADCAST_BINARY:
        lhs, rhs = (_element(v.type) for v in op.operands[:2])
        if lhs is None or not _compatible_elements(lhs, rhs):
            raise _fail(op, "mismatched operand types")
        element = {"chlo.broadcast_compare": BOOL,
                   "chlo.broadcast_complex": ComplexType(lhs)}.get(name, lhs)
        return [_with_dimensions(op, element)]
    if name == "chlo.broadcast_select":
        on_true, on_false = (_element(v.type) for v in op.operands[1:3])
        if on_true is None or on_true != on_false:
            raise _fail(op, "mismatched operand types")
        return [numpy_broadcast_type(op.operands, on_true)]
    if name == "chlo.constant":
        value = op.attr("value")
        return [value.type] if value is not None and hasattr(value, "type") else None
    if name == "chlo.constant_like":
        value = op.attr("value")
        value_type = getattr(value, "type", None)
        if value_type is None:
            return None
        return [_same_shape(op.operands[0].type, value_type)]
    return None


def chlo_inference_error(op: Operation) -> str | None:
    """The message CHLO's inference rejects `op`'s operands with (verifiers report it)."""
    try:
        _infer_chlo(op)
    except InferenceFailed as e:
        return e.diag.message
    return None


# ---- StableHLO: ask the op's verifier --------------------------------------------------------

_PROBE = OpaqueType("!shlo.inference_probe")
_INFERRED = regex_programs.compile(r"inferred type\(s\) (.*) are incompatible with return type")


def _infer_by_verifier(op: Operation) -> list[Type] | None:
    opdef = registry.lookup(op.name)
    if opdef is None or opdef.verify is None or not op.results:
        return None
    saved = [r.type for r in op.results]
    for r in op.results:
        r.type = _PROBE
    try:
        opdef.verify(op)
    except Diagnostic as d:
        found = _INFERRED.search(d.message)
        if found is None:
            return None
        try:
            return [parse_type_text(text.strip("'"))
                    for text in found.group(1).split("', '")]
        except Diagnostic:
            return None
    finally:
        for r, t in zip(op.results, saved, strict=True):
            r.type = t
    return None


def _most_specific(a: int, b: int, bound_a: int | None,
                   bound_b: int | None) -> tuple[int, int | None]:
    """upstream inferMostSpecificDimAndBound: a static size wins; two `?` keep the smaller
    bound."""
    if a != DYNAMIC:
        return a, None
    if b != DYNAMIC:
        return b, None
    bounds = [x for x in (bound_a, bound_b) if x is not None]
    return DYNAMIC, min(bounds) if bounds else None


def _dot_components(op: Operation) -> Type | None:
    """dot / dot_general shape components: batch dims (most specific of both sides), then
    lhs and rhs free dims, bounds kept; no element type (`index` stands in)."""
    lhs, rhs = op.operands[0].type, op.operands[1].type
    if not isinstance(lhs, TensorType) or not isinstance(rhs, TensorType):
        return None
    if op.name == "stablehlo.dot":
        lb, rb, lc, rc = [], [], [len(lhs.shape) - 1], [0]
    else:
        dims = as_struct(op.attr("dot_dimension_numbers"))
        if dims is None:
            return None

        def field(name: str) -> list[int]:
            return [int(d) for d in dims.get(name) or []]

        lb, rb = field("lhs_batching_dimensions"), field("rhs_batching_dimensions")
        lc, rc = field("lhs_contracting_dimensions"), field("rhs_contracting_dimensions")
    lbounds, rbounds = _bounds(lhs), _bounds(rhs)
    shape: list[int] = []
    bounds: list[int | None] = []
    for i, j in zip(lb, rb, strict=False):
        size, bound = _most_specific(lhs.shape[i], rhs.shape[j], lbounds[i], rbounds[j])
        shape.append(size)
        bounds.append(bound)
    for t, tb, special in ((lhs, lbounds, lb + lc), (rhs, rbounds, rb + rc)):
        for i, size in enumerate(t.shape):
            if i not in special:
                shape.append(size)
                bounds.append(tb[i])
    return TensorType(tuple(shape), IndexType(), _bounds_attr(bounds))


def infer_components(op: Operation) -> list[Type] | None:
    """InferShapedTypeOpInterface's components: as `infer_types`, except for ops whose
    components carry only dims and bounds (their element type shows as `index`)."""
    if op.name in ("stablehlo.dot", "stablehlo.dot_general"):
        try:
            component = _dot_components(op)
        except RULE_ERRORS:
            component = None  # an op its verifier would reject
        return [component] if component is not None else None
    return infer_types(op)


def infer_types(op: Operation) -> list[Type] | None:
    """The result types `op`'s inference gives, None if it has none (raises InferenceFailed
    when inference rejects the op)."""
    if op.name.startswith("chlo."):
        return _infer_chlo(op)
    if op.name.startswith("stablehlo."):
        rule = STABLEHLO_RULES.get(op.name)
        if rule is not None:
            try:
                found = rule(op)
            except RULE_ERRORS:
                found = None  # operands the rule does not cover: ask the verifier
            if found is not None:
                return found
        return _infer_by_verifier(op)
    return None
