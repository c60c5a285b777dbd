"""jax's other custom calls (the ones `jax.export` accepts besides LAPACK's), on one CPU device.

Rules jax follows (jax/_src/export/_export.py `_CUSTOM_CALL_TARGETS_GUARANTEED_STABLE`,
jax/_src/export/shape_poly.py, jax/_src/lax/ann.py, lax.py):

- `@shape_assertion(pred: tensor<i1>, inputs: integer scalars...)`, `has_side_effect`,
  attribute `error_message` (not in backend_config): when `pred` is false the program
  stops with `error_message` formatted by Python's `str.format` with the inputs as
  positional arguments (`{0}`, `{1}`, ...).
- `@stablehlo.dynamic_top_k(operand, k: integer scalar) -> (values, indices: i32)`:
  `chlo.top_k` with a run-time k: the k largest entries of the last dimension, ties in
  index order.
- `@ApproxTopK(inputs..., init_values...)` with `called_computations = [@comparator]` and
  backend_config `top_k`, `reduction_dim`, `recall_target`, `aggregate_to_topk`,
  `reduction_input_size_override`, `is_fallback`: on CPU XLA sorts the inputs together
  along `reduction_dim` with the comparator (stable) and keeps the first `top_k` (without
  `aggregate_to_topk`: as many as the result has along `reduction_dim`). Except that XLA
  CPU's TopkRewriter turns such a sort of f32 values (alone or with an iota) whose
  comparator is `compare GT` of its first two arguments, sliced from 0, into its TopK
  runtime, which orders by IEEE totalOrder (-NaN < -inf < -0 < +0 < +inf < +NaN), ties in
  index order: `lax.approx_max_k` on f32 puts NaNs first and +0 before -0, and so do we.
- `@stablehlo.dynamic_approx_top_k(inputs..., init_values..., k, shape operands...)`: the
  same with k as an operand; `indices_of_shape_operands` names the trailing operands that
  only carry the result shapes.
- `@stablehlo.dynamic_reduce_window(inputs..., init_values..., window_dimensions,
  window_strides, base_dilations, window_dilations: 1-D integers, padding: rank x 2)` with
  `called_computations = [@reducer]`: `stablehlo.reduce_window` with those attributes
  given at run time (jax's lowering when they depend on a symbolic dimension, e.g. a
  cumulative sum along it).
- `@stablehlo.dynamic_rng_bit_generator(state, output_shape: 1-D integer)`, attribute
  `rng_algorithm`: `stablehlo.rng_bit_generator` whose output shape is given at run time.
- `@Sharding`, `@SPMDFullToShardShape`, `@SPMDShardToFullShape`,
  `@annotate_device_placement`: annotations for the partitioner/placement (attributes
  `mhlo.sharding`, `mhlo.frontend_attributes`); with one device they return their operand.
  (`@xla.sdy.FuncResultSharding`, Shardy's result annotation, is treated the same way.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.attributes import ArrayAttr, StringAttr, SymbolRefAttr
from ..ir.diagnostics import EvaluationError
from ..ir.types import TensorType, numpy_dtype
from .registry import (
    Config,
    Operand,
    TargetCall,
    TargetError,
    register_target,
    shape_operand_indices,
)

_INTEGERS = ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")


def _attr(call: TargetCall, name: str) -> Any:
    op = call.op
    if op is None:
        return None
    return op.attributes.get(name) or op.properties.get(name)


# ---- shape_assertion -----------------------------------------------------------------------


def _verify_shape_assertion(call: TargetCall) -> None:
    if not isinstance(_attr(call, "error_message"), StringAttr):
        raise TargetError("requires a string attribute 'error_message'")
    if call.result_types:
        raise TargetError(f"has no results, got {len(call.result_types)}")


def _shape_assertion(call: TargetCall) -> list[Any]:
    pred, *inputs = call.operands
    if bool(np.asarray(pred)):
        return []
    message = _attr(call, "error_message").value
    values = [np.asarray(x).item() for x in inputs]
    try:
        text = message.format(*values)
    except (IndexError, KeyError, ValueError):
        text = message
    raise EvaluationError(text)  # the program's own failure: jax's words, unprefixed


register_target("shape_assertion", _shape_assertion,
                operands=[Operand("i1", rank=0), Operand(_INTEGERS, rank=0)], results=[],
                verify=_verify_shape_assertion, variadic=True)


# ---- top-k -----------------------------------------------------------------------------


def _scalar_int(x: Any, what: str) -> int:
    value = int(np.asarray(x).reshape(-1)[0])
    if value < 0:
        raise TargetError(f"{what} must be >= 0, got {value}")
    return value


def _dynamic_top_k(call: TargetCall) -> list[np.ndarray]:
    operand, k_value = call.operands
    operand = np.asarray(operand)
    k = _scalar_int(k_value, "k")
    if operand.ndim == 0 or k > operand.shape[-1]:
        raise TargetError(f"k = {k} exceeds the last dimension of {operand.shape}")
    from ..dialects.chlo.structured import top_k

    values, indices = top_k(operand, k=k)
    return [values, indices.astype(numpy_dtype(call.result_types[1].element))]


register_target("stablehlo.dynamic_top_k", _dynamic_top_k,
                operands=[Operand(min_rank=1), Operand(_INTEGERS, rank=0)],
                results=[Operand(same_as=0, min_rank=1), Operand(_INTEGERS, min_rank=1)])


def _called_function(call: TargetCall, what: str) -> tuple[Any, Any]:
    """(interpreter, function) of the one function named in 'called_computations'."""
    attr = _attr(call, "called_computations")
    names = attr.elements if isinstance(attr, ArrayAttr) else []
    if len(names) != 1 or not isinstance(names[0], SymbolRefAttr | StringAttr):
        raise TargetError(f"requires one {what} in 'called_computations'")
    name = names[0].value if isinstance(names[0], StringAttr) else str(names[0]).lstrip("@")
    if call.ctx is None:
        raise TargetError(f"needs an interpreter context to run its {what}")
    interpreter = call.ctx.interpreter
    return interpreter, interpreter.lookup_function(name)


def _approx_top_k(call: TargetCall, inputs: list[np.ndarray], k: int) -> list[np.ndarray]:
    from ..dialects.stablehlo.sort import sort, total_order_key

    dim = call.config["reduction_dim"]
    rank = inputs[0].ndim
    if not -rank <= dim < rank:
        raise TargetError(f"reduction_dim {dim} is out of range for rank {rank}")
    dim %= rank
    if k > inputs[0].shape[dim]:
        raise TargetError(f"top_k = {k} exceeds dimension {dim} of size "
                          f"{inputs[0].shape[dim]}")
    interpreter, func = _called_function(call, "comparator")
    if _xla_cpu_top_k(func, inputs, dim):
        order = np.argsort(-total_order_key(inputs[0]), axis=dim, kind="stable")
        first = np.take(order, np.arange(k), axis=dim)
        return [np.take_along_axis(x, first, axis=dim) for x in inputs]
    # The comparator function as the sort's op: its body is analysed like a sort region
    # (one compare: numpy's argsort) instead of calling it per merge step.
    ordered = sort(*inputs, dimension=dim, is_stable=True, op=func, ctx=call.ctx,
                   comparator=lambda *args: interpreter.call(func, args))
    ordered = list(ordered) if isinstance(ordered, tuple) else [ordered]
    return [np.take(x, np.arange(k), axis=dim) for x in ordered]


def _xla_cpu_top_k(func: Any, inputs: list[np.ndarray], dim: int) -> bool:
    """Whether XLA CPU runs this ApproxTopK as its TopK runtime (module docstring): f32
    values, alone or with an i32 iota along `dim`, and a comparator that is `compare GT`
    of its first two arguments."""
    if inputs[0].dtype != np.float32 or len(inputs) > 2 or len(func.regions[0].blocks) != 1:
        return False
    block = func.regions[0].blocks[0]
    if len(block.operations) != 2 or len(block.arguments) != 2 * len(inputs):
        return False
    compare, end = block.operations
    direction = compare.attr("comparison_direction")
    if (compare.name != "stablehlo.compare" or direction is None or direction.value != "GT"
            or list(compare.operands) != block.arguments[:2]
            or list(end.operands) != list(compare.results)):
        return False
    if len(inputs) == 1:
        return True
    positions, size = inputs[1], inputs[0].shape[dim]
    shape = [1] * inputs[0].ndim
    shape[dim] = size
    return positions.dtype == np.int32 and np.array_equal(
        positions, np.broadcast_to(np.arange(size, dtype=np.int32).reshape(shape),
                                   positions.shape))


_APPROX_CONFIG = {
    "reduction_dim": Config("int", default=-1, required=False),
    "recall_target": Config("float", default=0.95, required=False),
    "aggregate_to_topk": Config("bool", default=True, required=False),
    "reduction_input_size_override": Config("int", default=-1, required=False),
    "is_fallback": Config("bool", default=False, required=False),
}


def _verify_paired(call: TargetCall, extra: int) -> int:
    """ApproxTopK's operands are N inputs then N init values (then `extra` more)."""
    count = len(call.op.operand_types) - extra
    if count <= 0 or count % 2:
        raise TargetError("expects N inputs followed by N initial values")
    n = count // 2
    if len(call.result_types) != n:
        raise TargetError(f"expects {n} results, one per input, got {len(call.result_types)}")
    return n


