"""`reduce_window` without materialized windows, for bodies that are one known binary op.

The plain evaluation takes a strided view of shape `counts + window` and reshapes it, which
copies `output size x window size` elements (a jax cumsum over 256k elements asked for
256 GiB). Here nothing grows with window size x input; which algorithm runs, and why each
result equals the plain evaluation's bit for bit (ml_dtypes' floats, bfloat16 and the f8
types, fold with their own ufuncs, as the plain path's reductions do):

- small windows (and any window of a float `add`/`multiply` that is not cumulative): fold the
  window offsets in row-major order, `acc = acc op padded[offset::stride]`, one numpy call per
  offset on output-sized arrays. That is exactly the plain path's sequential order.
- float `add`/`multiply` with one long window whose every start lies in the leading padding
  (jax's cumsum/cumprod lowering: window = full length, low padding = length - 1): when
  `init op init == init` bit for bit, the padding in front of each window leaves `init`
  unchanged, so window i folds to entry `end_i` of one `ufunc.accumulate` over
  `[init, padded[lead:]...]`: the same operations in the same order.
- float `add`/`multiply` with one long window whose padding is all behind the operand (jax's
  reverse cumsum/cumprod: high padding = length - 1): window i folds x[i], x[i+1], ... then
  the padding, left to right; no two windows share a partial result, so the work stays
  quadratic, but `trailing_fold` skips what the plain fold wastes: each data step touches
  only the windows that still have data there (half the work), and the trailing padding
  steps stop once folding `init` changes no window (`-0 + 0` is `+0`, then nothing moves).
  Same operations on the same operands in the same order per window.
- integer ops (wrapping: associative and commutative), bool ops and float `maximum`/`minimum`
  (spec semantics: NaN wins, -0 < +0; associative and commutative, so exact in any order):
  per axis, sliding-window doubling (O(n log w)), axes one after another, then `init op`;
  but float maximum/minimum over a cumulative window along the innermost axis, forward or
  reverse (then on the operand reversed along that axis), is one accumulate as above:
  numpy's, zero signs fixed from a running "seen +0 / -0" (2-3x faster than the doubling,
  which pays the zero-sign test per level; numpy's accumulates are scalar loops, slower
  than vectorized doubling for integers and along outer axes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...lazy_imports import lazy
from .elementwise_numerics import is_float

SMALL_WINDOW = 32  # up to this many window elements, the offset fold is cheapest

Binary = Callable[["np.ndarray", "np.ndarray"], "np.ndarray"]
Step = Callable[[list["np.ndarray"], list["np.ndarray"]], list["np.ndarray"]]

_NATIVE_INT = lazy(lambda: frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)))
_NATIVE_FLOAT = lazy(lambda: frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64)))
_NATIVE_COMPLEX = lazy(lambda: frozenset(np.dtype(t) for t in (np.complex64, np.complex128)))


def float_maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spec maximum on floats: NaN propagates, +0 > -0 (numpy picks an operand for +-0)."""
    out = np.maximum(a, b)
    zeros = (a == 0) & (b == 0)
    if np.any(zeros):
        out = np.where(zeros, np.where(np.signbit(a), b, a), out)
    return out


