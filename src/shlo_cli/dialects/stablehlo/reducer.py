"""The reducer region that reduce, reduce_window, select_and_scatter and scatter share:
body analysis, the fold kernels, and upstream's reducer-shape checks.

Bodies that are a single known commutative op (`add`, `maximum`, ... on the two block
arguments) run as numpy reductions; float `add`/`multiply` use `ufunc.accumulate` so the
rounding follows the reference interpreter's sequential order. Any other body runs through
the region, called on whole arrays: folded in order like the reference interpreter (one
call per reduced position), or for very long reductions as a pairwise tree (spec-conformant:
the schedule is implementation-defined); never once per element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...ir.core import Block, Operation, Region, Value
from ...ir.diagnostics import Diagnostic
from ...ir.types import (
    DYNAMIC,
    ComplexType,
    FloatType,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    element_type,
    numpy_dtype,
)
from ...ir.verifier import inferred_type_mismatch
from ...lazy_imports import lazy
from .elementwise_numerics import is_float


def _contiguous(x: Any) -> np.ndarray:
    """A C-contiguous array keeping 0-d arrays 0-d (np.ascontiguousarray makes them 1-d)."""
    return np.asarray(x, order="C")


contiguous = _contiguous


def strided_view(x: np.ndarray, shape: tuple[int, ...],
                 strides: tuple[int, ...]) -> np.ndarray:
    """A read-only `as_strided` view that also works for ml_dtypes' types: numpy rebuilds
    the view from the array interface, whose type string (`<f1` for f8E5M2) it does not
    understand for them, so those are viewed through same-width unsigned integers. A
    dimension with at most one entry takes stride 0: its stride is never stepped, and a
    window stride like 2**62 (one window) would not fit numpy's C long."""
    strides = tuple(0 if n <= 1 else s for n, s in zip(shape, strides, strict=True))
    if x.dtype.isbuiltin == 1:
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    bits = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    return np.lib.stride_tricks.as_strided(bits, shape, strides, writeable=False).view(x.dtype)

# ---- region analysis ---------------------------------------------------------------------

COMMUTATIVE_OPS = frozenset({
    "stablehlo.add", "stablehlo.and", "stablehlo.maximum", "stablehlo.minimum",
    "stablehlo.multiply", "stablehlo.or", "stablehlo.xor",
})
_RETURNS = frozenset({"stablehlo.return", "func.return"})


def binary_body_ops(region: Region, count: int) -> list[str] | None:
    """Names of the ops computing each result as `op(arg[i], arg[count + i])`, when the body
    is nothing but such ops (the fast path); None otherwise."""
    if len(region.blocks) != 1:
        return None
    block = region.entry
    args = block.arguments
    ops = block.operations
    if len(args) != 2 * count or not ops or ops[-1].name not in _RETURNS:
        return None
    returned = ops[-1].operands
    if len(returned) != count:
        return None
    names = []
    for i, value in enumerate(returned):
        producer = value.owner
        if not isinstance(producer, Operation) or producer.name not in COMMUTATIVE_OPS:
            return None
        if producer.parent is not block or producer.regions:
            return None
        if {id(v) for v in producer.operands} != {id(args[i]), id(args[count + i])}:
            return None
        names.append(producer.name)
    if len(ops) - 1 != len({id(v.owner) for v in returned}):
        return None
    return names


def cached_analysis(op: Operation | None, key: str, compute: Callable[[], Any]) -> Any:
    """Region analysis done once per op (kept on the op, which outlives its plan)."""
    if op is None:
        return compute()
    cache = op._plan_cache
    if not isinstance(cache, dict):
        cache = {}
        op._plan_cache = cache
    if key not in cache:
        cache[key] = compute()
    return cache[key]


# ---- reduction kernels ---------------------------------------------------------------------

