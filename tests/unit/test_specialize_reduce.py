"""The plan-time single-input reduce kernel (specialize_reduce) equals the general evaluator
bit for bit: add, multiply, maximum, minimum, and, or over f32/f64/f16/ints/bool, every
choice of reduced dimensions (none, leading, trailing, all, non-adjacent), empty inputs,
NaN, -0.0 and infinities in data and init values; and it is the kernel chosen."""

# ruff: noqa: E501  (MLIR test programs keep upstream line lengths)

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from bind_helpers import run_main

from shlo_cli.dialects.stablehlo import specialize_reduce
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source

ELEMS = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32,
         "ui8": np.uint8, "i8": np.int8, "i1": np.bool_, "bf16": ml_dtypes.bfloat16}


def _run(text: str, args: list, specialized: bool) -> tuple[np.ndarray, list[str]]:
    return run_main(text, args, specialize_reduce.bind_reduce, specialized)


def _t(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def _reduce(elem: str, op: str, dims: tuple, shape: tuple) -> str:
    """main: reduce %x of `shape` over `dims` by `op`, from init %i."""
    out_shape = tuple(n for i, n in enumerate(shape) if i not in dims)
    t, r, s = _t(shape, elem), _t(out_shape, elem), _t((), elem)
    return (f"func.func @main(%x: {t}, %i: {s}) -> {r} {{\n"
            f"  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.{op} across dimensions = "
            f"[{', '.join(map(str, dims))}] : ({t}, {s}) -> {r}\n"
            f"  func.return %0 : {r}\n}}\n")


def _data(rng: np.random.Generator, shape: tuple[int, ...], elem: str) -> np.ndarray:
    dtype = np.dtype(ELEMS[elem])
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 120, shape).astype(dtype)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    pool = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf], dtype)
    if flat.size:
        flat[rng.choice(flat.size, max(1, flat.size // 4), replace=False)] = rng.choice(
            pool, max(1, flat.size // 4))
    if rng.random() < 0.5:  # some inputs without NaN, so maximum's zero signs are visible
        x[np.isnan(x)] = -0.0
    return x


SHAPE = (3, 4, 5)
DIMS = [d for r in range(4) for d in itertools.combinations(range(3), r)]
OPS = {"f32": ["add", "multiply", "maximum", "minimum"], "f64": ["add", "maximum"],
       "f16": ["add", "minimum"], "i32": ["add", "multiply", "maximum", "and"],
       "ui8": ["add", "or"], "i1": ["and", "or", "add"]}
CASES = [(elem, op, dims) for elem, ops in OPS.items() for op in ops for dims in DIMS]


# larger inputs: float sums over many rows take the row-copy kernel (_sum_rows)
CASES += [(elem, "add", dims, (9, 4, 16)) for elem in ("f32", "f64", "f16") for dims in DIMS]
# and maxima over many short rows reduce the rows of a transposed copy (_extremum)
CASES += [(elem, op, dims, (9, 4, 16)) for elem, op in (("f32", "maximum"), ("f16", "minimum"),
                                                       ("i32", "maximum")) for dims in DIMS]

# rows of a large row-major matrix: the row copy is a blocked transpose (both sides >= 64)
CASES += [(elem, op, (1,), (150, 70)) for elem, op in (("f32", "add"), ("f32", "maximum"),
                                                      ("f64", "add"))]

# and extrema of rows to copy, enough of them for the copy to pay (COPY_ROWS_FROM)
CASES += [(elem, op, dims, (40, 9, 16)) for elem, op in (("f32", "maximum"),
                                                        ("f16", "minimum"), ("i32", "maximum"))
          for dims in ((2,), (1, 2), (0, 2))]
CASES += [("f32", "minimum", (1,), (300, 20))]

# rows of LONG_ROW elements or more: maxima reduce the last axis in place, no row copy
CASES += [(elem, op, dims, (12, 300)) for elem, op in (("f32", "maximum"), ("f32", "minimum"),
                                                       ("f16", "maximum"), ("i32", "minimum"))
          for dims in ((1,), (0,))]
CASES += [("f32", "maximum", (0, 2), (20, 3, 100))]
# bfloat16 maxima and minima run as f32 ones (short rows, long rows, every dims choice)
CASES += [("bf16", op, dims, shape) for op in ("maximum", "minimum")
          for dims in DIMS for shape in ((3, 4, 5), (9, 4, 16))]
CASES += [("bf16", "maximum", (1,), (12, 300))]
# float sums with one result (_sum_one_row): a vector, one row kept, a transposed row
CASES += [(elem, "add", dims, shape) for elem in ("f32", "f64", "f16")
          for dims, shape in (((0,), (40,)), ((1,), (1, 40)), ((0,), (40, 1)), ((1, 0), (3, 1)))]


# bools and integers without the error state (_exact): reduced extents of one element, an
# int8 sum that wraps, xor, an unsigned product
CASES += [(elem, op, dims, shape) for elem, op in (("i1", "and"), ("i1", "xor"), ("i8", "add"),
                                                   ("ui8", "multiply"), ("i32", "or"))
          for dims, shape in (((1,), (1, 1)), ((1,), (4, 1)), ((0, 2), (1, 3, 1)), ((0,), (1,)),
                              ((), (2, 3)), ((1,), (3, 40)))]


def _specialized(kinds: list[str]) -> bool:
    return any(("bind_reduce" in k or "_sum_rows" in k or "_extremum" in k
                or "_sum_one_row" in k or "_exact" in k) for k in kinds)


@pytest.mark.parametrize(("elem", "op", "dims", "shape"),
                         [c if len(c) == 4 else (*c, SHAPE) for c in CASES])
def test_specialized_reduce_is_the_general_path(elem: str, op: str, dims: tuple,
                                                shape: tuple) -> None:
    out_shape = tuple(n for i, n in enumerate(shape) if i not in dims)
    text = _reduce(elem, op, dims, shape)
    rng = np.random.default_rng(len(CASES) + hash((elem, op, dims)) % 1000)
    for init_value in ([0, 1] if elem in ("i32", "ui8", "i8", "i1") else [0.0, -0.0, 1.5, np.nan]):
        x = _data(rng, shape, elem)
        init = np.asarray(init_value).astype(ELEMS[elem])
        got, kinds = _run(text, [x, init], True)
        want, general = _run(text, [x, init], False)
        assert _specialized(kinds) and not _specialized(general)
        assert got.shape == want.shape == out_shape and got.dtype == want.dtype
        assert np.array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1)])
def test_specialized_reduce_empty(dims: tuple) -> None:
    shape = (0, 3)
    out_shape = tuple(n for i, n in enumerate(shape) if i not in dims)
    t, r, s = _t(shape, "f32"), _t(out_shape, "f32"), _t((), "f32")
    text = (f"func.func @main(%x: {t}, %i: {s}) -> {r} {{\n"
            f"  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = "
            f"[{', '.join(map(str, dims))}] : ({t}, {s}) -> {r}\n"
            f"  func.return %0 : {r}\n}}\n")
    args = [np.zeros(shape, np.float32), np.float32(-0.0)]
    got, _ = _run(text, args, True)
    want, _ = _run(text, args, False)
    assert got.shape == want.shape
    assert np.array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("rows", [16, 256])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_extremum_nan_payloads_follow_the_general_path(op: str, rows: int) -> None:
    """Rows holding NaNs of different payloads and signs: the result is the general path's
    NaN, bit for bit (the row-copy kernel, taken by 256 rows, recomputes rows whose result
    is NaN)."""
    shape = (rows, 8)
    t, r, s = _t(shape, "f32"), _t((rows,), "f32"), _t((), "f32")
    text = (f"func.func @main(%x: {t}, %i: {s}) -> {r} {{\n"
            f"  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.{op} across dimensions = "
            f"[1] : ({t}, {s}) -> {r}\n"
            f"  func.return %0 : {r}\n}}\n")
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape).astype(np.float32)
    payloads = np.array([0x7FC00001, 0xFFC00002, 0x7F800003, 0xFFC12345], np.uint32)
    for row in range(0, rows, 2):
        cols = rng.choice(8, 2, replace=False)
        x[row, cols] = rng.choice(payloads, 2).view(np.float32)
    got, kinds = _run(text, [x, np.float32(0.0)], True)
    want, _ = _run(text, [x, np.float32(0.0)], False)
    assert _specialized(kinds)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("elem", ["f32", "f16", "f64"])