def float_minimum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spec minimum on floats: NaN propagates, -0 < +0."""
    out = np.minimum(a, b)
    zeros = (a == 0) & (b == 0)
    if np.any(zeros):
        out = np.where(zeros, np.where(np.signbit(a), a, b), out)
    return out


_INT_OPS: dict[str, Binary] = lazy(lambda: {
    "stablehlo.add": np.add, "stablehlo.multiply": np.multiply,
    "stablehlo.maximum": np.maximum, "stablehlo.minimum": np.minimum,
    "stablehlo.and": np.bitwise_and, "stablehlo.or": np.bitwise_or,
    "stablehlo.xor": np.bitwise_xor,
})
_BOOL_OPS: dict[str, Binary] = lazy(lambda: {
    "stablehlo.add": np.logical_or, "stablehlo.or": np.logical_or,
    "stablehlo.maximum": np.logical_or, "stablehlo.multiply": np.logical_and,
    "stablehlo.and": np.logical_and, "stablehlo.minimum": np.logical_and,
    "stablehlo.xor": np.logical_xor,
})
_FLOAT_EXACT: dict[str, Binary] = {"stablehlo.maximum": float_maximum,
                                   "stablehlo.minimum": float_minimum}
_FLOAT_ORDERED: dict[str, np.ufunc] = lazy(lambda: {"stablehlo.add": np.add,
                                       "stablehlo.multiply": np.multiply})


def _classify(name: str, dtype: np.dtype) -> tuple[Binary, bool] | None:
    """(binary op, exact in any order) for `name` on `dtype`, or None (no fast path)."""
    if dtype == np.bool_:
        fn = _BOOL_OPS.get(name)
        return (fn, True) if fn is not None else None
    if dtype in _NATIVE_INT:
        fn = _INT_OPS.get(name)
        return (fn, True) if fn is not None else None
    if dtype in _NATIVE_FLOAT or is_float(dtype):  # ml_dtypes' floats: their own ufuncs,
        # which the general path (reducer.fast_reduce_last) folds with too
        if name in _FLOAT_EXACT:
            return _FLOAT_EXACT[name], True
        fn = _FLOAT_ORDERED.get(name)
        return (fn, False) if fn is not None else None
    if dtype in _NATIVE_COMPLEX and name in _FLOAT_ORDERED:
        return _FLOAT_ORDERED[name], False
    return None


def _offset_slice(offset: int, count: int, stride: int, dilation: int) -> slice:
    start = offset * dilation
    return slice(start, start + (count - 1) * stride + 1 if count else start, stride)


_FLOAT_UFUNCS: dict[Binary, np.ufunc] = lazy(lambda: {float_maximum: np.maximum,
                                                       float_minimum: np.minimum})
_SIGN_BIT = {2: -0x8000, 4: -0x80000000, 8: -0x8000000000000000}  # -0.0's bits, as signed


def _one_zero_sign(padded: np.ndarray, init: np.ndarray) -> bool:
    """Whether no -0.0 is among the operand and init (one integer compare over the bits):
    then every zero is +0.0 and numpy's maximum/minimum, which may return either of two
    equal zeros, agree with the spec's (-0 < +0)."""
    if init == 0 and np.signbit(init):
        return False
    bits = padded.view(f"i{padded.dtype.itemsize}")
    return not bool(np.any(bits == _SIGN_BIT[padded.dtype.itemsize]))


def _extremum_fold(ufunc: np.ufunc, padded: np.ndarray, init: np.ndarray,
                   counts: Sequence[int], strides: Sequence[int], window: Sequence[int],
                   dilations: Sequence[int]) -> np.ndarray:
    """`_offset_fold` of numpy's maximum or minimum (NaN propagates: the first NaN in fold
    order, as there), in place in one output array; `init` last, and not at all when it
    is the identity (-inf for maximum, +inf for minimum): max(x, -inf) is x, NaN too."""
    views = [padded[tuple(_offset_slice(o, c, s, d) for o, c, s, d in
                          zip(offset, counts, strides, dilations, strict=True))]
             for offset in np.ndindex(*window)]
    identity = -np.inf if ufunc is np.maximum else np.inf
    if not (init == identity):  # init first: init op w0 op w1 ...
        acc = ufunc(init, views[0])
    else:
        acc = views[0].copy()
    for view in views[1:]:
        ufunc(acc, view, out=acc)
    return acc


def _offset_fold(fn: Binary, padded: np.ndarray, init: np.ndarray, counts: Sequence[int],
                 strides: Sequence[int], window: Sequence[int],
                 dilations: Sequence[int]) -> np.ndarray:
    """init op w[0] op w[1] ... over window offsets in row-major order (sequential); a
    ufunc's steps after the first write into its first result (same operations)."""
    acc = np.broadcast_to(init, tuple(counts))
    in_place = isinstance(fn, np.ufunc) and 0 not in counts
    for step, offset in enumerate(np.ndindex(*window)):
        index = tuple(_offset_slice(o, c, s, d)
                      for o, c, s, d in zip(offset, counts, strides, dilations, strict=True))
        if in_place and step:
            fn(acc, padded[index], out=acc)  # type: ignore[call-arg]
        else:
            acc = fn(acc, padded[index])
            in_place = in_place and acc.dtype == padded.dtype
    return acc if in_place else np.array(acc, dtype=padded.dtype)


