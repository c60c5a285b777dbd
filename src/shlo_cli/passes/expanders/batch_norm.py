"""`--batch_norm_inference_expander`, `--batch_norm_training_expander` and
`--batch_norm_grad_expander`: XLA's BatchNormExpander (xla/service/batchnorm_expander.cc).

Everything is computed in the operand's element type, as XLA does (no f32 upcast for
f16/bf16); the per-feature operands are broadcast along `feature_index`, and sums are
`stablehlo.reduce` with `add` over every dimension except `feature_index`.

- inference: y = x * s + (offset - mean * s) with s = scale * rsqrt(variance + epsilon)
  (XLA folds the normalization into one scale and one shift per feature).
- training: mean = E[x] and variance = E[x^2] - E[x]^2 (XLA's single-pass form, which is
  not the spec's E[(x - E[x])^2]: they differ by rounding), then
  y = (x - mean) * rsqrt(variance + epsilon) * scale + offset.
- grad: grad_offset = sum(dy), grad_scale = sum(dy * (x - mean)) * rsqrt(variance + eps),
  dx = scale * rsqrt(variance + eps) / N * (N dy - sum(dy) - (x - mean) * sum(dy * (x -
  mean)) / (variance + eps)).

N, the element count per feature, is a constant for static shapes and, as XLA builds it,
the product of `get_dimension_size` of the other dimensions (i32) converted to the element
type otherwise, so dynamically shaped operands expand too (broadcasts then follow the
operand's run-time shape). epsilon is the attribute's f32 value converted to the element
type.
"""

from __future__ import annotations

from ...ir.attributes import IntegerAttr
from ...ir.core import Module, Value
from ...ir.types import DYNAMIC, I32, I64, FloatType, TensorType
from ..chlo_legalize import Real, Rewriter
from . import register_expander
from .build import (
    broadcast_to,
    cannot_expand,
    cast_to,
    convert,
    expand_module,
    reduce_sum,
    tensor,
)


class _Norm:
    """What the three expansions share: the operand's type, the feature index, the per-
    feature type and builders for both shapes."""

    def __init__(self, rw: Rewriter, flag: str) -> None:
        op = rw.op
        self.rw = rw
        self.x = op.operands[0]
        self.t = tensor(self.x)
        if not isinstance(self.t.element, FloatType):
            raise cannot_expand(op, flag, f"element type {self.t.element} is not a float")
        self.index = int(op.attr("feature_index").value)  # type: ignore[union-attr]
        self.feature = tensor(op.operands[1])
        self.others = [d for d in range(self.t.rank) if d != self.index]
        self.big = Real(rw, self.t)
        self.small = Real(rw, self.feature)
        epsilon = float(op.attr("epsilon").value)  # type: ignore[union-attr]
        self.epsilon = rw.scalar(epsilon, self.t.element)

    def per_element(self, feature_value: Value) -> Value:
        """A per-feature vector broadcast along the feature dimension of the operand."""
        return broadcast_to(self.rw, feature_value, self.t, (self.index,), self.x)

    def scalar_to(self, scalar: Value, big: bool) -> Value:
        """A scalar broadcast to the operand's (big) or a feature vector's shape."""
        like = self.x if big else self.rw.op.operands[1]
        return broadcast_to(self.rw, scalar, self.t if big else self.feature, (), like)

    def count(self) -> Value:
        """The number of elements per feature, in the element type."""
        sizes = [self.t.shape[d] for d in self.others]
        if DYNAMIC not in sizes:
            n = 1
            for s in sizes:
                n *= s
            return self.rw.scalar(n, self.t.element)
        scalar_i32 = TensorType((), I32)
        total = self.rw.scalar(1, I32)
        for d in self.others:
            size = self.rw.create("stablehlo.get_dimension_size", [self.x], scalar_i32,
                                  {"dimension": IntegerAttr(d, I64)})
            total = self.rw.create("stablehlo.multiply", [size, total], scalar_i32)
        return convert(self.rw, total, self.t.element)

    def sum(self, value: Value) -> Value:
        # A reduction over a dynamic operand may know less (or more) of the feature size
        # than the declared per-feature type.
        return cast_to(self.rw, reduce_sum(self.rw, value, self.others), self.feature)


