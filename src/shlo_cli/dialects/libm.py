"""Real double-precision transcendental functions with the C library's results, whatever
numpy's SIMD dispatch picks.

Upstream's interpreter evaluates exp, log, tanh, pow, atan2... with the C library (glibc on
Linux). numpy's float64 loops for most of these pick a SIMD implementation at import time
from the CPU (AVX-512 SVML variants differ from glibc by an ULP on up to ~40% of inputs, and
its tanh differs on every CPU), so results would depend on the machine and on whether
`NPY_DISABLE_CPU_FEATURES` was set before numpy's first import. Here every real element goes
through Python's `math` module, which calls the C library's function directly for finite
in-domain arguments; the remaining ones (infinities, NaNs, poles, overflow, arguments
outside the domain) go through ctypes to the same C function, so even their NaN signs and
infinities are the C library's. Complex arguments keep numpy's scalar complex loops, which
have no SIMD variants.

Each function takes what the numpy ufunc of the same name takes (arrays, numpy or Python
scalars) and returns float64 (the input's float type for narrower floats, computed in double and
rounded once). `rounded` gives the same bits for results rounded to a narrower float at close to
numpy's speed: numpy's double result is used only where the C library's must round alike.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from ..lazy_imports import lazy, lazy_function, numpy_function
from .layout import astype
from .libm_f32 import margin_kernel
from .libm_tiny import per_element
from .quiet import switches

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes
    from collections.abc import Callable
    from typing import Any
    Kernel = Callable[..., Any]

_CHUNK = 1 << 16  # elements per batch: an unexpected exception redoes one batch slowly


@functools.cache
def _c_library() -> ctypes.CDLL | None:
    """The C library functions this process already uses (the ones `math` calls), loaded on
    first need: searching the library path costs a subprocess, so that is the last resort."""
    import ctypes  # here: only evaluating needs it (~3 ms of every launch otherwise)

    try:
        process = ctypes.CDLL(None)
        if hasattr(process, "exp"):
            return process
    except (OSError, TypeError):
        pass
    from ctypes import util  # imports subprocess & co: only on this last resort

    name = util.find_library("m") or util.find_library("c")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


@functools.cache
def _c_function(name: str, arity: int) -> Kernel | None:
    """The C library's `double name(double[, double])`, or None where there is none."""
    fn = getattr(_c_library(), name, None)
    if fn is None:
        return None
    import ctypes

    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_double] * arity
    return fn


def _slow(name: str, arity: int, math_fn: Kernel, np_fn: np.ufunc) -> Kernel:
    """One element of any value: the C function itself, or where ctypes finds no C library,
    `math` when it returns and numpy's ufunc when it raises."""

    def one(*args: float) -> float:
        c_fn = _c_function(name, arity)
        if c_fn is not None:
            return c_fn(*args)
        try:
            return math_fn(*args)
        except (OverflowError, ValueError):
            with np.errstate(all="ignore"):
                return float(np_fn(*args))

    return one


def _map(fn: Kernel, columns: list[np.ndarray]) -> np.ndarray:
    lists = [c.tolist() for c in columns]
    return np.fromiter(map(fn, *lists), np.float64, len(lists[0]))


def _evaluate(math_fn: Kernel, slow: Kernel, columns: list[np.ndarray],
              fast: np.ndarray, np_fn: Any) -> np.ndarray:
    """`math_fn` over the elements marked `fast` (in batches, a batch that raises anyway is
    redone element by element), `slow` over the others; finite arguments outside the
    domain first (`_invalid_operations`)."""
    out = np.empty(columns[0].shape, np.float64)
    filled = _invalid_operations(slow, columns, np_fn, out)
    if filled is not None:
        fast = fast & ~filled
    where = np.flatnonzero(fast)
    for start in range(0, where.size, _CHUNK):
        index = where[start:start + _CHUNK]
        batch = [c[index] for c in columns]
        try:
            out[index] = _map(math_fn, batch)
        except (OverflowError, ValueError):
            out[index] = _map(slow, batch)
    rest = np.flatnonzero(~fast if filled is None else ~(fast | filled))
    if rest.size:
        out[rest] = _map_distinct(slow, [c[rest] for c in columns])
    return out


_SAMPLES = 4  # arguments outside the domain checked to give one NaN, before it is used


