"""`dynamic_conv` (convolution whose padding is an operand) and `dynamic_iota` (iota whose
shape is an operand), and run-time specialisation of `?` result dimensions.

Both ops take their sizes from run-time values, so a result type with `?` dimensions is
resolved here; the convolution itself is convolution.py's kernel. A binding hook does the same for
`convolution` and `reduce_window` results declared with `?` dimensions (programs exported
with shape polymorphism), whose kernels otherwise read the result shape from the type.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.attributes import IntegerAttr
from ...ir.core import Operation, Value
from ...ir.diagnostics import EvaluationError
from ...ir.memory import check_elements
from ...ir.registry import register_bind_hook
from ...ir.types import DYNAMIC, QuantizedType, TensorType, Type, numpy_dtype
from ..asm import Format
from ..registry import define_op
from .attr_conv import decode_conv_dims
from .constants import iota, verify_dynamic_iota_op
from .data_movement import require_static_int_tensor
from .elementwise_verify import error
from .quantization_verify import check_convolution_quantization

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


def _ints(op: Operation, name: str) -> list[int]:
    attr = op.attr(name)
    return [int(v) for v in getattr(attr, "value", ()) or ()] if attr is not None else []


def _dims_of(attr: Any) -> tuple[list[int], list[int], list[int]]:
    """(input, kernel, output) dimension numbers as upstream lists them: batch/feature (or
    input/output feature) first, then the spatial dimensions."""
    d = decode_conv_dims(attr)
    return ([d.input_batch, d.input_feature, *d.input_spatial],
            [d.kernel_input_feature, d.kernel_output_feature, *d.kernel_spatial],
            [d.output_batch, d.output_feature, *d.output_spatial])


def verify_dynamic_conv(op: Operation) -> None:
    """Upstream's verifyDynamicConvOp checks, in its order and wording."""
    def fail(message: str) -> None:
        raise error(op, message, op_prefix=False)

    for name in ("feature_group_count", "batch_group_count"):
        attr = op.attr(name)
        if isinstance(attr, IntegerAttr) and int(attr.value) <= 0:
            raise error(op, f"attribute '{name}' failed to satisfy constraint: 64-bit signless "
                            "integer attribute whose value is positive")
    require_static_int_tensor(op, 2, 2)  # ODS: padding is HLO_Static2DIntTensor
    lhs, rhs = op.operands[0].type, op.operands[1].type
    if not isinstance(lhs, TensorType) or not isinstance(rhs, TensorType):
        return
    if lhs.rank != rhs.rank:
        fail(f"expects convolution arguments to have same number of dimensions. Got: "
             f"'{lhs}' and '{rhs}'.")
    if lhs.rank < 2:
        fail(f"expects convolution arguments to have >= 2 dimensions. Got: '{lhs}' and "
             f"'{rhs}'.")
    try:
        inputs, kernel, output = _dims_of(op.attr("dimension_numbers"))
    except EvaluationError:
        return
    spatial = len(inputs) - 2
    if lhs.rank != spatial + 2:
        fail(f"expects convolution arguments to have {spatial + 2} dimensions. Got: "
             f"{lhs.rank}")
    if len(kernel) - 2 != spatial or len(output) - 2 != spatial:
        fail(f"expects the same size for input, kernel and output spatial-dimensions, but got "
             f"{spatial}, {len(kernel) - 2}, and {len(output) - 2} resp.")
    n = lhs.rank
    if not all(0 <= v < n for v in inputs + kernel + output):
        fail(f"expects input, kernel, and output dimension-numbers to be in-range [0, {n}).")
    for what, nums in (("input", inputs), ("kernel", kernel), ("output", output)):
        if len(set(nums)) != len(nums):
            fail(f"expects {what} dimension-numbers to be unique, got "
                 f"{{{', '.join(map(str, nums))}}}.")
    fgc = int(getattr(op.attr("feature_group_count"), "value", 1) or 1)
    bgc = int(getattr(op.attr("batch_group_count"), "value", 1) or 1)
    if bgc > 1 and fgc > 1:
        fail(f"expects batch_group_count and feature_group_count not to be both greater "
             f"than 1. Got {bgc} and {fgc} resp.")
    in_batch, in_feat = lhs.shape[inputs[0]], lhs.shape[inputs[1]]
    k_in, k_out = rhs.shape[kernel[0]], rhs.shape[kernel[1]]
    if in_batch != DYNAMIC and in_batch % bgc:
        fail(f"expects input batch dimension ({in_batch}) to be divisible by "
             f"batch_group_count. Got batch_group_count = {bgc}.")
    if in_feat != DYNAMIC:
        if in_feat % fgc:
            fail(f"expects input feature dimension ({in_feat}) to be a multiple of "
                 f"feature_group_count. Got feature_group_count = {fgc}.")
        if k_in != DYNAMIC and in_feat // fgc != k_in:
            fail(f"expects input feature dimension ({in_feat}) / feature_group_count = kernel "
                 f"input feature dimension ({k_in}). Got feature_group_count = {fgc}.")
    if k_out != DYNAMIC:
        if k_out % bgc:
            fail(f"expects output feature dimension size ({k_out}) to be a multiple of "
                 f"batch_group_count. Got batch_group_count = {bgc}.")
        if k_out % fgc:
            fail(f"expects kernel output feature dimension ({k_out}) to be divisible by "
                 f"feature_group_count. For feature_group_count = {fgc}.")
    precision = op.attr("precision_config")
    if precision is not None and len(getattr(precision, "elements", ()) or ()) > 2:
        fail("expects precision config to be empty or have <= 2 elements.")
    padding = op.operands[2].type
    if isinstance(padding, TensorType) and padding.is_static and (
            padding.rank != 2 or padding.shape[0] != spatial or padding.shape[1] != 2):
        fail(f"expects padding to be of shape [{spatial}, 2], but got "
             f"[{', '.join(map(str, padding.shape))}]")
    if _is_constant(op.operands[2]):
        _verify_window(op, fail, spatial, [rhs.shape[k] for k in kernel[2:]])
    quantized = isinstance(lhs.element, QuantizedType) or isinstance(rhs.element, QuantizedType)
    if lhs.element != rhs.element and not quantized:
        fail(f"expects lhs and rhs to have compatible element type. Got: '{lhs.element}' "
             f"and '{rhs.element}'")
    check_convolution_quantization(op, kernel[1], output[1])


