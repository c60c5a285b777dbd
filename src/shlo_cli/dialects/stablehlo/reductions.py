"""Reductions: `reduce`, `reduce_window`, `select_and_scatter`.

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

from ...ir.attributes import DenseArrayAttr
from ...ir.core import Block, Location, Operation, Region, Value
from ...ir.diagnostics import Diagnostic, EvaluationError
from ...ir.lexer import PERCENT
from ...ir.memory import check_elements
from ...ir.types import (
    DYNAMIC,
    I64,
    ComplexType,
    FloatType,
    FunctionType,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    element_type,
    numpy_dtype,
)
from ...ir.verifier import inferred_type_mismatch, op_error
from ..registry import OpDef, define_op, lookup
from ..syntax import Custom
from .window_algorithms import fast_reduce_window


def _contiguous(x: Any) -> np.ndarray:
    """A C-contiguous array keeping 0-d arrays 0-d (np.ascontiguousarray makes them 1-d)."""
    return np.asarray(x, order="C")


contiguous = _contiguous

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

_BOOL_UFUNCS = {
    "stablehlo.add": np.logical_or, "stablehlo.or": np.logical_or,
    "stablehlo.maximum": np.logical_or, "stablehlo.multiply": np.logical_and,
    "stablehlo.and": np.logical_and, "stablehlo.minimum": np.logical_and,
    "stablehlo.xor": np.logical_xor,
}
_INT_UFUNCS = {
    "stablehlo.add": np.add, "stablehlo.multiply": np.multiply,
    "stablehlo.maximum": np.maximum, "stablehlo.minimum": np.minimum,
    "stablehlo.and": np.bitwise_and, "stablehlo.or": np.bitwise_or,
    "stablehlo.xor": np.bitwise_xor,
}
_FLOAT_UFUNCS = {
    "stablehlo.add": np.add, "stablehlo.multiply": np.multiply,
    "stablehlo.maximum": np.maximum, "stablehlo.minimum": np.minimum,
}


def _ufunc_for(name: str, dtype: np.dtype) -> np.ufunc | None:
    if dtype == np.bool_:
        return _BOOL_UFUNCS.get(name)
    if dtype.kind in "iu":
        return _INT_UFUNCS.get(name)
    return _FLOAT_UFUNCS.get(name)


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
        if x.dtype.kind in "fcV" and ufunc in (np.add, np.multiply):
            seq = np.concatenate([np.broadcast_to(init, x.shape[:-1] + (1,)), x], axis=-1)
            return _contiguous(ufunc.accumulate(seq, axis=-1, dtype=x.dtype)[..., -1])
        if x.dtype.kind in "iu" and ufunc in (np.add, np.multiply):
            folded = ufunc.reduce(x, axis=-1, dtype=x.dtype)
        else:
            folded = ufunc.reduce(x, axis=-1)
        out = np.asarray(ufunc(init, folded), dtype=x.dtype)
        if x.dtype.kind == "f" and ufunc in (np.maximum, np.minimum):
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


def _results(values: Sequence[np.ndarray]) -> Any:
    return values[0] if len(values) == 1 else tuple(values)


def _promoted(args: Sequence[np.ndarray], count: int,
              result_types: Sequence[Type]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Inputs and init values in the accumulator (result) element types: a reducer may
    compute in a wider type than the inputs (promotable reductions)."""
    inputs, inits = list(args[:count]), list(args[count:])
    if result_types and len(result_types) == count:
        try:
            dtypes = _result_dtypes(result_types)
        except Exception:  # noqa: BLE001 - e.g. quantized results: keep the storage values
            return inputs, inits
        inputs = [x if x.dtype == d else x.astype(d) for x, d in zip(inputs, dtypes, strict=True)]
        inits = [np.asarray(i) if np.asarray(i).dtype == d else np.asarray(i).astype(d)
                 for i, d in zip(inits, dtypes, strict=True)]
    return inputs, inits


# ---- stablehlo.reduce ------------------------------------------------------------------------


def _result_dtypes(result_types: Sequence[Type]) -> list[np.dtype]:
    return [numpy_dtype(element_type(t)) for t in result_types]