def _invalid_operations(fn: Kernel, columns: list[np.ndarray], np_fn: Any,
                        out: np.ndarray) -> np.ndarray | None:
    """Finite arguments outside the domain (log of a negative number, pow of one to a
    fractional power: `where(x > 0, log(x), 0)` evaluates every one of them) get the one NaN
    the C library returns for an invalid operation (glibc computes it as (x - x) / (x - x),
    whatever x), written to `out`; the mask of them, or None when there are few. numpy's
    NaN marks them, and `fn` on a few of them, spread over the array, must give one NaN bit
    pattern before the rest take it (else None: each goes to the C library)."""
    if np_fn is None or columns[0].size <= _FEW * _SAMPLES:
        return None
    with np.errstate(all="ignore"):
        invalid = np.isnan(np_fn(*columns))
        for c in columns:
            invalid &= np.isfinite(c)
    where = np.flatnonzero(invalid)
    if where.size <= _FEW * _SAMPLES:
        return None
    picks = where[np.linspace(0, where.size - 1, _SAMPLES).astype(np.intp)]
    results = _map(fn, [c[picks] for c in columns])
    bits = results.view(np.uint64)
    if not (np.isnan(results).all() and (bits == bits[0]).all()):
        return None
    out[where] = results[0]
    return invalid


_FEW = 8  # up to this many elements are mapped directly (np.unique costs more)


def _map_distinct(fn: Kernel, columns: list[np.ndarray]) -> np.ndarray:
    """`fn` over the elements of float64 `columns`, called once per distinct argument (bit
    pattern): the elements `math` cannot take (NaN, infinities, poles, out of domain) are
    mostly a few values repeated (a NaN-padded window, a -inf mask), and each costs a
    ctypes call."""
    if columns[0].size <= _FEW:
        return _map(fn, columns)
    if len(columns) == 1:
        bits = columns[0].view(np.uint64)
        if (bits == bits[0]).all():  # one value (a canonical NaN): no sort
            return np.full(bits.size, _map(fn, [columns[0][:1]])[0])
        distinct, inverse = np.unique(bits, return_inverse=True)
        arguments = [distinct.view(np.float64)]
    else:
        keys = np.stack([c.view(np.uint64) for c in columns], axis=1)
        distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
        arguments = [np.ascontiguousarray(distinct[:, i]).view(np.float64)
                     for i in range(len(columns))]
    return _map(fn, arguments)[inverse.reshape(-1)]


def _unary(name: str, math_fn: Kernel, np_fn: np.ufunc,
           domain: Callable[[Any], Any], invalid_nan: bool = True,
           nan_below: float | None = None) -> Kernel:
    """`nan_below`: the finite arguments below it are exactly those numpy's function
    answers with NaN (found by a comparison: numpy's log is slow on them)."""
    slow = _slow(name, 1, math_fn, np_fn)
    finder: Any = np_fn if invalid_nan else None
    if nan_below is not None:
        def finder(x: np.ndarray) -> np.ndarray:
            return np.where(x < nan_below, np.nan, 0.0)

    def apply(x: Any) -> Any:
        a = np.asarray(x)
        if a.dtype.kind == "c":
            return np_fn(x)
        wide = a.astype(np.float64).ravel()
        with np.errstate(invalid="ignore"):
            fast = np.isfinite(wide) & domain(wide)
        return _shaped(_evaluate(math_fn, slow, [wide], fast, finder), a)

    def scalar(v: float) -> float:
        """`apply` on one Python float, element for element what `_evaluate` does (the
        interpreter's 0-d fast path: no numpy call at all)."""
        if v - v == 0.0 and (domain is _everywhere or domain(v)):
            try:
                return math_fn(v)
            except (OverflowError, ValueError):
                pass
        return slow(v)

    apply.__name__ = np_fn.__name__
    apply.__doc__ = f"C library `{name}` elementwise (complex: numpy's `{np_fn.__name__}`)."
    apply.ufunc = np_fn  # type: ignore[attr-defined]  # for `rounded`
    apply.scalar = scalar  # type: ignore[attr-defined]
    apply.math = math_fn if math_fn.__module__ == "math" else None  # type: ignore[attr-defined]
    interval = getattr(domain, "interval", None)
    if interval is not None:  # no argument in it raises: `scalar` written inline
        # (interpreter/pyscalar.py) as `finite(v) if low <= v <= high else slow(v)`
        scalar.finite = math_fn  # type: ignore[attr-defined]
        scalar.slow = slow  # type: ignore[attr-defined]
        scalar.interval = interval  # type: ignore[attr-defined]
    return apply


