"""Windowed reductions: `reduce_window` and `select_and_scatter` (window views over the padded,
dilated operand; the window attribute checks both share).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...ir.attributes import int_matrix_shape, int_values
from ...ir.core import Operation
from ...ir.diagnostics import EvaluationError
from ...ir.memory import check_elements
from ...ir.types import (
    DYNAMIC,
    IntegerType,
    TensorType,
    Type,
)
from ...ir.verifier import op_error
from ..registry import define_op
from .elementwise_verify import check_inferred
from .reducer import (
    binary_body_ops,
    cached_analysis,
    check_inferred_results,
    compatible_dims,
    error_at_op,
    pack_results,
    promoted,
    quoted,
    reduce_last,
    strided_view,
    verify_reducer_shape,
    verify_same_input_shapes,
)
from .reducer import contiguous as _contiguous
from .window_algorithms import fast_reduce_window


def pad_dilate(x: np.ndarray, low: Sequence[int], high: Sequence[int], interior: Sequence[int],
               value: Any) -> np.ndarray:
    """spec `pad`: interior then edge padding with `value`; negative edges slice."""
    if any(interior):
        shape = tuple(0 if n == 0 else (n - 1) * (i + 1) + 1
                      for n, i in zip(x.shape, interior, strict=True))
        check_elements(shape, x.dtype.itemsize, "the dilated operand")
        out = np.full(shape, value, dtype=x.dtype)
        out[tuple(slice(None, None, i + 1) for i in interior)] = x
        x = out
    if any(lo > 0 or hi > 0 for lo, hi in zip(low, high, strict=False)):
        widths = [(max(lo, 0), max(hi, 0)) for lo, hi in zip(low, high, strict=False)]
        grown = tuple(n + a + b for n, (a, b) in zip(x.shape, widths, strict=True))
        check_elements(grown, x.dtype.itemsize, "the padded operand")
        out = np.full(grown, value, dtype=x.dtype)
        out[tuple(slice(a, a + n) for n, (a, _) in zip(x.shape, widths, strict=False))] = x
        x = out
    if any(lo < 0 or hi < 0 for lo, hi in zip(low, high, strict=False)):
        x = x[tuple(slice(-lo if lo < 0 else 0, n + hi if hi < 0 else n)
                    for n, lo, hi in zip(x.shape, low, high, strict=False))]
    return x


def window_view(x: np.ndarray, counts: Sequence[int], strides: Sequence[int],
                sizes: Sequence[int], dilations: Sequence[int]) -> np.ndarray:
    """A read-only view of shape `counts + sizes`: element `[r..., w...]` is
    `x[r * stride + w * dilation]`. Raises if a window would leave `x`."""
    for n, c, s, k, d in zip(x.shape, counts, strides, sizes, dilations, strict=False):
        if c > 0 and k > 0 and (c - 1) * s + (k - 1) * d >= n:
            raise EvaluationError("window does not fit in the (padded) operand")
    x = _contiguous(x)
    step = x.strides
    return strided_view(
        x, tuple(counts) + tuple(sizes),
        tuple(s * b for s, b in zip(strides, step, strict=True))
        + tuple(d * b for d, b in zip(dilations, step, strict=True)))


def _padding_pairs(padding: Any, rank: int) -> tuple[list[int], list[int]]:
    if padding is None:
        return [0] * rank, [0] * rank
    arr = np.asarray(padding, dtype=np.int64).reshape(-1, 2)
    return [int(v) for v in arr[:, 0]], [int(v) for v in arr[:, 1]]


def reduce_window(*args: np.ndarray, window_dimensions: tuple[int, ...],
                  window_strides: tuple[int, ...] | None = None,
                  base_dilations: tuple[int, ...] | None = None,
                  window_dilations: tuple[int, ...] | None = None, padding: Any = None,
                  body: Callable[..., Any], op: Operation | None = None,
                  result_types: Sequence[Type] = ()) -> Any:
    """spec reduce_window: pad with the init values, slide windows, reduce each window."""
    fast = None
    if op is not None and op.regions:
        count = len(args) // 2
        fast = cached_analysis(op, "reduce", lambda: binary_body_ops(op.regions[0], count))
    return windowed_reduce(args, window_dimensions, window_strides, base_dilations,
                           window_dilations, padding, body, fast, result_types)


def windowed_reduce(args: Sequence[np.ndarray], window_dimensions: Sequence[int],
                    window_strides: Sequence[int] | None,
                    base_dilations: Sequence[int] | None,
                    window_dilations: Sequence[int] | None, padding: Any,
                    body: Callable[..., Any], fast: list[str] | None,
                    result_types: Sequence[Type]) -> Any:
    """reduce_window on evaluated attributes; `fast` names the body's ops when each result
    is one known op of its two arguments (`binary_body_ops`), for the window algorithms."""
    count = len(args) // 2
    if any(np.ndim(v) for v in args[count:]):  # upstream's verifier lets these through
        raise EvaluationError("reduce_window with non-scalar init values cannot be evaluated")
    inputs, init_values = promoted(args, count, result_types)
    rank = inputs[0].ndim
    window = list(window_dimensions)
    strides = list(window_strides or [1] * rank)
    base = list(base_dilations or [1] * rank)
    dil = list(window_dilations or [1] * rank)
    low, high = _padding_pairs(padding, rank)
    counts = None
    if result_types and isinstance(result_types[0], TensorType) and result_types[0].is_static:
        counts = [int(d) for d in result_types[0].shape]
    padded = [pad_dilate(x, low, high, [b - 1 for b in base], np.asarray(i, dtype=x.dtype)[()])
              for x, i in zip(inputs, init_values, strict=False)]
    if counts is None:
        counts = [0 if w == 0 else max(0, (n - ((w - 1) * d + 1)) // s + 1)
                  for n, w, d, s in zip(padded[0].shape, window, dil, strides, strict=False)]
    size = int(np.prod(window, dtype=np.int64))
    views = [window_view(x, counts, strides, window, dil) for x in padded]  # checks the fit
    if fast is not None:  # no materialized windows (see window_algorithms)
        lead = [max(lo, 0) for lo in low]
        trail = [max(hi, 0) for hi in high]
        done = [fast_reduce_window(name, x, i, lead, counts, strides, window, dil, trail)
                for name, x, i in zip(fast, padded, init_values, strict=True)]
        if all(d is not None for d in done):
            return pack_results(done)
    flat = [v.reshape(tuple(counts) + (size,)) for v in views]
    out = reduce_last(body, fast, flat, init_values)
    return pack_results(out)


# ---- stablehlo.select_and_scatter -----------------------------------------------------------


def select_and_scatter(operand: np.ndarray, source: np.ndarray, init_value: np.ndarray, *,
                       window_dimensions: tuple[int, ...] | None = None,
                       window_strides: tuple[int, ...] | None = None, padding: Any = None,
                       select: Callable[..., Any], scatter: Callable[..., Any]) -> np.ndarray:
    """spec select_and_scatter: per source element pick one operand element of its window
    with `select`, then fold the source values landing on each operand element with
    `scatter` (in source order), starting from `init_value`."""
    rank = operand.ndim
    window = list(window_dimensions or [1] * rank)
    strides = list(window_strides or [1] * rank)
    low, high = _padding_pairs(padding, rank)
    counts = list(source.shape)
    padded = pad_dilate(operand, low, high, [0] * rank, np.zeros((), operand.dtype)[()])
    valid = pad_dilate(np.ones(operand.shape, dtype=bool), low, high, [0] * rank, False)
    flat_index = pad_dilate(np.arange(operand.size, dtype=np.int64).reshape(operand.shape),
                            low, high, [0] * rank, -1)
    ones = [1] * rank
    values = window_view(padded, counts, strides, window, ones)
    oks = window_view(valid, counts, strides, window, ones)
    indices = window_view(flat_index, counts, strides, window, ones)
    chosen = np.zeros(counts, dtype=operand.dtype)
    chosen_index = np.full(counts, -1, dtype=np.int64)
    seen = np.zeros(counts, dtype=bool)
    lead = (slice(None),) * rank
    for offset in np.ndindex(*window):
        current = values[lead + offset]
        ok = oks[lead + offset]
        first = ok & ~seen
        chosen = np.where(first, current, chosen)
        chosen_index = np.where(first, indices[lead + offset], chosen_index)
        seen |= ok
        keep = np.broadcast_to(np.asarray(select(chosen, current)[0], dtype=bool), tuple(counts))
        take = ok & ~keep
        chosen = np.where(take, current, chosen)
        chosen_index = np.where(take, indices[lead + offset], chosen_index)
    fill = np.asarray(init_value, dtype=operand.dtype)[()]
    result = np.full(operand.size, fill, dtype=operand.dtype)
    targets = chosen_index.reshape(-1)
    sources = np.asarray(source, dtype=operand.dtype).reshape(-1)
    hit = np.nonzero(targets >= 0)[0]
    targets, sources = targets[hit], sources[hit]
    order = np.argsort(targets, kind="stable")
    targets, sources = targets[order], sources[order]
    if targets.size:
        starts = np.r_[0, np.nonzero(np.diff(targets))[0] + 1]
        group = np.repeat(starts, np.diff(np.r_[starts, targets.size]))
        rank_in_group = np.arange(targets.size) - group
        init = np.asarray(init_value, dtype=operand.dtype)
        for r in range(int(rank_in_group.max()) + 1):
            pick = rank_in_group == r
            where, value = targets[pick], sources[pick]
            shape = value.shape
            step = np.broadcast_to(np.asarray(scatter(np.broadcast_to(init, shape), value)[0],
                                              dtype=operand.dtype), shape)
            new = np.broadcast_to(np.asarray(scatter(step, result[where])[0],
                                             dtype=operand.dtype), shape)
            result[where] = new
    return result.reshape(operand.shape)


def _attr_size(op: Operation, name: str) -> int:
    """How many elements the attribute has (0 when absent), without listing them: a splat of
    a huge type is a broadcast view of 10^11 elements."""
    attr = op.attr(name)
    return 0 if attr is None else math.prod(int_matrix_shape(attr))


def _attr_ints(op: Operation, name: str) -> list[int] | None:
    attr = op.attr(name)
    return None if attr is None else int_values(attr)


def windowed_shape(op: Operation, operand: TensorType, kind: str) -> list[int]:
    """Check the window attributes (upstream verifyWindowAttributesAndInferWindowDimensions)
    and return the shape of the windowed result."""
    rank = len(operand.shape)
    size = _attr_size(op, "window_dimensions")
    window = (_attr_ints(op, "window_dimensions") or []) if size == rank else []
    if size != rank:
        raise error_at_op(op, f"expects window-dimensions size == {kind} rank, but got "
                              f"window-dimensions size: {size} and {kind}"
                              f"{'-type' if kind == 'operand' else ''}: {quoted(operand)} with "
                              f"rank = {rank}.")
    padding_attr = op.attr("padding")
    padding: list[tuple[int, int]] = [(0, 0)] * rank
    padding_rows = rank
    if padding_attr is not None:
        dims = int_matrix_shape(padding_attr)
        if len(dims) != 2 or dims[1] != 2:
            shape = ", ".join(str(s) for s in dims)
            raise error_at_op(op, f"expects the shape of padding-attribute to be {{N, 2}}, but got "
                                  f"{{{shape}}}.")
        # Read the rows only when there are `rank` of them: a splat padding of a huge type
        # (`dense<1> : tensor<99999999999x2xi64>`) is a broadcast view, not 10^11 rows.
        padding_rows = dims[0]
        if padding_rows == rank:
            flat = int_values(padding_attr)
            padding = list(zip(flat[0::2], flat[1::2], strict=True))
        else:
            padding = []
    checks = (("window_strides", "window-strides", "stride"),
              ("base_dilations", "base-dilation factors", "base dilation factor"),
              ("window_dilations", "window-dilation factors", "window dilation factor"))
    values: dict[str, list[int]] = {}
    for name, plural, _ in checks:
        size = _attr_size(op, name)
        if size and size != rank:  # an empty list means the default, as upstream
            raise error_at_op(op, f"expects {plural} to have same dimension-size as size of window "
                                  f"dimensions ({rank}), but got: {size}.")
        got = _attr_ints(op, name) if size else None
        values[name] = got if got else [1] * rank
    if padding_rows != rank:
        raise error_at_op(op, f"expects padding-entries to have same dimension-size as size of "
                              f"window dimensions ({rank}), but got: {padding_rows}.")
    for i, w in enumerate(window):
        if w <= 0:
            raise error_at_op(op, f"expects window to have positive value for {i}-th window "
                                  f"dimension, but got {w}.")
        for name, _, single in checks:
            if values[name][i] <= 0:
                raise error_at_op(op, f"expects window to have positive {single} for {i}-th window "
                                      f"dimension, but got {values[name][i]}.")
    out = []
    for i, n in enumerate(operand.shape):
        if n == DYNAMIC:
            out.append(DYNAMIC)
            continue
        dilated = 0 if n == 0 else (n - 1) * values["base_dilations"][i] + 1
        padded = dilated + padding[i][0] + padding[i][1]
        extent = (window[i] - 1) * values["window_dilations"][i] + 1
        out.append(0 if padded < extent else (padded - extent) // values["window_strides"][i] + 1)
    return out


def verify_reduce_window(op: Operation) -> None:
    count = len(op.operands) // 2  # SameVariadicOperandSize: a lone operand is no input
    if not count:
        raise op_error(op, "requires at least 1 input value")
    inputs = op.operand_types[:count]
    if not all(isinstance(t, TensorType) for t in op.operand_types):
        return
    verify_same_input_shapes(op, inputs)
    out_shape = windowed_shape(op, inputs[0], "input")
    allowed = _attr_ints(op, "window_dimensions") or []
    if op.regions and op.regions[0].blocks:
        verify_reducer_shape(op, op.regions[0].entry, inputs, op.operand_types[count:], allowed)
        check_inferred_results(op, op.regions[0].entry, out_shape)


def verify_select_and_scatter(op: Operation) -> None:
    if len(op.operands) != 3 or not all(isinstance(t, TensorType) for t in op.operand_types):
        return
    operand, source, init = op.operand_types
    if len(op.regions) == 2 and op.regions[0].blocks:
        block = op.regions[0].entry
        if len(block.arguments) != 2:
            raise error_at_op(op, f"expects the select-region to take 2 parameters, but takes "
                                  f"{len(block.arguments)}")
        scalar = TensorType((), operand.element)
        for i, arg in enumerate(block.arguments):
            if arg.type != scalar:
                raise error_at_op(op, f"expects the type of select-region's parameter at index {i} "
                                      f"to be {quoted(scalar)}, but got {quoted(arg.type)}")
        returned = list(block.operations[-1].operands) if block.operations else []
        if len(returned) != 1:
            raise error_at_op(op, f"expects select-region to return single value, but got: "
                                  f"{len(returned)}")
        if returned[0].type != TensorType((), IntegerType(1)):
            raise error_at_op(op, f"expects the return-type of select-region to be tensor<i1>, but "
                                  f"got: {quoted(returned[0].type)}")
    if len(op.regions) == 2 and op.regions[1].blocks:
        verify_reducer_shape(op, op.regions[1].entry, [source], [init], [])
    expected = TensorType(tuple(windowed_shape(op, operand, "operand")), operand.element)
    if not (compatible_dims(expected.shape, source.shape) and expected.element == source.element):
        raise error_at_op(op, f"expects source-type to be {quoted(expected)}, "
                              f"but got{quoted(source)}")
    # InferTypeOpInterface, after the op's own checks (upstream's tests expect those first):
    # the operand's shape with the element type the scatter region returns
    # (inferSelectAndScatterOp); another result type was accepted.
    element = operand.element
    if len(op.regions) == 2 and op.regions[1].blocks and op.regions[1].entry.operations:
        returned = op.regions[1].entry.operations[-1].operands
        if returned and isinstance(returned[0].type, TensorType):
            element = returned[0].type.element
    check_inferred(op, [TensorType(operand.shape, element, operand.encoding)])


define_op("stablehlo.reduce_window", operands=("*inputs", "*init_values"), results="*",
          attributes=("window_dimensions", "window_strides?", "base_dilations?",
                      "window_dilations?", "padding?"),
          regions=("body",), verify=verify_reduce_window)(reduce_window)
define_op("stablehlo.select_and_scatter", operands=("operand", "source", "init_value"), results=1,
          attributes=("window_dimensions?", "window_strides?", "padding?"),
          regions=("select", "scatter"), verify=verify_select_and_scatter)(select_and_scatter)