def _slide(fn: Binary, x: np.ndarray, axis: int, width: int, dilation: int) -> np.ndarray:
    """y[i] = x[i] op x[i + d] op ... op x[i + (width - 1) d] along `axis`, by doubling
    (valid for associative, commutative ops): O(n log width)."""
    n = x.shape[axis]
    out_n = n - (width - 1) * dilation

    def take(a: np.ndarray, start: int, length: int) -> np.ndarray:
        index = [slice(None)] * a.ndim
        index[axis] = slice(start, start + length)
        return a[tuple(index)]

    result = None
    done = 0  # window elements already in `result`
    power = x  # power[i] = op over the 2^k elements starting at i
    span = 1
    remaining = width
    while remaining:
        if remaining & 1:
            piece = take(power, done * dilation, out_n)
            result = piece if result is None else fn(result, piece)
            done += span
        remaining >>= 1
        if remaining:
            length = power.shape[axis] - span * dilation
            power = fn(take(power, 0, length), take(power, span * dilation, length))
            span *= 2
    assert result is not None
    return result


def _separable(fn: Binary, padded: np.ndarray, init: np.ndarray, counts: Sequence[int],
               strides: Sequence[int], window: Sequence[int],
               dilations: Sequence[int]) -> np.ndarray:
    """Box reduction axis by axis (any order is exact for these ops), then `init op`."""
    x = padded
    for axis, (c, s, w, d) in enumerate(zip(counts, strides, window, dilations, strict=True)):
        if c == 0:
            shape = list(x.shape)
            shape[axis] = 0
            x = np.empty(shape, x.dtype)
            continue
        if w > 1:
            x = _slide(fn, x, axis, w, d)
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, (c - 1) * s + 1, s)
        x = x[tuple(index)]
    return np.array(fn(np.broadcast_to(init, x.shape), x), dtype=padded.dtype)


def _accumulate(fn: Binary, x: np.ndarray) -> np.ndarray:
    """fn's running fold along the last axis: `ufunc.accumulate`, or for the spec's float
    maximum/minimum numpy's (NaN propagates) with the zeros signed as the spec has them:
    +0 (max) or -0 (min) once any such zero was seen, else the other zero."""
    if isinstance(fn, np.ufunc):
        return fn.accumulate(x, axis=-1, dtype=x.dtype)
    largest = fn is float_maximum
    acc = (np.maximum if largest else np.minimum).accumulate(x, axis=-1)
    zero = acc == 0
    if np.any(zero):
        seen = np.logical_or.accumulate((x == 0) & (np.signbit(x) != largest), axis=-1)
        plus, minus = x.dtype.type(0.0), -x.dtype.type(0.0)
        acc = np.where(zero, np.where(seen == largest, plus, minus), acc)
    return acc


def _cumulative(ufunc: Binary, padded: np.ndarray, init: np.ndarray, lead: Sequence[int],
                counts: Sequence[int], strides: Sequence[int], window: Sequence[int],
                dilations: Sequence[int]) -> np.ndarray | None:
    """The accumulate form, when exact (see the module docstring); else None."""
    long_axes = [a for a, w in enumerate(window) if w > 1]
    if len(long_axes) != 1:
        return None
    axis = long_axes[0]
    c, s, w, d, pad = counts[axis], strides[axis], window[axis], dilations[axis], lead[axis]
    if d != 1 or c == 0 or (c - 1) * s > pad:
        return None
    with np.errstate(all="ignore"):
        twice = ufunc(init, init)
    if np.asarray(twice).tobytes() != np.asarray(init).tobytes():
        return None
    # Window-1 axes: just pick the strided positions.
    index: list[slice] = []
    for a, (cc, ss, dd) in enumerate(zip(counts, strides, dilations, strict=True)):
        index.append(slice(pad, None) if a == axis else _offset_slice(0, cc, ss, dd))
    tail = np.moveaxis(padded[tuple(index)], axis, -1)
    head = np.broadcast_to(init, tail.shape[:-1] + (1,))
    with np.errstate(all="ignore"):
        acc = _accumulate(ufunc, np.concatenate([head, tail], axis=-1))
    ends = np.arange(c) * s + w - 1  # last padded position of each window
    picks = np.clip(ends - pad + 1, 0, acc.shape[-1] - 1)
    return np.ascontiguousarray(np.moveaxis(acc[..., picks], -1, axis))