def _kept(call: TargetCall, k: int, result_size: int | None) -> int:
    """How many sorted entries are returned: `top_k`, or without `aggregate_to_topk` the
    result's size along `reduction_dim` (jax sizes it for the approximate algorithm; XLA
    CPU's fallback sorts and returns that many)."""
    if call.config["aggregate_to_topk"]:
        return k
    if result_size is None:
        raise TargetError("aggregate_to_topk = false needs the result's size along "
                          "reduction_dim")
    return int(result_size)


def _result_size(call: TargetCall) -> int | None:
    """The first result's static size along `reduction_dim`, if known."""
    shape = getattr(call.result_types[0], "shape", None)
    rank = len(shape) if shape is not None else 0
    dim = call.config["reduction_dim"]
    if shape is None or not -rank <= dim < rank or shape[dim] < 0:
        return None
    return int(shape[dim])


def _approx_top_k_static(call: TargetCall) -> list[np.ndarray]:
    n = _verify_paired(call, 0)
    k = _kept(call, int(call.config["top_k"]), _result_size(call))
    return _approx_top_k(call, [np.asarray(x) for x in call.operands[:n]], k)


register_target("ApproxTopK", _approx_top_k_static,
                config={"top_k": Config("int"), **_APPROX_CONFIG},
                verify=lambda call: _verify_paired(call, 0) and None)


