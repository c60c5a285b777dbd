"""`convolution`: the kernel, syntax and verifier (`#stablehlo.conv` is in attr_conv.py).

The kernel is a GEMM over a strided window view of the padded, dilated lhs (im2col); operands
are converted to the result element type first and accumulate as dot_general's do (types
narrower than f32 in f32, by every path, with one rounding at the end). With lhs
dilation (transposed convolutions) that view is mostly inserted zeros: conv_subpixel splits
the op into ordinary convolutions of the undilated lhs, one per output phase.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ir.attributes import (
    Attribute,
    DenseArrayAttr,
    DenseElementsAttr,
    DialectAttr,
    int_matrix_shape,
    int_values,
)
from ...ir.core import Location, Operation
from ...ir.diagnostics import EvaluationError
from ...ir.lexer import BARE
from ...ir.memory import check_elements
from ...ir.types import (
    BOOL,
    DYNAMIC,
    I64,
    QuantizedType,
    TensorType,
    Type,
)
from ...ir.verifier import op_error
from ...lazy_imports import lazy
from ..registry import OpDef, define_op
from ..syntax import Custom
from .attr_conv import ConvDims, decode_conv_dims, parse_conv_dims, parse_int64_or_bool
from .conv_subpixel import applies as subpixel_applies
from .conv_subpixel import scatter_gemm, subpixel
from .dot_general import (
    check_inferred_shape,
    check_precision_config_attr,
    error_at_op,
    finish_op,
    functional_suffix,
    rest_attrs,
    result_dtype,
    verify_precision_count,
)
from .gemm import SEQUENTIAL_DEPTH, blas_dtype, conv_im2col, conv_shifted
from .quantization_verify import check_convolution_quantization
from .reduce_window import pad_dilate
from .reducer import contiguous as _contiguous
from .reducer import strided_view

# ---- convolution ---------------------------------------------------------------------------


def convolution(lhs: np.ndarray, rhs: np.ndarray, *, window_strides: Any = None,
                padding: Any = None, lhs_dilation: Any = None, rhs_dilation: Any = None,
                window_reversal: Any = None, dimension_numbers: Any,
                feature_group_count: int | None = None, batch_group_count: int | None = None,
                precision_config: Any = None, result_type: Type) -> np.ndarray:
    """spec convolution: windows of the padded, lhs-dilated input dotted with the kernel
    (rhs-dilated windows, optional reversal), per feature group or batch group."""
    d = decode_conv_dims(dimension_numbers)
    s = len(d.input_spatial)
    target = dtype = result_dtype(result_type)
    work = np.dtype(np.int64) if dtype == np.bool_ else dtype
    x = np.transpose(lhs, (d.input_batch, *d.input_spatial, d.input_feature)).astype(work)
    k = np.transpose(rhs, (*d.kernel_spatial, d.kernel_input_feature,
                           d.kernel_output_feature)).astype(work)
    if blas_dtype(dtype) == np.float32 and dtype != np.float32:
        # Types narrower than f32 (operands first rounded to the result type, as above) are
        # convolved in f32 by every path and rounded once at the end: XLA's choice, and
        # the dot's (gemm.py).
        dtype = np.dtype(np.float32)
        x, k = x.astype(dtype), k.astype(dtype)
    strides = list(window_strides or [1] * s)
    lhs_dil = list(lhs_dilation or [1] * s)
    rhs_dil = list(rhs_dilation or [1] * s)
    for name, values in (("window_strides", strides), ("lhs_dilation", lhs_dil),
                         ("rhs_dilation", rhs_dil)):
        # (the verifier checks these only with a constant padding: dynamic_conv's may not be)
        if len(values) != s or any(v < 1 for v in values):
            raise EvaluationError(f"{name} must be {s} positive values, got {list(values)}")
    pads = np.asarray(padding if padding is not None else (), dtype=np.int64)
    pads = pads.reshape(s, 2) if pads.size else np.zeros((s, 2), np.int64)  # empty: none
    pairs = [(int(lo), int(hi)) for lo, hi in pads.tolist()]
    flips = [i for i, flip in enumerate(window_reversal or []) if flip]
    groups = int(feature_group_count or 1)
    batch_groups = int(batch_group_count or 1)
    counts = None
    if isinstance(result_type, TensorType) and result_type.is_static:
        counts = tuple(result_type.shape[a] for a in d.output_spatial)
    if counts is not None and subpixel_applies(x.shape[1:-1], k, counts, strides, lhs_dil,
                                               rhs_dil, pairs):
        result = _by_phase(x, k, counts, strides, lhs_dil, rhs_dil, pairs, flips, groups,
                           batch_groups, dtype)
    else:
        result = _evaluate(x, k, pairs, lhs_dil, strides, rhs_dil, counts, flips, groups,
                           batch_groups, dtype)
    inverse = [0] * (s + 2)
    inverse[d.output_batch] = 0
    for i, a in enumerate(d.output_spatial):
        inverse[a] = i + 1
    inverse[d.output_feature] = s + 1
    result = np.transpose(result, inverse)
    if dtype == np.bool_:
        return _contiguous(result != 0)
    return _contiguous(result.astype(target))


SHIFTED_RATIO = 3
"""Stride-1 convolutions with at least this many input features per output feature take
gemm.conv_shifted (its shifted adds cost more than the window copy when features are many)."""
DEPTHWISE_DEPTH = 32
"""Grouped convolutions (f32, f64) with at most this many products per sum take the
sequential path (see `convolution`)."""
_WIDE_BLAS = lazy(lambda: frozenset((np.dtype(np.float32), np.dtype(np.float64))))


def _by_phase(x: np.ndarray, k: np.ndarray, counts: tuple[int, ...], strides: list[int],
              lhs_dil: list[int], rhs_dil: list[int], pads: list[tuple[int, int]],
              flips: list[int], groups: int, batch_groups: int, dtype: np.dtype) -> np.ndarray:
    """lhs dilation without its zeros (conv_subpixel), the kernel reversed up front: the
    scatter of one GEMM where the im2col path would be a GEMM with stride 1 and no groups,
    else one ordinary convolution per output phase."""
    _check_groups(x.shape[0], x.shape[-1], k.shape[-1], groups, batch_groups)
    kernel = np.flip(k, tuple(flips)) if flips else k
    if (groups == 1 and batch_groups == 1 and all(st == 1 for st in strides)
            and blas_dtype(dtype) is not None and math.prod(k.shape[:-1]) > SEQUENTIAL_DEPTH):
        result = scatter_gemm(x, kernel, counts, lhs_dil, rhs_dil, pads, dtype)
        if result is not None:
            return result

    def run(xx: np.ndarray, kk: np.ndarray, sub_pads: list[tuple[int, int]],
            sub_strides: list[int], sub_dil: list[int], sub_counts: tuple[int, ...]
            ) -> np.ndarray:
        return _evaluate(xx, kk, sub_pads, [1] * len(counts), sub_strides, sub_dil, sub_counts,
                         [], groups, batch_groups, dtype)
    return subpixel(x, kernel, counts, strides, lhs_dil, rhs_dil, pads,
                    x.shape[0] // batch_groups, run)


def _evaluate(x: np.ndarray, k: np.ndarray, pads: list[tuple[int, int]], lhs_dil: list[int],
              strides: list[int], rhs_dil: list[int], counts: tuple[int, ...] | None,
              flips: list[int], groups: int, batch_groups: int, dtype: np.dtype) -> np.ndarray:
    """x (N, I.., C), k (K.., C/G, F) in the work type -> (N', O.., F): windows of the padded,
    dilated input (`counts` None: as many as fit) contracted with the kernel."""
    s = len(strides)
    x = pad_dilate(x, [0, *[lo for lo, _ in pads], 0], [0, *[hi for _, hi in pads], 0],
                   [0, *[v - 1 for v in lhs_dil], 0], np.zeros((), x.dtype)[()])
    sizes = list(k.shape[:s])
    if counts is None:  # dynamic result: the spec's shape inference
        counts = tuple(0 if n < (kk - 1) * dl + 1 else (n - (kk - 1) * dl - 1) // st + 1
                       for n, kk, dl, st in zip(x.shape[1:-1], sizes, rhs_dil, strides,
                                                strict=True))
    for n, c, st, kk, dl in zip(x.shape[1:-1], counts, strides, sizes, rhs_dil, strict=False):
        if c > 0 and kk > 0 and (c - 1) * st + (kk - 1) * dl >= n:
            raise EvaluationError("convolution window does not fit in the padded input")
    x = _contiguous(x)
    step = x.strides
    windows = strided_view(
        x, (x.shape[0], *counts, *sizes, x.shape[-1]),
        (step[0], *[st * b for st, b in zip(strides, step[1:-1], strict=False)],
         *[dl * b for dl, b in zip(rhs_dil, step[1:-1], strict=False)], step[-1]))
    if flips:
        windows = np.flip(windows, tuple(1 + s + i for i in flips))
    _check_groups(windows.shape[0], windows.shape[-1], k.shape[-1], groups, batch_groups)
    depth = int(np.prod(k.shape[:s], dtype=np.int64)) * k.shape[s]
    # Depthwise-style grouped convolutions (many groups, a shallow sum per group: MobileNet's
    # 3x3 depthwise has depth 9) would be one tiny GEMM per group; the reference order's
    # multiply-adds over all groups at once are a few whole-tensor passes instead.
    depthwise = groups > 1 and depth <= DEPTHWISE_DEPTH and dtype in _WIDE_BLAS
    if blas_dtype(dtype) is not None and depth > SEQUENTIAL_DEPTH and not depthwise:
        if (groups == 1 and batch_groups == 1 and not flips and depth > k.shape[s]
                and k.shape[s] >= SHIFTED_RATIO * k.shape[-1]
                and all(st == 1 for st in strides)):
            result = conv_shifted(x, k, tuple(counts), rhs_dil, dtype)
            if result is not None:
                return result
        return conv_im2col(windows, k, s, groups, batch_groups, dtype)
    if x.dtype.kind in "iu":  # einsum copies the strided windows into one array
        check_elements(windows.shape, windows.itemsize, "the convolution's windows")
        return _grouped_einsum(windows, k, s, groups, batch_groups)
    return _grouped_sequential(windows, k, s, groups, batch_groups)


def _check_groups(batch: int, channels: int, features: int, groups: int,
                  batch_groups: int) -> None:
    if groups < 1 or batch_groups < 1:
        raise EvaluationError("group counts must be positive")
    if batch % batch_groups or features % batch_groups:
        raise EvaluationError("batch_group_count does not divide the batch and features")
    if channels % groups or features % groups:
        raise EvaluationError("feature_group_count does not divide the features")


def _grouped_einsum(windows: np.ndarray, k: np.ndarray, s: int, groups: int,
                    batch_groups: int) -> np.ndarray:
    """(N, O.., K.., C) x (K.., I, F) -> (N', O.., F) in one einsum (exact for integers)."""
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")  # einsum's names
    out_l = "".join(next(letters) for _ in range(s))
    win_l = "".join(next(letters) for _ in range(s))
    n, c, g, f = next(letters), next(letters), next(letters), next(letters)
    batch, channels = windows.shape[0], windows.shape[-1]
    features = k.shape[-1]
    if batch_groups > 1:
        w = windows.reshape(batch_groups, batch // batch_groups, *windows.shape[1:])
        kk = k.reshape(*k.shape[:-1], batch_groups, features // batch_groups)
        spec = f"{g}{n}{out_l}{win_l}{c},{win_l}{c}{g}{f}->{n}{out_l}{g}{f}"
    else:
        w = windows.reshape(*windows.shape[:-1], groups, channels // groups)
        kk = k.reshape(*k.shape[:-1], groups, features // groups)
        spec = f"{n}{out_l}{win_l}{g}{c},{win_l}{c}{g}{f}->{n}{out_l}{g}{f}"
    with np.errstate(all="ignore"):
        res = np.einsum(spec, w, kk, optimize=True)
    return res.reshape(*res.shape[:-2], features)


def _grouped_sequential(windows: np.ndarray, k: np.ndarray, s: int, groups: int,
                        batch_groups: int) -> np.ndarray:
    """Same contraction, accumulated like the reference: kernel positions row-major, then
    input features, one vectorized multiply-add each (float rounding matches)."""
    batch, channels = windows.shape[0], windows.shape[-1]
    features = k.shape[-1]
    counts = windows.shape[1:1 + s]
    spatial = (slice(None),) * s
    if batch_groups > 1:
        per = batch // batch_groups
        w = windows.reshape(batch_groups, per, *windows.shape[1:])
        acc = np.zeros((per, *counts, batch_groups, features // batch_groups), dtype=k.dtype)
        with np.errstate(all="ignore"):
            for pos in np.ndindex(*k.shape[:s]):
                for c in range(channels):
                    x = np.moveaxis(w[(slice(None), slice(None)) + spatial + pos + (c,)], 0, -1)
                    acc = acc + x[..., None] * k[pos + (c,)].reshape(batch_groups, -1)
    else:
        width, per = channels // groups, features // groups
        # A depth multiplier (a few outputs per group, many groups) accumulates as
        # (per, groups), the kernel's taps made C-ordered to match: numpy's inner loop then
        # runs over the groups, not over 2 or 3 outputs (8x faster); the same products and
        # sums in the same order either way.
        inner_groups = 1 < per <= groups
        grid = k.reshape(*k.shape[:s], width, groups, per)
        if inner_groups:
            grid = np.ascontiguousarray(grid.swapaxes(-1, -2))
        acc = np.zeros((batch, *counts, *grid.shape[-2:]), dtype=k.dtype)
        with np.errstate(all="ignore"):
            for pos in np.ndindex(*k.shape[:s]):
                for c in range(width):
                    x = windows[(slice(None),) + spatial + pos + (slice(c, channels, width),)]
                    acc += (x[..., None, :] if inner_groups else x[..., None]) * grid[pos + (c,)]
        if inner_groups:
            acc = acc.swapaxes(-1, -2)
    return acc.reshape(*acc.shape[:-2], features)


# ---- convolution syntax ------------------------------------------------------------------------
# `(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
#  window = {stride = [..], pad = [[..]], lhs_dilate = [..], rhs_dilate = [..], reverse = [..]}
#  {attrs} : (..) -> ..`

_WINDOW_KEYS = (("window_strides", "stride"), ("padding", "pad"), ("lhs_dilation", "lhs_dilate"),
                ("rhs_dilation", "rhs_dilate"), ("window_reversal", "reverse"))


def _int64_list(p: Any) -> list[int]:
    """`[1, 2]` (possibly empty): MLIR's parseCommaSeparatedList of `parseInteger`s."""
    p.expect("[")
    values: list[int] = []
    if not p.accept("]"):
        values.append(parse_int64_or_bool(p))
        while p.accept(","):
            values.append(parse_int64_or_bool(p))
        p.expect("]")
    return values


def _parse_window(p: Any) -> dict[str, Attribute]:
    """`{stride = [..], pad = [[..], ..], ...}` as upstream's parseWindowAttributes reads it:
    entries while a keyword comes (a trailing comma is allowed), an unknown or repeated one
    reported at the token after it, a `pad` pair of another size at the token after it."""
    p.expect("{")
    out: dict[str, Attribute] = {}
    names = dict((short, long) for long, short in _WINDOW_KEYS)
    while p.tok.kind == BARE:
        key = p.advance().text
        if key not in names or names[key] in out:
            raise p.op_error(f"Unexpected keyword {key}")
        p.expect("=")
        if key == "pad":
            p.expect("[")
            rows: list[list[int]] = []
            if not p.accept("]"):
                while True:
                    rows.append(_int64_list(p))
                    if len(rows[-1]) != 2:
                        raise p.op_error(f"Expected array with 2 elements, got {len(rows[-1])} "
                                         f"elements instead")
                    if not p.accept(","):
                        break
                p.expect("]")
            arr = np.asarray(rows, dtype=np.int64).reshape(len(rows), 2)
            out["padding"] = DenseElementsAttr(TensorType((len(rows), 2), I64), arr)
        elif key == "reverse":
            flags = tuple(v != 0 for v in _int64_list(p))
            out["window_reversal"] = DenseArrayAttr(BOOL, flags)
        else:
            out[names[key]] = DenseArrayAttr(I64, tuple(_int64_list(p)))
        if not p.accept(","):
            break
    p.expect("}")
    return out


def _parse_convolution(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    p.expect("(")
    operands_at = p.tok  # upstream's `(operands)`
    operands = p.parse_operand_list(")")
    p.expect(")")
    p.expect_keyword("dim_numbers")
    p.expect("=")
    props: dict[str, Attribute] = {"dimension_numbers": DialectAttr(
        "stablehlo", "conv", parse_conv_dims(p).text())}
    p.expect(",")
    p.expect_keyword("window")
    p.expect("=")
    props.update(_parse_window(p))
    return finish_op(p, opdef, operands, props, location, tok, operands_at)


def _window_text(op: Operation) -> str:
    parts = []
    for name, short in _WINDOW_KEYS:
        attr = op.attr(name)
        if attr is None:
            continue
        if name == "padding":
            rows = (np.asarray(attr.value).reshape(-1, 2)
                    if isinstance(attr, DenseElementsAttr) else [])
            body = ", ".join(f"[{int(a)}, {int(b)}]" for a, b in rows)
        elif name == "window_reversal":
            body = ", ".join("true" if v else "false" for v in attr.value)
        else:
            body = ", ".join(str(int(v)) for v in attr.value)
        parts.append(f"{short} = [{body}]")
    return "{" + ", ".join(parts) + "}"


def _print_convolution(pr: Any, op: Operation) -> None:
    pr.write(f"({pr.operands(op.operands)})")
    dims = op.attr("dimension_numbers")
    try:
        text = decode_conv_dims(dims).text()
    except EvaluationError:
        text = str(dims)
    pr.write(f" dim_numbers = {text}, window = {_window_text(op)}")
    elided = {"dimension_numbers", *(name for name, _ in _WINDOW_KEYS)}
    pr.write(pr.attr_dict(rest_attrs(op, elided)))
    pr.write(functional_suffix(op))


def _q(t: Any) -> str:
    return f"'{t}'"


def _attr_list(op: Operation, name: str) -> list[int] | None:
    attr = op.attr(name)
    return None if attr is None else int_values(attr)


def _verify_conv_dims(op: Operation, d: ConvDims, rank: int) -> None:
    sizes = (len(d.input_spatial), len(d.kernel_spatial), len(d.output_spatial))
    if len(set(sizes)) != 1:
        raise error_at_op(op, f"expects the same size for input, kernel and output "
                              f"spatial-dimensions, but got {sizes[0]}, {sizes[1]}, and {sizes[2]} "
                              f"resp.")
    groups = (("input", [d.input_batch, d.input_feature, *d.input_spatial]),
              ("kernel", [d.kernel_input_feature, d.kernel_output_feature, *d.kernel_spatial]),
              ("output", [d.output_batch, d.output_feature, *d.output_spatial]))
    if not all(0 <= v < rank for _, nums in groups for v in nums):
        raise error_at_op(op, f"expects input, kernel, and output dimension-numbers to be in-range "
                              f"[0, {rank}).")
    for name, nums in groups:
        if len(set(nums)) != len(nums):
            raise error_at_op(op, f"expects {name} dimension-numbers to be unique, got "
                                  f"{{{', '.join(map(str, nums))}}}.")


def _verify_conv_window(op: Operation, window: Sequence[int]) -> None:
    """Upstream verifyWindowAttributesAndInferWindowDimensions, convolution spelling."""
    n = len(window)
    padding = op.attr("padding")
    if padding is not None:
        dims = int_matrix_shape(padding)
        if len(dims) != 2 or dims[1] != 2:
            raise error_at_op(op, f"expects the shape of padding-attribute to be {{N, 2}}, but got "
                                  f"{{{', '.join(str(v) for v in dims)}}}.")
    checks = (("window_strides", "window-strides", "stride"),
              ("padding", "padding-entries", None),
              ("lhs_dilation", "base-dilation factors", "base dilation factor"),
              ("rhs_dilation", "window-dilation factors", "window dilation factor"),
              ("window_reversal", "window-reversal", None))
    values: dict[str, list[int]] = {}
    for name, plural, _ in checks:
        attr = op.attr(name)
        # The count from the size, before reading: a splat of a huge type is a broadcast view
        # whose 10^11 elements must not be listed just to say the count is wrong.
        size = 0 if attr is None else math.prod(int_matrix_shape(attr))
        count = size // 2 if name == "padding" else size
        if count and count != n:  # an empty list means the default, as upstream
            raise error_at_op(op, f"expects {plural} to have same dimension-size as size of window "
                                  f"dimensions ({n}), but got: {count}.")
        got = _attr_list(op, name) if size else None
        values[name] = got if got else [1] * n
    for i, size in enumerate(window):
        for name, _, single in checks:
            if single is not None and values[name][i] <= 0:
                raise error_at_op(op, f"expects window to have positive {single} for {i}-th window "
                                      f"dimension, but got {values[name][i]}.")
        if size <= 0 and size != DYNAMIC:
            raise error_at_op(op, f"expects window to have positive value for {i}-th window "
                                  f"dimension, but got {size}.")


def verify_convolution(op: Operation) -> None:
    """Upstream inferConvolutionOp / verifyConvolutionAttributes checks (first failure)."""
    check_precision_config_attr(op)
    if len(op.operands) != 2:
        return
    lhs, rhs = op.operand_types
    if not (isinstance(lhs, TensorType) and isinstance(rhs, TensorType)):
        return
    if len(lhs.shape) < 2:
        raise error_at_op(op, f"expects convolution arguments to have >= 2 dimensions. Got: "
                              f"{_q(lhs)} and {_q(rhs)}.")
    if len(lhs.shape) != len(rhs.shape):
        raise error_at_op(op, f"expects convolution arguments to have same number of dimensions. "
                              f"Got: {_q(lhs)} and {_q(rhs)}.")
    if (not isinstance(lhs.element, QuantizedType) and not isinstance(rhs.element, QuantizedType)
            and lhs.element != rhs.element):
        raise error_at_op(op, f"expects lhs and rhs to have compatible element type. Got: "
                              f"{_q(lhs.element)} and {_q(rhs.element)}")
    try:
        d = decode_conv_dims(op.attr("dimension_numbers"))
    except EvaluationError:
        return
    rank = len(lhs.shape)
    _verify_conv_dims(op, d, rank)  # then upstream's verifyConvolutionAttributes, in order
    groups = int(getattr(op.attr("feature_group_count"), "value", 1))
    batch_groups = int(getattr(op.attr("batch_group_count"), "value", 1))
    for name, value in (("feature_group_count", groups), ("batch_group_count", batch_groups)):
        if value <= 0:
            raise op_error(op, f"attribute '{name}' failed to satisfy constraint: 64-bit "
                               f"signless integer attribute whose value is positive")
    if groups > 1 and batch_groups > 1:
        raise error_at_op(op, f"expects batch_group_count and feature_group_count not to be both "
                              f"greater than 1. Got {batch_groups} and {groups} resp.")
    features, batch = lhs.shape[d.input_feature], lhs.shape[d.input_batch]
    kernel_in, kernel_out = rhs.shape[d.kernel_input_feature], rhs.shape[d.kernel_output_feature]
    if batch != DYNAMIC and batch % batch_groups:
        raise error_at_op(op, f"expects input batch dimension ({batch}) to be divisible by "
                              f"batch_group_count. Got batch_group_count = {batch_groups}.")
    if features != DYNAMIC:
        if features % groups:
            raise error_at_op(op, f"expects input feature dimension ({features}) to be a "
                                  f"multiple of feature_group_count. Got feature_group_count = "
                                  f"{groups}.")
        if kernel_in != DYNAMIC and features // groups != kernel_in:
            raise error_at_op(op, f"expects input feature dimension ({features}) / "
                                  f"feature_group_count = kernel input feature dimension "
                                  f"({kernel_in}). Got feature_group_count = {groups}.")
    if kernel_out != DYNAMIC:
        if kernel_out % batch_groups:
            raise error_at_op(op, f"expects output feature dimension size ({kernel_out}) to be a "
                                  f"multiple of batch_group_count. Got batch_group_count = "
                                  f"{batch_groups}.")
        if kernel_out % groups:
            raise error_at_op(op, f"expects kernel output feature dimension ({kernel_out}) to be "
                                  f"divisible by feature_group_count. For feature_group_count = "
                                  f"{groups}.")
    verify_precision_count(op)
    if rank != len(d.input_spatial) + 2:
        raise error_at_op(op, f"expects convolution arguments to have {len(d.input_spatial) + 2} "
                              f"dimensions. Got: {rank}")
    _verify_conv_window(op, [rhs.shape[a] for a in d.kernel_spatial])
    check_inferred_shape(op, _conv_result_shape(op, d, lhs, rhs, batch_groups))
    check_convolution_quantization(op, d.kernel_output_feature, d.output_feature)


def _conv_result_shape(op: Operation, d: ConvDims, lhs: TensorType, rhs: TensorType,
                       batch_groups: int) -> list[int]:
    """The result shape convolution's shape inference gives (`?` where unknown)."""
    n = len(d.input_spatial)
    strides = _attr_list(op, "window_strides") or [1] * n
    pads = _attr_list(op, "padding") or [0] * (2 * n)
    lhs_dil = _attr_list(op, "lhs_dilation") or [1] * n
    rhs_dil = _attr_list(op, "rhs_dilation") or [1] * n
    shape = [DYNAMIC] * (n + 2)
    batch = lhs.shape[d.input_batch]
    shape[d.output_batch] = DYNAMIC if batch == DYNAMIC else batch // batch_groups
    shape[d.output_feature] = rhs.shape[d.kernel_output_feature]
    for i in range(n):
        size, window = lhs.shape[d.input_spatial[i]], rhs.shape[d.kernel_spatial[i]]
        if size == DYNAMIC or window == DYNAMIC:
            continue
        dilated = 0 if size == 0 else (size - 1) * lhs_dil[i] + 1
        padded = dilated + pads[2 * i] + pads[2 * i + 1]
        extent = (window - 1) * rhs_dil[i] + 1
        shape[d.output_spatial[i]] = 0 if padded < extent else (padded - extent) // strides[i] + 1
    return shape


define_op("stablehlo.convolution", operands=("lhs", "rhs"), results=1,
          attributes=("dimension_numbers", "window_strides?", "padding?", "lhs_dilation?",
                      "rhs_dilation?", "window_reversal?", "feature_group_count",
                      "batch_group_count", "precision_config?"),
          syntax=Custom(_parse_convolution, _print_convolution),
          verify=verify_convolution)(convolution)
