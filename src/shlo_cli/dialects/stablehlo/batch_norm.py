"""`batch_norm_inference`, `batch_norm_training` and `batch_norm_grad` (spec semantics).

Per-feature operands are broadcast along `feature_index`; every step is an elementwise op or
a sum in the operand's element type, in the order the spec writes them. The three ops have
no custom assembly (always the generic form).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir.diagnostics import EvaluationError
from ..registry import define_op
from .linalg_verify import batch_norm_verifier

_PROPS = ("epsilon", "feature_index")


def _bcast(x: np.ndarray, feature_index: int, rank: int) -> np.ndarray:
    """broadcast_in_dim(x, [feature_index], type(operand)) as a broadcastable view."""
    shape = [1] * rank
    shape[feature_index] = x.shape[0]
    return x.reshape(shape)


def _reduce_other(x: np.ndarray, feature_index: int) -> np.ndarray:
    """Sum over every dimension except `feature_index`, in the element type."""
    axes = tuple(d for d in range(x.ndim) if d != feature_index)
    return np.add.reduce(x, axis=axes, dtype=x.dtype) if axes else x.copy()


def _check(operand: np.ndarray, feature_index: Any) -> int:
    index = int(feature_index or 0)
    if not 0 <= index < operand.ndim:
        raise EvaluationError(f"feature_index {index} out of range")
    if operand.dtype.kind not in "fV":
        raise EvaluationError(f"expected floating-point operand, got {operand.dtype}")
    return index


def _per_feature_count(operand: np.ndarray, feature_index: int) -> Any:
    count = operand.size // operand.shape[feature_index] if operand.shape[feature_index] else 0
    return operand.dtype.type(count)


def _normalize(operand: np.ndarray, scale: np.ndarray, offset: np.ndarray, mean: np.ndarray,
               variance: np.ndarray, epsilon: float, index: int) -> np.ndarray:
    rank = operand.ndim
    eps = operand.dtype.type(np.float32(epsilon))
    centered = operand - _bcast(mean, index, rank)
    stddev = np.sqrt(_bcast(variance, index, rank) + eps)
    normalized = centered / stddev
    return _bcast(scale, index, rank) * normalized + _bcast(offset, index, rank)


@define_op("stablehlo.batch_norm_inference",
           operands=("operand", "scale", "offset", "mean", "variance"), results=1,
           attributes=("epsilon", "feature_index"),
           verify=batch_norm_verifier((0,), (1, 2, 3, 4), per_feature_results=False))
def batch_norm_inference(operand: np.ndarray, scale: np.ndarray, offset: np.ndarray,
                         mean: np.ndarray, variance: np.ndarray, *, epsilon: float,
                         feature_index: int) -> np.ndarray:
    """(operand - mean) / sqrt(variance + epsilon) * scale + offset, per feature."""
    index = _check(operand, feature_index)
    with np.errstate(all="ignore"):
        return _normalize(operand, scale, offset, mean, variance, epsilon, index)


def _mean(x: np.ndarray, index: int) -> np.ndarray:
    return _reduce_other(x, index) / _per_feature_count(x, index)


@define_op("stablehlo.batch_norm_training", operands=("operand", "scale", "offset"), results=3,
           attributes=("epsilon", "feature_index"),
           verify=batch_norm_verifier((0,), (1, 2), per_feature_results=True),
           asm_result_name=lambda op: ["output", "batch_mean", "batch_var"])
def batch_norm_training(operand: np.ndarray, scale: np.ndarray, offset: np.ndarray, *,
                        epsilon: float, feature_index: int) -> tuple[np.ndarray, ...]:
    """Normalizes with the batch's own per-feature mean and (biased) variance and returns
    them too."""
    index = _check(operand, feature_index)
    with np.errstate(all="ignore"):
        batch_mean = _mean(operand, index)
        centered = operand - _bcast(batch_mean, index, operand.ndim)
        batch_var = _mean(centered * centered, index)
        output = _normalize(operand, scale, offset, batch_mean, batch_var, epsilon, index)
    return output, batch_mean, batch_var


@define_op("stablehlo.batch_norm_grad",
           operands=("operand", "scale", "mean", "variance", "grad_output"), results=3,
           attributes=("epsilon", "feature_index"),
           verify=batch_norm_verifier((0, 4), (1, 2, 3), per_feature_results=True),
           asm_result_name=lambda op: ["grad_operand", "grad_scale", "grad_offset"])
def batch_norm_grad(operand: np.ndarray, scale: np.ndarray, mean: np.ndarray,
                    variance: np.ndarray, grad_output: np.ndarray, *, epsilon: float,
                    feature_index: int) -> tuple[np.ndarray, ...]:
    """Gradients of batch_norm_training with respect to operand, scale and offset, following
    the spec (XLA's batchnorm_expander formulation)."""
    index = _check(operand, feature_index)
    rank = operand.ndim
    with np.errstate(all="ignore"):
        scale_b = _bcast(scale, index, rank)
        variance_b = _bcast(variance, index, rank)
        eps = operand.dtype.type(np.float32(epsilon))
        centered = operand - _bcast(mean, index, rank)
        stddev = np.sqrt(variance_b + eps)
        normalized = centered / stddev
        elements_per_feature = _per_feature_count(operand, index)
        i1 = grad_output * elements_per_feature
        i2 = _bcast(_reduce_other(grad_output, index), index, rank)
        i3 = _bcast(_reduce_other(grad_output * centered, index), index, rank)
        i4 = i3 * centered
        i5 = i4 / (variance_b + eps)
        i6 = (i1 - i2) - i5
        grad_operand = scale_b / stddev / elements_per_feature * i6
        grad_scale = _reduce_other(grad_output * normalized, index)
        grad_offset = _reduce_other(grad_output, index)
    return (np.broadcast_to(grad_operand, operand.shape).astype(operand.dtype),
            grad_scale, grad_offset)