def _shape_operand_count(call: TargetCall) -> int:
    return len(shape_operand_indices(call.op))


def _approx_top_k_dynamic(call: TargetCall) -> list[np.ndarray]:
    extra = _shape_operand_count(call)
    n = _verify_paired(call, 1 + extra)
    k = _scalar_int(call.operands[2 * n], "k")
    size = _result_size(call)
    if size is None and extra:  # the first shape operand is the first result's shape
        shape = np.asarray(call.operands[2 * n + 1]).reshape(-1)
        dim = call.config["reduction_dim"]
        size = int(shape[dim]) if -len(shape) <= dim < len(shape) else None
    return _approx_top_k(call, [np.asarray(x) for x in call.operands[:n]],
                         _kept(call, k, size))


register_target("stablehlo.dynamic_approx_top_k", _approx_top_k_dynamic,
                config=_APPROX_CONFIG, shape_operands=True,
                verify=lambda call: _verify_paired(call, 1 + _shape_operand_count(call)) and None)


# ---- dynamic_rng_bit_generator -------------------------------------------------------------


def _dynamic_rng(call: TargetCall) -> list[np.ndarray]:
    from ..dialects.stablehlo.rng import rng_bit_generator

    state, shape = call.operands
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    if any(d < 0 for d in dims):
        raise TargetError(f"output_shape must be non-negative, got {list(dims)}")
    out_type = call.result_types[1]
    if len(dims) != out_type.rank:
        raise TargetError(f"output_shape has {len(dims)} dimensions, result is {out_type}")
    algorithm = _attr(call, "rng_algorithm")
    name = getattr(algorithm, "value", algorithm)
    static_types = [call.result_types[0], TensorType(dims, out_type.element)]
    new_state, bits = rng_bit_generator(np.asarray(state), rng_algorithm=_algorithm_name(name),
                                        result_types=static_types)
    return [new_state, bits]