def _is_constant(value: Value) -> bool:
    """Whether `value` is a constant: upstream checks the window only when it can read the
    padding (a computed padding leaves window attributes unchecked until run time)."""
    owner = value.owner
    return isinstance(owner, Operation) and owner.name in _CONSTANT_OPS


_CONSTANT_OPS = frozenset({"stablehlo.constant", "arith.constant", "chlo.constant"})


def _verify_window(op: Operation, fail: Callable[[str], None], spatial: int,
                   window: list[int]) -> None:
    """Window attribute sizes and signs, checked once the padding is known."""
    for name, values in (("window-strides", _ints(op, "window_strides")),
                         ("base-dilation factors", _ints(op, "lhs_dilation")),
                         ("window-dilation factors", _ints(op, "rhs_dilation")),
                         ("window-reversal", _ints(op, "window_reversal"))):
        if values and len(values) != spatial:
            fail(f"expects {name} to have same dimension-size as size of window dimensions "
                 f"({spatial}), but got: {len(values)}.")
    strides, lhs_dil, rhs_dil = (_ints(op, "window_strides"), _ints(op, "lhs_dilation"),
                                 _ints(op, "rhs_dilation"))
    for i in range(spatial):
        if window[i] != DYNAMIC and window[i] <= 0:
            fail(f"expects window to have positive value for {i}-th window dimension, but "
                 f"got {window[i]}.")
        for what, values in (("stride", strides), ("base dilation factor", lhs_dil),
                             ("window dilation factor", rhs_dil)):
            if values and values[i] <= 0:
                fail(f"expects window to have positive {what} for {i}-th window dimension, "
                     f"but got {values[i]}.")