def _binary(name: str, math_fn: Kernel, np_fn: np.ufunc,
            domain: Callable[[np.ndarray, np.ndarray], np.ndarray],
            finder: Any = None) -> Kernel:
    """`finder(x, y)`: NaN exactly where numpy's function gives NaN for finite arguments
    (default: numpy's function itself)."""
    slow = _slow(name, 2, math_fn, np_fn)

    def apply(x: Any, y: Any) -> Any:
        a, b = np.asarray(x), np.asarray(y)
        if a.dtype.kind == "c" or b.dtype.kind == "c":
            return np_fn(x, y)
        a, b = np.broadcast_arrays(a, b)
        wide = [v.astype(np.float64).ravel() for v in (a, b)]
        with np.errstate(invalid="ignore"):
            fast = np.isfinite(wide[0]) & np.isfinite(wide[1]) & domain(*wide)
        like = np.empty(a.shape, np.result_type(a.dtype, b.dtype, np.float16))
        return _shaped(_evaluate(math_fn, slow, wide, fast, finder or np_fn), like)

    apply.__name__ = np_fn.__name__
    apply.__doc__ = f"C library `{name}` elementwise (complex: numpy's `{np_fn.__name__}`)."
    apply.ufunc = np_fn  # type: ignore[attr-defined]  # for `rounded`
    return apply


# numpy's float64 loops (SVML, its own SIMD code or the C library, whichever the CPU and
# NPY_DISABLE_CPU_FEATURES select) are all within a few ULP of the exact result; trusting
# them only to a relative 2^-40 (about 4000 ULP) leaves a wide safety margin.
_TRUSTED = 2.0 ** -40
# Results below this round to +-0 in every narrower float (f32's least subnormal is 2^-149):
# numpy's value decides them however large its relative error (unbounded only for subnormal
# doubles, far below), as long as it is tiny too; its sign is the function's.
_DEEP = 2.0 ** -200


def rounded(fn: Kernel, round_to: Callable[[np.ndarray], np.ndarray],
            *xs: np.ndarray) -> np.ndarray:
    """`fn` (one of this module's functions) in double, rounded once by `round_to` to a type
    narrower than double: exactly `round_to(fn(*xs))`, at numpy's speed. numpy's result r
    decides the element when every value within r * (1 +- 2^-40) rounds to the same narrow
    value (the C library's result is among them, and rounding is monotonic); the elements
    near a rounding boundary and the non-finite ones are recomputed by `fn` (tiny ones round
    to zero on both sides of the margin: see _DEEP)."""
    wide = np.broadcast_arrays(*[np.asarray(x, np.float64) for x in xs])
    with np.errstate(all="ignore"):
        evaluate: Kernel = getattr(fn, "guess", None) or fn.ufunc  # type: ignore[attr-defined]
        guess = evaluate(*wide)
        out = np.array(round_to(guess))  # an array even for 0-d input (written below)
        doubtful = ~margin_sure(guess, round_to, f"u{out.dtype.itemsize}")
    if doubtful.any():
        out[doubtful] = round_to(fn(*[w[doubtful] for w in wide]))
    return out