def _inference(rw: Rewriter) -> list[Value]:
    n = _Norm(rw, "batch_norm_inference_expander")
    _, scale, offset, mean, variance = rw.op.operands
    f = n.small
    epsilon = n.scalar_to(n.epsilon, big=False)
    true_scale = f("multiply", scale, f("rsqrt", f("add", variance, epsilon)))
    true_shift = f("subtract", offset, f("multiply", mean, true_scale))
    scaled = n.big("multiply", n.x, n.per_element(true_scale))
    return [n.big("add", scaled, n.per_element(true_shift))]


def _training(rw: Rewriter) -> list[Value]:
    n = _Norm(rw, "batch_norm_training_expander")
    x, scale, offset = rw.op.operands
    a, f = n.big, n.small
    epsilon = n.scalar_to(n.epsilon, big=True)
    count = n.count()
    count_feature = n.scalar_to(count, big=False)
    total = n.sum(x)
    total_squares = n.sum(a("multiply", x, x))
    mean = f("divide", total, count_feature)
    square_mean = f("divide", total_squares, count_feature)
    variance = f("subtract", square_mean, f("multiply", mean, mean))
    rsqrt = a("rsqrt", a("add", n.per_element(variance), epsilon))
    normalized = a("multiply", a("subtract", x, n.per_element(mean)), rsqrt)
    scaled = a("multiply", normalized, n.per_element(scale))
    out = a("add", scaled, n.per_element(offset))
    mean_type, variance_type = rw.op.result_types[1:]
    return [out, cast_to(rw, mean, mean_type), cast_to(rw, variance, variance_type)]  # type: ignore


def _grad(rw: Rewriter) -> list[Value]:
    n = _Norm(rw, "batch_norm_grad_expander")
    x, scale, mean, variance, grad_output = rw.op.operands
    a, f = n.big, n.small
    count = n.count()
    epsilon_big = n.scalar_to(n.epsilon, big=True)
    epsilon_small = n.scalar_to(n.epsilon, big=False)
    variance_big = n.per_element(variance)
    rsqrt_big = a("rsqrt", a("add", variance_big, epsilon_big))
    rsqrt_small = f("rsqrt", f("add", variance, epsilon_small))
    centered = a("subtract", x, n.per_element(mean))
    sum_grad_centered = n.sum(a("multiply", grad_output, centered))
    grad_offset = n.sum(grad_output)
    grad_scale = f("multiply", sum_grad_centered, rsqrt_small)
    i2 = n.per_element(grad_offset)
    i3 = n.per_element(sum_grad_centered)
    i5 = a("divide", a("multiply", i3, centered), a("add", variance_big, epsilon_big))
    count_big = n.scalar_to(count, big=True)
    factor = a("divide", a("multiply", n.per_element(scale), rsqrt_big), count_big)
    i1 = a("multiply", grad_output, count_big)
    i6 = a("subtract", a("subtract", i1, i2), i5)
    scale_type, offset_type = rw.op.result_types[1:]
    return [a("multiply", factor, i6), cast_to(rw, grad_scale, scale_type),  # type: ignore
            cast_to(rw, grad_offset, offset_type)]  # type: ignore


@register_expander("batch_norm_inference_expander",
                   "Expands batch_norm_inference (XLA's BatchNormExpander)")
def batch_norm_inference_expander(module: Module) -> None:
    expand_module(module, {"stablehlo.batch_norm_inference": _inference})


@register_expander("batch_norm_training_expander",
                   "Expands batch_norm_training (XLA's BatchNormExpander)")
def batch_norm_training_expander(module: Module) -> None:
    expand_module(module, {"stablehlo.batch_norm_training": _training})


@register_expander("batch_norm_grad_expander",
                   "Expands batch_norm_grad (XLA's BatchNormExpander)")
def batch_norm_grad_expander(module: Module) -> None:
    expand_module(module, {"stablehlo.batch_norm_grad": _grad})
