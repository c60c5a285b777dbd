"""Integer kernels (dialects/stablehlo/specialize_int.py) give the general evaluators' results
bit for bit: every native width, signed and unsigned, zero divisors, INT_MIN / -1, divisors
broadcast from one value, integer dots whose bounds pick float32, float64 or the general
path, mixed operand types and narrow (wrapping) result types."""

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op

from shlo_cli.dialects.stablehlo import (
    conversions,
    elementwise,
    specialize_int,
    specialize_scalar,
)

TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
         "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}


def _tensor(elem: str, shape: tuple[int, ...]) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _check(text: str, args: list[np.ndarray]) -> None:
    # (0-d operands may bind to specialize_scalar's kernels first: both hooks are compared)
    hooks = (specialize_int.bind_int, specialize_scalar.bind_scalar)
    fast, kernel = run_first_op(text, args, hooks, True)
    plain, general = run_first_op(text, args, hooks, False)
    assert kernel is not general or "broadcast_in_dim" in text
    assert fast.dtype == plain.dtype and fast.shape == plain.shape
    assert fast.tobytes() == plain.tobytes()


def _edges(dtype: np.dtype, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Random values of `dtype` with the extremes, 0, 1 and -1 at the front."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    values = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True).reshape(-1)
    front = [info.min, info.max, 0, 1, info.max - 1, 7]
    if info.min < 0:
        front += [-1, info.min + 1, -7]
    values[:len(front)] = np.array(front, np.int64 if info.min < 0 else np.uint64).astype(dtype)
    return values.reshape(shape)


def _binary(op: str, elem: str, shape: tuple[int, ...]) -> str:
    t = _tensor(elem, shape)
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.{op} %a, %b : {t}\n  func.return %0 : {t}\n}}\n")


def _by_one_value(op: str, elem: str, shape: tuple[int, ...]) -> str:
    """op(a, broadcast of a scalar b): the divisor reaches the kernel as a stride-0 view."""
    t, s = _tensor(elem, shape), _tensor(elem, ())
    return (f"func.func @main(%a: {t}, %b: {s}) -> {t} {{\n"
            f"  %0 = stablehlo.broadcast_in_dim %b, dims = [] : ({s}) -> {t}\n"
            f"  %1 = stablehlo.{op} %a, %0 : {t}\n"
            f"  func.return %1 : {t}\n}}\n")


@pytest.mark.parametrize("elem", list(TYPES))
@pytest.mark.parametrize("op", ["divide", "remainder"])
def test_divmod_matches_general_evaluator(op: str, elem: str) -> None:
    dtype = np.dtype(TYPES[elem])
    a = _edges(dtype, (6, 50), 1)
    b = _edges(dtype, (6, 50), 2)
    b[0, :9] = np.array([0, 1, 0, 2, 3, 5, 0, 1, 7]).astype(dtype)
    if dtype.kind == "i":
        b[1, :3] = -1  # a[1, :3] is INT_MIN, ..: INT_MIN / -1 among them
        a[1, :3] = np.iinfo(dtype).min
    b[2] = np.random.default_rng(3).integers(1, 9, 50).astype(dtype)  # small divisors
    _check(_binary(op, elem, (6, 50)), [a, b])
    nonzero = np.where(b == 0, dtype.type(3), b)
    _check(_binary(op, elem, (6, 50)), [a, nonzero])


@pytest.mark.parametrize("elem", list(TYPES))
@pytest.mark.parametrize("op", ["divide", "remainder"])
def test_divmod_by_one_value_matches_general_evaluator(op: str, elem: str) -> None:
    dtype = np.dtype(TYPES[elem])
    a = _edges(dtype, (4, 33), 5)
    info = np.iinfo(dtype)
    divisors = [0, 1, 2, 7, info.max, info.min] + ([-1, -2, -7] if info.min < 0 else [])
    for d in divisors:
        _check(_by_one_value(op, elem, (4, 33)), [a, np.array(d).astype(dtype)])


@pytest.mark.parametrize("elem", ["ui8", "i8"])
@pytest.mark.parametrize("op", ["divide", "remainder"])
def test_byte_divmod_by_every_one_value(op: str, elem: str) -> None:
    """Every byte divided by every byte broadcast from one value (an unsigned remainder by
    one value is a mask for a power of two, else a - (a / d) * d). 64x64: a broadcast of
    fewer elements is written out, not a view."""
    dtype = np.dtype(TYPES[elem])
    a = np.tile(np.arange(256, dtype=np.uint8).view(dtype), 16).reshape(64, 64)
    for d in range(256):
        _check(_by_one_value(op, elem, (64, 64)), [a, np.array(d, np.uint8).view(dtype)])


