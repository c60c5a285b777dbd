"""The argmax/argmin reduce kernel (specialize_argreduce) equals the general evaluator bit
for bit: JAX's bodies and other spellings of an arg-extremum (operands swapped, GE, no NaN
test, last/largest index on ties), f32/f64/f16/bf16/ints values with i32/i64/ui32 indices
(iotas and arbitrary ones with duplicates), every choice of reduced dimensions, rows longer
than the sequential limit, empty inputs, NaN (signed, payloads, all-NaN rows), +-0, +-inf
and extreme integers in data and init values; bodies that are no arg-extremum are left to
the general path."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from shlo_cli.dialects.stablehlo import specialize_argreduce
from shlo_cli.dialects.stablehlo.specialize_argreduce import ArgPolicy, body_policy
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.registry import BIND_HOOKS

ELEMS = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
         "i32": np.int32, "ui8": np.uint8, "i64": np.int64, "ui32": np.uint32, "i8": np.int8,
         "i1": np.bool_}

# Reducer bodies: %a, %b the two values (accumulator first), %i, %j their indices.
JAX_MAX = """
      %p0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<V>, tensor<V>) -> tensor<i1>
      %n = stablehlo.compare NE, %a, %a, FLOAT : (tensor<V>, tensor<V>) -> tensor<i1>
      %p = stablehlo.or %p0, %n : tensor<i1>
      %e = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<V>, tensor<V>) -> tensor<i1>
      %l = stablehlo.compare LT, %i, %j, SIGNED : (tensor<I>, tensor<I>) -> tensor<i1>
      %t = stablehlo.and %e, %l : tensor<i1>
      %q = stablehlo.or %p, %t : tensor<i1>
      %v = stablehlo.select %p, %a, %b : tensor<i1>, tensor<V>
      %k = stablehlo.select %q, %i, %j : tensor<i1>, tensor<I>
      stablehlo.return %v, %k : tensor<V>, tensor<I>"""
JAX_MIN = JAX_MAX.replace("compare GT", "compare LT")
# the same with the comparisons' operands swapped and the selects inverted
SWAPPED_MAX = """
      %p0 = stablehlo.compare LT, %b, %a : (tensor<V>, tensor<V>) -> tensor<i1>
      %n = stablehlo.compare EQ, %a, %a : (tensor<V>, tensor<V>) -> tensor<i1>
      %nn = stablehlo.not %n : tensor<i1>
      %p = stablehlo.or %nn, %p0 : tensor<i1>
      %e = stablehlo.compare EQ, %b, %a : (tensor<V>, tensor<V>) -> tensor<i1>
      %l = stablehlo.compare GT, %j, %i : (tensor<I>, tensor<I>) -> tensor<i1>
      %t = stablehlo.and %l, %e : tensor<i1>
      %q = stablehlo.or %t, %p : tensor<i1>
      %np = stablehlo.not %p : tensor<i1>
      %nq = stablehlo.not %q : tensor<i1>
      %v = stablehlo.select %np, %b, %a : tensor<i1>, tensor<V>
      %k = stablehlo.select %nq, %j, %i : tensor<i1>, tensor<I>
      stablehlo.return %v, %k : tensor<V>, tensor<I>"""
# GE keeps the first equal value and its index; no NaN test (NaN goes the general way)
GE_MIN = """
      %p = stablehlo.compare LE, %a, %b : (tensor<V>, tensor<V>) -> tensor<i1>
      %v = stablehlo.select %p, %a, %b : tensor<i1>, tensor<V>
      %k = stablehlo.select %p, %i, %j : tensor<i1>, tensor<I>
      stablehlo.return %v, %k : tensor<V>, tensor<I>"""
# ties: the value of the accumulator, the largest index
LARGEST_INDEX_MAX = """
      %p0 = stablehlo.compare GT, %a, %b : (tensor<V>, tensor<V>) -> tensor<i1>
      %n = stablehlo.compare NE, %a, %a : (tensor<V>, tensor<V>) -> tensor<i1>
      %p = stablehlo.or %p0, %n : tensor<i1>
      %e = stablehlo.compare EQ, %a, %b : (tensor<V>, tensor<V>) -> tensor<i1>
      %pv = stablehlo.or %p, %e : tensor<i1>
      %g = stablehlo.compare GT, %i, %j : (tensor<I>, tensor<I>) -> tensor<i1>
      %t = stablehlo.and %e, %g : tensor<i1>
      %q = stablehlo.or %p, %t : tensor<i1>
      %v = stablehlo.select %pv, %a, %b : tensor<i1>, tensor<V>
      %k = stablehlo.select %q, %i, %j : tensor<i1>, tensor<I>
      stablehlo.return %v, %k : tensor<V>, tensor<I>"""
# ties take the later element entirely (value and index)
LAST_MIN = """
      %p = stablehlo.compare LT, %a, %b : (tensor<V>, tensor<V>) -> tensor<i1>
      %v = stablehlo.select %p, %a, %b : tensor<i1>, tensor<V>
      %k = stablehlo.select %p, %i, %j : tensor<i1>, tensor<I>
      stablehlo.return %v, %k : tensor<V>, tensor<I>"""
BODIES = {"jax_max": JAX_MAX, "jax_min": JAX_MIN, "swapped_max": SWAPPED_MAX, "ge_min": GE_MIN,
          "largest_index_max": LARGEST_INDEX_MAX, "last_min": LAST_MIN}

# Bodies that look alike but are no arg-extremum.
NOT_ARG = {
    # the index follows the opposite choice
    "crossed": JAX_MAX.replace("select %q, %i, %j", "select %q, %j, %i"),
    # the choice made on the indices, not the values
    "value_from_index": LAST_MIN.replace("%p = stablehlo.compare LT, %a, %b",
                                         "%p = stablehlo.compare LT, %i, %j")
                                .replace("(tensor<V>, tensor<V>) -> tensor<i1>\n      %v",
                                         "(tensor<I>, tensor<I>) -> tensor<i1>\n      %v"),
    # an arithmetic op in the body
    "arith": LAST_MIN.replace("%p = stablehlo.compare LT, %a, %b",
                              "%s = stablehlo.add %a, %b : tensor<V>\n"
                              "      %p = stablehlo.compare LT, %s, %b"),
}


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _program(body: str, shape: tuple[int, ...], dims: tuple[int, ...], elem: str,
             index: str) -> str:
    out = tuple(n for d, n in enumerate(shape) if d not in dims)
    tv, ti, rv, ri = _t(shape, elem), _t(shape, index), _t(out, elem), _t(out, index)
    sv, si = _t((), elem), _t((), index)
    body = body.replace("tensor<V>", sv).replace("tensor<I>", si)
    if elem.startswith("i") or elem.startswith("ui"):
        body = body.replace(", FLOAT", "")
    return (f"func.func @main(%x: {tv}, %ix: {ti}, %x0: {sv}, %i0: {si}) -> ({rv}, {ri}) {{\n"
            f"  %r:2 = stablehlo.reduce(%x init: %x0), (%ix init: %i0) across dimensions = "
            f"[{', '.join(map(str, dims))}] : ({tv}, {ti}, {sv}, {si}) -> ({rv}, {ri})\n"
            f"   reducer(%a: {sv}, %b: {sv}) (%i: {si}, %j: {si}) {{{body}\n    }}\n"
            f"  func.return %r#0, %r#1 : {rv}, {ri}\n}}\n")


def _run(text: str, args: list, specialized: bool) -> tuple[list[np.ndarray], str]:
    saved = list(BIND_HOOKS)
    if not specialized:
        BIND_HOOKS[:] = [h for h in BIND_HOOKS if h is not specialize_argreduce.bind_argreduce]
    try:
        interpreter = Interpreter(parse_source(text))
        func = interpreter.lookup_function("main")
        out = interpreter.call(func, list(args))
        kind = " ".join(getattr(step.fn, "__qualname__", "")
                        for step in interpreter._plans[id(func.regions[0])].steps)
    finally:
        BIND_HOOKS[:] = saved
    return [np.asarray(o) for o in out], kind


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


_NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFF800001], np.uint32).view(np.float32)


def _values(rng: np.random.Generator, shape: tuple[int, ...], elem: str,
            nan: bool) -> np.ndarray:
    """Few distinct values (ties everywhere), zeros of both signs, infinities, extremes,
    NaNs of several payloads and signs, and whole rows of one value."""
    dtype = np.dtype(ELEMS[elem])
    if dtype.kind == "b":
        return rng.random(shape) < rng.random()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, info.max - 1, 7], dtype)
        x = rng.choice(pool, shape) if rng.random() < 0.5 else rng.integers(
            info.min, info.max, shape, dtype=dtype, endpoint=True)
        return np.asarray(x, dtype)
    pool = np.array([-0.0, 0.0, np.inf, -np.inf, 1.0, -1.0, 2.5], np.float32)
    if nan:
        pool = np.concatenate([pool, _NANS])
    x = rng.choice(pool, shape)
    if rng.random() < 0.5:
        x = np.where(rng.random(shape) < 0.5, rng.standard_normal(shape).astype(np.float32), x)
    flat = x.reshape(-1, shape[-1]) if shape and shape[-1] else x.reshape(-1)
    if flat.ndim == 2 and len(flat) > 2:
        flat[0] = np.float32(-0.0)
        if nan:
            flat[1] = _NANS[rng.integers(len(_NANS))]
    with np.errstate(invalid="ignore"):  # (NaN payloads narrowed to f16/bf16)
        return x.astype(dtype)


def _indices(rng: np.random.Generator, shape: tuple[int, ...], dims: tuple[int, ...],
             index: str, iota: bool) -> np.ndarray:
    dtype = np.dtype(ELEMS[index])
    if iota and dims:
        along = np.arange(shape[dims[0]]).reshape([-1 if d == dims[0] else 1
                                                   for d in range(len(shape))])
        return np.broadcast_to(along, shape).astype(dtype)
    info = np.iinfo(dtype)
    pool = np.array([info.min, info.max, 0, 1, 2, 3], dtype)
    return rng.choice(pool, shape).astype(dtype)


def _inits(elem: str) -> list:
    dtype = np.dtype(ELEMS[elem])
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [info.min, info.max, 0, 7]
    return [-np.inf, np.inf, 0.0, -0.0, 1.0, _NANS[1], _NANS[2]]


def _check(text: str, args: list, specialized: bool = True) -> None:
    got, kind = _run(text, args, True)
    want, general = _run(text, args, False)
    assert ("_kernel" in kind) == specialized and "_kernel" not in general
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert np.array_equal(_bits(g), _bits(w)), (g, w)


SHAPE = (3, 4, 5)
DIMS = [d for r in range(1, 4) for d in itertools.combinations(range(3), r)] + [(2, 0)]
CASES = [(body, elem, "i32", dims) for body in BODIES for elem in ("f32", "i32")
         for dims in DIMS]
CASES += [(body, elem, index, (2,)) for body in BODIES for elem, index in
          (("f64", "i64"), ("f16", "i32"), ("bf16", "i32"), ("ui8", "ui32"), ("i64", "i64"),
           ("f32", "ui32"))]


@pytest.mark.parametrize(("body", "elem", "index", "dims"), CASES)
def test_arg_reduce_is_the_general_path(body: str, elem: str, index: str,
                                        dims: tuple) -> None:
    text = _program(BODIES[body], SHAPE, dims, elem, index)
    rng = np.random.default_rng(abs(hash((body, elem, index, dims))) % 10_000)
    for trial, init in enumerate(_inits(elem)):
        x = _values(rng, SHAPE, elem, nan=trial % 2 == 0)
        ix = _indices(rng, SHAPE, dims, index, iota=trial % 3 != 2)
        x0 = np.asarray(init).astype(ELEMS[elem])
        i0 = np.asarray(trial % 3 - 1 if index[0] == "i" else trial).astype(ELEMS[index])
        _check(text, [x, ix, x0, i0])


@pytest.mark.parametrize("body", list(BODIES))
@pytest.mark.parametrize("shape", [(3, 1500), (1100,), (0, 4), (4, 0), (1, 1), (6,), (700, 4),
                                   (3, 200, 2)])
def test_long_short_and_empty_rows(body: str, shape: tuple) -> None:
    """Rows past the sequential limit (the general path's pairwise tree), 1-D inputs to
    0-d results, and empty inputs."""
    dims = (len(shape) - 1,)
    text = _program(BODIES[body], shape, dims, "f32", "i32")
    rng = np.random.default_rng(len(shape) * 7 + sum(shape))
    for trial, init in enumerate(_inits("f32")):
        x = _values(rng, shape, "f32", nan=trial % 2 == 1)
        ix = _indices(rng, shape, dims, "i32", iota=trial % 2 == 0)
        _check(text, [x, ix, np.float32(init), np.int32(trial)])


def test_all_nan_rows_and_first_nan_payload() -> None:
    """Rows of NaNs of different payloads: the first NaN (bits and index) wins."""
    shape = (4, 6)
    text = _program(JAX_MAX, shape, (1,), "f32", "i32")
    x = np.resize(_NANS, shape).astype(np.float32)
    x[1, :3] = 5.0
    x[2] = -0.0
    x[2, 4] = 0.0
    ix = np.broadcast_to(np.arange(6, dtype=np.int32), shape)
    for init in (-np.inf, _NANS[3], 0.0):
        _check(text, [x, ix, np.float32(init), np.int32(0)])


@pytest.mark.parametrize("name", list(NOT_ARG))
def test_other_bodies_are_left_to_the_general_path(name: str) -> None:
    text = _program(NOT_ARG[name], (2, 3), (1,), "i32", "i32")
    rng = np.random.default_rng(1)
    x = rng.integers(-3, 3, (2, 3)).astype(np.int32)
    ix = np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3))
    _check(text, [x, ix, np.int32(0), np.int32(0)], specialized=False)


@pytest.mark.parametrize(("body", "policy"), [
    (JAX_MAX, ArgPolicy(True, True, "last", "min")),
    (JAX_MIN, ArgPolicy(False, True, "last", "min")),
    (SWAPPED_MAX, ArgPolicy(True, True, "last", "min")),
    (GE_MIN, ArgPolicy(False, False, "first", "first")),
    (LARGEST_INDEX_MAX, ArgPolicy(True, True, "first", "max")),
    (LAST_MIN, ArgPolicy(False, False, "last", "last")),
])
def test_body_policy(body: str, policy: ArgPolicy) -> None:
    """The truth table of each spelling is read as the intended arg-extremum."""
    op = parse_source(_program(body, (2, 3), (1,), "f32", "i32")).body.operations[0]
    reduce = op.regions[0].entry.operations[0]
    assert body_policy(reduce.regions[0], True) == policy


@pytest.mark.parametrize("body", ["jax_max", "jax_min", "largest_index_max"])
@pytest.mark.parametrize(("shape", "dim", "index"), [
    ((4, 50), 1, "i32"), ((50, 4), 0, "i64"), ((2, 300), 1, "i8"), ((3, 1100), 1, "i32"),
    ((50,), 0, "i32"), ((7,), 0, "i64"), ((300,), 0, "i8")])
def test_iota_indices(body: str, shape: tuple, dim: int, index: str) -> None:
    """Indices from an iota along the reduced axis (JAX's argmax), which the kernel knows
    to increase, unless they wrap around in a narrow type (i8 over 300 elements); 1-D
    inputs take the one-row path."""
    text = _program(BODIES[body], shape, (dim,), "f32", index)
    ti = _t(shape, index)
    text = (text.replace(f"%ix: {ti}, ", "")
            .replace("  %r:2", f"  %ix = stablehlo.iota dim = {dim} : {ti}\n  %r:2"))
    rng = np.random.default_rng(sum(shape))
    for trial, init in enumerate(_inits("f32")):
        x = _values(rng, shape, "f32", nan=trial % 2 == 1)
        if trial % 3 == 0:
            with np.errstate(invalid="ignore"):
                x = np.round(x)  # many equal maxima
        itype = np.int8 if index == "i8" else ELEMS[index]
        for i0 in (0, -1, 2):
            _check(text, [x, np.float32(init), np.asarray(i0, itype)])


def test_flat_gather_is_take_along_axis() -> None:
    """_take_at (one flat gather) picks what take_along_axis picks, for C-contiguous rows
    and (falling back) strided ones, 1-D to 3-D, bf16 bits included."""
    rng = np.random.default_rng(9)
    for shape in [(5,), (40, 4), (3, 7, 2)]:
        base = rng.standard_normal((2,) + shape).astype(np.float32)
        for a in (base[0], base[1][..., ::-1], base.astype(ml_dtypes.bfloat16)[0]):
            k = rng.integers(0, shape[-1], shape[:-1]).astype(np.intp)
            flat = specialize_argreduce._positions(k, shape[-1])
            got = specialize_argreduce._take_at(a, flat, k)
            want = np.take_along_axis(a, k[..., None], axis=-1)[..., 0]
            assert got.shape == want.shape and got.tobytes() == want.tobytes()


# ---- the per-call fast path (specialize_argreduce_fast) ------------------------------------


def _iota_program(body: str, shape: tuple[int, ...], dim: int, elem: str, index: str) -> str:
    """_program with the indices made by an iota along the reduced axis (JAX's argmax)."""
    text = _program(body, shape, (dim,), elem, index)
    ti = _t(shape, index)
    return (text.replace(f"%ix: {ti}, ", "")
            .replace("  %r:2", f"  %ix = stablehlo.iota dim = {dim} : {ti}\n  %r:2"))


def _edge_rows(rng: np.random.Generator, x: np.ndarray, dim: int) -> np.ndarray:
    """x with whole reduced rows (along `dim`) of one value, of zeros of both signs next to
    smaller or larger values, and of one extreme value."""
    rows = np.moveaxis(x, dim, -1)  # (a view: writes land in x)
    n, kept = rows.shape[-1], rows.ndim - 1
    first, last = (0,) * kept, (-1,) * kept  # (one row of a 1-D input)
    other = (-1,) + (0,) * (kept - 1) if kept else ()
    if x.dtype.kind == "b":
        rows[first] = rng.random() < 0.5
        return x
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        rows[first], rows[last] = info.min, info.max
        return x
    with np.errstate(invalid="ignore"):
        rows[first] = rng.choice(np.array([-0.0, 0.0, np.inf, -np.inf, 1.5, _NANS[0]]))
        rows[last] = rng.choice(np.array([-0.0, 0.0, -1.0]), n)
        rows[other] = rng.choice(np.array([-0.0, 0.0, 1.0]), n)
        if kept > 1:
            rows[(0,) * (kept - 1) + (-1,)] = rng.choice(np.array([-0.0, 0.0]), n)
    return x


FAST_ELEMS = ["f32", "f16", "bf16", "f64", "i8", "i32", "ui32", "i1"]
FAST_CASES = [(body, elem, dim) for body in ("jax_max", "jax_min", "ge_min", "last_min")
              for elem in FAST_ELEMS for dim in (0, 1, 2)]


@pytest.mark.parametrize(("body", "elem", "dim"), FAST_CASES)
def test_fast_path_is_the_general_path(body: str, elem: str, dim: int) -> None:
    """Random 3-D inputs rich in ties, +-0, +-inf, NaN (both signs, several payloads),
    all-equal reduced rows and extreme integers, reduced over the first, middle or last axis
    with iota indices (i32 and i64) and arbitrary ones, contiguous and strided, every kind of
    init value: the kernel's result is the general path's, bit for bit."""
    shape = (4, 5, 6)
    rng = np.random.default_rng(abs(hash((body, elem, dim))) % 10_000)
    for trial, init in enumerate(_inits(elem) * 2):
        index = "i64" if trial % 2 else "i32"
        x = _edge_rows(rng, _values(rng, shape, elem, nan=trial % 4 < 2), dim)
        if trial % 4 == 3:
            x = np.swapaxes(np.swapaxes(x, 0, 2).copy(), 0, 2)  # (strided, same values)
        x0 = np.asarray(init).astype(ELEMS[elem])
        i0 = np.asarray([0, -1, 2][trial % 3]).astype(ELEMS[index])
        if trial % 3 != 2:
            _check(_iota_program(BODIES[body], shape, dim, elem, index), [x, x0, i0])
        else:
            text = _program(BODIES[body], shape, (dim,), elem, index)
            _check(text, [x, _indices(rng, shape, (dim,), index, False), x0, i0])


@pytest.mark.parametrize("elem", ["f32", "bf16", "i32", "i1"])
@pytest.mark.parametrize("shape", [(0, 3, 4), (3, 0, 4), (3, 4, 0), (0,), (5,)])
def test_fast_path_empty_and_vector_inputs(elem: str, shape: tuple) -> None:
    """An empty reduced axis (the init everywhere), empty kept axes, and 1-D inputs to 0-d
    results, on every axis, with an iota's indices or arbitrary ones."""
    rng = np.random.default_rng(len(shape) + sum(shape))
    for dim in range(len(shape)):
        for body in ("jax_max", "jax_min", "ge_min"):
            for init in _inits(elem):
                x = (_values(rng, shape, elem, nan=True) if 0 not in shape
                     else np.zeros(shape, ELEMS[elem]))
                args = [x, np.asarray(init).astype(ELEMS[elem]), np.int32(3)]
                if body == "ge_min":  # (indices of its own, not an iota)
                    text = _program(BODIES[body], shape, (dim,), elem, "i32")
                    args.insert(1, _indices(rng, shape, (dim,), "i32", False))
                else:
                    text = _iota_program(BODIES[body], shape, dim, elem, "i32")
                _check(text, args)


def _identity_init(body: str, dtype: np.dtype) -> object:
    """JAX's init for argmax (body jax_max) or argmin: the order's least or greatest value."""
    largest = body == "jax_max"
    if dtype.kind in "fV":
        return -np.inf if largest else np.inf
    if dtype.kind == "b":
        return not largest
    return np.iinfo(dtype).min if largest else np.iinfo(dtype).max


@pytest.mark.parametrize("elem", ["f32", "bf16", "f16", "f64", "i32", "i1"])
@pytest.mark.parametrize(("shape", "dim"), [((32, 32), 0), ((32, 32), 1), ((3, 7, 5), 1),
                                            ((200,), 0), ((2, 67, 33), 1), ((2, 67, 33), 2)])
def test_jax_argmax_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch, elem: str,
                                        shape: tuple, dim: int) -> None:
    """JAX's argmax/argmin (an iota's indices, NaN first, the lower index and the last
    equal value on ties) never needs `arg_reduce`'s row work, whatever the data (NaN, rows
    of zeros of both signs, long rows numpy's SIMD argmax scans) and the init, and agrees
    with the general path."""
    def no_row_work(*args: object) -> None:
        raise AssertionError("arg_reduce called")
    rng = np.random.default_rng(sum(shape) + dim)
    dtype = np.dtype(ELEMS[elem])
    for body in ("jax_max", "jax_min"):
        text = _iota_program(BODIES[body], shape, dim, elem, "i32")
        for trial, init in enumerate([_identity_init(body, dtype)] + _inits(elem)):
            x = _edge_rows(rng, _values(rng, shape, elem, nan=trial % 2 == 0), dim)
            args = [x, np.asarray(init).astype(dtype), np.int32([0, 0, 5, -1][trial % 4])]
            want, _ = _run(text, args, False)
            with monkeypatch.context() as patch:
                patch.setattr(specialize_argreduce, "arg_reduce", no_row_work)
                got, kind = _run(text, args, True)
            assert "_kernel" in kind
            for g, w in zip(got, want, strict=True):
                assert g.shape == w.shape and g.dtype == w.dtype
                assert np.array_equal(_bits(g), _bits(w)), (g, w)


@pytest.mark.parametrize("elem", ["f32", "f16", "f64", "i32"])
@pytest.mark.parametrize("body", sorted(BODIES))
@pytest.mark.parametrize(("shape", "dims"), [((100,), (0,)), ((1,), (0,)), ((3, 4), (0, 1)),
                                             ((4, 3), (1, 0))])
def test_one_result_fast_path_is_the_general_path(elem: str, body: str, shape: tuple,
                                                  dims: tuple) -> None:
    """A decode step's argmax to one result (`_one_row`: numpy scalars and Python tests),
    every body, rows rich in ties, zeros of both signs and NaN payloads, every init (NaN
    among them), an iota's indices and arbitrary ones: the general path's bits."""
    rng = np.random.default_rng(abs(hash((elem, body, shape, dims))) % 10_000)
    for trial, init in enumerate(_inits(elem) * 2):
        x = _values(rng, shape, elem, nan=trial % 3 == 0)
        if trial % 7 in (0, 1) and x.dtype.kind == "f":  # (with -inf and inf inits)
            x[...] = rng.choice(np.array([-0.0, 0.0], x.dtype), shape)
        x0 = np.asarray(init).astype(ELEMS[elem])
        i0 = np.int32([0, -1, 2][trial % 3])
        if len(dims) == 1 and trial % 2 == 0:
            _check(_iota_program(BODIES[body], shape, dims[0], elem, "i32"), [x, x0, i0])
        else:
            text = _program(BODIES[body], shape, dims, elem, "i32")
            _check(text, [x, _indices(rng, shape, dims, "i32", False), x0, i0])