@pytest.mark.parametrize("outer,count", [(2, 3), (3, 33), (4, 32), (5, 1000), (7, 129),
                                         (1, 3), (1, 1000)])
def test_small_sums_stay_sequential(elem: str, outer: int, count: int) -> None:
    """A few results (fewer than OUTER_FROM): the row copy (one result: the one-row
    accumulate) still sums in the sequential order of the general path's accumulate, bit
    for bit, on magnitudes where order shows."""
    t, r, s = _t((outer, count), elem), _t((outer,), elem), _t((), elem)
    text = (f"func.func @main(%x: {t}, %i: {s}) -> {r} {{\n"
            f"  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = "
            f"[1] : ({t}, {s}) -> {r}\n"
            f"  func.return %0 : {r}\n}}\n")
    rng = np.random.default_rng(outer * count)
    dtype = ELEMS[elem]
    with np.errstate(all="ignore"):
        x = (rng.standard_normal((outer, count))
             * rng.choice([1e-3, 1.0, 3e3], (outer, count))).astype(dtype)
    for init in (np.asarray(0.3, dtype), np.asarray(0.0, dtype)):
        got, kinds = _run(text, [x, init], True)
        want, _ = _run(text, [x, init], False)
        assert any(("_sum_rows" if outer > 1 else "_sum_one_row") in k for k in kinds)
        assert got.tobytes() == want.tobytes()