def _flipped_cumulative(fn: Binary, padded: np.ndarray, init: np.ndarray,
                        trail: Sequence[int], counts: Sequence[int], strides: Sequence[int],
                        window: Sequence[int], dilations: Sequence[int]) -> np.ndarray | None:
    """A reverse scan (every window reaches the operand's end, padded behind) of an op exact
    in any order: the forward accumulate form on the operand reversed along the window's
    axis, whose windows, read backwards, are the original ones."""
    long_axes = [a for a, w in enumerate(window) if w > 1]
    if len(long_axes) != 1 or strides[long_axes[0]] != 1:
        return None
    axis = long_axes[0]
    index = [slice(None)] * padded.ndim
    index[axis] = slice(None, None, -1)
    flip = tuple(index)
    done = _cumulative(fn, padded[flip], init, trail, counts, strides, window, dilations)
    return None if done is None else np.ascontiguousarray(done[flip])


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bitwise equality (NaN payloads and zero signs count)."""
    return bool(np.array_equal(np.ascontiguousarray(a).view(np.uint8),
                               np.ascontiguousarray(b).view(np.uint8)))


def _store(rows: list[np.ndarray], new: list[np.ndarray]) -> None:
    """rows[j][...] = new[j]; a result may read another's accumulator, so none is written
    before all are read."""
    if len(rows) > 1:
        new = [v.copy() if any(np.may_share_memory(v, r) for r in rows) else v for v in new]
    for row, v in zip(rows, new, strict=True):
        if v is not row:
            row[...] = v


def trailing_fold(step: Step, data: list[np.ndarray], inits: list[np.ndarray], count: int,
                  width: int) -> list[np.ndarray]:
    """Windows i < count (<= n) of `width` over `data` (axis 0 of length n) then init padding,
    each folded left to right: `acc = step(acc, element)` from the inits over data[i..] and
    then its max(0, i + width - n) padding elements. Data step k runs only on the windows
    with data at k; padding steps stop once one changes no window's bits (a fixed point of
    `step(., init)` stays fixed). `step` works elementwise on whole arrays."""
    n = data[0].shape[0]
    outer = data[0].shape[1:]
    acc = [np.empty((count,) + outer, x.dtype) for x in data]
    for a, i in zip(acc, inits, strict=True):
        a[...] = i
    for k in range(min(width, n)):
        m = min(count, n - k)
        rows = [a[:m] for a in acc]
        _store(rows, step(rows, [x[k:k + m] for x in data]))
    t = 1
    while (start := max(0, n - width + t)) < count:
        rows = [a[start:] for a in acc]
        old = [r.copy() for r in rows]  # `step` may write into its first operands
        new = step(rows, [np.broadcast_to(i, r.shape) for i, r in zip(inits, rows, strict=True)])
        settled = all(same_bits(v, r) for v, r in zip(new, old, strict=True))
        _store(rows, new)
        if settled:
            break
        t += 1
    return acc


def _trailing(fn: np.ufunc, padded: np.ndarray, init: np.ndarray, lead: Sequence[int],
              trail: Sequence[int], counts: Sequence[int], strides: Sequence[int],
              window: Sequence[int], dilations: Sequence[int]) -> np.ndarray | None:
    """A long window along one axis padded only behind (see the module docstring), else None."""
    long_axes = [a for a, w in enumerate(window) if w > 1]
    if len(long_axes) != 1:
        return None
    axis = long_axes[0]
    c, s, w, d = counts[axis], strides[axis], window[axis], dilations[axis]
    n = padded.shape[axis] - trail[axis]  # data (and any interior padding) ends here
    if lead[axis] or s != 1 or d != 1 or c == 0 or n <= 0 or trail[axis] > w - 1:
        return None
    index = [slice(0, n) if a == axis else _offset_slice(0, cc, ss, dd)
             for a, (cc, ss, dd) in enumerate(zip(counts, strides, dilations, strict=True))]
    data = np.ascontiguousarray(np.moveaxis(padded[tuple(index)], axis, 0))
    dtype = padded.dtype
    if dtype.kind == "V" and dtype.itemsize == 2:  # bfloat16: ml_dtypes' add and multiply
        # round float32's result, which for 8-bit significands is the exact result rounded
        # (24 >= 2 * 8 + 2); float32 arrays plus a rounding pass are 3x faster than its loops.
        # Where two NaNs meet, which one comes out is the loop's choice (numpy's SIMD and
        # scalar loops differ), here as between the general path's own array layouts
        def step(a: list[np.ndarray], x: list[np.ndarray]) -> list[np.ndarray]:
            v = fn(a[0], x[0], out=a[0])
            v[...] = v.astype(dtype)
            return [v]

        wide = trailing_fold(step, [data.astype(np.float32)], [init.astype(np.float32)], c, w)
        out = wide[0].astype(dtype)
    else:
        out = trailing_fold(lambda a, x: [fn(a[0], x[0], out=a[0])], [data], [init], c, w)[0]
    return np.ascontiguousarray(np.moveaxis(out, 0, axis))


def _innermost(window: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether the window's one long axis is the last of `shape` but for size-1 axes."""
    long_axes = [a for a, w in enumerate(window) if w > 1]
    return len(long_axes) == 1 and all(n == 1 for n in shape[long_axes[0] + 1:])