_BOOL_UFUNCS = lazy(lambda: {
    "stablehlo.add": np.logical_or, "stablehlo.or": np.logical_or,
    "stablehlo.maximum": np.logical_or, "stablehlo.multiply": np.logical_and,
    "stablehlo.and": np.logical_and, "stablehlo.minimum": np.logical_and,
    "stablehlo.xor": np.logical_xor,
})
_INT_UFUNCS = lazy(lambda: {
    "stablehlo.add": np.add, "stablehlo.multiply": np.multiply,
    "stablehlo.maximum": np.maximum, "stablehlo.minimum": np.minimum,
    "stablehlo.and": np.bitwise_and, "stablehlo.or": np.bitwise_or,
    "stablehlo.xor": np.bitwise_xor,
})
_FLOAT_UFUNCS = lazy(lambda: {
    "stablehlo.add": np.add, "stablehlo.multiply": np.multiply,
    "stablehlo.maximum": np.maximum, "stablehlo.minimum": np.minimum,
})


def _ufunc_for(name: str, dtype: np.dtype) -> np.ufunc | None:
    if dtype == np.bool_:
        return _BOOL_UFUNCS.get(name)
    if dtype.kind in "iu":
        return _INT_UFUNCS.get(name)
    return _FLOAT_UFUNCS.get(name)


OUTER_FROM = 8
"""Float sums over the last axis with at least this many results are reduced over the
leading axis of a transposed copy (see fast_reduce_last)."""
_OUTER_SEQUENTIAL = lazy(lambda: frozenset(np.dtype(t) for t in (
    np.float16, np.float32, np.float64, np.complex64, np.complex128)))


def fast_reduce_last(name: str, x: np.ndarray, init: np.ndarray) -> np.ndarray | None:
    """`init op x[..., 0] op x[..., 1] ...` over the last axis, or None if `name` has no
    numpy equivalent for this dtype. Float sums/products accumulate sequentially."""
    ufunc = _ufunc_for(name, x.dtype)
    if ufunc is None:
        return None
    init = np.asarray(init, dtype=x.dtype)
    if x.shape[-1] == 0:
        return np.broadcast_to(init, x.shape[:-1]).copy()
    with np.errstate(all="ignore"):
        if (ufunc is np.add and x.dtype in _OUTER_SEQUENTIAL
                and x.size >= OUTER_FROM * x.shape[-1]):
            # the reduced elements as rows of one C-contiguous array: numpy reduces its
            # first axis row after row into the accumulator, started from `initial` (pairwise
            # summation is only ever along the innermost axis), i.e. in the sequential
            # order, with every row a vectorized add (accumulate along the last axis is
            # scalar code)
            rows = np.moveaxis(x, -1, 0).copy()
            return _contiguous(np.add.reduce(rows, axis=0, dtype=x.dtype, initial=init[()]))
        if (ufunc is np.add and x.ndim == 1 and x.dtype in _OUTER_SEQUENTIAL
                and x.dtype.kind == "f" and init == 0 and not np.signbit(init)):
            # one row from +0 (a sum's usual start): +0 + x0 is x0 but for its zero sign,
            # which no later nonzero term sees and the final `+ init` makes +0 as the
            # sequential sum has it; no copy with the start prepended
            return np.add.accumulate(x, dtype=x.dtype)[-1] + init
        if x.dtype.kind in "fcV" and ufunc in (np.add, np.multiply):
            seq = np.concatenate([np.broadcast_to(init, x.shape[:-1] + (1,)), x], axis=-1)
            return _contiguous(ufunc.accumulate(seq, axis=-1, dtype=x.dtype)[..., -1])
        if x.dtype.kind in "iu" and ufunc in (np.add, np.multiply):
            folded = ufunc.reduce(x, axis=-1, dtype=x.dtype)
        else:
            folded = ufunc.reduce(x, axis=-1)
        out = np.asarray(ufunc(init, folded), dtype=x.dtype)
        if is_float(x.dtype) and ufunc in (np.maximum, np.minimum):  # ml_dtypes' too
            out = _signed_zero_extremum(out, x, init, ufunc is np.maximum)
        return out