def _algorithm_name(value: Any) -> str:
    text = str(value or "DEFAULT")
    for name in ("THREE_FRY", "PHILOX", "DEFAULT"):
        if name in text:
            return name
    return text


register_target("stablehlo.dynamic_rng_bit_generator", _dynamic_rng,
                operands=[Operand(min_rank=1), Operand(_INTEGERS, rank=1)],
                results=[Operand(same_as=0, min_rank=1), Operand(min_rank=0)])


# ---- dynamic_reduce_window ----------------------------------------------------------------

_WINDOW_OPERANDS = ("window_dimensions", "window_strides", "base_dilations",
                    "window_dilations")


def _verify_dynamic_reduce_window(call: TargetCall) -> None:
    _verify_paired(call, len(_WINDOW_OPERANDS) + 1)


def _window_ints(value: Any, rank: int, name: str, least: int) -> tuple[int, ...]:
    ints = np.asarray(value).reshape(-1)
    if ints.size != rank:
        raise TargetError(f"{name} has {ints.size} entries for an operand of rank {rank}")
    out = tuple(int(v) for v in ints)
    if any(v < least for v in out):
        raise TargetError(f"{name} must be >= {least}, got {list(out)}")
    return out


def _dynamic_reduce_window(call: TargetCall) -> list[np.ndarray]:
    """`stablehlo.reduce_window` whose window sizes, strides, dilations and padding are
    operands (jax's lowering when they depend on a symbolic dimension), reduced by the
    function named in called_computations."""
    from ..dialects.stablehlo.reduce_window import windowed_reduce
    from ..dialects.stablehlo.reducer import binary_body_ops, cached_analysis

    n = _verify_paired(call, len(_WINDOW_OPERANDS) + 1)
    args = [np.asarray(x) for x in call.operands[:2 * n]]
    rank = args[0].ndim
    sizes = [_window_ints(call.operands[2 * n + i], rank, name, 0 if i == 0 else 1)
             for i, name in enumerate(_WINDOW_OPERANDS)]
    padding = np.asarray(call.operands[-1]).astype(np.int64)
    if padding.shape != (rank, 2):
        raise TargetError(f"padding must have shape [{rank}, 2], got {list(padding.shape)}")
    interpreter, func = _called_function(call, "reducer")
    names = cached_analysis(call.op, "dynamic_reduce_window",
                            lambda: binary_body_ops(func.regions[0], n))
    window, strides, base, dilations = sizes
    out = windowed_reduce(args, window, strides, base, dilations, padding,
                          lambda *xs: interpreter.call(func, list(xs)), names,
                          call.result_types)
    return list(out) if isinstance(out, tuple) else [out]


register_target("stablehlo.dynamic_reduce_window", _dynamic_reduce_window,
                verify=_verify_dynamic_reduce_window)


# ---- single-device annotations -----------------------------------------------------------


def _verify_identity(call: TargetCall) -> None:
    types = list(call.op.operand_types)
    if len(types) != len(call.result_types):
        raise TargetError(f"expects as many results as operands, got {len(types)} operands "
                          f"and {len(call.result_types)} results")
    for i, (a, b) in enumerate(zip(types, call.result_types, strict=True)):
        if isinstance(a, TensorType) and isinstance(b, TensorType) and a.is_static \
                and b.is_static and (a.shape != b.shape or a.element != b.element):
            raise TargetError(f"result #{i} ({b}) differs from operand #{i} ({a}): "
                              "this needs more than one device")


def _identity(call: TargetCall) -> list[Any]:
    return list(call.operands)


for _name in ("Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
              "annotate_device_placement", "xla.sdy.FuncResultSharding"):
    register_target(_name, _identity, verify=_verify_identity)