def reduce(*args: np.ndarray, dimensions: tuple[int, ...], body: Callable[..., Any],
           op: Operation | None = None, result_types: Sequence[Type] = ()) -> Any:
    """results[j] = body-fold of init and inputs[..., dimensions] (spec: reduce)."""
    count = len(args) // 2
    inputs, init_values = _promoted(args, count, result_types)
    dims = tuple(dimensions or ())
    rank = inputs[0].ndim
    if any(d < 0 or d >= rank for d in dims):
        raise EvaluationError(f"reduce dimension out of range for rank {rank}")
    kept = [d for d in range(rank) if d not in dims]
    outer = tuple(inputs[0].shape[d] for d in kept)
    size = int(np.prod([inputs[0].shape[d] for d in dims], dtype=np.int64))
    flat = [np.transpose(x, kept + list(dims)).reshape(outer + (size,)) for x in inputs]
    fast = None
    if op is not None and op.regions:
        fast = cached_analysis(op, "reduce", lambda: binary_body_ops(op.regions[0], count))
    out = reduce_last(body, fast, flat, init_values)
    if result_types:
        dtypes = _result_dtypes(result_types)
        out = [np.asarray(o, dtype=d) for o, d in zip(out, dtypes, strict=False)]
    return _results(out)


# Pretty syntax (upstream printReduceOp/parseReduceOp):
#   stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [1] : (...) -> ...
#   stablehlo.reduce(%x init: %i), ... across dimensions = [1] : (...) -> (...)
#    reducer(%a: T, %b: T) (%c: U, %d: U)  { ... }


def _pretty_eligible(op: Operation) -> bool:
    """Upstream's conditions E1-E5 for the one-line `applies` form."""
    if not op.regions or len(op.regions[0].blocks) != 1:
        return False
    block = op.regions[0].entry
    if len(block.operations) != 2:
        return False
    inner, ret = block.operations
    if inner.dialect != op.dialect or inner.name not in COMMUTATIVE_OPS:
        return False
    if len(inner.operands) != 2 or len(inner.results) != 1 or inner.regions:
        return False
    types = inner.operand_types + inner.result_types
    if any(t != types[0] for t in types):
        return False
    count = len(op.operands) // 2
    if count == 0:
        return False
    expected = TensorType((), element_type(op.operands[0].type))
    if inner.operands[0].type != expected:
        return False
    args = block.arguments
    if len(args) != 2 or args[0] is not inner.operands[0] or args[1] is not inner.operands[1]:
        return False
    if ret.name.split(".", 1)[-1].lower() != "return":
        return False
    return len(ret.operands) == 1 and ret.operands[0] is inner.results[0]


def _print_dims(dims: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def _print_reduce(pr: Any, op: Operation) -> None:
    count = len(op.operands) // 2
    pairs = [f"({pr.name(op.operands[i])} init: {pr.name(op.operands[i + count])})"
             for i in range(count)]
    pr.write(", ".join(pairs))
    compact = _pretty_eligible(op)
    if compact:
        pr.write(" applies " + op.regions[0].entry.operations[0].name)
    dims = op.attr("dimensions")
    pr.write(" across dimensions = " + _print_dims(dims.value if dims is not None else ()))
    extra = {k: v for k, v in op.properties.items() if k != "dimensions"}
    extra.update(op.attributes)
    pr.write(pr.attr_dict(extra))
    pr.write(" : " + str(FunctionType(tuple(op.operand_types), tuple(op.result_types))))
    if compact:
        return
    block = op.regions[0].entry
    pr.write("\n" + " " * pr.indent + " reducer")
    for i in range(count):
        first = _region_argument(pr, block, i)
        second = _region_argument(pr, block, i + count)
        pr.write(f"({first}, {second}) ")
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_args=False)


def _region_argument(pr: Any, block: Block, index: int) -> str:
    arg = block.arguments[index]
    text = f"{pr.name(arg)}: {arg.type}"
    if pr.debuginfo:
        text += " " + pr.location_text(block.arg_locations[index])
    return text


def parse_dim_list(p: Any) -> list[int]:
    """`[1, 2]` (possibly empty)."""
    p.expect("[")
    values: list[int] = []
    if not p.at("]"):
        values.append(p.parse_integer())
        while p.accept(","):
            values.append(p.parse_integer())
    p.expect("]")
    return values