def fast_reduce_window(name: str, padded: np.ndarray, init: np.ndarray, lead: Sequence[int],
                       counts: Sequence[int], strides: Sequence[int], window: Sequence[int],
                       dilations: Sequence[int],
                       trail: Sequence[int] | None = None) -> np.ndarray | None:
    """reduce_window of one input whose body is `name(acc, x)`, on the padded, base-dilated
    operand; `lead[a]` leading and `trail[a]` trailing elements of axis a are padding
    (= init). None when no fast path applies (the caller evaluates plainly)."""
    kind = _classify(name, padded.dtype)
    if kind is None:
        return None
    fn, exact_any_order = kind
    init = np.asarray(init, dtype=padded.dtype)
    size = int(np.prod(window, dtype=np.int64))
    with np.errstate(all="ignore"):
        if (fn in _FLOAT_UFUNCS and size <= SMALL_WINDOW and 0 not in counts
                and padded.dtype in _NATIVE_FLOAT and _one_zero_sign(padded, init)):
            return _extremum_fold(_FLOAT_UFUNCS[fn], padded, init, counts, strides, window,
                                  dilations)
        if size <= SMALL_WINDOW or 0 in counts:
            if isinstance(fn, np.ufunc) and 0 not in counts:  # a short cumsum: one pass
                done = _cumulative(fn, padded, init, lead, counts, strides, window, dilations)
                if done is not None:
                    return done
            return _offset_fold(fn, padded, init, counts, strides, window, dilations)
        if exact_any_order:
            if not isinstance(fn, np.ufunc) and _innermost(window, padded.shape):
                # float extrema along contiguous memory (numpy's accumulates are scalar
                # loops, slower than the vectorized doubling elsewhere and for integers)
                done = _cumulative(fn, padded, init, lead, counts, strides, window, dilations)
                if done is None and trail is not None:
                    done = _flipped_cumulative(fn, padded, init, trail, counts, strides,
                                               window, dilations)
                if done is not None:
                    return done
            return _separable(fn, padded, init, counts, strides, window, dilations)
        assert isinstance(fn, np.ufunc)
        done = _cumulative(fn, padded, init, lead, counts, strides, window, dilations)
        if done is None and trail is not None:
            done = _trailing(fn, padded, init, lead, trail, counts, strides, window, dilations)
        if done is not None:
            return done
        return _offset_fold(fn, padded, init, counts, strides, window, dilations)
