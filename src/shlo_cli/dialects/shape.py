"""The `shape` dialect op CHLO's legalization emits for dynamically shaped constants:
`shape.shape_of` (upstream's stablehlo-opt registers the shape dialect, and its
chlo-legalize-to-stablehlo broadcasts a scalar constant to `shape_of` of an operand)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.core import Location, Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import IndexType, TensorType
from .registry import OpDef, define_op
from .syntax import Custom

# ---- shape.shape_of: `$arg attr-dict `:` type($arg) `->` type($result)` -------------------


def _parse_shape_of(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    source = p.parse_operand()
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    p.check_operand_types([source], [p.parse_type()], tok)
    p.expect("->")
    result = p.parse_type()
    return p.build_operation(opdef.name, opdef, [source], [result], {}, attributes, [], None,
                             location)


def _print_shape_of(pr: Any, op: Operation) -> None:
    pr.write(" " + pr.operands(op.operands) + pr.attr_dict(op.attributes))
    pr.write(f" : {op.operands[0].type} -> {op.results[0].type}")


def verify_shape_of(op: Operation) -> None:
    source, result = op.operands[0].type, op.results[0].type
    ok = (isinstance(source, TensorType) and isinstance(result, TensorType)
          and result.rank == 1 and isinstance(result.element, IndexType)
          and result.shape[0] in (source.rank, -1))
    if not ok:
        raise Diagnostic(f"'{op.name}' op result type '{result}' is not a 1-d index tensor "
                         f"of the operand's rank", line=op.location.line or None,
                         col=op.location.col or None)


@define_op("shape.shape_of", syntax=Custom(_parse_shape_of, _print_shape_of),
           verify=verify_shape_of)
def shape_of(source: np.ndarray) -> np.ndarray:
    """The run-time extents of the operand."""
    return np.array(source.shape, dtype=np.int64)