def _signed_zero_extremum(out: np.ndarray, x: np.ndarray, init: np.ndarray,
                          largest: bool) -> np.ndarray:
    """IEEE maximum(+0, -0) = +0 and minimum(+0, -0) = -0 whatever the order: numpy's
    maximum/minimum return their first argument for equal zeros."""
    zero = out == 0
    if not np.any(zero):
        return out
    # The sign the extremum of the zeros among {init, x...} must carry.
    wanted = ~np.signbit(x) if largest else np.signbit(x)
    hit = np.any((x == 0) & wanted, axis=-1) | ((init == 0) & (
        ~np.signbit(init) if largest else np.signbit(init)))
    signed = np.where(hit, x.dtype.type(0.0) if largest else -x.dtype.type(0.0), out)
    return np.asarray(np.where(zero, signed, out), dtype=x.dtype)


def _call(body: Callable[..., Any], args: Sequence[np.ndarray], shape: tuple[int, ...],
          dtypes: Sequence[np.dtype]) -> list[np.ndarray]:
    out = body(*args)
    return [np.broadcast_to(np.asarray(v, dtype=d), shape)
            for v, d in zip(out, dtypes, strict=False)]


def tree_reduce_last(body: Callable[..., Any], xs: list[np.ndarray],
                     inits: list[np.ndarray]) -> list[np.ndarray]:
    """Reduce the last axis of every array in `xs` together with `body`, calling it on whole
    arrays: a pairwise tree over the elements (in order), then `body(init, tree)`."""
    dtypes = [x.dtype for x in xs]
    outer = xs[0].shape[:-1]
    count = xs[0].shape[-1]
    if count == 0:
        return [np.broadcast_to(np.asarray(i, dtype=d), outer).copy()
                for i, d in zip(inits, dtypes, strict=True)]
    try:
        while count > 1:
            half = count // 2
            left = [x[..., 0:2 * half:2] for x in xs]
            right = [x[..., 1:2 * half:2] for x in xs]
            merged = _call(body, left + right, outer + (half,), dtypes)
            if count % 2:
                merged = [np.concatenate([m, x[..., -1:]], axis=-1)
                          for m, x in zip(merged, xs, strict=True)]
            xs = merged
            count = xs[0].shape[-1]
        firsts = [np.broadcast_to(np.asarray(i, dtype=d), outer)
                  for i, d in zip(inits, dtypes, strict=True)]
        last = _call(body, firsts + [x[..., 0] for x in xs], outer, dtypes)
        return [_contiguous(v) for v in last]
    except Diagnostic:
        if not outer:
            raise
        # A body that only works on scalars: fall back to one reduction per result element.
        return _scalar_reduce_last(body, xs, inits, dtypes)


def _scalar_reduce_last(body: Callable[..., Any], xs: list[np.ndarray], inits: list[np.ndarray],
                        dtypes: list[np.dtype]) -> list[np.ndarray]:
    outer = xs[0].shape[:-1]
    results = [np.empty(outer, dtype=d) for d in dtypes]
    for index in np.ndindex(*outer):
        acc = [np.asarray(i, dtype=d) for i, d in zip(inits, dtypes, strict=False)]
        for k in range(xs[0].shape[-1]):
            acc = _call(body, acc + [np.asarray(x[index + (k,)]) for x in xs], (), dtypes)
        for r, a in zip(results, acc, strict=False):
            r[index] = a
    return results


SEQUENTIAL_LIMIT = 1024
"""Up to this many elements per reduction, general bodies fold in the reference
interpreter's order (`acc = body(acc, x[k])`, one vectorized call per k) so float results
match it bit for bit; longer reductions use the pairwise tree (log-many calls)."""