@functools.cache
def native_kernel(fn: Kernel, dtype: np.dtype,
                  round_to: Callable[[np.ndarray], np.ndarray] | None = None) -> Kernel:
    """`x -> rounded(fn, round_to, x)` for a unary `fn` of this module and f16 or f32 (where
    `round_to` defaults to astype) or bfloat16 (`round_to` rounds double once to it: a
    cached function, so the kernel is too). f32 arrays take libm_f32's test (two roundings
    of the guess); the 16-bit types, until their table is made (`tabulated`), this one: a
    bit test in eight whole-array numpy calls and two cheap arg-max scans.

    numpy's double result g is trusted to 2^-40 relative, i.e. to 2^13 units in its last
    place (ulp). The C library's result rounds to the same narrow value as g unless a
    rounding boundary of the narrow type (a midpoint between two of its values) lies within
    that distance: with D the bits a double has beyond the narrow mantissa, that is when g's
    low D bits w are within 2^13 of 2^(D-1). `(c - bits) << (64 - D)` with
    c = 2^(D-1) - 2^13 - 1 maps that band, and only it, onto the top 2^14 + 1 values of the
    low D bits (c - w runs from -1 down to -2^14 - 1 across the band), moved to the top of
    the word: one arg-max tells whether any element is in it. The test holds where the
    narrow result is normal, so g is also doubtful outside the binades whose narrow results
    are normal and not in the smallest normal binade (zeros, subnormals, overflow, NaN):
    `(bits << 1) - start` (sign dropped) is >= `limit` exactly there, a second arg-max.
    Doubtful elements are recomputed by `fn` (the C library), as are 0-d and empty
    inputs."""
    narrowed = round_to or _astype(dtype)
    import ml_dtypes  # (its finfo knows bfloat16 too)

    info = ml_dtypes.finfo(dtype)
    mantissa = info.nmant
    discarded = 52 - mantissa
    bias = (1 << (8 * dtype.itemsize - mantissa - 2)) - 1
    # Biased double exponents of the narrow type's second-smallest normal binade and of
    # the first binade past its largest finite value.
    first = 1023 + 2 - bias
    past = 1023 + 2 * bias + 1 - bias
    assert 14 < discarded < 53 and 0 < first < past < 2047

    def word(v: int) -> np.ndarray:  # 0-d arrays: numpy converts a scalar operand per call
        return np.array(v % (1 << 64), np.uint64)

    near = word((1 << (discarded - 1)) - (1 << 13) - 1)
    move = word(64 - discarded)
    band = ((1 << discarded) - (1 << 14) - 1) << (64 - discarded)  # Python ints: .item()
    start = word(first << 53)
    limit = (past - first) << 53
    deep64 = word(_zero_exponent(mantissa, bias) << 53)  # guess << 1 below: rounds to +-0
    one = word(1)
    f64, u64 = np.dtype(np.float64), np.dtype(np.uint64)
    array = np.ndarray
    subtract, left_shift = np.subtract, np.left_shift
    quiet, loud = switches()

    evaluate = _guesser(fn)
    given: np.ufunc = fn.ufunc  # type: ignore[attr-defined]
    plain: np.ufunc = getattr(np, given.__name__, given)  # (as _guesser picks it)
    # one by one (_redo_few) only where x.item gives the float `scalar` takes
    scalar = getattr(fn, "scalar", None) if round_to is None else None

    def kernel(x: Any, defer: bool = False) -> Any:
        """The rounded result; with `defer` (a block of `blocks`, 1-D, not empty) the
        pair (result, doubtful mask or None), the doubtful elements not yet redone."""
        if not defer:
            if x.__class__ is not array or x.dtype != dtype or not x.ndim or not x.size:
                return _rounded_any(fn, dtype, x, narrowed)
            if x.size > 2 * _BLOCK and x.flags.c_contiguous:
                return blocks(x)
        doubtful = None
        token = quiet()  # overflow, invalid: those elements are redone
        try:
            guess = astype(x, f64)
            evaluate(guess)
            out = narrowed(guess)
            bits = guess.view(u64)
            edge = subtract(near, bits)
            left_shift(edge, move, edge)
            binade = left_shift(bits, one, bits)  # (the guess is spent)
            subtract(binade, start, binade)
            doubtful = _doubtful(edge, binade, limit, band, None if defer else scalar,
                                 x, out, narrowed)
            if doubtful is not None:
                if np.count_nonzero(doubtful) > _SCALAR_REDO:  # a mask's zeros: sure
                    doubtful &= binade + start >= deep64  # (the guess << 1)
                if not defer:
                    _redo(fn, x, out, np.flatnonzero(doubtful), narrowed)
        finally:
            loud(token)
        return (out, doubtful) if defer else out

    def blocks(x: np.ndarray) -> np.ndarray:
        """`kernel` block by block: each block's double temporaries stay in the cache
        (whole, a large array's passes each stream them from memory: twice the time). The
        blocks' doubtful elements are redone together at the end (each redo has a fixed
        cost: a softmax's or Sinkhorn's underflowing exps are in every block)."""
        out = np.empty(x.shape, dtype)
        source, target = x.reshape(-1), out.reshape(-1)
        pending: np.ndarray | None = None
        for start in range(0, source.size, _BLOCK):
            end = start + _BLOCK
            block, doubtful = kernel(source[start:end], True)
            target[start:end] = block
            if doubtful is not None:
                if pending is None:
                    pending = np.zeros(source.size, np.bool_)
                pending[start:end] = doubtful
        if pending is not None:
            token = quiet()  # as in `kernel`
            try:
                _redo(fn, source, target, np.flatnonzero(pending), narrowed)
            finally:
                loud(token)
        return out

    result: Kernel = kernel
    if dtype.itemsize == 2:
        result = tabulated(kernel, dtype)
    elif dtype == np.float32 and round_to is None:  # f32 arrays: libm_f32's two roundings
        result = margin_kernel(plain, evaluate, kernel, per_element(fn, dtype), scalar,
                               lambda x, out, index: _redo(fn, x, out, index, narrowed),
                               getattr(fn, "underflow_below", None))
    result.blockwise = True  # type: ignore[attr-defined]  # elementwise on any slice
    # each call costs about ten numpy calls: codegen runs two calls on small arrays as one
    # (interpreter/batching.py; every element's result is the same in any array)
    result.batch = True  # type: ignore[attr-defined]
    return result