NON_SCALAR_INITS = {
    "plain": """
func.func @main(%x: tensor<4x4xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.reduce"(%x, %i) ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %1 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%1) : (tensor<4xf32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""",
    "argmax": """
func.func @main(%x: tensor<4x4xf32>, %i: tensor<4xf32>) -> tensor<4xi32> {
  %ix = stablehlo.iota dim = 0 : tensor<4x4xi32>
  %j = stablehlo.constant dense<0> : tensor<4xi32>
  %0:2 = "stablehlo.reduce"(%x, %ix, %i, %j) ({
  ^bb0(%a: tensor<4xf32>, %ai: tensor<4xi32>, %b: tensor<4xf32>, %bi: tensor<4xi32>):
    %1 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %2 = stablehlo.select %1, %a, %b : tensor<4xi1>, tensor<4xf32>
    %3 = stablehlo.select %1, %ai, %bi : tensor<4xi1>, tensor<4xi32>
    "stablehlo.return"(%2, %3) : (tensor<4xf32>, tensor<4xi32>) -> ()
  }) {dimensions = array<i64: 0>}
    : (tensor<4x4xf32>, tensor<4x4xi32>, tensor<4xf32>, tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xi32>)
  return %0#1 : tensor<4xi32>
}""",
}


@pytest.mark.parametrize("kind", sorted(NON_SCALAR_INITS))
def test_non_scalar_init_values_are_a_diagnostic(kind: str) -> None:
    """Upstream's verifier accepts reduce bodies on tensor<4xf32> (init values that are not
    0-d); evaluating one is refused in words, by every kernel, not an internal error."""
    module = parse_source(NON_SCALAR_INITS[kind])
    interpreter = Interpreter(module)
    with pytest.raises(Diagnostic, match="reduce with non-scalar init values cannot be "
                                         "evaluated"):
        interpreter.call(interpreter.lookup_function("main"),
                         [np.ones((4, 4), np.float32), np.zeros(4, np.float32)])


@pytest.mark.parametrize("specialized", [True, False])
@pytest.mark.parametrize(("op", "sign"), [("maximum", 0x0000), ("minimum", 0x8000)])
def test_bfloat16_extremum_of_zeros_is_ieee(op: str, sign: int, specialized: bool) -> None:
    """maximum(+0, -0) = +0 and minimum = -0 in either order, as the elementwise ops give,
    on both paths (ml_dtypes' own maximum returns its first argument for equal zeros)."""
    t, r, s = "tensor<2x2xbf16>", "tensor<2xbf16>", "tensor<bf16>"
    text = (f"func.func @main(%x: {t}, %i: {s}) -> {r} {{\n"
            f"  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.{op} across dimensions = "
            f"[1] : ({t}, {s}) -> {r}\n  func.return %0 : {r}\n}}\n")
    bf16 = ml_dtypes.bfloat16
    x = np.array([[0.0, -0.0], [-0.0, 0.0]], bf16)
    init = np.asarray(np.inf if op == "minimum" else -np.inf, bf16)
    got, _ = _run(text, [x, init], specialized)
    assert got.view(np.uint16).tolist() == [sign, sign]


@pytest.mark.parametrize(("elem", "shape", "dims"), [("i1", (1, 1), (1,)), ("i32", (3, 40), (1,)),
                                                     ("ui8", (2, 3), (0, 1))])
