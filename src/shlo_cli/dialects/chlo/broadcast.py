"""CHLO broadcasting binary ops: `chlo.broadcast_<op>` broadcasts both operands to the result
shape (numpy-style trailing alignment, or the given `broadcast_dimensions` for the lower-rank
operand), then applies the StableHLO op of the same name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...ir.diagnostics import EvaluationError
from ...ir.types import BOOL
from ..registry import define_op, lookup
from ..stablehlo.elementwise_verify import ANY, COMPLEX, FLOAT, PRED, SINT, UINT
from .binary import next_after_values, polygamma, zeta
from .syntax import BROADCAST_BINARY, BROADCAST_SELECT
from .verify import (
    broadcast_inferred,
    typed,
    verify_broadcast_complex,
    verify_broadcast_equal_elements,
    verify_broadcast_same_elements,
    verify_broadcast_select,
)


def _expanded(x: np.ndarray, rank: int, dims: Sequence[int] | None) -> list[int]:
    """The shape of `x` laid out along result dimensions `dims` (default: trailing), 1
    elsewhere."""
    if dims is None or len(dims) != x.ndim:
        dims = tuple(range(rank - x.ndim, rank))
    elif len(set(dims)) != len(dims) or not all(0 <= d < rank for d in dims):
        # upstream's verifier lets these through (the inferred type turns unranked)
        raise EvaluationError(f"broadcast_dimensions {list(dims)} are not distinct dimensions "
                              f"of a rank-{rank} result")
    expanded = [1] * rank
    for axis, d in enumerate(dims):
        expanded[d] = x.shape[axis]
    return expanded


def run_time_shape(shape: Sequence[int],
                   operands: Sequence[tuple[np.ndarray, Sequence[int] | None]]) -> tuple:
    """The result shape with its `?` (negative) dimensions taken from the operands'
    broadcast."""
    if all(d >= 0 for d in shape):
        return tuple(shape)
    try:
        actual = np.broadcast_shapes(*(tuple(_expanded(x, len(shape), dims))
                                       for x, dims in operands))
    except ValueError:
        raise EvaluationError("operand shapes do not broadcast") from None
    return tuple(d if d >= 0 else a for d, a in zip(shape, actual, strict=True))


def broadcast_operand(x: np.ndarray, shape: Sequence[int],
                      dims: Sequence[int] | None) -> np.ndarray:
    """`x` laid out along result dimensions `dims` (default: the trailing ones), broadcast."""
    expanded = _expanded(x, len(shape), dims)
    try:
        return np.broadcast_to(x.reshape(expanded), tuple(shape))
    except ValueError as e:
        raise EvaluationError(f"operand of shape {x.shape} does not broadcast to {tuple(shape)}"
                              ) from e


def broadcast_pair(lhs: np.ndarray, rhs: np.ndarray, dims: Sequence[int] | None,
                   shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast both operands to `shape`; `dims` applies to the lower-rank operand."""
    lhs_dims = dims if lhs.ndim < rhs.ndim else None
    rhs_dims = dims if rhs.ndim < lhs.ndim else None
    shape = run_time_shape(shape, [(lhs, lhs_dims), (rhs, rhs_dims)])
    return broadcast_operand(lhs, shape, lhs_dims), broadcast_operand(rhs, shape, rhs_dims)


def _stablehlo(name: str) -> Callable[..., Any]:
    opdef = lookup(f"stablehlo.{name}")
    assert opdef is not None and opdef.evaluate is not None
    return opdef.evaluate


def _declare(name: str, kernel: Callable[[np.ndarray, np.ndarray], np.ndarray] | None) -> None:
    def evaluate(lhs: np.ndarray, rhs: np.ndarray, *, broadcast_dimensions: tuple | None,
                 result_type: Any) -> np.ndarray:
        fn = kernel or _stablehlo(name)
        a, b = broadcast_pair(lhs, rhs, broadcast_dimensions, result_type.shape)
        return np.asarray(fn(np.require(a, requirements="C"), np.require(b, requirements="C")))

    evaluate.__doc__ = f"Broadcasting {name}."
    # ChloOps.td's element-type trait of each (the logical ops and compare have none)
    traits = (verify_broadcast_same_elements if name in ("add", "maximum", "minimum") else
              verify_broadcast_complex if name == "complex" else
              broadcast_inferred(None) if name in ("and", "or", "xor") else
              verify_broadcast_equal_elements)
    operands, result = _TYPES.get(name, (ANY, None))
    define_op(f"chlo.broadcast_{name}", operands=("lhs", "rhs"), results=1,
              attributes=("broadcast_dimensions?",), syntax=BROADCAST_BINARY,
              verify=typed(operands, result, traits))(evaluate)


# ChloOps.td's operand and result constraints other than HLO_AnyTensor.
_FP = frozenset((FLOAT,))
_TYPES: dict[str, tuple[frozenset[str], frozenset[str] | None]] = {
    **{name: (frozenset((PRED, SINT, UINT)), None) for name in ("and", "or", "xor")},
    "zeta": (_FP, _FP),
    "complex": (_FP, frozenset((COMPLEX,))),
}


for _name in ("add", "and", "atan2", "complex", "divide", "maximum", "minimum", "multiply",
              "or", "power", "remainder", "shift_left", "shift_right_arithmetic",
              "shift_right_logical", "subtract", "xor"):
    _declare(_name, None)
_declare("next_after", next_after_values)
_declare("polygamma", polygamma)
_declare("zeta", zeta)


@define_op("chlo.broadcast_compare", operands=("lhs", "rhs"), results=1,
           attributes=("comparison_direction", "compare_type?", "broadcast_dimensions?"),
           syntax=BROADCAST_BINARY,
           verify=typed(ANY, frozenset((PRED,)), broadcast_inferred(BOOL)))
def broadcast_compare(lhs: np.ndarray, rhs: np.ndarray, *,
                      broadcast_dimensions: tuple | None, comparison_direction: str,
                      compare_type: str | None, result_type: Any) -> np.ndarray:
    """Broadcasting stablehlo.compare."""
    a, b = broadcast_pair(lhs, rhs, broadcast_dimensions, result_type.shape)
    a, b = np.require(a, requirements="C"), np.require(b, requirements="C")
    return np.asarray(_stablehlo("compare")(a, b,
                                            comparison_direction=comparison_direction,
                                            compare_type=compare_type))


@define_op("chlo.broadcast_select", operands=("pred", "on_true", "on_false"), results=1,
           syntax=BROADCAST_SELECT, verify=verify_broadcast_select)
def broadcast_select(pred: np.ndarray, on_true: np.ndarray, on_false: np.ndarray, *,
                     result_type: Any) -> np.ndarray:
    """numpy-style broadcasting select."""
    shape = run_time_shape(result_type.shape, [(pred, None), (on_true, None), (on_false, None)])
    return np.where(broadcast_operand(pred, shape, None), broadcast_operand(on_true, shape, None),
                    broadcast_operand(on_false, shape, None))