def tabulated(compute: Kernel, dtype: np.dtype) -> Kernel:
    """`compute` for a 16-bit float type, from a table of its results for all 65536 bit
    patterns once asked for that many elements or `_TABLE_CALLS` times (a bf16 LSTM's
    64-element gates; the table costs 1-12 ms): one gather, exactly compute's result, NaN
    payloads included. Until then (and for 0-d inputs, other types) `compute` runs."""
    table: np.ndarray | None = None
    seen = calls = 0
    array, u16 = np.ndarray, np.dtype(np.uint16)

    def kernel(x: Any) -> Any:
        nonlocal table, seen, calls
        if x.__class__ is not array or x.dtype != dtype or not x.ndim:
            return compute(x)
        if table is None:
            seen += x.size
            calls += 1
            if seen < _TABLE_AFTER and calls < _TABLE_CALLS:
                return compute(x)
            table = compute(np.arange(1 << 16, dtype=np.uint16).view(dtype))
        return table.take(x.view(u16))

    return kernel


_TABLE_AFTER, _TABLE_CALLS = 1 << 16, 256  # elements or calls before a 16-bit table
_BLOCK = 16384  # elements per block of a large C-contiguous array (its doubles: 128 KiB)


def _zero_exponent(mantissa: int, bias: int) -> int:
    """The biased double exponent below which a guess g surely rounds to +-0 (g's sign) in
    a narrow type with `mantissa` bits and exponent `bias`: |g| < 2^-(s + 2), s the least
    subnormal's exponent, keeps the C result under 2^-(s + 2) * (1 + 2^-40), below half the
    least subnormal (the elements _DEEP would leave to the margin test)."""
    least = bias - 1 + mantissa
    return 1023 - least - 2


@functools.cache
def _guesser(fn: Kernel) -> Callable[[np.ndarray], Any]:
    """numpy's double result of `fn.ufunc` (numpy's own function of that name where it has
    one) in place. Arguments below `fn.underflow_below` (results deep in the underflow
    whatever the argument) are raised to it first: numpy's exp takes five times longer on
    lanes that underflow (a softmax's -inf or -1e9 mask). Arguments not above
    `fn.regular_above` (log's zeros and negatives, NaN: what `where(x > 0, log(x), 0)`
    evaluates) make numpy's log six times slower too: they are evaluated at a regular
    argument and their guess then set to NaN, which every caller recomputes with `fn`."""
    given: np.ufunc = fn.ufunc  # type: ignore[attr-defined]
    ufunc: np.ufunc = getattr(np, given.__name__, given)
    floor = getattr(fn, "underflow_below", None)
    edge = getattr(fn, "regular_above", None)
    if edge is not None:
        regular, nan = np.array(edge + 1.0), np.array(np.nan)

        def fenced(guess: np.ndarray) -> None:
            if guess.min() > edge:  # (False when there is a NaN)
                ufunc(guess, guess)
                return
            special = guess > edge
            np.logical_not(special, out=special)
            _fill(guess, special, regular)
            ufunc(guess, guess)
            _fill(guess, special, nan)
        return fenced
    if floor is None:
        return lambda guess: ufunc(guess, guess)
    low, maximum = np.array(floor), np.maximum
    floors = np.full(_FLOOR_CHUNK, floor)

    def evaluate(guess: np.ndarray) -> None:
        """`guess` raised to the floor (NaN stays NaN), then `ufunc` of it, in place. numpy's
        maximum of two contiguous arrays is vectorized, of an array and a 0-d one (any
        broadcast operand) not: a whole array of the floor takes a quarter of the time."""
        flags = guess.flags
        flat = (guess.reshape(-1) if flags.c_contiguous else
                guess.T.reshape(-1) if flags.f_contiguous else None)
        if flat is None:
            maximum(guess, low, out=guess)
        else:
            size = flat.size
            for start in range(0, size, _FLOOR_CHUNK):
                part = flat[start:start + _FLOOR_CHUNK]
                maximum(part, floors[:part.size], out=part)
        ufunc(guess, guess)
    return evaluate