def sequential_reduce_last(body: Callable[..., Any], xs: list[np.ndarray],
                           inits: list[np.ndarray]) -> list[np.ndarray]:
    """`acc = body(acc, x[..., k])` for k in order, each call on all outer positions."""
    dtypes = [x.dtype for x in xs]
    outer = xs[0].shape[:-1]
    acc = [np.broadcast_to(np.asarray(i, dtype=d), outer) for i, d in zip(inits, dtypes,
                                                                           strict=True)]
    try:
        for k in range(xs[0].shape[-1]):
            acc = _call(body, acc + [x[..., k] for x in xs], outer, dtypes)
    except Diagnostic:
        if not outer:
            raise
        return _scalar_reduce_last(body, xs, inits, dtypes)
    return [_contiguous(a) for a in acc]


def reduce_last(body: Callable[..., Any], fast: list[str] | None, xs: list[np.ndarray],
                inits: list[np.ndarray]) -> list[np.ndarray]:
    """Reduce the last axis of each input with its init value (fast path when possible)."""
    if fast is not None:
        done = [fast_reduce_last(name, x, i) for name, x, i in zip(fast, xs, inits, strict=False)]
        if all(d is not None for d in done):
            return done  # type: ignore[return-value]
    if xs[0].shape[-1] <= SEQUENTIAL_LIMIT:
        return sequential_reduce_last(body, xs, inits)
    return tree_reduce_last(body, xs, inits)


def pack_results(values: Sequence[np.ndarray]) -> Any:
    return values[0] if len(values) == 1 else tuple(values)


