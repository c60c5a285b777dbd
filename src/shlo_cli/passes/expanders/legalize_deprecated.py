"""Legalizations of StableHLO ops HLO does not have, one `hlo-expand` flag each; the first
five are also upstream's `--stablehlo-legalize-deprecated-ops` patterns
(stablehlo/transforms/StablehloLegalizeDeprecatedOpsPatterns.td and the .cpp beside it):

- `--legalize_broadcast`: broadcast(x, sizes) -> broadcast_in_dim(x) with dims
  [len(sizes), ..., len(sizes) + rank(x) - 1] (the operand's dimensions trail).
- `--legalize_create_token`: create_token -> after_all with no operands.
- `--legalize_cross_replica_sum`: cross-replica-sum -> all_reduce with an `add` region and
  the same replica_groups (no channel, replica ids not global).
- `--legalize_dot`: dot -> dot_general contracting lhs's last dimension with rhs's first,
  keeping precision_config.
- `--legalize_unary_einsum`: unary_einsum(x, "eq") -> einsum(1, x, ",eq") with 1 a scalar
  constant of x's element type.

`--legalize_einsum` and `--legalize_torch_index_select` (modules `einsum` and
`torch_index_select`) go further than upstream's pass, which keeps those two ops.
"""

from __future__ import annotations

from ...ir.attributes import DenseArrayAttr, StringAttr
from ...ir.core import Module, Value
from ...ir.types import I64
from ..chlo_legalize import Rewriter
from . import register_expander
from .build import binary_region, create, expand_module, struct_attr, tensor


def broadcast(rw: Rewriter) -> list[Value]:
    (x,) = rw.op.operands
    sizes = tuple(rw.op.attr("broadcast_sizes").value)  # type: ignore[union-attr]
    dims = tuple(range(len(sizes), len(sizes) + tensor(x).rank))
    return [rw.create("stablehlo.broadcast_in_dim", [x], rw.op.result_types[0],
                      {"broadcast_dimensions": DenseArrayAttr(I64, dims)})]


def create_token(rw: Rewriter) -> list[Value]:
    return [rw.create("stablehlo.after_all", [], rw.op.result_types[0])]


def cross_replica_sum(rw: Rewriter) -> list[Value]:
    (x,) = rw.op.operands
    props = {"replica_groups": rw.op.attr("replica_groups")}
    op = create(rw, "stablehlo.all_reduce", [x], rw.op.result_types, props,
                [binary_region(rw, tensor(x).element)])
    return list(op.results)


def dot(rw: Rewriter) -> list[Value]:
    lhs, rhs = rw.op.operands
    props = {"dot_dimension_numbers": struct_attr("dot", {
        "lhs_contracting_dimensions": [tensor(lhs).rank - 1],
        "rhs_contracting_dimensions": [0]})}
    precision = rw.op.attr("precision_config")
    if precision is not None:
        props["precision_config"] = precision
    return [rw.create("stablehlo.dot_general", [lhs, rhs], rw.op.result_types[0], props)]


def unary_einsum(rw: Rewriter) -> list[Value]:
    (x,) = rw.op.operands
    one = rw.scalar(1, tensor(x).element)
    equation = "," + str(rw.op.attr("einsum_config").value)  # type: ignore[union-attr]
    return [rw.create("stablehlo.einsum", [one, x], rw.op.result_types[0],
                      {"einsum_config": StringAttr(equation)})]


# Upstream's stablehlo-legalize-deprecated-ops patterns, by op name.
DEPRECATED_OP_REWRITES = {
    "stablehlo.broadcast": broadcast,
    "stablehlo.create_token": create_token,
    "stablehlo.cross-replica-sum": cross_replica_sum,
    "stablehlo.dot": dot,
    "stablehlo.unary_einsum": unary_einsum,
}


@register_expander("legalize_broadcast", "Rewrites broadcast as broadcast_in_dim")
def legalize_broadcast(module: Module) -> None:
    expand_module(module, {"stablehlo.broadcast": broadcast})


@register_expander("legalize_create_token", "Rewrites create_token as after_all")
def legalize_create_token(module: Module) -> None:
    expand_module(module, {"stablehlo.create_token": create_token})


@register_expander("legalize_cross_replica_sum",
                   "Rewrites cross-replica-sum as all_reduce with add")
def legalize_cross_replica_sum(module: Module) -> None:
    expand_module(module, {"stablehlo.cross-replica-sum": cross_replica_sum})


@register_expander("legalize_dot", "Rewrites dot as dot_general")
def legalize_dot(module: Module) -> None:
    expand_module(module, {"stablehlo.dot": dot})


@register_expander("legalize_unary_einsum",
                   "Rewrites unary_einsum as einsum with a constant 1 (upstream's pattern)")
def legalize_unary_einsum(module: Module) -> None:
    expand_module(module, {"stablehlo.unary_einsum": unary_einsum})