_FLOOR_CHUNK = 1 << 14  # elements of a guess raised to its floor by one maximum call


def _fill(target: np.ndarray, mask: np.ndarray, value: np.ndarray) -> None:
    """target[mask] = value for float64 `target` and a bool `mask` of its shape, without
    branches (a boolean assignment mispredicts on a mask with no pattern)."""
    u64 = np.dtype(np.uint64)
    bits = mask.view(np.uint8).astype(u64)
    np.negative(bits, out=bits)  # all ones where mask holds
    words = target.view(u64)
    change = np.bitwise_xor(words, value.view(u64))
    change &= bits
    words ^= change


def _doubtful(edge: np.ndarray, binade: np.ndarray, past_range: Any, band: Any,
              scalar: Callable[[float], float] | None, x: np.ndarray, out: np.ndarray,
              narrowed: Callable[[np.ndarray], np.ndarray]) -> np.ndarray | None:
    """The elements whose rounding is in doubt: near a midpoint (`edge >= band`) or out of
    the binades the guess's error bound covers (`binade >= past_range`). None when there
    are none, or when only a few were near a midpoint and `scalar` redid them one by one
    (`_redo_few`). Maxima are read with `.item`: Python ints, compared without a numpy
    call."""
    top = edge.argmax()
    near_edge = edge.item(top) >= band
    out_of_range = binade.item(binade.argmax()) >= past_range
    if near_edge and not out_of_range and scalar is not None:
        near_edge = not _redo_few(scalar, x, out, edge, top, band, narrowed)
    if not (near_edge or out_of_range):
        return None
    doubtful = edge >= band
    doubtful |= binade >= past_range
    return doubtful


@functools.cache
def _astype(dtype: np.dtype) -> Callable[[np.ndarray], np.ndarray]:
    """Rounding double to a native float type: astype (one function per type: a cache key)."""
    def narrow(x: np.ndarray) -> np.ndarray:
        return x.astype(dtype)
    return narrow


_SCALAR_REDO = 16  # up to this many doubtful elements go one by one through `fn.scalar`


def _redo(fn: Kernel, x: np.ndarray, out: np.ndarray, index: np.ndarray,
          narrowed: Callable[[np.ndarray], np.ndarray]) -> None:
    """out's elements at the flat C-order positions `index` recomputed by `fn` and rounded
    once to out's type by `narrowed`. A few (or one repeated argument) go through
    `fn.scalar` (element for element what `fn` does, without its set-up), many through
    `fn`; take/put address both arrays in C order whatever their memory layout. Callers
    quiet numpy's floating-point errors (every kernel here)."""
    picked = x.take(index)
    scalar = getattr(fn, "scalar", None)
    if index.size > _SCALAR_REDO:
        bits = picked.view(_UINT[picked.itemsize])
        if (bits == bits[0]).all():  # one argument repeated (NaN padding, a -inf mask)
            first = picked[:1].astype(np.float64)
            one = [scalar(first.item())] if scalar is not None else fn(first)
            out.put(index, narrowed(np.asarray(one, np.float64)))  # put repeats the value
            return
        # results deep in the underflow (exp of a -1e9 mask): sure
        if getattr(fn, "regular_above", None) is None:
            guess = fn.ufunc(picked.astype(np.float64))  # type: ignore[attr-defined]
        else:  # (log's masked-out arguments: NaN guesses without numpy's slow lanes)
            guess = picked.astype(np.float64)
            _guesser(fn)(guess)
        deep = np.abs(guess) < _DEEP
        if deep.any():
            index, picked, guess = index[~deep], picked[~deep], guess[~deep]
        index, picked = _settle(index, picked, guess, out, narrowed)
    if scalar is not None and index.size <= _SCALAR_REDO:
        redone = np.array([scalar(v) for v in picked.tolist()], np.float64)
    else:
        redone = np.asarray(fn(picked.astype(np.float64)), np.float64)
    out.put(index, narrowed(redone))