def test_bool_and_integer_reductions_skip_the_error_state(elem: str, shape: tuple,
                                                          dims: tuple) -> None:
    """They take `_exact` (no floating-point error state), not the general kernel."""
    x = _data(np.random.default_rng(5), shape, elem)
    _, kinds = _run(_reduce(elem, "and", dims, shape), [x, np.ones((), ELEMS[elem])], True)
    assert any("_exact" in k for k in kinds)


def test_bool_reduction_in_a_compiled_loop_is_the_general_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A masked RNN step's `all` of its (1, 1) mask row in a generated loop, whose init
    value arrives as a numpy scalar: the same results as the general evaluator's loop."""
    text = """
func.func @main(%m: tensor<6x1x1xi1>, %h: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %h) : tensor<i32>, tensor<1x4xf32>
  cond {
    %n = stablehlo.constant dense<6> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %m, %i, %z, %z, sizes = [1, 1, 1] : (tensor<6x1x1xi1>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x1xi1>
    %mask = stablehlo.reshape %row : (tensor<1x1x1xi1>) -> tensor<1x1xi1>
    %not = stablehlo.not %mask : tensor<1x1xi1>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %all = stablehlo.reduce(%not init: %t) applies stablehlo.and across dimensions = [1] : (tensor<1x1xi1>, tensor<i1>) -> tensor<1xi1>
    %b = stablehlo.broadcast_in_dim %all, dims = [0] : (tensor<1xi1>) -> tensor<1x4xi1>
    %two = stablehlo.constant dense<2.0> : tensor<1x4xf32>
    %next = stablehlo.multiply %acc, %two : tensor<1x4xf32>
    %kept = stablehlo.select %b, %acc, %next : tensor<1x4xi1>, tensor<1x4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %kept : tensor<i32>, tensor<1x4xf32>
  }
  return %r#1 : tensor<1x4xf32>
}
"""
    from loop_helpers import run_loops

    mask = np.array([True, False, True, True, False, False]).reshape(6, 1, 1)
    args = [mask, np.arange(4, dtype=np.float32).reshape(1, 4)]
    got, sources = run_loops(text, args, True, monkeypatch)
    want, _ = run_loops(text, args, False, monkeypatch)
    assert sources and np.array_equal(got[0], want[0])
    assert np.array_equal(want[0], args[1] * 2.0 ** 3)


@pytest.mark.parametrize("elem", ["f32", "f64", "i32"])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("shape", [(40, 1), (17, 7), (64, 256), (4, 5, 40), (1, 300), (8, 64, 64)])
def test_contiguous_rows_reduce_as_segments(elem: str, op: str, shape: tuple) -> None:
    """Extrema over the last axis of a row-major input (a softmax's row max) reduce its
    flat view's segments: the general path's bits (NaN, -0.0, infinities), as are those
    of a transposed input (no longer row-major: numpy's reduction of the last axis or of
    a transposed copy). 8x64x64 has enough short rows for that copy to pay (by_rows);
    1x300 too few rows for the segments (SEGMENT_ROWS_FROM)."""
    dims = (len(shape) - 1,)
    text = _reduce(elem, op, dims, shape)
    rng = np.random.default_rng(sum(shape))
    for init_value in ([0, 7] if elem == "i32" else [0.0, -0.0, -np.inf, np.nan]):
        x = _data(rng, shape, elem)
        init = np.asarray(init_value).astype(ELEMS[elem])
        for operand in (x, np.asfortranarray(x)):
            got, kinds = _run(text, [operand, init], True)
            want, _ = _run(text, [operand, init], False)
            assert _specialized(kinds)
            assert np.array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


def test_segment_extrema_with_a_nan_go_the_general_way() -> None:
    """A NaN among the segment maxima sends the call to the general kernel (whose NaN
    payload is the one to keep); without one the general kernel is not called."""
    calls = []

    def general(x: np.ndarray, init: np.generic) -> str:
        calls.append(x.shape)
        return "general"

    shape = (specialize_reduce.SEGMENT_ROWS_FROM, 50)
    kernel = specialize_reduce._extremum(general, (0, 1), True, shape, np.dtype(np.float32),
                                         True, shape)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    x[2, 4] = -0.0
    x[3, :] = -0.0
    got = kernel(x, np.float32(-np.inf))
    assert not calls and got.tobytes() == np.maximum.reduce(x, -1).tobytes()
    x[4, 17] = np.nan
    assert kernel(x, np.float32(-np.inf)) == "general" and calls == [shape]
