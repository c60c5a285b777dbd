"""The `#stablehlo.dot` and `#stablehlo.dot_algorithm` attributes: parsers, text form and the
algorithm's verifier.

Apart from the dot ops so that a program's attributes parse without importing their kernels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...ir.attributes import DialectAttr
from ...ir.parse_attributes import (
    DIALECT_ATTR_PARSERS,
    STRUCT_FIELD_ORDER,
    format_field,
    parse_struct_fields,
)
from .dimension_numbers import parse_dimension_struct

_DOT_FIELDS = STRUCT_FIELD_ORDER["dot"]  # upstream's print order of #stablehlo.dot fields

# (lhs, rhs, accumulation precision type, num_primitive_operations) of the dot algorithms
# upstream knows hardware support for (hlo::isKnownDotAlgorithm), besides f8 x f8 -> f32.
_KNOWN_DOT_ALGORITHMS = {
    ("f16", "f16", "f16", 1), ("f16", "f16", "f32", 1), ("bf16", "bf16", "bf16", 1),
    ("bf16", "bf16", "f32", 1), ("bf16", "bf16", "f32", 3), ("bf16", "bf16", "f32", 6),
    ("tf32", "tf32", "f32", 1), ("tf32", "tf32", "f32", 3), ("f32", "f32", "f32", 1),
    ("f64", "f64", "f64", 1),
}
_ANY_F8 = {"f8E3M4", "f8E4M3", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E4M3B11FNUZ",
           "f8E5M2FNUZ"}


def dot_algorithm_error(algorithm: dict[str, Any]) -> str | None:
    """DotAlgorithmAttr's verifier: positive counts, then a combination some hardware is
    known to support (single components; f8 x f8 may accumulate imprecisely)."""
    counts = [int(algorithm.get(k, 1)) for k in ("lhs_component_count", "rhs_component_count",
                                                "num_primitive_operations")]
    for count, label in zip(counts, ("lhs component count", "rhs component count",
                                     "num primitive operations"), strict=True):
        if count <= 0:
            return f"{label} must be positive"
    lhs, rhs, accum = (str(algorithm.get(k, "")) for k in
                       ("lhs_precision_type", "rhs_precision_type", "accumulation_type"))
    imprecise = bool(algorithm.get("allow_imprecise_accumulation", False))
    lhs_n, rhs_n, ops = counts
    known = lhs_n == 1 and rhs_n == 1 and (
        (lhs in _ANY_F8 and rhs in _ANY_F8 and accum == "f32" and ops == 1)
        or (not imprecise and (lhs, rhs, accum, ops) in _KNOWN_DOT_ALGORITHMS))
    if known:
        return None
    return ("dot algorithm not known to be supported on any hardware: "
            f"{{lhs:'{lhs}', rhs:'{rhs}', accum:'{accum}', lhs_components:{lhs_n}, "
            f"rhs_components:{rhs_n}, primitive_ops:{ops}, imprecise:{int(imprecise)}}}")


def parse_dot_algorithm_attr(p: Any, body: str, offset: int) -> DialectAttr:
    """`#stablehlo.dot_algorithm<...>` (also the body of dot_general's `algorithm = <...>`),
    verified as it is built, so errors point at the attribute."""
    fields = parse_struct_fields(p, body, offset)
    if fields is None:
        raise p.error("failed to parse the dot algorithm", offset=offset)
    problem = dot_algorithm_error(dict(fields))
    if problem is not None:
        raise p.error(problem, offset=offset - 1)
    text = ", ".join(f"{k} = {format_field(v)}" for k, v in fields)
    return DialectAttr("stablehlo", "dot_algorithm", text, tuple(fields))


def _parse_dot_dims_attr(p: Any, body: str, offset: int) -> DialectAttr:
    """`#stablehlo.dot<...>` with upstream's struct grammar (see dimension_numbers)."""
    found = dict(parse_dimension_struct(p, "dot", _DOT_FIELDS, body, offset))
    return dot_dimension_attr(*(found.get(k, []) for k in _DOT_FIELDS))


def dot_dimension_attr(lhs_batch: Sequence[int], rhs_batch: Sequence[int],
                       lhs_contract: Sequence[int], rhs_contract: Sequence[int]) -> DialectAttr:
    """`#stablehlo.dot<...>` as upstream prints it (empty fields left out)."""
    fields = [(k, list(v)) for k, v in zip(_DOT_FIELDS, (lhs_batch, rhs_batch, lhs_contract,
                                                          rhs_contract), strict=False) if v]
    body = ", ".join(f"{k} = {format_field(v)}" for k, v in fields)
    return DialectAttr("stablehlo", "dot", body, tuple(fields))


DIALECT_ATTR_PARSERS[("stablehlo", "dot")] = _parse_dot_dims_attr
DIALECT_ATTR_PARSERS[("stablehlo", "dot_algorithm")] = parse_dot_algorithm_attr