def promoted(args: Sequence[np.ndarray], count: int,
              result_types: Sequence[Type]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Inputs and init values in the accumulator (result) element types: a reducer may
    compute in a wider type than the inputs (promotable reductions)."""
    inputs, inits = list(args[:count]), list(args[count:])
    if result_types and len(result_types) == count:
        try:
            dtypes = result_dtypes(result_types)
        except Exception:  # noqa: BLE001 - e.g. quantized results: keep the storage values
            return inputs, inits
        inputs = [x if x.dtype == d else x.astype(d) for x, d in zip(inputs, dtypes, strict=True)]
        inits = [np.asarray(i) if np.asarray(i).dtype == d else np.asarray(i).astype(d)
                 for i, d in zip(inits, dtypes, strict=True)]
    return inputs, inits


def result_dtypes(result_types: Sequence[Type]) -> list[np.dtype]:
    return [numpy_dtype(element_type(t)) for t in result_types]


# ---- verifiers (upstream wording: TypeInference.cpp verifyReducerShape & friends) -------------


def error_at_op(op: Operation, message: str) -> Diagnostic:
    """An error at the op without the `'name' op` prefix (upstream emitOptionalError)."""
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


def quoted(t: Any) -> str:
    return f"'{t}'"


def is_promotable(source: Type, target: Type) -> bool:
    """Whether a reducer may compute element type `target` from `source` (same kind, no
    narrowing; quantized: same expressed type and parameters, wider storage)."""
    if source == target:
        return True
    if isinstance(source, QuantizedType) and isinstance(target, QuantizedType):
        return (source.expressed == target.expressed and source.scales == target.scales
                and source.zero_points == target.zero_points
                and source.quantized_dimension == target.quantized_dimension
                and is_promotable(source.storage, target.storage))
    if isinstance(source, IntegerType) and isinstance(target, IntegerType):
        return source.is_unsigned == target.is_unsigned and target.width >= source.width
    if isinstance(source, FloatType) and isinstance(target, FloatType):
        return target.width >= source.width
    if isinstance(source, ComplexType) and isinstance(target, ComplexType):
        return is_promotable(source.element, target.element)
    return False


def compatible_dims(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(x == y or DYNAMIC in (x, y) for x, y in zip(a, b,
                                                                                 strict=True))


def verify_reducer_arity(op: Operation, block: Block, count: int) -> list[Value]:
    """The start of every reducer check (reduce, reduce_window, select_and_scatter, scatter):
    2 * count parameters and count tensor results, which it returns."""
    if len(block.arguments) != 2 * count:
        raise error_at_op(op, f"Reduction-region must take {2 * count} parameters, but takes "
                              f"{len(block.arguments)} parameter(s)")
    returned = list(block.terminator.operands) if block.terminator is not None else []
    if not returned:
        raise error_at_op(op, "The reduction-region expected to return some value(s)")
    if len(returned) != count:
        raise error_at_op(op, f"Reduction-region here must produce {count} tensors, but produces "
                              f"{len(returned)} instead")
    for value in returned:
        if not isinstance(value.type, TensorType):
            raise error_at_op(op, "Reduction-region here must produce tensor-typed result(s), but "
                                  f"produces {quoted(value.type)} instead")
    return returned


def verify_reducer_shape(op: Operation, block: Block, input_types: Sequence[Type],
                         init_types: Sequence[Type], allowed: Sequence[int] | None) -> None:
    """The reducer takes (acc..., x...) scalars and returns one accumulator per input."""
    count = len(input_types)
    returned = verify_reducer_arity(op, block, count)
    for i in range(count):
        acc = returned[i].type
        for index in (i, count + i):
            arg = block.arguments[index].type
            if not (isinstance(arg, TensorType) and compatible_dims(arg.shape, acc.shape)
                    and arg.element == acc.element):
                raise error_at_op(op, f"The type of reduction-region's parameter at index {index} "
                                      f"is different than the corresponding result type: "
                                      f"{quoted(arg)} vs {quoted(acc)}")
        init = init_types[i]
        if isinstance(init, TensorType):
            if not compatible_dims(acc.shape, init.shape):
                raise error_at_op(op, f"The shape of reduction-region's result type at index {i} "
                                      f"differs from the op's corresponding init-value type: "
                                      f"{quoted(acc)} vs {quoted(init)}")
            if not is_promotable(init.element, acc.element):
                raise error_at_op(op, f"The element-type of reduction-region's result type at "
                                      f"index {i} is expected to be promotable from the op's "
                                      f"corresponding init-value element-type: {quoted(acc)} vs "
                                      f"{quoted(init)}")
        arg = block.arguments[count + i].type
        source = input_types[i]
        if isinstance(source, TensorType) and not is_promotable(source.element, arg.element):
            raise error_at_op(op, f"The element-type of reduction-region's argument at index "
                                  f"{count + i} is expected to be promotable from "
                                  f"{quoted(source.element)}, but got {quoted(arg.element)}")
        if allowed is None:
            continue
        if len(arg.shape) > len(allowed):
            raise error_at_op(op, f"The rank of reduction-region's argument at index {count + i} "
                                  f"is expected to be <= {len(allowed)}, got {len(arg.shape)}")
        matched = 0
        for size in allowed:
            if matched < len(arg.shape) and (size == arg.shape[matched]
                                             or DYNAMIC in (size, arg.shape[matched])):
                matched += 1
        if matched != len(arg.shape):
            raise error_at_op(op, f"The shape of reduction-region's argument at index {count + i} "
                                  f"is not compatible with that of reduce-op's input-parameter at "
                                  f"index {i}")


def verify_same_input_shapes(op: Operation, inputs: Sequence[Type]) -> None:
    for i, t in enumerate(inputs[1:], start=1):
        if (isinstance(t, TensorType) and isinstance(inputs[0], TensorType)
                and not compatible_dims(t.shape, inputs[0].shape)):
            raise error_at_op(op, f"expects all inputs to have compatible shapes. Shape at "
                                  f"input-index {i} is not compatible with shape at input-index 0")


def check_inferred_results(op: Operation, block: Block, shape: Sequence[int]) -> None:
    """Results must match what inference gives: `shape` with the reducer's element types."""
    returned = list(block.operations[-1].operands) if block.operations else []
    if not all(isinstance(v.type, TensorType) for v in returned):
        return
    inferred = [TensorType(tuple(shape), v.type.element) for v in returned]
    results = op.result_types
    same = len(inferred) == len(results) and all(
        isinstance(r, TensorType) and r.element == t.element
        and compatible_dims(r.shape, t.shape) for r, t in zip(results, inferred, strict=True))
    if not same:
        raise inferred_type_mismatch(op, ", ".join(quoted(t) for t in inferred))
