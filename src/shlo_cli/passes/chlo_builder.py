"""`Ex`: the op builder the CHLO decompositions write their formulas with.

Upstream's declarative patterns build each result tree operands first, left to right, with
a fresh splat constant per `constant like` use unless the tree names and reuses it. Python
evaluates nested call arguments in the same post-order, so a formula written as one nested
expression (naming a shared subtree with `:=`) emits the ops in upstream's order. CHLO ops a
decomposition creates (e.g. lgamma's is_inf) are decomposed on the spot, where upstream's
conversion driver would put their expansion.
"""

from __future__ import annotations

import ml_dtypes

from ..ir import registry
from ..ir.core import Operation, Value
from ..ir.types import BOOL, ComplexType, TensorType, Type, numpy_dtype
from .chlo_legalize import PATTERNS, ChloRewriter, NoShapeSource, Rewriter


class Ex:
    """Builds StableHLO ops whose result type follows the first operand (as the
    type-inferring builders upstream's patterns call)."""

    def __init__(self, rw: Rewriter) -> None:
        self.rw = rw

    def __call__(self, name: str, *args: Value, result: Type | None = None) -> Value:
        return self.rw.create(f"stablehlo.{name}", list(args), result or args[0].type)

    def const(self, value: float, like: Value) -> Value:
        """A splat constant of `like`'s type (upstream's getConstantLike)."""
        if isinstance(self.rw, ChloRewriter):
            return self.rw.constant_like(value, like)
        return self.rw.constant(value, like.type)  # type: ignore[arg-type]

    def max_finite(self, like: Value) -> Value:
        return self.const(float(ml_dtypes.finfo(numpy_dtype(like.type.element)).max),  # type: ignore
                          like)

    def smallest_normal(self, like: Value) -> Value:
        element = like.type.element  # type: ignore[union-attr,attr-defined]
        return self.const(float(ml_dtypes.finfo(numpy_dtype(element)).smallest_normal), like)

    def smallest_subnormal(self, like: Value) -> Value:
        element = like.type.element  # type: ignore[union-attr,attr-defined]
        return self.const(float(ml_dtypes.finfo(numpy_dtype(element)).smallest_subnormal), like)

    def cmp(self, direction: str, lhs: Value, rhs: Value) -> Value:
        return self.rw.compare(direction, lhs, rhs,
                               lhs.type.with_element(BOOL))  # type: ignore[union-attr,attr-defined]

    def select(self, cond: Value, a: Value, b: Value) -> Value:
        return self("select", cond, a, b, result=a.type)

    def part(self, name: str, z: Value) -> Value:
        """`real` or `imag` of a complex tensor."""
        t = z.type
        return self(name, z, result=TensorType(t.shape, t.element.element))  # type: ignore

    def complex(self, re: Value, im: Value) -> Value:
        t = re.type
        return self("complex", re, im,
                    result=TensorType(t.shape, ComplexType(t.element)))  # type: ignore


    def chlo(self, name: str, *args: Value, result: Type | None = None,
             properties: dict | None = None) -> Value:
        """A CHLO op, decomposed in place (kept as is when no pattern applies)."""
        op = Operation(f"chlo.{name}", list(args), [result or args[0].type],
                       dict(properties or {}), {}, location=self.rw.op.location,
                       opdef=registry.lookup(f"chlo.{name}"))
        for rewrite in PATTERNS.get(op.name, []):
            sub = type(self.rw)(op)
            try:
                values = rewrite(sub)
            except NoShapeSource:
                values = None
            if values is not None:
                self.rw.ops.extend(sub.ops)
                return values[0]
        self.rw.ops.append(op)
        return op.results[0]