def _parse_reduce(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    tok = p.tok
    inputs: list[Value] = []
    inits: list[Value] = []
    while p.accept("("):
        inputs.append(p.parse_operand())
        p.expect_keyword("init")
        p.expect(":")
        inits.append(p.parse_operand())
        p.expect(")")
        if not p.accept(","):
            break
    operands = inputs + inits
    inner_name = None
    if p.tok.kind != PERCENT and p.at("applies"):
        p.advance()
        inner_name = p.parse_keyword()
        if inner_name not in COMMUTATIVE_OPS:
            raise p.error("expected the inner-op to be a commutative binary-op from the "
                          "stablehlo dialect, with zero region, producing single result", tok)
    p.expect_keyword("across")
    p.expect_keyword("dimensions")
    p.expect("=")
    dims = parse_dim_list(p)
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    type_tok = p.tok
    ftype = p.parse_type()
    if not isinstance(ftype, FunctionType):
        raise p.error("expected function type", type_tok)
    if inner_name is not None and not ftype.inputs:
        raise p.error("input types missing in reduce-op function type", tok)
    p.check_operand_types(operands, list(ftype.inputs), tok)
    props = {"dimensions": DenseArrayAttr(I64, tuple(dims))}
    if inner_name is not None:
        region = _compact_region(inner_name, ftype.inputs[0], location)
    else:
        region = _parse_reducer(p)
    return p.build_operation(opdef.name, opdef, operands, list(ftype.results), props, attributes,
                             [region], None, location)


def _compact_region(name: str, input_type: Type, location: Location) -> Region:
    """The body the compact form stands for: `return name(%lhs, %rhs)` on scalars."""
    scalar = TensorType((), element_type(input_type))
    block = Block([scalar, scalar])
    inner = Operation(name, list(block.arguments), [scalar], location=location,
                      opdef=lookup(name))
    block.append(inner)
    block.append(Operation("stablehlo.return", [inner.results[0]], [], location=location,
                           opdef=lookup("stablehlo.return")))
    return Region([block])


def _parse_reducer(p: Any) -> Region:
    p.expect_keyword("reducer")
    firsts: list[tuple[Any, Type, Any]] = []
    seconds: list[tuple[Any, Type, Any]] = []
    while p.accept("("):
        for group in (firsts, seconds):
            arg_tok = p.tok
            if arg_tok.kind != PERCENT:
                raise p.error("expected SSA operand")
            p.advance()
            p.expect(":")
            arg_type = p.parse_type()
            group.append((arg_tok, arg_type, p.parse_optional_location()))
            if group is firsts:
                p.expect(",")
        p.expect(")")
    return p.parse_region(entry_args=firsts + seconds)


# ---- windows -------------------------------------------------------------------------------


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
    return np.lib.stride_tricks.as_strided(
        x, tuple(counts) + tuple(sizes),
        tuple(s * b for s, b in zip(strides, step, strict=True))
        + tuple(d * b for d, b in zip(dilations, step, strict=True)),
        writeable=False)


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
    count = len(args) // 2
    if any(np.ndim(v) for v in args[count:]):  # upstream's verifier lets these through
        raise EvaluationError("reduce_window with non-scalar init values cannot be evaluated")
    inputs, init_values = _promoted(args, count, result_types)
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
    fast = None
    if op is not None and op.regions:
        fast = cached_analysis(op, "reduce", lambda: binary_body_ops(op.regions[0], count))
    if fast is not None:  # no materialized windows (see window_algorithms)
        lead = [max(lo, 0) for lo in low]
        done = [fast_reduce_window(name, x, i, lead, counts, strides, window, dil)
                for name, x, i in zip(fast, padded, init_values, strict=True)]
        if all(d is not None for d in done):
            return _results(done)
    flat = [v.reshape(tuple(counts) + (size,)) for v in views]
    out = reduce_last(body, fast, flat, init_values)
    return _results(out)


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


# ---- verifiers (upstream wording: TypeInference.cpp verifyReducerShape & friends) -------------


def _error(op: Operation, message: str) -> Diagnostic:
    """An error at the op without the `'name' op` prefix (upstream emitOptionalError)."""
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


def _q(t: Any) -> str:
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


def _compatible_dims(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(x == y or DYNAMIC in (x, y) for x, y in zip(a, b,
                                                                                 strict=True))


def verify_reducer_arity(op: Operation, block: Block, count: int) -> list[Value]:
    """The start of every reducer check (reduce, reduce_window, select_and_scatter, scatter):
    2 * count parameters and count tensor results, which it returns."""
    if len(block.arguments) != 2 * count:
        raise _error(op, f"Reduction-region must take {2 * count} parameters, but takes "
                         f"{len(block.arguments)} parameter(s)")
    returned = list(block.terminator.operands) if block.terminator is not None else []
    if not returned:
        raise _error(op, "The reduction-region expected to return some value(s)")
    if len(returned) != count:
        raise _error(op, f"Reduction-region here must produce {count} tensors, but produces "
                         f"{len(returned)} instead")
    for value in returned:
        if not isinstance(value.type, TensorType):
            raise _error(op, "Reduction-region here must produce tensor-typed result(s), but "
                             f"produces {_q(value.type)} instead")
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
            if not (isinstance(arg, TensorType) and _compatible_dims(arg.shape, acc.shape)
                    and arg.element == acc.element):
                raise _error(op, f"The type of reduction-region's parameter at index {index} "
                                 f"is different than the corresponding result type: "
                                 f"{_q(arg)} vs {_q(acc)}")
        init = init_types[i]
        if isinstance(init, TensorType):
            if not _compatible_dims(acc.shape, init.shape):
                raise _error(op, f"The shape of reduction-region's result type at index {i} "
                                 f"differs from the op's corresponding init-value type: "
                                 f"{_q(acc)} vs {_q(init)}")
            if not is_promotable(init.element, acc.element):
                raise _error(op, f"The element-type of reduction-region's result type at index "
                                 f"{i} is expected to be promotable from the op's corresponding "
                                 f"init-value element-type: {_q(acc)} vs {_q(init)}")
        arg = block.arguments[count + i].type
        source = input_types[i]
        if isinstance(source, TensorType) and not is_promotable(source.element, arg.element):
            raise _error(op, f"The element-type of reduction-region's argument at index "
                             f"{count + i} is expected to be promotable from "
                             f"{_q(source.element)}, but got {_q(arg.element)}")
        if allowed is None:
            continue
        if len(arg.shape) > len(allowed):
            raise _error(op, f"The rank of reduction-region's argument at index {count + i} "
                             f"is expected to be <= {len(allowed)}, got {len(arg.shape)}")
        matched = 0
        for size in allowed:
            if matched < len(arg.shape) and (size == arg.shape[matched]
                                             or DYNAMIC in (size, arg.shape[matched])):
                matched += 1
        if matched != len(arg.shape):
            raise _error(op, f"The shape of reduction-region's argument at index {count + i} "
                             f"is not compatible with that of reduce-op's input-parameter at "
                             f"index {i}")


def _verify_same_input_shapes(op: Operation, inputs: Sequence[Type]) -> None:
    for i, t in enumerate(inputs[1:], start=1):
        if (isinstance(t, TensorType) and isinstance(inputs[0], TensorType)
                and not _compatible_dims(t.shape, inputs[0].shape)):
            raise _error(op, f"expects all inputs to have compatible shapes. Shape at "
                             f"input-index {i} is not compatible with shape at input-index 0")


def verify_reduce(op: Operation) -> None:
    count = len(op.operands) // 2
    inputs = op.operand_types[:count]
    if not inputs or not all(isinstance(t, TensorType) for t in op.operand_types):
        return
    _verify_same_input_shapes(op, inputs)
    shape = inputs[0].shape
    dims_attr = op.attr("dimensions")
    dims = [int(d) for d in (dims_attr.value if dims_attr is not None else ())]
    seen: set[int] = set()
    for d in dims:
        if d < 0 or d >= len(shape):
            raise _error(op, f"Out-of-bounds dimension {d}, expected to be in range "
                             f"[0, {len(shape)})")
        if d in seen:
            raise _error(op, f"Duplicate reduction dimension: {d}")
        seen.add(d)
    if not op.regions or not op.regions[0].blocks:
        return
    allowed = [n for i, n in enumerate(shape) if i not in seen]
    verify_reducer_shape(op, op.regions[0].entry, inputs, op.operand_types[count:], allowed)
    _check_inferred_results(op, op.regions[0].entry, allowed)


def _check_inferred_results(op: Operation, block: Block, shape: Sequence[int]) -> None:
    """Results must match what inference gives: `shape` with the reducer's element types."""
    returned = list(block.operations[-1].operands) if block.operations else []
    if not all(isinstance(v.type, TensorType) for v in returned):
        return
    inferred = [TensorType(tuple(shape), v.type.element) for v in returned]
    results = op.result_types
    same = len(inferred) == len(results) and all(
        isinstance(r, TensorType) and r.element == t.element
        and _compatible_dims(r.shape, t.shape) for r, t in zip(results, inferred, strict=True))
    if not same:
        raise inferred_type_mismatch(op, ", ".join(_q(t) for t in inferred))


def _attr_ints(op: Operation, name: str) -> list[int] | None:
    attr = op.attr(name)
    return None if attr is None else [int(v) for v in np.asarray(attr.value).reshape(-1)]


def windowed_shape(op: Operation, operand: TensorType, kind: str) -> list[int]:
    """Check the window attributes (upstream verifyWindowAttributesAndInferWindowDimensions)
    and return the shape of the windowed result."""
    rank = len(operand.shape)
    window = _attr_ints(op, "window_dimensions") or []
    if len(window) != rank:
        raise _error(op, f"expects window-dimensions size == {kind} rank, but got "
                         f"window-dimensions size: {len(window)} and {kind}"
                         f"{'-type' if kind == 'operand' else ''}: {_q(operand)} with rank = "
                         f"{rank}.")
    padding_attr = op.attr("padding")
    padding: list[tuple[int, int]] = [(0, 0)] * rank
    if padding_attr is not None:
        arr = np.asarray(padding_attr.value)
        if arr.ndim != 2 or arr.shape[1] != 2:
            shape = ", ".join(str(s) for s in arr.shape)
            raise _error(op, f"expects the shape of padding-attribute to be {{N, 2}}, but got "
                             f"{{{shape}}}.")
        padding = [(int(a), int(b)) for a, b in arr]
    checks = (("window_strides", "window-strides", "stride"),
              ("base_dilations", "base-dilation factors", "base dilation factor"),
              ("window_dilations", "window-dilation factors", "window dilation factor"))
    values: dict[str, list[int]] = {}
    for name, plural, _ in checks:
        got = _attr_ints(op, name)
        if got and len(got) != rank:  # an empty list means the default, as upstream
            raise _error(op, f"expects {plural} to have same dimension-size as size of window "
                             f"dimensions ({rank}), but got: {len(got)}.")
        values[name] = got if got else [1] * rank
    if padding_attr is not None and len(padding) != rank:
        raise _error(op, f"expects padding-entries to have same dimension-size as size of "
                         f"window dimensions ({rank}), but got: {len(padding)}.")
    for i, w in enumerate(window):
        if w <= 0:
            raise _error(op, f"expects window to have positive value for {i}-th window "
                             f"dimension, but got {w}.")
        for name, _, single in checks:
            if values[name][i] <= 0:
                raise _error(op, f"expects window to have positive {single} for {i}-th window "
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
    if not op.operands:
        raise op_error(op, "requires at least 1 input value")
    count = len(op.operands) // 2
    inputs = op.operand_types[:count]
    if not all(isinstance(t, TensorType) for t in op.operand_types):
        return
    _verify_same_input_shapes(op, inputs)
    out_shape = windowed_shape(op, inputs[0], "input")
    allowed = _attr_ints(op, "window_dimensions") or []
    if op.regions and op.regions[0].blocks:
        verify_reducer_shape(op, op.regions[0].entry, inputs, op.operand_types[count:], allowed)
        _check_inferred_results(op, op.regions[0].entry, out_shape)


def verify_select_and_scatter(op: Operation) -> None:
    if len(op.operands) != 3 or not all(isinstance(t, TensorType) for t in op.operand_types):
        return
    operand, source, init = op.operand_types
    if len(op.regions) == 2 and op.regions[0].blocks:
        block = op.regions[0].entry
        if len(block.arguments) != 2:
            raise _error(op, f"expects the select-region to take 2 parameters, but takes "
                             f"{len(block.arguments)}")
        scalar = TensorType((), operand.element)
        for i, arg in enumerate(block.arguments):
            if arg.type != scalar:
                raise _error(op, f"expects the type of select-region's parameter at index {i} "
                                 f"to be {_q(scalar)}, but got {_q(arg.type)}")
        returned = list(block.operations[-1].operands) if block.operations else []
        if len(returned) != 1:
            raise _error(op, f"expects select-region to return single value, but got: "
                             f"{len(returned)}")
        if returned[0].type != TensorType((), IntegerType(1)):
            raise _error(op, f"expects the return-type of select-region to be tensor<i1>, but "
                             f"got: {_q(returned[0].type)}")
    if len(op.regions) == 2 and op.regions[1].blocks:
        verify_reducer_shape(op, op.regions[1].entry, [source], [init], [])
    expected = TensorType(tuple(windowed_shape(op, operand, "operand")), operand.element)
    if not (_compatible_dims(expected.shape, source.shape) and expected.element == source.element):
        raise _error(op, f"expects source-type to be {_q(expected)}, but got{_q(source)}")


# ---- declarations -----------------------------------------------------------------------------

define_op("stablehlo.reduce", syntax=Custom(_parse_reduce, _print_reduce),
          properties=("dimensions",), regions=("body",), verify=verify_reduce)(reduce)
define_op("stablehlo.reduce_window",
          properties=("window_dimensions", "window_strides", "base_dilations",
                      "window_dilations", "padding"),
          regions=("body",), verify=verify_reduce_window)(reduce_window)
define_op("stablehlo.select_and_scatter",
          properties=("window_dimensions", "window_strides", "padding"),
          regions=("select", "scatter"), verify=verify_select_and_scatter)(select_and_scatter)