@pytest.mark.parametrize("elem", ["ui16", "ui32", "ui64", "i16", "i32", "i64"])
def test_remainder_by_powers_of_two_and_neighbours(elem: str) -> None:
    dtype = np.dtype(TYPES[elem])
    a = _edges(dtype, (64, 64), 6)
    bits = 8 * dtype.itemsize - (dtype.kind == "i")
    for k in range(bits):
        for d in (1 << k) - 1, 1 << k, (1 << k) + 1:
            _check(_by_one_value("remainder", elem, (64, 64)),
                   [a, np.array(d % (1 << (8 * dtype.itemsize)), np.uint64).astype(dtype)])


@pytest.mark.parametrize("op", ["divide", "remainder"])
def test_divmod_empty_and_scalar(op: str) -> None:
    empty = np.zeros((0, 3), np.int32)
    _check(_binary(op, "i32", (0, 3)), [empty, empty])
    _check(_by_one_value(op, "i32", (0, 3)), [empty, np.array(0, np.int32)])
    _check(_binary(op, "i32", ()), [np.array(-7, np.int32), np.array(2, np.int32)])


@pytest.mark.parametrize("elem", list(TYPES))
@pytest.mark.parametrize("op", ["divide", "remainder"])
def test_divmod_of_0d_values_matches_general_evaluator(op: str, elem: str) -> None:
    """0-d operands (`i % 4` in a loop) are divided as Python ints: every pair of edge
    values, zero divisors and INT_MIN / -1 among them."""
    dtype = np.dtype(TYPES[elem])
    values = _edges(dtype, (12,), 9)
    text = _binary(op, elem, ())
    for a in values:
        for b in values:
            _check(text, [np.array(a), np.array(b)])
    fast = specialize_int._divmod_kernel(dtype, op == "divide", lambda a, b: None)
    general = elementwise.divide if op == "divide" else elementwise.remainder
    for a in values[:6]:
        for b in values[:6]:  # numpy scalars, as a generated loop holds 0-d values
            ours, theirs = np.asarray(fast(a, b)), np.asarray(general(a, b))
            assert ours.shape == () and ours.dtype == theirs.dtype
            assert ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("elem", ["i32", "ui64"])
@pytest.mark.parametrize("op", ["divide", "remainder"])
def test_divmod_of_mixed_0d_array_and_scalar_skips_general_evaluator(op: str, elem: str) -> None:
    """A 0-d array with a numpy scalar (a jax shape computation: get_dimension_size's
    result divided by a folded constant) is divided as Python ints too, not by the general
    evaluator (7 such divmods were 60% of a symbolic-shape export's run)."""
    dtype = np.dtype(TYPES[elem])
    calls = []

    def general(a: object, b: object) -> None:
        calls.append((a, b))

    fast = specialize_int._divmod_kernel(dtype, op == "divide", general)
    reference = elementwise.divide if op == "divide" else elementwise.remainder
    values = _edges(dtype, (12,), 11)
    for a in values:
        for b in values:
            for x, y in ((np.array(a), b), (a, np.array(b))):
                ours, theirs = np.asarray(fast(x, y)), np.asarray(reference(x, y))
                assert ours.shape == () and ours.tobytes() == theirs.tobytes()
    assert not calls


def _unary(op: str, elem: str, shape: tuple[int, ...]) -> str:
    t = _tensor(elem, shape)
    return (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %0 = stablehlo.{op} %a : {t}\n  func.return %0 : {t}\n}}\n")


@pytest.mark.parametrize("elem", list(TYPES))
@pytest.mark.parametrize("op", ["count_leading_zeros", "popcnt", "abs", "sign"])
def test_unary_matches_general_evaluator(op: str, elem: str) -> None:
    dtype = np.dtype(TYPES[elem])
    if op in ("abs", "sign") and dtype.kind == "u":
        pytest.skip("abs and sign take signed operands")
    a = _edges(dtype, (5, 40), 7)
    width = 8 * dtype.itemsize
    powers = [(1 << i) - j for i in range(width) for j in (0, 1)]  # each bit length
    a[1:] = np.resize(np.array(powers, dtype=np.uint64).astype(dtype), (4, 40))
    a[2] >>= np.random.default_rng(1).integers(0, width, 40).astype(dtype)
    _check(_unary(op, elem, (5, 40)), [a])
    _check(_unary(op, elem, (0,)), [np.zeros(0, dtype)])
    _check(_unary(op, elem, ()), [a[0, 0].reshape(())])


def _dot(lt: str, rt: str, res: str, lshape: tuple[int, ...], rshape: tuple[int, ...],
         oshape: tuple[int, ...], dims: str) -> str:
    lt, rt, res = _tensor(lt, lshape), _tensor(rt, rshape), _tensor(res, oshape)
    return (f"func.func @main(%a: {lt}, %b: {rt}) -> {res} {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, {dims} : ({lt}, {rt}) -> {res}\n"
            f"  func.return %0 : {res}\n}}\n")