_FEW_REDO = 4  # doubtful elements redone one by one, each found by one arg-max


def _redo_few(scalar: Callable[[float], float], x: np.ndarray, out: np.ndarray,
              edge: np.ndarray, top: Any, band: int,
              narrowed: Callable[[np.ndarray], np.ndarray]) -> bool:
    """native_kernel's near-boundary elements redone one at a time, while there are at
    most `_FEW_REDO`: `top` is the arg-max of `edge` (x's shape, C-order flat indices) and
    at or above `band`; each redone element's edge is cleared and the next arg-max taken.
    The typical array has none or one (a 64x128 tanh: one in four), and the mask, its
    indices and the gathers of `_redo` cost three times that. Each element is what `_redo`
    gives it (`scalar`, rounded once by `narrowed`). False when more remain: those are
    still marked in `edge`, the cleared ones are done."""
    for _ in range(_FEW_REDO):
        out.put(top, narrowed(np.array(scalar(x.item(top)), np.float64)))
        edge.put(top, 0)
        top = edge.argmax()
        if edge.item(top) < band:
            return True
    return False


def _settle(index: np.ndarray, picked: np.ndarray, guess: np.ndarray, out: np.ndarray,
            narrowed: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """`rounded`'s margin test on the doubtful elements the bit tests could not clear: a
    finite guess whose whole 2^-40 margin rounds to one narrow value gives that value (the
    results in the narrow type's subnormal and smallest normal binades, the ones that
    underflow to zero above _DEEP: exp of -90..-140, a softmax over distant logits). Those
    are written to `out`; the (index, picked) still doubtful are returned."""
    sure = margin_sure(guess, narrowed, _UINT[out.itemsize])
    if not sure.any():
        return index, picked
    out.put(index[sure], narrowed(guess[sure]))
    unsure = ~sure
    return index[unsure], picked[unsure]


def _rounded_any(fn: Kernel, dtype: np.dtype, x: Any,
                 narrowed: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """native_kernel's result for any input (0-d, other types), with the margin test in floats; an
    infinite or NaN guess is always recomputed (the C library's NaN sign and payload)."""
    with np.errstate(all="ignore"):
        wide = np.asarray(x).astype(np.float64)
        guess = fn.ufunc(wide)  # type: ignore[attr-defined]
        out = np.array(narrowed(guess))  # an array even for 0-d input (written below)
        sure = margin_sure(guess, narrowed, _UINT[dtype.itemsize])
    if not sure.all():
        doubtful = ~sure
        out[doubtful] = narrowed(np.asarray(fn(wide[doubtful]), np.float64))
    return out


def margin_sure(guess: np.ndarray, narrowed: Callable[[np.ndarray], np.ndarray],
                 bits: Any) -> np.ndarray:
    """Where numpy's guess decides the narrow result: it is finite and its whole 2^-40
    margin rounds to one narrow value (the C library's result is in the margin, and
    rounding is monotonic). Callers quiet numpy's floating-point errors (an infinite
    guess's margin is inf - inf)."""
    margin = np.abs(guess) * _TRUSTED
    low = np.asarray(narrowed(guess - margin))
    high = np.asarray(narrowed(guess + margin))
    sure = low.view(bits) == high.view(bits)
    sure &= np.isfinite(guess)
    return sure


_UINT = lazy(lambda: {2: np.uint16, 4: np.uint32, 8: np.uint64})


def _shaped(flat: np.ndarray, like: np.ndarray) -> Any:
    """`flat` in `like`'s shape; narrower floats rounded once to their type; 0-d -> scalar."""
    dtype = like.dtype if like.dtype.kind == "f" else np.dtype(np.float64)
    out = flat.reshape(like.shape).astype(dtype, copy=False)
    return out[()] if out.ndim == 0 else out


def _everywhere(x: np.ndarray) -> np.ndarray:
    return np.ones(x.shape, bool)


_LARGEST = sys.float_info.max
_everywhere.interval = (-_LARGEST, _LARGEST)  # type: ignore[attr-defined]  # the finite ones


def _within(low: float, high: float) -> Callable[[Any], Any]:
    """The domain of the finite arguments from `low` to `high` (both included), on arrays
    or Python floats; its `interval` lets pyscalar.py test a Python float inline."""
    def domain(x: Any) -> Any:
        return (x >= low) & (x <= high)
    domain.interval = (low, high)  # type: ignore[attr-defined]
    return domain


# Largest |x| whose exp, expm1, sinh, cosh cannot overflow (exp(709.78...) is the last finite).
_EXP_LIMIT = 709.0
_BELOW_EXP_LIMIT = math.nextafter(_EXP_LIMIT, 0.0)

exp = _unary("exp", math.exp, numpy_function("exp"), _within(-_LARGEST, _BELOW_EXP_LIMIT))
exp.underflow_below = -200.0  # type: ignore[attr-defined]  # e^-200 < 2^-288: deep
expm1 = _unary("expm1", math.expm1, numpy_function("expm1"),
               _within(-_LARGEST, _BELOW_EXP_LIMIT))
log = _unary("log", math.log, numpy_function("log"), _within(5e-324, _LARGEST), nan_below=0.0)
log.regular_above = 0.0  # type: ignore[attr-defined]
log1p = _unary("log1p", math.log1p, numpy_function("log1p"),
               _within(math.nextafter(-1.0, 0.0), _LARGEST), nan_below=-1.0)
log1p.regular_above = -1.0  # type: ignore[attr-defined]
sin = _unary("sin", math.sin, numpy_function("sin"), _everywhere)
cos = _unary("cos", math.cos, numpy_function("cos"), _everywhere)
tan = _unary("tan", math.tan, numpy_function("tan"), _everywhere)
tanh = _unary("tanh", math.tanh, numpy_function("tanh"), _everywhere)
sinh = _unary("sinh", math.sinh, numpy_function("sinh"), lambda x: abs(x) < _EXP_LIMIT)
cosh = _unary("cosh", math.cosh, numpy_function("cosh"), lambda x: abs(x) < _EXP_LIMIT)
# math.cbrt is new in Python 3.11; before, the C function itself (or numpy's) serves.
cbrt = _unary("cbrt", getattr(math, "cbrt", None)
              or _slow("cbrt", 1, lambda v: float(np.cbrt(v)), numpy_function("cbrt")),
              numpy_function("cbrt"), _everywhere)
arcsin = _unary("asin", math.asin, numpy_function("arcsin"), lambda x: abs(x) <= 1)
arccos = _unary("acos", math.acos, numpy_function("arccos"), lambda x: abs(x) <= 1)
arctan = _unary("atan", math.atan, numpy_function("arctan"), _everywhere)
arcsinh = _unary("asinh", math.asinh, numpy_function("arcsinh"), _everywhere)
arccosh = _unary("acosh", math.acosh, numpy_function("arccosh"), lambda x: x >= 1)
arctanh = _unary("atanh", math.atanh, numpy_function("arctanh"), lambda x: abs(x) < 1)
# math.atan2 answers zeros itself (as C99 does); math.pow raises on an infinite result.
arctan2 = _binary("atan2", math.atan2, numpy_function("arctan2"), lambda y, x: y != 0)


def _pow_nan(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """NaN where pow of finite arguments is NaN: a negative base to a non-integer power."""
    return np.where((x < 0) & (np.floor(y) != y), np.nan, 0.0)


power = _binary("pow", math.pow, numpy_function("power"), lambda x, y: np.ones(x.shape, bool),
                finder=_pow_nan)


def _pow_guess(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """numpy's power as `rounded`'s guess, but NaN for bases not above zero (and NaN), which
    `rounded` recomputes with the C library (numpy's power is 4x slower on those lanes)."""
    special = ~(x > 0)
    if not special.any():
        return np.power(x, y)  # type: ignore[no-any-return]
    guess = np.asarray(np.power(np.where(special, 1.0, x), y))  # (0-d inputs: a scalar)
    guess[special] = np.nan
    return guess  # type: ignore[no-any-return]


power.guess = _pow_guess  # type: ignore[attr-defined]


def _lgamma_fallback(v: float) -> float:
    """CPython's own lgamma (a Lanczos sum, off by ~1e-16 absolute near its zeros at 1 and
    2), only where ctypes finds no C library; +inf at the poles."""
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):
        return math.inf


# math.lgamma is not the C library's: every element goes to the C function (`slow`).
lgamma = _unary("lgamma", _lgamma_fallback,
                lazy_function(lambda: np.frompyfunc(_lgamma_fallback, 1, 1), "lgamma"),
                lambda x: np.zeros(x.shape, bool), invalid_nan=False)  # (no NaN for finite x)
