"""`dynamic_conv` (convolution whose padding is an operand) and `dynamic_iota` (iota whose
shape is an operand), and run-time specialisation of `?` result dimensions.

Both ops take their sizes from run-time values, so a result type with `?` dimensions is
resolved here; the convolution itself is dot_conv's kernel. A binding hook does the same for
`convolution` and `reduce_window` results declared with `?` dimensions (programs exported
with shape polymorphism), whose kernels otherwise read the result shape from the type.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...interpreter.engine import BIND_HOOKS, EvaluationError
from ...ir.core import Operation
from ...ir.types import TensorType, Type
from ..asm import Format
from ..registry import define_op
from .constants import iota
from .dot_conv import convolution, decode_conv_dims
from .linalg_verify import verify_dynamic_iota

_CONV_PROPS = ("window_strides", "lhs_dilation", "rhs_dilation", "window_reversal",
               "dimension_numbers", "feature_group_count", "batch_group_count",
               "precision_config")


def conv_result_shape(lhs_shape: tuple[int, ...], rhs_shape: tuple[int, ...], padding: np.ndarray,
                      window_strides: Any, lhs_dilation: Any, rhs_dilation: Any,
                      dimension_numbers: Any, batch_group_count: Any) -> tuple[int, ...]:
    """The spec's shape inference for convolution with concrete padding."""
    d = decode_conv_dims(dimension_numbers)
    s = len(d.input_spatial)
    strides = list(window_strides or [1] * s)
    lhs_dil = list(lhs_dilation or [1] * s)
    rhs_dil = list(rhs_dilation or [1] * s)
    out = [0] * (s + 2)
    out[d.output_batch] = lhs_shape[d.input_batch] // int(batch_group_count or 1)
    out[d.output_feature] = rhs_shape[d.kernel_output_feature]
    for i in range(s):
        size = lhs_shape[d.input_spatial[i]]
        dilated = (size - 1) * lhs_dil[i] + 1 if size else 0
        padded = dilated + int(padding[i, 0]) + int(padding[i, 1])
        window = (rhs_shape[d.kernel_spatial[i]] - 1) * rhs_dil[i] + 1
        out[d.output_spatial[i]] = (padded - window) // strides[i] + 1 if padded >= window else 0
    return tuple(out)


@define_op("stablehlo.dynamic_conv", properties=_CONV_PROPS)
def dynamic_conv(lhs: np.ndarray, rhs: np.ndarray, padding: np.ndarray, *,
                 window_strides: Any = None, lhs_dilation: Any = None,
                 rhs_dilation: Any = None, window_reversal: Any = None,
                 dimension_numbers: Any, feature_group_count: Any = None,
                 batch_group_count: Any = None, precision_config: Any = None,
                 result_type: Type) -> np.ndarray:
    """spec dynamic_conv: `convolution` with `padding` taken from the operand."""
    pads = np.asarray(padding, dtype=np.int64)
    spatial = lhs.ndim - 2
    if pads.shape != (spatial, 2):
        raise EvaluationError(f"padding must have shape [{spatial}, 2], got {list(pads.shape)}")
    shape = conv_result_shape(lhs.shape, rhs.shape, pads, window_strides, lhs_dilation,
                              rhs_dilation, dimension_numbers, batch_group_count)
    static = result_type.with_shape(shape) if isinstance(result_type, TensorType) else result_type
    return convolution(lhs, rhs, window_strides=window_strides, padding=pads,
                       lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                       window_reversal=window_reversal, dimension_numbers=dimension_numbers,
                       feature_group_count=feature_group_count,
                       batch_group_count=batch_group_count, precision_config=precision_config,
                       result_type=static)


@define_op("stablehlo.dynamic_iota",
           syntax=Format("$output_shape `,` `dim` `=` $iota_dimension",
                         operands=("output_shape",), types="functional",
                         attrs={"iota_dimension": "int"}),
           properties=("iota_dimension",), verify=verify_dynamic_iota)
def dynamic_iota(output_shape: np.ndarray, *, iota_dimension: int,
                 result_type: Type) -> np.ndarray:
    """spec dynamic_iota: `iota` with the result shape read from `output_shape`."""
    dims = tuple(int(v) for v in np.asarray(output_shape).reshape(-1))
    if any(d < 0 for d in dims):
        raise EvaluationError("output_shape must be non-negative")
    if isinstance(result_type, TensorType):
        if len(dims) != result_type.rank:
            raise EvaluationError("output_shape does not match the result rank")
        static = result_type.with_shape(dims)
    else:
        static = result_type
    return iota(iota_dimension=iota_dimension, result_type=static)


# ---- `?` result dimensions of ops whose kernels read the result shape ------------------------


def _is_dynamic(t: Type) -> bool:
    return isinstance(t, TensorType) and not t.is_static


def bind_dynamic_results(op: Operation, opdef: Any,
                         kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    """The engine hook: infer `?` result dimensions from the operands at run time."""
    if not any(_is_dynamic(r.type) for r in op.results) or opdef.evaluate is None:
        return None
    if op.name == "stablehlo.reduce_window" and "result_types" in kwargs:
        # Without result types the kernel derives the window counts itself.
        return functools.partial(opdef.evaluate, **{**kwargs, "result_types": ()})
    if op.name == "stablehlo.convolution":
        rest = {k: v for k, v in kwargs.items() if k != "result_type"}
        result_type = op.results[0].type

        def convolution_kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
            spatial = lhs.ndim - 2
            padding = rest.get("padding")
            pads = (np.asarray(padding, dtype=np.int64).reshape(spatial, 2)
                    if padding is not None else np.zeros((spatial, 2), np.int64))
            shape = conv_result_shape(lhs.shape, rhs.shape, pads, rest.get("window_strides"),
                                      rest.get("lhs_dilation"), rest.get("rhs_dilation"),
                                      rest.get("dimension_numbers"),
                                      rest.get("batch_group_count"))
            return opdef.evaluate(lhs, rhs, result_type=result_type.with_shape(shape), **rest)

        return convolution_kernel
    return None


if not any(getattr(h, "__qualname__", "") == "bind_dynamic_results" for h in BIND_HOOKS):
    BIND_HOOKS.append(bind_dynamic_results)
