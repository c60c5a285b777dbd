"""`--legalize_einsum`: einsum(lhs, rhs, "eq") as reductions, one dot_general and a transpose
(HLO has no einsum; MHLO's einsum-to-dot_general legalization does the same job).

Labels are single letters; `...` stands for the dimensions not named, aligned from the
right across operands (numpy's rule); without `->` the output is the ellipsis then the
letters used once, sorted (numpy's implicit mode). Labels found in one operand only and not
in the output are summed out first; labels of both operands are batch dimensions when the
output keeps them and contracting dimensions otherwise. dot_general yields (batch, lhs-only,
rhs-only) dimensions, which a transpose puts in the output's order.

Refused with a located diagnostic: a label repeated within one term (a diagonal), an output
label no operand has, ellipsis dimensions that would broadcast (different sizes), and terms
whose label count does not match the operand's rank.
"""

from __future__ import annotations

from ...ir.core import Module, Value
from ...ir.types import DYNAMIC, TensorType
from ..chlo_legalize import Rewriter
from . import register_expander
from .build import (
    cannot_expand,
    cast_to,
    expand_module,
    reduce_sum,
    struct_attr,
    tensor,
    transpose,
)

FLAG = "legalize_einsum"


class EquationError(Exception):
    """Why an einsum equation cannot be legalized."""


def _terms(term: str) -> tuple[list[str], bool]:
    """The letters of one term and whether it has an ellipsis (kept as the label '...')."""
    if term.count("...") > 1:
        raise EquationError(f"more than one ellipsis in '{term}'")
    labels: list[str] = []
    rest = term.replace("...", "\0")
    for ch in rest:
        if ch == "\0":
            labels.append("...")
        elif ch.isalpha():
            labels.append(ch)
        else:
            raise EquationError(f"unexpected character '{ch}' in '{term}'")
    return labels, "..." in labels


def _expand_ellipsis(labels: list[str], rank: int, term: str) -> list[str]:
    """Replace '...' by one label per unnamed dimension, numbered from the right."""
    named = [label for label in labels if label != "..."]
    if "..." not in labels:
        if len(named) != rank:
            raise EquationError(f"'{term}' names {len(named)} dimensions of a rank-{rank} "
                                "operand")
        return labels
    extra = rank - len(named)
    if extra < 0:
        raise EquationError(f"'{term}' names more dimensions than the operand's rank {rank}")
    at = labels.index("...")
    return [*labels[:at], *(f"...{extra - 1 - i}" for i in range(extra)), *labels[at + 1:]]


def parse_equation(equation: str, ranks: tuple[int, int]) -> tuple[list[str], list[str],
                                                                   list[str]]:
    """(lhs labels, rhs labels, output labels), ellipses expanded."""
    text = equation.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != 2:
        raise EquationError(f"expected two input terms in '{equation}'")
    parsed = [_terms(t) for t in terms]
    lhs, rhs = (_expand_ellipsis(p[0], r, t) for p, r, t in zip(parsed, ranks, terms,
                                                                strict=True))
    ellipsis = sorted({lab for lab in (*lhs, *rhs) if lab.startswith("...")},
                      key=lambda lab: -int(lab[3:]))
    if arrow:
        out_labels, _ = _terms(output)
        out: list[str] = []
        for label in out_labels:
            out.extend(ellipsis if label == "..." else [label])
    else:
        letters = [lab for lab in (*lhs, *rhs) if not lab.startswith("...")]
        out = ellipsis + sorted(lab for lab in set(letters) if letters.count(lab) == 1)
    for name, labels in (("lhs", lhs), ("rhs", rhs), ("output", out)):
        repeated = {lab for lab in labels if labels.count(lab) > 1}
        if repeated:
            raise EquationError(f"label '{sorted(repeated)[0]}' repeats in the {name} term "
                                "(diagonals are not supported)")
    missing = [lab for lab in out if lab not in lhs and lab not in rhs]
    if missing:
        raise EquationError(f"output label '{missing[0]}' is in no input term")
    return lhs, rhs, out


def _sizes(lhs: list[str], rhs: list[str], lt: TensorType, rt: TensorType) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for labels, t in ((lhs, lt), (rhs, rt)):
        for label, size in zip(labels, t.shape, strict=True):
            known = sizes.get(label, DYNAMIC)
            if known != DYNAMIC and size != DYNAMIC and known != size:
                raise EquationError(f"dimension '{label}' has sizes {known} and {size}")
            sizes[label] = size if known == DYNAMIC else known
    return sizes


def _sum_out(rw: Rewriter, x: Value, labels: list[str], keep: set[str]) -> tuple[Value,
                                                                               list[str]]:
    drop = [i for i, lab in enumerate(labels) if lab not in keep]
    return reduce_sum(rw, x, drop), [lab for lab in labels if lab in keep]


def _einsum(rw: Rewriter) -> list[Value]:
    lhs, rhs = rw.op.operands
    lt, rt = tensor(lhs), tensor(rhs)
    result = rw.op.result_types[0]
    equation = str(rw.op.attr("einsum_config").value)  # type: ignore[union-attr]
    try:
        ll, rl, out = parse_equation(equation, (lt.rank, rt.rank))
        sizes = _sizes(ll, rl, lt, rt)
    except EquationError as e:
        raise cannot_expand(rw.op, FLAG, f"equation '{equation}': {e}") from None
    lhs, ll = _sum_out(rw, lhs, ll, set(rl) | set(out))
    rhs, rl = _sum_out(rw, rhs, rl, set(ll) | set(out))
    batch = [lab for lab in out if lab in ll and lab in rl]
    contract = [lab for lab in ll if lab in rl and lab not in out]
    lhs_free = [lab for lab in ll if lab not in batch and lab not in contract]
    rhs_free = [lab for lab in rl if lab not in batch and lab not in contract]
    produced = [*batch, *lhs_free, *rhs_free]
    dims = {
        "lhs_batching_dimensions": [ll.index(lab) for lab in batch],
        "rhs_batching_dimensions": [rl.index(lab) for lab in batch],
        "lhs_contracting_dimensions": [ll.index(lab) for lab in contract],
        "rhs_contracting_dimensions": [rl.index(lab) for lab in contract],
    }
    element = tensor(rw.op.results[0]).element
    dot_type = TensorType(tuple(sizes[lab] for lab in produced), element)
    value = rw.create("stablehlo.dot_general", [lhs, rhs], dot_type,
                      {"dot_dimension_numbers": struct_attr("dot", dims)})
    value = transpose(rw, value, [produced.index(lab) for lab in out])
    return [cast_to(rw, value, result)]


@register_expander(FLAG, "Rewrites einsum as reductions, dot_general and transpose")
def legalize_einsum(module: Module) -> None:
    expand_module(module, {"stablehlo.einsum": _einsum})