def _ints(elem: str, shape: tuple[int, ...], low: int, high: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if elem == "i1":
        return rng.random(shape) < 0.5
    return rng.integers(low, high, shape, dtype=TYPES[elem], endpoint=True)


DOT_CASES = [
    # (lhs, rhs, result, lhs range, rhs range): float32 bound, float64 bound, general path
    ("i8", "i8", "i32", (-128, 127), (-128, 127)),
    ("i8", "ui8", "i32", (-128, 127), (0, 255)),
    ("ui8", "ui8", "ui16", (0, 255), (0, 255)),  # sums past 2^16 wrap
    ("i16", "i16", "i16", (-32768, 32767), (-32768, 32767)),  # float64, wraps to i16
    ("i32", "i32", "i32", (-2 ** 31, 2 ** 31 - 1), (-2 ** 31, 2 ** 31 - 1)),  # general
    ("i32", "i32", "i8", (-300, 300), (-300, 300)),  # wraps to i8
    ("i64", "i64", "i64", (-1000, 1000), (-1000, 1000)),
    ("ui32", "ui32", "i32", (0, 2 ** 32 - 1), (0, 5)),  # operands wrap when converted
    ("i32", "i32", "ui32", (-5, 5), (-5, 5)),  # negative sums wrap to large unsigned
    ("i64", "i64", "i32", (-2 ** 40, 2 ** 40), (-1, 1)),  # converted operands wrap
    ("i1", "i8", "i32", (0, 1), (-128, 127)),
    ("ui64", "ui64", "ui64", (0, 2 ** 64 - 1), (0, 2 ** 64 - 1)),  # general
]


@pytest.mark.parametrize(("lt", "rt", "res", "lrange", "rrange"), DOT_CASES)
def test_int_dot_matches_general_evaluator(lt: str, rt: str, res: str,
                                           lrange: tuple[int, int],
                                           rrange: tuple[int, int]) -> None:
    a = _ints(lt, (9, 300), *lrange, seed=1)
    b = _ints(rt, (300, 11), *rrange, seed=2)
    _check(_dot(lt, rt, res, (9, 300), (300, 11), (9, 11),
                "contracting_dims = [1] x [0]"), [a, b])
    # batched, contracting the lhs's first dimension
    a3 = _ints(lt, (3, 40, 5), *lrange, seed=3)
    b3 = _ints(rt, (3, 40, 7), *rrange, seed=4)
    _check(_dot(lt, rt, res, (3, 40, 5), (3, 40, 7), (3, 5, 7),
                "batching_dims = [0] x [0], contracting_dims = [1] x [1]"), [a3, b3])


def test_int_dot_extremes_and_empty() -> None:
    a = np.full((4, 1024), -128, np.int8)
    b = np.full((1024, 3), -128, np.int8)  # 1024 * 2^14 = 2^24: just past float32's bound
    _check(_dot("i8", "i8", "i32", (4, 1024), (1024, 3), (4, 3),
                "contracting_dims = [1] x [0]"), [a, b])
    _check(_dot("i8", "i8", "i32", (4, 0), (0, 3), (4, 3),
                "contracting_dims = [1] x [0]"), [a[:, :0], b[:0]])
    _check(_dot("i8", "i8", "i32", (0, 5), (5, 3), (0, 3),
                "contracting_dims = [1] x [0]"), [a[:0, :5], b[:5]])


def test_legacy_dot_matches_general_evaluator() -> None:
    a, b = _ints("i8", (6, 20), -128, 127, 5), _ints("i8", (20,), -128, 127, 6)
    lt, rt, res = _tensor("i8", (6, 20)), _tensor("i8", (20,)), _tensor("i32", (6,))
    text = (f"func.func @main(%a: {lt}, %b: {rt}) -> {res} {{\n"
            f"  %0 = stablehlo.dot %a, %b : ({lt}, {rt}) -> {res}\n"
            f"  func.return %0 : {res}\n}}\n")
    _check(text, [a, b])


@pytest.mark.parametrize("source", [*TYPES, "i1"])
def test_int_convert_matches_general_evaluator(source: str) -> None:
    """Every integer pair: wrap-around when narrowing, sign or zero extension when widening;
    bools become 0 or 1; 0-d arrays and numpy scalars (a generated loop's 0-d values)."""
    dtype = np.dtype(TYPES.get(source, np.bool_))
    a = (np.arange(90).reshape(3, 30) % 3 == 0 if source == "i1"
         else _edges(dtype, (3, 30), 9))
    for target in TYPES:
        if target == source:
            continue
        for shape, value in (((3, 30), a), ((), a[0, 0]), ((), a[0, 1]), ((), a[1, 0])):
            s, t = _tensor(source, shape), _tensor(target, shape)
            text = (f"func.func @main(%a: {s}) -> {t} {{\n"
                    f"  %0 = stablehlo.convert %a : ({s}) -> {t}\n  func.return %0 : {t}\n}}\n")
            _check(text, [np.asarray(value)])
        fast = specialize_int._int_convert(dtype, np.dtype(TYPES[target]), lambda x: None)
        for value in a.reshape(-1)[:9]:  # numpy scalars
            ours = np.asarray(fast(value))
            theirs = np.asarray(conversions.convert_array(np.asarray(value),
                                                          np.dtype(TYPES[target])))
            assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes()