@define_op("stablehlo.dynamic_conv", operands=("lhs", "rhs", "padding"), results=1,
           attributes=("dimension_numbers", "window_strides?", "lhs_dilation?", "rhs_dilation?",
                       "window_reversal?", "feature_group_count", "batch_group_count",
                       "precision_config?"),
           verify=verify_dynamic_conv)
def dynamic_conv(lhs: np.ndarray, rhs: np.ndarray, padding: np.ndarray, *,
                 window_strides: Any = None, lhs_dilation: Any = None,
                 rhs_dilation: Any = None, window_reversal: Any = None,
                 dimension_numbers: Any, feature_group_count: Any = None,
                 batch_group_count: Any = None, precision_config: Any = None,
                 result_type: Type) -> np.ndarray:
    """spec dynamic_conv: `convolution` with `padding` taken from the operand."""
    from .convolution import convolution  # not imported with the binding hook below

    pads = np.asarray(padding, dtype=np.int64)
    spatial = lhs.ndim - 2
    if pads.shape != (spatial, 2):
        raise EvaluationError(f"padding must have shape [{spatial}, 2], got {list(pads.shape)}")
    for name, values in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                         ("rhs_dilation", rhs_dilation), ("window_reversal", window_reversal)):
        if values is not None and len(values) != spatial:
            raise EvaluationError(f"{name} must have {spatial} entries, got {len(values)}")
    shape = conv_result_shape(lhs.shape, rhs.shape, pads, window_strides, lhs_dilation,
                              rhs_dilation, dimension_numbers, batch_group_count)
    static = result_type.with_shape(shape) if isinstance(result_type, TensorType) else result_type
    if isinstance(result_type, TensorType) and any(
            d >= 0 and d != n for d, n in zip(result_type.shape, shape, strict=True)):
        # the padding operand gave another shape than the declared one: never a value of
        # one type under another
        raise EvaluationError(f"inferred shape '[{', '.join(map(str, shape))}]' is "
                              f"incompatible with return type of operation '{result_type}'")
    return convolution(lhs, rhs, window_strides=window_strides, padding=pads,
                       lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                       window_reversal=window_reversal, dimension_numbers=dimension_numbers,
                       feature_group_count=feature_group_count,
                       batch_group_count=batch_group_count, precision_config=precision_config,
                       result_type=static)


@define_op("stablehlo.dynamic_iota", operands=("output_shape",), results=1,
           attributes=("iota_dimension",),
           syntax=Format("$output_shape `,` `dim` `=` $iota_dimension",
                         operands=("output_shape",), types="functional",
                         attrs={"iota_dimension": "int"}), verify=verify_dynamic_iota_op)
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
        check_elements(dims, numpy_dtype(result_type.element).itemsize, "dynamic_iota")
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
        result_type = kwargs.get("result_type") or op.results[0].type  # as an outer hook retyped it

        def convolution_kernel(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
            spatial = lhs.ndim - 2
            padding = rest.get("padding")
            pads = (np.asarray(padding, dtype=np.int64).reshape(spatial, 2)
                    if padding is not None and np.size(padding) else
                    np.zeros((spatial, 2), np.int64))  # absent or empty: no padding
            shape = conv_result_shape(lhs.shape, rhs.shape, pads, rest.get("window_strides"),
                                      rest.get("lhs_dilation"), rest.get("rhs_dilation"),
                                      rest.get("dimension_numbers"),
                                      rest.get("batch_group_count"))
            return opdef.evaluate(lhs, rhs, result_type=result_type.with_shape(shape), **rest)

        return convolution_kernel
    return None


register_bind_hook(bind_dynamic_results, 50)
